/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * symbols.c - kernel addresses as the kernel's symbol table names them, and the return
 * addresses of the kernel stack: what symname(), symdata(), backtrace() and the other
 * functions of tapset/backtrace.stp are made of.
 *
 * Names come from kallsyms through sprint_symbol() ("name+0xoff/0xsize [module]"), which
 * runs wherever the kernel prints an oops: no lock, no allocation.  Its text goes into the
 * context's symbol buffer (the handler owns its CPU's context).
 *
 * Stacks are walked with the kernel's own unwinder (ORC on x86-64), which checks each
 * read against the bounds of the stack it is on:
 *   - a probe with registers (kprobes, kretprobes, timer.profile in kernel mode) starts
 *     at the interrupted address (a kprobe's own address, not the ip past its int3) and
 *     goes on with its callers;
 *   - a probe without (begin, end, tracepoints, timers) walks the handler's own stack and
 *     leaves out this module's leading frames, so the first frame is the kernel code that
 *     ran the probe;
 *   - a probe that interrupted user space has no kernel stack: the backtrace is empty.
 */
#ifdef CONFIG_X86
#include <asm/unwind.h>
#else
#include <linux/stacktrace.h>
#endif

/* A symbol as kallsyms knows it; name NULL when no symbol covers the address. */
struct stp_symbol {
	const char *name;
	unsigned long offset;
	unsigned long size;
	const char *module;	/* "kernel" for the kernel's own symbols */
};

/* The symbol covering ADDR; its strings live in C's symbol buffer until the next call. */
static __maybe_unused struct stp_symbol stp_symbol_at(struct context *c, unsigned long addr)
{
	struct stp_symbol sym = { .module = "kernel" };
	char *buf = c->symbol_buf;
	char *module, *plus, *slash;

	if (!addr)
		return sym;
	sprint_symbol(buf, addr);
	module = strchr(buf, ' ');
	if (module) {			/* " [ext4]" (a build id may follow the name) */
		*module = '\0';
		module += 2;
		module[strcspn(module, " ]")] = '\0';
		sym.module = module;
	}
	plus = strrchr(buf, '+');
	slash = strrchr(buf, '/');
	if (!plus || !slash || slash < plus)	/* "0xffffffffc0201234": no symbol */
		return sym;
	*plus = '\0';
	*slash = '\0';
	if (kstrtoul(plus + 1, 16, &sym.offset) || kstrtoul(slash + 1, 16, &sym.size))
		return sym;
	sym.name = buf;
	return sym;
}

#ifdef CONFIG_X86
/* Up to MAX return addresses from UNWIND's position on; FILTER leaves out this module's
 * frames until the first other one. */
static int stp_unwind(struct unwind_state *state, unsigned long *addrs, int n, int max,
		      bool filter)
{
	for (; !unwind_done(state) && n < max; unwind_next_frame(state)) {
		unsigned long addr = unwind_get_return_address(state);

		if (!addr)
			break;
		if (filter && n == 0 && within_module(addr, THIS_MODULE))
			continue;
		addrs[n++] = addr;
	}
	return n;
}
#endif

/* The return addresses of the kernel stack at this probe (the first one the probed
 * address itself), at most MAX; how many. */
static __maybe_unused int stp_backtrace(struct context *c, unsigned long *addrs, int max)
{
	struct pt_regs *regs = c->regs;
	int n = 0;

	if (max <= 0 || (regs && user_mode(regs)))
		return 0;
#ifdef CONFIG_X86
	{
		struct unwind_state state;

		if (regs) {
			/* unwind_start() from registers begins with the caller's frame */
			addrs[n++] = c->probe_addr && !c->is_return ? c->probe_addr
								   : instruction_pointer(regs);
			unwind_start(&state, current, regs, NULL);
		} else {
			unwind_start(&state, current, NULL, NULL);
		}
		n = stp_unwind(&state, addrs, n, max, !regs);
	}
#else
	{
		unsigned int i, got = stack_trace_save(addrs, max, 0);

		while (n < got && !regs && within_module(addrs[n], THIS_MODULE))
			n++;
		for (i = n; i < got; i++)
			addrs[i - n] = addrs[i];
		n = got - n;
	}
#endif
	return n;
}

/* The task at ADDR if it is one the kernel knows (a live task_struct), else NULL; the
 * caller holds rcu_read_lock().  A script's number is never trusted as a pointer. */
static __maybe_unused struct task_struct *stp_task_checked(struct context *c, unsigned long addr)
{
	struct task_struct *task;
	pid_t pid;

	if (addr == (unsigned long)current)
		return current;
	if (stp_read_kernel(c, &pid, addr + offsetof(struct task_struct, pid), sizeof(pid)))
		return NULL;
	task = pid_task(find_pid_ns(pid, &init_pid_ns), PIDTYPE_PID);
	if ((unsigned long)task != addr) {
		stp_soft_error(c, "invalid task_struct pointer 0x%lx", addr);
		return NULL;
	}
	return task;
}

/* The return addresses of TASK's kernel stack, as stp_backtrace() gives them for the
 * current one; a task running on another CPU gives what its stack held at that moment. */
static __maybe_unused int stp_task_backtrace(struct context *c, unsigned long task_addr,
					     unsigned long *addrs, int max)
{
	struct task_struct *task;
	int n = 0;

	rcu_read_lock();
	task = stp_task_checked(c, task_addr);
	if (task == current) {
		rcu_read_unlock();
		return stp_backtrace(c, addrs, max);
	}
	/*
	 * put_task_stack() is not exported, so the stack is not pinned: a task that exits
	 * meanwhile frees its stack only after an RCU grace period (a vmapped stack, as the
	 * x86-64 kernels have), and the unwinder stays within the stack's bounds.
	 */
#if defined(CONFIG_X86) && defined(CONFIG_VMAP_STACK)
	if (task && max > 0 && task_stack_page(task) &&
	    refcount_read(&task->stack_refcount) > 0) {
		struct unwind_state state;

		unwind_start(&state, task, NULL, NULL);
		n = stp_unwind(&state, addrs, 0, max, false);
	}
#endif
	rcu_read_unlock();
	return n;
}

/* " 0xffffffff8134cc50 : vfs_read+0x0/0x310 [kernel]\n": a line of print_backtrace(). */
static __maybe_unused void stp_print_symbol_line(struct context *c, unsigned long addr)
{
	struct stp_symbol sym = stp_symbol_at(c, addr);
	char line[96];

	if (sym.name) {
		snprintf(line, sizeof(line), " 0x%016lx : ", addr);
		_stp_print(line);
		_stp_print(sym.name);
		snprintf(line, sizeof(line), "+0x%lx/0x%lx [", sym.offset, sym.size);
		_stp_print(line);
		_stp_print(sym.module);
		_stp_print("]\n");
	} else {
		snprintf(line, sizeof(line), " 0x%016lx\n", addr);
		_stp_print(line);
	}
}

/* Appends what FORMAT says of ADDR's symbol to OUT (a MAXSTRINGLEN string): 'n' the
 * name, 'd' symdata's "name+0xoff/0xsize [module]", 'b' sprint_backtrace's
 * "name+0xoff [module]\n", 'l' print_stack's line.  An address without a symbol is its
 * number ("0x..."). */
static __maybe_unused void stp_symbol_append(struct context *c, char *out, unsigned long addr,
					     char format)
{
	struct stp_symbol sym = stp_symbol_at(c, addr);
	size_t len = strlen(out);

	if (len >= MAXSTRINGLEN - 1)
		return;
	out += len;
	len = MAXSTRINGLEN - len;
	if (!sym.name) {
		snprintf(out, len, format == 'l' ? " 0x%016lx\n" : format == 'b' ? "0x%016lx\n"
				   : "0x%lx", addr);
		return;
	}
	switch (format) {
	case 'n':
		snprintf(out, len, "%s", sym.name);
		break;
	case 'd':
		snprintf(out, len, "%s+0x%lx/0x%lx [%s]", sym.name, sym.offset, sym.size,
			 sym.module);
		break;
	case 'b':
		snprintf(out, len, "%s+0x%lx [%s]\n", sym.name, sym.offset, sym.module);
		break;
	default:
		snprintf(out, len, " 0x%016lx : %s+0x%lx/0x%lx [%s]\n", addr, sym.name,
			 sym.offset, sym.size, sym.module);
	}
}

/* ADDRS[0..N) into OUT (a MAXSTRINGLEN string) in hex, separated by spaces; TRAILING
 * puts one after the last too, as backtrace() does.  What does not fit is left out. */
static __maybe_unused void stp_addresses_text(char *out, const unsigned long *addrs, int n,
					      bool trailing)
{
	size_t len = 0;
	int i;

	for (i = 0; i < n && len < MAXSTRINGLEN - 20; i++)
		len += scnprintf(out + len, MAXSTRINGLEN - len, "%s0x%lx%s",
				 i && !trailing ? " " : "", addrs[i], trailing ? " " : "");
}

/* The next number of a backtrace() string ("0xffffffff8134cc50 0x... ") at *S into ADDR,
 * moving *S past it; false at the end. */
static __maybe_unused bool stp_next_address(const char **s, unsigned long *addr)
{
	char word[24];
	size_t len;

	*s += strspn(*s, " \t\n");
	len = strcspn(*s, " \t\n");
	if (!len)
		return false;
	snprintf(word, sizeof(word), "%.*s", (int)min(len, sizeof(word) - 1), *s);
	*s += len;
	if (kstrtoul(word, 0, addr))
		*addr = 0;
	return true;
}
