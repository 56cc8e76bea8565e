/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * embedded.h - the names SystemTap's documentation gives embedded C, for guru scripts and
 * tapsets written for stap: the fault-safe accessors and the allocators.
 *
 *   x = kread(&p->field);     p->field read through the *_nofault accessors
 *   kwrite(&p->field, v);     written likewise (sizes 1, 2, 4 and 8)
 *   DEREF_FAULT(addr);        report a read fault at addr by hand
 *   STORE_DEREF_FAULT(addr);  ... a write fault
 *   CATCH_DEREF_FAULT();      where a fault goes: the end of the function, as in stap
 *   intptr_t                  an integer as wide as a pointer (long)
 *
 * A fault is the soft error stap 4.8 gives ("read fault [man error::fault] at 0x8"),
 * and the code jumps to the function's CATCH_DEREF_FAULT() label, which must be there
 * (as in stap: a function that uses kread() without it does not compile).  The C is
 * included after the runtime and before the script's code, whose embedded functions have
 * the probe's context as CONTEXT.
 */
#ifndef STP_EMBEDDED_H
#define STP_EMBEDDED_H

/* C's intptr_t, which embedded C written for stap uses and the kernel does not define
 * (a second identical typedef is allowed in C11, should a kernel define it one day) */
typedef long intptr_t;

/* the soft error, in stap 4.8's words (WHAT: "read" or "write"), and the function's catch */
#define STP_DEREF_FAULT(what, addr)						\
	do {									\
		stp_soft_error(CONTEXT, what " fault [man error::fault] at 0x%lx",	\
			       (unsigned long)(addr));				\
		goto deref_fault;						\
	} while (0)

#define DEREF_FAULT(addr)		STP_DEREF_FAULT("read", addr)
#define STORE_DEREF_FAULT(addr)	STP_DEREF_FAULT("write", addr)

#define CATCH_DEREF_FAULT()	\
	if (0) {		\
deref_fault:			\
		;		\
	}

/* the value at ptr, of its type (const and volatile kept for the value only) */
#define kread(ptr)								\
	({									\
		union {								\
			__typeof__(*(ptr)) v;					\
			u8 bytes[sizeof(*(ptr))];				\
		} _kr;								\
		if (stp_copy_kernel_nofault(_kr.bytes, (unsigned long)(ptr), sizeof(*(ptr)))) \
			DEREF_FAULT(ptr);					\
		_kr.v;								\
	})

#define kwrite(ptr, value)							\
	do {									\
		union {								\
			__typeof__(*(ptr)) v;					\
			u64 bits;						\
		} _kw = { .bits = 0 };						\
		BUILD_BUG_ON(sizeof(*(ptr)) != 1 && sizeof(*(ptr)) != 2 &&	\
			     sizeof(*(ptr)) != 4 && sizeof(*(ptr)) != 8);	\
		_kw.v = (value);						\
		if (stp_write_kernel_quiet((unsigned long)(ptr), sizeof(*(ptr)), _kw.bits)) \
			STORE_DEREF_FAULT(ptr);					\
	} while (0)

/* Allocation, as stap's runtime names it: atomic (a probe handler may not sleep), quiet
 * when memory is short (the caller sees NULL); _stp_vzalloc only where sleeping is allowed
 * (a begin probe runs in process context). */
#define _stp_kmalloc(size)	kmalloc((size), GFP_ATOMIC | __GFP_NOWARN)
#define _stp_kzalloc(size)	kzalloc((size), GFP_ATOMIC | __GFP_NOWARN)
#define _stp_kfree(p)		kfree(p)
#define _stp_vzalloc(size)	vzalloc(size)
#define _stp_vfree(p)		vfree(p)

#endif
