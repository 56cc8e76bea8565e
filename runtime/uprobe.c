/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * uprobe.c - probes in user-space programs and libraries: process("PATH").function(...),
 * .statement(...), .return, and SDT markers (.mark), through the kernel's uprobes.
 *
 * A uprobe is registered on a file (its inode) at an offset in that file, not in a
 * process: every process that maps the file, now or later, hits it, so programs started
 * after the session are probed as well as those already running.  Pass 2 chose the
 * offset from the file's program headers; at a hit the probed address less the link-time
 * address pass 2 knew is where this process loaded the file (the user bias), which
 * target variables and SDT arguments add to a static address.
 *
 * Who a hit is for: with -c or -x only the target's process hierarchy (process.c), and for
 * a .library(...) probe only processes of its program.  A marker's semaphore is counted
 * up by the kernel in each process while its probe is registered (uprobe_register_refctr),
 * which is what lets a program skip the work of preparing a marker nobody probes.
 *
 * A .return probe is a uretprobe on the function's entry.  Its @entry values are evaluated
 * by a second uprobe after the prologue (unoptimized code has stored its parameters in the
 * frame by then; optimized code has no prologue, and both are the entry) and kept in a slot
 * of a per-probe pool, found again at the return by the thread and the canonical frame
 * address: pass 2 gave its rule there (a register plus an offset, from the call frame
 * information), and the return leaves the stack pointer at it.  A slot left behind by a
 * frame that never returned (longjmp, an exit) is taken back when that thread enters the
 * function again from as high or higher on its stack.  When every slot is taken, the
 * entry is skipped, and so is its return (counted as skipped probes).
 */
#include <linux/uprobes.h>
#include <linux/namei.h>

/* One uprobe; pass 3 writes a table of them (the fields before the run-time state). */
struct stp_uprobe_probe {
	const struct stp_probe *probe;
	const char *path;		/* the file probed, where the module runs */
	unsigned long offset;		/* in the file */
	unsigned long vaddr;		/* the probed instruction's link-time address */
	unsigned long semaphore;	/* an SDT marker's semaphore: its offset in the file */
	bool is_return;
	const char *process;		/* .library(): only processes of this program; NULL */
	const struct stp_probe *entry_probe;	/* a .return probe's @entry evaluation */
	size_t data_size;			/* and the bytes it keeps per call */
	unsigned long entry_offset, entry_vaddr;	/* where it runs */
	int cfa_regno;				/* the frame address there: a DWARF */
	long cfa_offset;			/* register plus an offset */
	/* .callee(...) at a function's entry: where the caller's calls of it return, from
	 * the probe's address; it runs only for those calls */
	const long *callers;
	int ncallers;
	const struct stp_call_chain *chain;	/* .callees(N): the frames above (callers.c) */
	/* run-time state */
	struct uprobe_consumer consumer;
	struct uprobe_consumer entry_consumer;
	stp_uprobe_handle handle, entry_handle;	/* what unregistering takes */
	struct inode *inode;
	struct inode *process_inode;
	struct stp_uprobe_slot *slots;	/* STP_UPROBE_SLOTS of them, data after each */
	bool registered;
};

#ifndef STP_UPROBE_SLOTS
#define STP_UPROBE_SLOTS 64		/* calls of one .return function in flight */
#endif

struct stp_uprobe_slot {
	atomic_long_t owner;		/* the task (0: free, 1: being filled or read) */
	unsigned long sp;		/* its stack pointer at the entry */
	char data[];
};

static size_t stp_uprobe_slot_size(const struct stp_uprobe_probe *u)
{
	return ALIGN(sizeof(struct stp_uprobe_slot) + u->data_size, sizeof(long));
}

static struct stp_uprobe_slot *stp_uprobe_slot(const struct stp_uprobe_probe *u, int i)
{
	return (struct stp_uprobe_slot *)((char *)u->slots + i * stp_uprobe_slot_size(u));
}

static bool stp_uprobe_wanted(const struct stp_uprobe_probe *u)
{
	if (!stp_task_in_target(current))
		return false;
	/* the mm keeps its executable while it runs: compared only */
	return !u->process_inode || stp_utask_mm_exe(current->mm) == u->process_inode;
}

/* Takes a free slot (or a stale one of this thread) for a call of frame address SP. */
static struct stp_uprobe_slot *stp_uprobe_take_slot(struct stp_uprobe_probe *u, unsigned long sp)
{
	long me = (long)current;

	for (int i = 0; i < STP_UPROBE_SLOTS; i++) {
		struct stp_uprobe_slot *s = stp_uprobe_slot(u, i);
		long owner = atomic_long_read(&s->owner);

		/* this thread's frame at or below SP has returned without our return probe
		 * (the stack grows down): take it back */
		if (owner == me && READ_ONCE(s->sp) <= sp &&
		    atomic_long_cmpxchg(&s->owner, me, 1) == me)
			return s;
		if (owner == 0 && atomic_long_cmpxchg(&s->owner, 0, 1) == 0)
			return s;
	}
	return NULL;
}

/* The slot of this thread's call whose frame address is SP (where the return leaves
 * the stack pointer), taken for reading; NULL if none. */
static struct stp_uprobe_slot *stp_uprobe_find_slot(struct stp_uprobe_probe *u, unsigned long sp)
{
	long me = (long)current;

	for (int i = 0; i < STP_UPROBE_SLOTS; i++) {
		struct stp_uprobe_slot *s = stp_uprobe_slot(u, i);

		if (atomic_long_read(&s->owner) == me && READ_ONCE(s->sp) == sp &&
		    atomic_long_cmpxchg(&s->owner, me, 1) == me)
			return s;
	}
	return NULL;
}

/*
 * Whether U, at a function's entry AT (where the process has it), is reached by a call
 * that returns to RET: one of its callers' (always without callers, and with
 * -DSTAP_CALLEE_MATCHALL, as stap).
 */
static bool stp_uprobe_from_caller(const struct stp_uprobe_probe *u, unsigned long at,
				   unsigned long ret)
{
#ifndef STAP_CALLEE_MATCHALL
	for (int i = 0; i < u->ncallers; i++)
		if (ret == at + u->callers[i])
			return true;
	return !u->ncallers;
#else
	return true;
#endif
}

/* At a function's entry: the return address on top of the user stack, or 0. */
static unsigned long stp_uprobe_return_address(struct pt_regs *regs)
{
	unsigned long ret = 0;

	if (stp_copy_from_user_nofault(&ret, (const void __user *)user_stack_pointer(regs),
				       sizeof(ret)))
		return 0;
	return ret;
}

static int stp_uprobe_handler(struct uprobe_consumer *self, struct pt_regs *regs)
{
	struct stp_uprobe_probe *u = container_of(self, struct stp_uprobe_probe, consumer);
	struct stp_hit hit = {
		.regs = regs, .addr = instruction_pointer(regs),
		.user_bias = instruction_pointer(regs) - u->vaddr,
	};

	if (!stp_uprobe_wanted(u))
		return 0;
	if (u->chain ? stp_call_chain_matches(u->chain, instruction_pointer(regs),
					      user_stack_pointer(regs), regs->bp, true) :
	    (!u->ncallers || stp_uprobe_from_caller(u, instruction_pointer(regs),
						    stp_uprobe_return_address(regs))))
		stp_probe_run_hit(u->probe, STP_SESSION_RUNNING, &hit);
	return 0;
}

/* A .return probe's function is past its prologue: its @entry values are kept. */
static int stp_uprobe_entry_handler(struct uprobe_consumer *self, struct pt_regs *regs)
{
	struct stp_uprobe_probe *u = container_of(self, struct stp_uprobe_probe,
						  entry_consumer);
	unsigned long cfa = 0;
	struct stp_hit hit = {
		.regs = regs, .addr = instruction_pointer(regs),
		.user_bias = instruction_pointer(regs) - u->entry_vaddr,
	};
	struct stp_uprobe_slot *s;

	if (!stp_uprobe_wanted(u) ||
	    (u->ncallers && !stp_uprobe_from_caller(u, instruction_pointer(regs),
						    stp_uprobe_return_address(regs))))
		return 0;
	stp_regs_dwarf_register(regs, u->cfa_regno, &cfa);	/* pass 2 chose one there is */
	cfa += u->cfa_offset;
	s = stp_uprobe_take_slot(u, cfa);
	if (!s) {
		atomic64_inc(&stp_skipped_count);
		return 0;
	}
	memset(s->data, 0, u->data_size);
	s->sp = cfa;
	hit.kept = s->data;
	stp_probe_run_hit(u->entry_probe, STP_SESSION_RUNNING, &hit);
	atomic_long_set(&s->owner, (long)current);
	return 0;
}

static int stp_uretprobe_handler(struct uprobe_consumer *self, unsigned long func,
				 struct pt_regs *regs)
{
	struct stp_uprobe_probe *u = container_of(self, struct stp_uprobe_probe, consumer);
	struct stp_hit hit = {
		.regs = regs, .is_return = true, .addr = func, .user_bias = func - u->vaddr,
	};
	struct stp_uprobe_slot *s = NULL;

	/* a callee's: the call returns to one of its callers' places (the ip now) */
	if (!stp_uprobe_wanted(u) || !stp_uprobe_from_caller(u, func, instruction_pointer(regs)))
		return 0;
	if (u->entry_probe) {
		s = stp_uprobe_find_slot(u, user_stack_pointer(regs));
		if (!s) {	/* its entry was skipped: nothing kept to run with */
			atomic64_inc(&stp_skipped_count);
			return 0;
		}
		hit.kept = s->data;
	}
	stp_probe_run_hit(u->probe, STP_SESSION_RUNNING, &hit);
	if (s)
		atomic_long_set(&s->owner, 0);
	return 0;
}

/* The inode of PATH where the module runs, referenced; an ERR_PTR if it is not there. */
static struct inode *stp_uprobe_inode(const char *path)
{
	struct path p;
	struct inode *inode;
	int rc = kern_path(path, LOOKUP_FOLLOW, &p);

	if (rc)
		return ERR_PTR(rc);
	inode = igrab(d_inode(p.dentry));
	path_put(&p);
	if (!inode)
		return ERR_PTR(-ENOENT);
	if (!S_ISREG(inode->i_mode)) {
		iput(inode);
		return ERR_PTR(-EINVAL);
	}
	return inode;
}

static void stp_uprobe_release(struct stp_uprobe_probe *u)
{
	if (u->inode && !IS_ERR(u->inode))
		iput(u->inode);
	if (u->process_inode && !IS_ERR(u->process_inode))
		iput(u->process_inode);
	u->inode = u->process_inode = NULL;
	vfree(u->slots);
	u->slots = NULL;
}

static int stp_uprobe_register_one(struct stp_uprobe_probe *u)
{
	int rc;

	memset(&u->consumer, 0, sizeof(u->consumer));
	memset(&u->entry_consumer, 0, sizeof(u->entry_consumer));
	u->inode = stp_uprobe_inode(u->path);
	if (IS_ERR(u->inode))
		goto fail;
	if (u->process) {
		u->process_inode = stp_uprobe_inode(u->process);
		if (IS_ERR(u->process_inode))
			goto fail;
	}
	if (u->is_return && u->entry_probe) {
		u->slots = vzalloc(STP_UPROBE_SLOTS * stp_uprobe_slot_size(u));
		if (!u->slots) {
			rc = -ENOMEM;
			goto out;
		}
	}
	if (u->is_return)
		u->consumer.ret_handler = stp_uretprobe_handler;
	else
		u->consumer.handler = stp_uprobe_handler;
	if (u->entry_probe) {
		u->entry_consumer.handler = stp_uprobe_entry_handler;
		rc = stp_uprobe_register(u->inode, u->entry_offset, 0, &u->entry_consumer,
					 &u->entry_handle);
		if (rc)
			goto out;
	}
	rc = stp_uprobe_register(u->inode, u->offset, u->semaphore, &u->consumer, &u->handle);
	if (rc && u->entry_probe) {
		stp_uprobe_unregister_nosync(u->inode, u->entry_offset, &u->entry_consumer,
					     u->entry_handle);
		stp_uprobe_unregister_sync();	/* before the slots go */
	}
	goto out;
fail:
	rc = IS_ERR(u->inode) ? PTR_ERR(u->inode) : PTR_ERR(u->process_inode);
	if (rc == -ENOENT)
		_stp_warn("cannot probe %s: %s is not there (rc %d)", u->probe->point,
			  IS_ERR(u->inode) ? u->path : u->process, rc);
out:
	if (rc && !(rc == -ENOENT && (IS_ERR(u->inode) || IS_ERR(u->process_inode))))
		_stp_warn("probe %s registration error (rc %d)", u->probe->point, rc);
	if (rc)
		stp_uprobe_release(u);
	return rc;
}

static __maybe_unused void stp_uprobes_unregister(struct stp_uprobe_probe *probes, size_t count)
{
	bool any = false;

	for (size_t i = 0; i < count; i++) {
		struct stp_uprobe_probe *u = &probes[i];

		if (!u->registered)
			continue;
		stp_uprobe_unregister_nosync(u->inode, u->offset, &u->consumer, u->handle);
		if (u->entry_probe)
			stp_uprobe_unregister_nosync(u->inode, u->entry_offset, &u->entry_consumer,
						     u->entry_handle);
		any = true;
	}
	/* then no handler of ours runs or will: the probes' state can go */
	if (any)
		stp_uprobe_unregister_sync();
	for (size_t i = 0; i < count; i++) {
		struct stp_uprobe_probe *u = &probes[i];

		if (!u->registered)
			continue;
		u->registered = false;
		stp_uprobe_release(u);
	}
}

/* Like kprobes: a probe that fails is a warning (stp_uprobe_register_one() says it), and
 * only all failing fails the start. */
static __maybe_unused int stp_uprobes_register(struct stp_uprobe_probe *probes, size_t count)
{
	size_t ok = 0;
	int rc = 0;

	for (size_t i = 0; i < count; i++) {
		int err = stp_uprobe_register_one(&probes[i]);

		if (err) {	/* said */
			rc = err;
			continue;
		}
		probes[i].registered = true;
		ok++;
	}
	if (ok == 0 && count > 0) {
		_stp_error("no uprobe could be registered (rc %d)", rc);
		return rc;
	}
	return 0;
}
