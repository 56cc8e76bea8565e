/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * usymbols.c - user-space addresses as symbols, and backtraces of the user stack: what
 * usymname(), usymdata(), umodname(), ubacktrace() and the other functions of
 * tapset/ubacktrace.stp are made of.  Compiled only when the script uses them
 * (STP_USYMBOLS, which pass 3 defines).
 *
 * Pass 3 (src/translate/user_symbols_c.c, from what src/debuginfo/user_symbols.c read)
 * writes one table per program or library the module knows:
 * the files the script probes, those named with -d PATH, and with --ldd the libraries they
 * need.  Each has its path where the module runs, its PT_LOAD segments, its function
 * and object symbols (start addresses sorted, a symbol reaching to the next one's start
 * and the last one to the end of the file's range, as stap sizes them; names in one
 * string table) and an unwind table from its call frame
 * information: sorted start addresses, each with a rule for the frame there (the CFA as
 * a DWARF register plus an offset, and where the caller's rbp was saved, if it was).
 * Addresses are link-time addresses less the file's lowest one (LOW), in 32 bits.
 *
 * Which file holds an address of the current process: the VMA that maps it (find_vma()),
 * whose file's inode is compared with each table's (kern_path() at the start of the
 * session, as runtime/uprobe.c does).  find_vma() needs the mmap lock, which a probe
 * handler may not wait for: it is only tried (mmap_read_trylock()), and when that fails
 * (a writer holds or waits for the lock) the address stays a number, as for a file the
 * module has no table for.  With interrupts disabled (kprobes from int3, timer.profile,
 * NMIs) the lock may not be released there (up_read() may wake a waiter, which takes
 * scheduler locks): it is released by an irq_work on the same CPU as soon as interrupts
 * come back, as the kernel's BPF stack maps do, and the lookups until then use it.
 *
 * Unwinding starts from the probe's user registers: a uprobe's own, else (a kernel probe,
 * a timer) the registers the task entered the kernel with (task_pt_regs).  Each step
 * looks up the rule of the frame's address (a return address less one: the call), takes
 * CFA = register + offset (rsp and rbp are followed from frame to frame; the first frame
 * knows every register), reads the return address at CFA - 8 and the saved rbp where the
 * rule says, with the fault-safe user reads, and goes on with sp = CFA.  It stops at an
 * address no table covers (which is still listed), a rule it cannot follow (a CFA given
 * as a DWARF expression other than a PLT's: signal frames, stack realignment), a stack
 * pointer that does not grow, a zero return address, a read fault, or MAXBACKTRACE
 * frames.  No allocation, and at most MAXBACKTRACE lookups of a VMA, a file and a rule.
 *
 * What it does not do: follow a return address that a uretprobe replaced with its
 * trampoline (the backtrace ends there, as stap's does), name files it has no table for
 * (stap 4.8 names them from its record of the process's mappings: "[/path+0xoff/0xsize]";
 * here they are numbers), or fall back on frame pointers where no table covers the code.
 */
#ifdef STP_USYMBOLS

#include <linux/irq_work.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/namei.h>
#include <linux/sched/task_stack.h>

/* A PT_LOAD segment: where it starts in the file, its link-time address and its size in
 * memory (a mapping of the file covers the zeroed part in its last page too). */
struct stp_usym_segment {
	unsigned long offset, vaddr, size;
	bool exec;
};

/* One program or library, as pass 3 writes it (the inode is found at the start). */
struct stp_usym_file {
	const char *path;		/* where the module runs */
	const char *name;		/* its last component */
	unsigned long low;		/* lowest link-time address (page-aligned) */
	unsigned long size;		/* of the address range its segments span */
	const struct stp_usym_segment *segments;
	unsigned int nsegments;
	const u32 *sym_addrs;		/* nsyms + 1 addresses from LOW: the starts, then the end
					 * of the last symbol (of the file's range) */
	const u32 *sym_names;		/* offsets in the string table */
	unsigned int nsyms;
	const u32 *unwind_addrs;	/* nunwind addresses from LOW, sorted */
	const u32 *unwind_rules;	/* the rule from each address on (STP_UNWIND_*) */
	unsigned int nunwind;
	const u32 *line_addrs;		/* nlines addresses from LOW, sorted: from each on, */
	const u32 *line_files;		/* the source file (an offset in the string table) */
	const u32 *line_numbers;	/* and line (0: none, past a sequence's end) */
	unsigned int nlines;
	const char *build_id;		/* its GNU build-id in hex, "" without one */
	struct inode *inode;		/* NULL: not there where the module runs */
};

/* An unwind rule: CFA = DWARF register + offset; rbp saved at CFA - 8 * slot. */
#define STP_UNWIND_REG(r)	((r) & 0x1f)
#define STP_UNWIND_NONE		0x1f		/* no rule here: the unwinding stops */
#define STP_UNWIND_PLT		17		/* a PLT entry: CFA = rsp + 8, + 8 from
						 * (rip & 15) >= offset on (its push) */
#define STP_UNWIND_BP_SLOT(r)	(((r) >> 5) & 0xf)
#define STP_UNWIND_BP_SAME	0		/* rbp is the caller's */
#define STP_UNWIND_BP_LOST	0xf		/* the caller's rbp cannot be found */
#define STP_UNWIND_OFFSET(r)	((r) >> 9)

static struct stp_usym_file *stp_usym_files;
static unsigned int stp_usym_nfiles;
static const char *stp_usym_strings;

/* ---- the mmap lock, tried and released where that is safe ---- */

#define STP_USYM_DEFERRED_MAX 8

/* Per CPU: the mms whose read lock an irq_work releases; (void *)1 marks a slot in use. */
struct stp_usym_unlocks {
	struct irq_work work;
	struct mm_struct *mm[STP_USYM_DEFERRED_MAX];
};
static DEFINE_PER_CPU(struct stp_usym_unlocks, stp_usym_unlocks);
#define STP_USYM_RESERVED ((struct mm_struct *)1UL)

static void stp_usym_unlock_work(struct irq_work *work)
{
	struct stp_usym_unlocks *u = container_of(work, struct stp_usym_unlocks, work);
	int i;

	for (i = 0; i < STP_USYM_DEFERRED_MAX; i++) {
		struct mm_struct *mm = READ_ONCE(u->mm[i]);

		if (mm && mm != STP_USYM_RESERVED && cmpxchg(&u->mm[i], mm, NULL) == mm)
			mmap_read_unlock_non_owner(mm);
	}
}

/*
 * A read lock of MM for a lookup: -1 none, STP_USYM_DEFERRED_MAX taken directly,
 * STP_USYM_BORROWED one this CPU holds already, else the slot of this CPU whose irq_work
 * will release it.  With interrupts off, a lock an earlier lookup took is still held until
 * that irq_work runs, which cannot happen before interrupts are on again: later lookups
 * use it (the irq_work clears the slot before it lets go of the lock, and an NMI that
 * interrupts it runs to its end first).
 */
#define STP_USYM_BORROWED (STP_USYM_DEFERRED_MAX + 1)

static int stp_usym_lock(struct mm_struct *mm)
{
	struct stp_usym_unlocks *u;
	int i;

	if (!mm)
		return -1;
	if (!irqs_disabled())
		return mmap_read_trylock(mm) ? STP_USYM_DEFERRED_MAX : -1;
	u = this_cpu_ptr(&stp_usym_unlocks);
	for (i = 0; i < STP_USYM_DEFERRED_MAX; i++)
		if (READ_ONCE(u->mm[i]) == mm)
			return STP_USYM_BORROWED;
	for (i = 0; i < STP_USYM_DEFERRED_MAX; i++)
		if (cmpxchg(&u->mm[i], NULL, STP_USYM_RESERVED) == NULL)
			break;
	if (i == STP_USYM_DEFERRED_MAX)
		return -1;
	if (!mmap_read_trylock(mm)) {
		WRITE_ONCE(u->mm[i], NULL);
		return -1;
	}
	return i;
}

static void stp_usym_unlock(struct mm_struct *mm, int lock)
{
	struct stp_usym_unlocks *u;

	if (lock < 0 || lock == STP_USYM_BORROWED)
		return;
	if (lock == STP_USYM_DEFERRED_MAX) {
		mmap_read_unlock(mm);
		return;
	}
	u = this_cpu_ptr(&stp_usym_unlocks);
	WRITE_ONCE(u->mm[lock], mm);
	irq_work_queue(&u->work);
}

/* ---- addresses to files, symbols and rules ---- */

/* Where an address is: its file (NULL: none the module knows) and its address there. */
struct stp_uaddr {
	const struct stp_usym_file *file;
	unsigned long rel;		/* link-time address less the file's LOW */
};

/* Whether the link-time address LINK of F is where VMA (of F's file) maps it: F's first
 * executable segment is then mapped at the same distance from it. */
static bool stp_usym_same_load(struct mm_struct *mm, const struct stp_usym_file *f,
			       unsigned long addr, unsigned long link)
{
	unsigned int i;

	for (i = 0; i < f->nsegments; i++) {
		const struct stp_usym_segment *s = &f->segments[i];
		struct vm_area_struct *vma;
		unsigned long text;

		if (!s->exec)
			continue;
		text = addr - link + s->vaddr;
		vma = find_vma(mm, text);
		return vma && vma->vm_start <= text && vma->vm_file &&
		       file_inode(vma->vm_file) == f->inode && (vma->vm_flags & VM_EXEC);
	}
	return false;
}

/*
 * The file of ADDR in MM (whose lock the caller holds), or false.  The VMA's file offset
 * is in a segment's pages, mapped executable as the segment is; two segments may share a
 * page of the file (read-only data, then the start of the writable data): the one whose
 * placement agrees with where the file's code is mapped.
 */
static bool stp_usym_locate(struct mm_struct *mm, unsigned long addr, struct stp_uaddr *out)
{
	struct vm_area_struct *vma = find_vma(mm, addr);
	const struct stp_usym_file *f = NULL;
	unsigned long offset, link = 0;
	unsigned int i, found = 0;
	struct inode *inode;

	out->file = NULL;
	if (!vma || vma->vm_start > addr || !vma->vm_file)
		return false;
	inode = file_inode(vma->vm_file);
	for (i = 0; i < stp_usym_nfiles && !f; i++)
		if (stp_usym_files[i].inode == inode)
			f = &stp_usym_files[i];
	if (!f)
		return false;
	offset = addr - vma->vm_start + (vma->vm_pgoff << PAGE_SHIFT);
	for (i = 0; i < f->nsegments; i++) {
		const struct stp_usym_segment *s = &f->segments[i];
		unsigned long candidate = offset - s->offset + s->vaddr;

		if (offset < (s->offset & PAGE_MASK) ||
		    offset >= PAGE_ALIGN(s->offset + s->size) ||
		    s->exec != !!(vma->vm_flags & VM_EXEC))
			continue;
		if (!found++)
			link = candidate;
		else if (!stp_usym_same_load(mm, f, addr, link) &&
			 stp_usym_same_load(mm, f, addr, candidate))
			link = candidate;
	}
	if (!found || link < f->low || link - f->low >= f->size)
		return false;
	out->file = f;
	out->rel = link - f->low;
	return true;
}

/* The file of ADDR in the current process, taking the lock for this lookup only. */
static bool stp_usym_find(unsigned long addr, struct stp_uaddr *out)
{
	struct mm_struct *mm = current->mm;
	int lock;
	bool found;

	out->file = NULL;
	if (!stp_usym_nfiles || !mm || (current->flags & PF_KTHREAD))
		return false;
	lock = stp_usym_lock(mm);
	if (lock < 0)
		return false;
	found = stp_usym_locate(mm, addr, out);
	stp_usym_unlock(mm, lock);
	return found;
}

/*
 * Link-time address LINK of the program or library at PATH, where the current process
 * has it mapped: stap's @var("name", "PATH") read outside a probe of PATH (a function, a
 * timer, another file's probe).  The VMA of the file's inode that maps a segment's first
 * page gives the load bias.  0 when the process does not map it, the mmap lock is taken,
 * or the module has no table of it: the read then faults, as an error.
 */
static __maybe_unused u64 stp_user_file_address(struct context *c, const char *path, u64 link)
{
	const struct stp_usym_file *f = NULL;
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	unsigned int i;
	u64 placed = 0;
	int lock;

	for (i = 0; i < stp_usym_nfiles && !f; i++)
		if (stp_usym_files[i].inode && strcmp(stp_usym_files[i].path, path) == 0)
			f = &stp_usym_files[i];
	if (!f || !mm || (current->flags & PF_KTHREAD))
		return 0;
	lock = stp_usym_lock(mm);
	if (lock < 0)
		return 0;
	{
		VMA_ITERATOR(vmi, mm, 0);

		for_each_vma(vmi, vma) {
			unsigned long offset = vma->vm_pgoff << PAGE_SHIFT;

			if (!vma->vm_file || file_inode(vma->vm_file) != f->inode)
				continue;
			for (i = 0; i < f->nsegments && !placed; i++)
				if ((f->segments[i].offset & PAGE_MASK) == offset)
					placed = link + vma->vm_start -
						 (f->segments[i].vaddr & PAGE_MASK);
			if (placed)
				break;
		}
	}
	stp_usym_unlock(mm, lock);
	return placed;
}

/* The index of the last of the COUNT sorted ADDRS at or before REL, or -1. */
static int stp_usym_search(const u32 *addrs, unsigned int count, unsigned long rel)
{
	int lo = 0, hi = (int)count - 1, best = -1;

	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;

		if (addrs[mid] <= rel) {
			best = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return best;
}

/* The symbol holding LOC: its name, the offset into it and its size; false if none. */
static bool stp_usym_symbol(const struct stp_uaddr *loc, const char **name,
			    unsigned long *offset, unsigned long *size)
{
	const struct stp_usym_file *f = loc->file;
	int i;

	if (!f || !f->nsyms)
		return false;
	i = stp_usym_search(f->sym_addrs, f->nsyms, loc->rel);
	if (i < 0 || loc->rel >= f->sym_addrs[i + 1])
		return false;
	*name = stp_usym_strings + f->sym_names[i];
	*offset = loc->rel - f->sym_addrs[i];
	/* each reaches to the next; the last one's size is 0, as stap says it */
	*size = i + 1 < (int)f->nsyms ? f->sym_addrs[i + 1] - f->sym_addrs[i] : 0;
	return true;
}

/* The source file and line of LOC (the line row at or before it), or false if none. */
static __maybe_unused bool stp_usym_line(const struct stp_uaddr *loc, const char **file,
					 unsigned int *line)
{
	const struct stp_usym_file *f = loc->file;
	int i;

	if (!f || !f->nlines)
		return false;
	i = stp_usym_search(f->line_addrs, f->nlines, loc->rel);
	if (i < 0 || !f->line_numbers[i])
		return false;
	*file = stp_usym_strings + f->line_files[i];
	*line = f->line_numbers[i];
	return true;
}

/* ---- unwinding ---- */

/* One frame of a user backtrace: its address and where that is. */
struct stp_uframe {
	unsigned long addr;
	struct stp_uaddr loc;
};

/* The user registers the current task has at this probe, or NULL (a kernel thread). */
static struct pt_regs *stp_usym_user_regs(struct context *c)
{
	if (c->regs && user_mode(c->regs))
		return c->regs;
	if (current->mm && !(current->flags & PF_KTHREAD))
		return task_pt_regs(current);
	return NULL;
}

/*
 * The frames of the user stack from PC, SP and BP (REGS: every register of the first
 * frame, or NULL), at most MAX; how many.  The first is PC itself.
 */
static int stp_uunwind(struct pt_regs *regs, unsigned long pc, unsigned long sp,
		       unsigned long bp, struct stp_uframe *frames, int max)
{
	struct mm_struct *mm = current->mm;
	bool bp_known = true;
	int n = 0, lock;

	if (max <= 0 || !mm || (current->flags & PF_KTHREAD))
		return 0;
	/* the tables' rules are x86-64's: a 32-bit process gets its first frame only */
#ifdef CONFIG_X86_64
	if (!user_64bit_mode(regs ? regs : task_pt_regs(current)))
		max = 1;
#else
	max = 1;
#endif
	lock = stp_usym_nfiles ? stp_usym_lock(mm) : -1;
	frames[n].addr = pc;
	frames[n].loc.file = NULL;
	if (lock >= 0)
		stp_usym_locate(mm, pc, &frames[n].loc);
	for (n = 1; n < max; n++) {
		const struct stp_uframe *f = &frames[n - 1];
		struct stp_uaddr at = f->loc;
		unsigned long cfa, base, ra, rule;
		unsigned int slot;
		int i, reg;

		if (!at.file)
			break;
		/* a return address is just past its call, which may end the function */
		if (n > 1 && at.rel > 0)
			at.rel--;
		i = stp_usym_search(at.file->unwind_addrs, at.file->nunwind, at.rel);
		if (i < 0)
			break;
		rule = at.file->unwind_rules[i];
		reg = STP_UNWIND_REG(rule);
		if (reg == STP_UNWIND_NONE)
			break;
		if (reg == STP_UNWIND_PLT) {
			/* only at the exact address (no call returns into a PLT) */
			if (n > 1)
				break;
			cfa = sp + 8 + ((pc & 15) >= STP_UNWIND_OFFSET(rule) ? 8 : 0);
		} else {
			if (reg == 7)
				base = sp;
			else if (reg == 6 && bp_known)
				base = bp;
			else if (n > 1 || !regs || !stp_regs_dwarf_register(regs, reg, &base))
				break;
			cfa = base + STP_UNWIND_OFFSET(rule);
		}
		if (cfa <= sp || stp_read_user(NULL, &ra, cfa - 8, sizeof(ra)) || !ra)
			break;
		slot = STP_UNWIND_BP_SLOT(rule);
		if (slot == STP_UNWIND_BP_LOST)
			bp_known = false;
		else if (slot != STP_UNWIND_BP_SAME)
			bp_known = !stp_read_user(NULL, &bp, cfa - 8 * slot, sizeof(bp));
		sp = cfa;
		frames[n].addr = ra;
		frames[n].loc.file = NULL;
		if (lock >= 0)
			stp_usym_locate(mm, ra, &frames[n].loc);
		regs = NULL;
	}
	if (lock >= 0)
		stp_usym_unlock(mm, lock);
	return n;
}

/* The frames of the user stack at this probe, at most MAX (0 without user space). */
static __maybe_unused int stp_ubacktrace(struct context *c, struct stp_uframe *frames, int max)
{
	struct pt_regs *regs = stp_usym_user_regs(c);

	if (!regs)
		return 0;
	return stp_uunwind(regs, instruction_pointer(regs), user_stack_pointer(regs),
			   regs->bp, frames, max);
}

/* ---- text ---- */

/*
 * Appends what FORMAT says of the address of frame F to OUT (of SIZE bytes), as stap
 * writes user addresses:
 *   'n' usymname:          "inner"                          or "0x55d0..."
 *   'd' usymdata:          "inner+0x1a/0x1f [/usr/bin/uprog]", a file without a symbol
 *                          there "0x55d0... [/usr/bin/uprog+0x1234/0x5000]", else "0x55d0..."
 *   'l' print_ubacktrace:  " 0x55d0... : " and usymdata, or " 0x55d0... [/usr/bin/uprog+...]"
 *   'b' brief:             "inner+0x1a", else "0x55d0..."
 *   's' sprint_ubacktrace: "inner+0x1a [uprog]", "0x55d0... [uprog+0x1234]", "0x55d0..."
 *   'f' print_ubacktrace_fileline: as 'l', with " at FILE:LINE" before " [path]" when
 *                          the file's line table has the address
 *   'F' usymfileline:      "FILE:LINE", 'L' usymline: "LINE", 'S' usymfile: "FILE";
 *                          "0x55d0..." where the line table does not have the address
 * The line formats ('l', 'f', 'b', 's') end in a newline.
 */
static void stp_uframe_text(char *out, size_t size, const struct stp_uframe *f, char format)
{
	const struct stp_usym_file *file = f->loc.file;
	const char *name, *src = NULL;
	unsigned long offset, symsize;
	unsigned int line = 0;
	size_t len = strlen(out);

	if (len >= size - 1)
		return;
	out += len;
	size -= len;
	if (format == 'f' || format == 'F' || format == 'L' || format == 'S')
		stp_usym_line(&f->loc, &src, &line);
	if (format == 'F' || format == 'L' || format == 'S') {
		if (!src)
			snprintf(out, size, "0x%lx", f->addr);
		else if (format == 'F')
			snprintf(out, size, "%s:%u", src, line);
		else if (format == 'L')
			snprintf(out, size, "%u", line);
		else
			snprintf(out, size, "%s", src);
		return;
	}
	if (stp_usym_symbol(&f->loc, &name, &offset, &symsize)) {
		switch (format) {
		case 'n':
			snprintf(out, size, "%s", name);
			break;
		case 'd':
			snprintf(out, size, "%s+0x%lx/0x%lx [%s]", name, offset, symsize, file->path);
			break;
		case 'l':
			snprintf(out, size, " 0x%lx : %s+0x%lx/0x%lx [%s]\n", f->addr, name, offset,
				 symsize, file->path);
			break;
		case 'f':
			if (src)
				snprintf(out, size, " 0x%lx : %s+0x%lx/0x%lx at %s:%u [%s]\n", f->addr,
					 name, offset, symsize, src, line, file->path);
			else
				snprintf(out, size, " 0x%lx : %s+0x%lx/0x%lx [%s]\n", f->addr, name,
					 offset, symsize, file->path);
			break;
		case 'b':
			snprintf(out, size, "%s+0x%lx\n", name, offset);
			break;
		default:
			snprintf(out, size, "%s+0x%lx [%s]\n", name, offset, file->name);
		}
		return;
	}
	if (file && format == 'd')
		snprintf(out, size, "0x%lx [%s+0x%lx/0x%lx]", f->addr, file->path, f->loc.rel,
			 file->size);
	else if (file && format == 'f' && src)
		snprintf(out, size, " 0x%lx [%s+0x%lx/0x%lx] at %s:%u\n", f->addr, file->path,
			 f->loc.rel, file->size, src, line);
	else if (file && (format == 'l' || format == 'f'))
		snprintf(out, size, " 0x%lx [%s+0x%lx/0x%lx]\n", f->addr, file->path, f->loc.rel,
			 file->size);
	else if (file && format == 's')
		snprintf(out, size, "0x%lx [%s+0x%lx]\n", f->addr, file->name, f->loc.rel);
	else if (format == 'l' || format == 'f')
		snprintf(out, size, " 0x%lx\n", f->addr);
	else if (format == 'b' || format == 's')
		snprintf(out, size, "0x%lx\n", f->addr);
	else
		snprintf(out, size, "0x%lx", f->addr);
}

/* What FORMAT says of ADDR of the current process, appended to OUT (a MAXSTRINGLEN string). */
static __maybe_unused void stp_usym_append(char *out, unsigned long addr, char format)
{
	struct stp_uframe f = { .addr = addr };

	stp_usym_find(addr, &f.loc);
	stp_uframe_text(out, MAXSTRINGLEN, &f, format);
}

/* print_ubacktrace() and its brief form: one line per frame, not limited by MAXSTRINGLEN. */
static __maybe_unused void stp_print_uframes(const struct stp_uframe *frames, int n, char format)
{
	char line[MAXSTRINGLEN];
	int i;

	for (i = 0; i < n; i++) {
		line[0] = '\0';
		stp_uframe_text(line, sizeof(line), &frames[i], format);
		_stp_print(line);
	}
}

/* The lines of FORMAT for FRAMES into OUT (a MAXSTRINGLEN string), cut to fit. */
static __maybe_unused void stp_uframes_text(char *out, const struct stp_uframe *frames, int n,
					    char format)
{
	int i;

	for (i = 0; i < n; i++)
		stp_uframe_text(out, MAXSTRINGLEN, &frames[i], format);
}

/* The addresses of FRAMES in hex into OUT, separated by spaces (TRAILING: one after each). */
static __maybe_unused void stp_uframes_addresses(char *out, const struct stp_uframe *frames,
						 int n, bool trailing)
{
	size_t len = 0;
	int i;

	for (i = 0; i < n && len < MAXSTRINGLEN - 20; i++)
		len += scnprintf(out + len, MAXSTRINGLEN - len, "%s0x%lx%s",
				 i && !trailing ? " " : "", frames[i].addr, trailing ? " " : "");
}

/*
 * print_usyms() and sprint_usyms(): each word of WORDS (hex addresses, as ucallers() gives
 * them; "0x" optional) as " WORD : " and its usymdata, one line each; printed, or appended
 * to OUT when OUT is not NULL.
 */
static __maybe_unused void stp_usyms_lines(char *out, const char *words)
{
	char line[MAXSTRINGLEN];
	const char *s = words;

	for (;;) {
		size_t len;
		char word[32];
		unsigned long addr;

		s += strspn(s, " \t\n");
		len = strcspn(s, " \t\n");
		if (!len)
			break;
		snprintf(word, sizeof(word), "%.*s", (int)min(len, sizeof(word) - 1), s);
		s += len;
		addr = simple_strtoul(word, NULL, 16);
		snprintf(line, sizeof(line), " %s : ", word);
		stp_usym_append(line, addr, 'd');
		if (strlen(line) < sizeof(line) - 1)
			strcat(line, "\n");
		if (out)
			strlcat(out, line, MAXSTRINGLEN);
		else
			_stp_print(line);
	}
}

/* ---- the session ---- */

/* Called by the script's start: its tables, and the inode of each file where it runs. */
static int stp_usym_start(struct stp_usym_file *files, unsigned int count, const char *strings)
{
	unsigned int i;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct stp_usym_unlocks *u = per_cpu_ptr(&stp_usym_unlocks, cpu);

		memset(u, 0, sizeof(*u));
		init_irq_work(&u->work, stp_usym_unlock_work);
	}
	for (i = 0; i < count; i++) {
		struct path p;

		files[i].inode = NULL;
		if (kern_path(files[i].path, LOOKUP_FOLLOW, &p))
			continue;	/* not there: its addresses stay numbers */
		files[i].inode = igrab(d_inode(p.dentry));
		path_put(&p);
	}
	stp_usym_strings = strings;
	stp_usym_files = files;
	smp_wmb();	/* the tables before the count that lets lookups see them */
	WRITE_ONCE(stp_usym_nfiles, count);
	return 0;
}

/* After every probe is gone: the deferred unlocks done, the inodes let go. */
static void stp_usym_stop(void)
{
	unsigned int i, count = stp_usym_nfiles;
	int cpu;

	WRITE_ONCE(stp_usym_nfiles, 0);
	for_each_possible_cpu(cpu)
		irq_work_sync(&per_cpu_ptr(&stp_usym_unlocks, cpu)->work);
	for (i = 0; i < count; i++) {
		if (stp_usym_files[i].inode)
			iput(stp_usym_files[i].inode);
		stp_usym_files[i].inode = NULL;
	}
}

#endif /* STP_USYMBOLS */
