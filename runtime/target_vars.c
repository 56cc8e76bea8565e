/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * target_vars.c - what target variables read at run time: the probe's registers, memory
 * through the fault-safe reads (memory.c), and kernel addresses moved as KASLR moved
 * the kernel.
 *
 * Pass 3 (translate_expr.c) writes each target variable as calls of these: a location
 * from the debuginfo (registers, DW_OP_deref, a global's link-time address), then the
 * steps through memory, then the value read.  A bad address is a soft error naming the
 * expression, as stap words it ("read fault [man error::fault] at 0x10 near identifier
 * '$file' at ..."), never an oops.
 */

/*
 * DWARF register REGNO of REGS, in the x86-64 numbering (System V psABI, figure 3.36):
 * false for one pt_regs does not have.  The stack pointer is the one REGS holds (a user
 * one too), the kernel's being regs->sp on x86-64.
 */
static bool stp_regs_dwarf_register(const struct pt_regs *regs, int regno, unsigned long *value)
{
	switch (regno) {
	case 0: *value = regs->ax; return true;
	case 1: *value = regs->dx; return true;
	case 2: *value = regs->cx; return true;
	case 3: *value = regs->bx; return true;
	case 4: *value = regs->si; return true;
	case 5: *value = regs->di; return true;
	case 6: *value = regs->bp; return true;
	case 7: *value = regs->sp; return true;
	case 8: *value = regs->r8; return true;
	case 9: *value = regs->r9; return true;
	case 10: *value = regs->r10; return true;
	case 11: *value = regs->r11; return true;
	case 12: *value = regs->r12; return true;
	case 13: *value = regs->r13; return true;
	case 14: *value = regs->r14; return true;
	case 15: *value = regs->r15; return true;
	case 16: *value = regs->ip; return true;
	}
	return false;
}

/* DWARF register REGNO of the probe's registers, or 0 and a soft error. */
static __maybe_unused u64 stp_dwarf_register(struct context *c, unsigned int regno)
{
	unsigned long value;

	if (unlikely(!c->regs)) {
		stp_soft_error(c, "no registers in this probe to read target variables from");
		return 0;
	}
	if (!stp_regs_dwarf_register(c->regs, (int)regno, &value)) {
		stp_soft_error(c, "DWARF register %u is not available here", regno);
		return 0;
	}
	return value;
}

/* $return: the value the function returns. */
static __maybe_unused u64 stp_return_value(struct context *c)
{
	if (unlikely(!c->regs || !c->is_return)) {
		stp_soft_error(c, "$return is only known in a .return probe");
		return 0;
	}
	return regs_return_value(c->regs);
}

/*
 * Where a return probe keeps an @entry value: at OFFSET in the bytes its family keeps for
 * one call (a kretprobe instance's data, a uretprobe's slot), which the return's hit and
 * the entry's both carry.
 */
static __maybe_unused s64 *stp_kept_long(struct context *c, size_t offset)
{
	return (s64 *)(c->kept + offset);
}

static __maybe_unused char *stp_kept_string(struct context *c, size_t offset)
{
	return c->kept + offset;
}

/* SIZE (1, 2, 4, 8) bytes at ADDR of the kernel (or USER: of the probed process),
 * zero-extended; 0 and a soft error if it faults (a user page not resident counts: a
 * handler may not wait for it); 0 alone with --skip-badvars. */
static u64 stp_deref(struct context *c, u64 addr, int size, bool user)
{
	u64 value = 0;
	int rc;

	if (unlikely(c->last_error))
		return 0;
	if (size < 1 || size > 8) {
		stp_soft_error(c, "cannot read %d bytes as a number", size);
		return 0;
	}
	rc = user ? stp_read_user(NULL, &value, (unsigned long)addr, size) :	/* little */
		    stp_read_kernel(NULL, &value, (unsigned long)addr, size);	/* endian */
#if STP_SKIP_BADVARS	/* --skip-badvars: a context variable that cannot be read is 0 */
	if (rc != 0)
		return 0;
#else
	if (rc != 0)
		stp_soft_error(c, "%sread fault [man error::fault] at 0x%llx", user ? "user " : "",
			       addr);
#endif
	return value;
}

static __maybe_unused u64 stp_target_deref(struct context *c, u64 addr, int size)
{
	return stp_deref(c, addr, size, false);
}

/*
 * @kderef(SIZE, ADDR) and @uderef(SIZE, ADDR): SIZE (1 to 8) bytes at ADDR of the kernel
 * or of the current process, zero-extended; a fault is a target read's soft error.
 */
static __maybe_unused u64 stp_at_deref(struct context *c, s64 size, u64 addr, bool user)
{
	if (size < 1 || size > 8) {
		stp_soft_error(c, "cannot read %lld bytes as a number", (long long)size);
		return 0;
	}
	return stp_deref(c, addr, (int)size, user);
}

/*
 * @kregister(REGNO) and @uregister(REGNO): DWARF register REGNO of the probe's kernel
 * registers, or of the current process's user registers (the probe's own in a uprobe,
 * else those the thread entered the kernel with).
 */
static __maybe_unused u64 stp_at_register(struct context *c, s64 regno, bool user)
{
	struct pt_regs *regs = c->regs;
	unsigned long value;

	if (user && (!regs || !user_mode(regs)))
		regs = current->mm && !(current->flags & PF_KTHREAD) ? task_pt_regs(current) : NULL;
	else if (!user && regs && user_mode(regs))
		regs = NULL;
	if (!regs) {
		stp_soft_error(c, "cannot access %s registers in this context",
			       user ? "user" : "kernel");
		return 0;
	}
	if (regno < 0 || regno > INT_MAX || !stp_regs_dwarf_register(regs, (int)regno, &value)) {
		stp_soft_error(c, "DWARF register %lld is not available here", (long long)regno);
		return 0;
	}
	return value;
}

/* A number of SIZE bytes, signed or not, or a bitfield's bits in them, from RAW. */
static __maybe_unused s64 stp_target_number(u64 raw, int size, bool is_signed, int bit_offset,
					    int bit_size)
{
	int bits = bit_size ? bit_size : size * 8;

	if (bit_size)
		raw >>= bit_offset;
	if (bits < 64) {
		raw &= (1ULL << bits) - 1;
		if (is_signed && (raw & (1ULL << (bits - 1))))
			raw |= ~0ULL << bits;
	}
	return (s64)raw;
}

/* The number a variable in a register (or a computed value) holds. */
static __maybe_unused s64 stp_target_value(struct context *c, u64 value, int size,
					   int is_signed, int bit_offset, int bit_size)
{
	return stp_target_number(value, size, is_signed, bit_offset, bit_size);
}

/* The number of SIZE bytes at ADDR. */
static __maybe_unused s64 stp_target_read(struct context *c, u64 addr, int size,
					  int is_signed, int bit_offset, int bit_size)
{
	return stp_target_number(stp_target_deref(c, addr, size), size, is_signed, bit_offset,
				 bit_size);
}

static __maybe_unused u64 stp_user_deref(struct context *c, u64 addr, int size)
{
	return stp_deref(c, addr, size, true);
}

/* A link-time address of the probed file, where this process has it. */
static __maybe_unused u64 stp_user_address(struct context *c, u64 addr)
{
	return addr + c->user_bias;
}

/* The number of SIZE bytes at user-space ADDR. */
static __maybe_unused s64 stp_user_read(struct context *c, u64 addr, int size, int is_signed,
					int bit_offset, int bit_size)
{
	return stp_target_number(stp_user_deref(c, addr, size), size, is_signed, bit_offset,
				 bit_size);
}

/*
 * SIZE (1, 2, 4, 8) bytes of VALUE to the kernel's ADDR: 0, or -EFAULT/-EINVAL, quietly.
 * The bytes must be readable first: x86 oopses on a kernel-mode store to a user or
 * non-canonical address before it looks for an exception table entry (the *_nofault
 * reads refuse those addresses); then a page mapped read-only is caught by the table.
 */
static int stp_write_kernel_quiet(u64 addr, int size, u64 value)
{
	int err = 0;
	u64 old;

	if (size < 1 || size > 8)
		return -EINVAL;
	if (stp_copy_from_kernel_nofault(&old, (const void *)(unsigned long)addr, size))
		return -EFAULT;
	pagefault_disable();	/* a fault comes back as an error, as in the *_nofault reads */
	switch (size) {
	case 1: __put_kernel_nofault((u8 *)addr, (u8 *)&value, u8, fault); break;
	case 2: __put_kernel_nofault((u16 *)addr, (u16 *)&value, u16, fault); break;
	case 4: __put_kernel_nofault((u32 *)addr, (u32 *)&value, u32, fault); break;
	case 8: __put_kernel_nofault((u64 *)addr, (u64 *)&value, u64, fault); break;
	default: err = -EINVAL; break;
	}
	goto out;
fault:
	err = -EFAULT;
out:
	pagefault_enable();
	return err;
}

/* The same, or a soft error: read-only memory, a bad address. */
static int stp_write_kernel(struct context *c, u64 addr, int size, u64 value)
{
	int err = stp_write_kernel_quiet(addr, size, value);

	if (err)
		stp_soft_error(c, "write fault [man error::fault] at 0x%llx", addr);
	return err;
}

/* Sets DWARF register REGNO of the probe's registers: the probed code sees it after. */
static void stp_dwarf_register_set(struct context *c, int regno, u64 value)
{
	struct pt_regs *regs = c->regs;
	unsigned long *reg[17] = { &regs->ax, &regs->dx, &regs->cx, &regs->bx, &regs->si,
				   &regs->di, &regs->bp, NULL, &regs->r8, &regs->r9, &regs->r10,
				   &regs->r11, &regs->r12, &regs->r13, &regs->r14, &regs->r15,
				   &regs->ip };

	if (!regs || regno < 0 || regno > 16 || !reg[regno]) {
		stp_soft_error(c, "cannot write DWARF register %d here", regno);
		return;
	}
	*reg[regno] = value;
}

/* VALUE's bits put in a bitfield's BIT_SIZE bits at BIT_OFFSET of OLD (BIT_SIZE 0: the
 * whole VALUE). */
static u64 stp_bitfield_merge(u64 old, s64 value, int bit_offset, int bit_size)
{
	u64 mask;

	if (!bit_size)
		return (u64)value;
	mask = (bit_size < 64 ? (1ULL << bit_size) - 1 : ~0ULL) << bit_offset;
	return (old & ~mask) | (((u64)value << bit_offset) & mask);
}

/*
 * Guru mode: writes VALUE back to a target variable: to register REGNO (-1: memory at
 * ADDR), SIZE bytes, or a bitfield's bits in them.  USER: the probed process's memory (a
 * page it has not written yet, or cannot, is a soft error).
 */
static void stp_write_back(struct context *c, bool user, u64 addr, int regno, int size,
			   int bit_offset, int bit_size, s64 value)
{
	u64 old = 0, v;

	if (unlikely(c->last_error))
		return;
	if (bit_size)
		old = regno >= 0 ? addr : user ? stp_user_deref(c, addr, size) :
						  stp_target_deref(c, addr, size);
	v = stp_bitfield_merge(old, value, bit_offset, bit_size);
	if (regno >= 0)
		stp_dwarf_register_set(c, regno, v);
	else if (!user)
		stp_write_kernel(c, addr, size, v);
	else if (size < 1 || size > 8 ||
		 copy_to_user_nofault((void __user *)(unsigned long)addr, &v, size) != 0)
		stp_soft_error(c, "user write fault [man error::fault] at 0x%llx", addr);
}

static __maybe_unused void stp_target_write(struct context *c, u64 addr, int regno, int size,
					    int bit_offset, int bit_size, s64 value)
{
	stp_write_back(c, false, addr, regno, size, bit_offset, bit_size, value);
}

static __maybe_unused void stp_user_write(struct context *c, u64 addr, int regno, int size,
					  int bit_offset, int bit_size, s64 value)
{
	stp_write_back(c, true, addr, regno, size, bit_offset, bit_size, value);
}

/* The chars of an array of LENGTH (0: unknown) at ADDR, up to its first NUL. */
static __maybe_unused void stp_target_string(struct context *c, char *dst, u64 addr,
					     s64 length)
{
	size_t size = length > 0 && length < MAXSTRINGLEN ? (size_t)length + 1 : MAXSTRINGLEN;

	dst[0] = '\0';
	if (likely(!c->last_error))
		stp_read_kernel_string(c, dst, (unsigned long)addr, size);
}

/* The same of a user-space array of the probed process. */
static __maybe_unused void stp_user_string(struct context *c, char *dst, u64 addr, s64 length)
{
	size_t size = length > 0 && length < MAXSTRINGLEN ? (size_t)length + 1 : MAXSTRINGLEN;

	dst[0] = '\0';
	if (likely(!c->last_error))
		stp_read_user_string(c, dst, (unsigned long)addr, size);
}

/* The value of a user-space variable in a register or computed (as stp_target_value). */
#define stp_user_value stp_target_value

/*
 * A kernel link-time address as it is now: KASLR moved the whole kernel by one offset,
 * which jiffies (every kernel has it, modules may take its address) shows; pass 3
 * defines STP_JIFFIES_LINK, its address in the kernel's symbol table.
 */
#ifdef STP_JIFFIES_LINK
static __maybe_unused u64 stp_kernel_address(struct context *c, u64 link)
{
	return link + ((unsigned long)&jiffies - STP_JIFFIES_LINK);
}
#else
static __maybe_unused u64 stp_kernel_address(struct context *c, u64 link)
{
	stp_soft_error(c, "no kernel load address for %#llx", link);
	return 0;
}
#endif
