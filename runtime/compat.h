/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * compat.h - kernel APIs that differ between kernel versions, behind one name each.
 *
 * The runtime calls the stp_ names below, never the kernel's varying ones.  Which form the
 * target kernel has is decided by testing its headers (pass 4 compiles the probes in
 * runtime/autoconf/ once per kernel release and writes stp_autoconf.h), not by version
 * numbers.  A test runtime/autoconf/NAME.c that compiles gives STP_HAVE_NAME (upper case);
 * its first line says which form it detects.
 */
#ifndef STP_COMPAT_H
#define STP_COMPAT_H

#include "stp_autoconf.h"	/* pass 4 puts its folder on the include path */

/* ---- probe families (timer.c, kprobe.c, procfs.c); every definition is the 6.1 form ---- */
#include <linux/hrtimer.h>
#include <linux/kprobes.h>
#include <linux/proc_fs.h>
#include <linux/random.h>
#include <linux/timer.h>

/* hrtimer_init() then set .function; 6.13+ has hrtimer_setup() doing both. */
#ifdef STP_HAVE_HRTIMER_SETUP
#define stp_hrtimer_setup(timer, fn, clock, mode) hrtimer_setup((timer), (fn), (clock), (mode))
#else
#define stp_hrtimer_setup(timer, fn, clock, mode)		\
	do {							\
		hrtimer_init((timer), (clock), (mode));		\
		(timer)->function = (fn);			\
	} while (0)
#endif

/* del_timer_sync(); 6.2+ (and 6.1.y) timer_delete_sync(); del_timer_sync gone in 6.15. */
#ifdef STP_HAVE_TIMER_DELETE_SYNC
#define stp_timer_delete_sync(timer) timer_delete_sync(timer)
#else
#define stp_timer_delete_sync(timer) del_timer_sync(timer)
#endif

/* from_timer(); 6.16+ renames it timer_container_of(). */
#ifdef STP_HAVE_TIMER_CONTAINER_OF
#define stp_timer_container_of(var, timer, field) timer_container_of(var, timer, field)
#else
#define stp_timer_container_of(var, timer, field) from_timer(var, timer, field)
#endif

/* prandom_u32_max(); 6.2+ (and 6.1.y) get_random_u32_below().  A value in [0, n). */
#ifdef STP_HAVE_GET_RANDOM_U32_BELOW
#define stp_random_below(n) get_random_u32_below(n)
#else
#define stp_random_below(n) prandom_u32_max(n)
#endif

/*
 * 6.1: the kretprobe of an instance is get_kretprobe(ri) (5.11+, rethook-based on x86
 * since 5.19); older kernels have ri->rp.
 */
#ifdef STP_HAVE_GET_KRETPROBE
#define stp_kretprobe_of(ri) get_kretprobe(ri)
#else
#define stp_kretprobe_of(ri) ((ri)->rp)
#endif

/* struct proc_ops (5.6+; before it, struct file_operations with .owner). */
#ifdef STP_HAVE_PROC_OPS
#define STP_PROC_OPS(name, open_fn, read_fn, write_fn, release_fn)	\
	static const struct proc_ops name = {				\
		.proc_open = (open_fn),					\
		.proc_read = (read_fn),					\
		.proc_write = (write_fn),				\
		.proc_release = (release_fn),				\
		.proc_lseek = default_llseek,			\
	}
#else
#define STP_PROC_OPS(name, open_fn, read_fn, write_fn, release_fn)	\
	static const struct file_operations name = {			\
		.owner = THIS_MODULE,					\
		.open = (open_fn),					\
		.read = (read_fn),					\
		.write = (write_fn),					\
		.release = (release_fn),				\
		.llseek = default_llseek,				\
	}
#endif

/* The bytes of a module's code, and of the rest of the memory it keeps after init:
 * struct module's mem[] by kind (6.4+), its core_layout before. */
#ifdef STP_HAVE_MODULE_MEMORY
#define stp_module_text_size(m) ((unsigned long)(m)->mem[MOD_TEXT].size)
#define stp_module_data_size(m)							\
	((unsigned long)(m)->mem[MOD_DATA].size + (m)->mem[MOD_RODATA].size +		\
	 (m)->mem[MOD_RO_AFTER_INIT].size)
#else
#define stp_module_text_size(m) ((unsigned long)(m)->core_layout.text_size)
#define stp_module_data_size(m)							\
	((unsigned long)(m)->core_layout.size - (m)->core_layout.text_size)
#endif

/* pde_data() (5.17+); older kernels spell it PDE_DATA(). */
#ifdef STP_HAVE_PDE_DATA
#define stp_pde_data(inode) pde_data(inode)
#else
#define stp_pde_data(inode) PDE_DATA(inode)
#endif

/* no_llseek: a file that cannot seek (6.12 dropped it: a NULL .llseek says the same). */
#ifdef STP_HAVE_NO_LLSEEK
#define stp_no_llseek no_llseek
#else
#define stp_no_llseek NULL
#endif

/* ---- user-space probes (uprobe.c) ---- */
#include <linux/err.h>
#include <linux/uprobes.h>

/*
 * Registering a uprobe gives a handle that unregistering takes.  6.12: uprobe_register()
 * returns the struct uprobe (or an ERR_PTR) and takes the SDT semaphore's offset (0: none);
 * uprobe_unregister_nosync() of each, then one uprobe_unregister_sync(), after which no
 * handler runs.  Before: uprobe_register() / uprobe_register_refctr() return 0 or an error,
 * and uprobe_unregister() returns when no handler of its consumer runs (the sync is empty).
 */
#ifdef STP_HAVE_UPROBE_UNREGISTER_NOSYNC
typedef struct uprobe *stp_uprobe_handle;

static inline int stp_uprobe_register(struct inode *inode, loff_t offset, loff_t ref_ctr_offset,
				      struct uprobe_consumer *uc, stp_uprobe_handle *handle)
{
	struct uprobe *u = uprobe_register(inode, offset, ref_ctr_offset, uc);

	if (IS_ERR(u))
		return PTR_ERR(u);
	*handle = u;
	return 0;
}

#define stp_uprobe_unregister_nosync(inode, offset, uc, handle)	\
	uprobe_unregister_nosync((handle), (uc))
#define stp_uprobe_unregister_sync() uprobe_unregister_sync()
#else
typedef int stp_uprobe_handle;		/* nothing to keep */

static inline int stp_uprobe_register(struct inode *inode, loff_t offset, loff_t ref_ctr_offset,
				      struct uprobe_consumer *uc, stp_uprobe_handle *handle)
{
	*handle = 0;
	return ref_ctr_offset ? uprobe_register_refctr(inode, offset, ref_ctr_offset, uc) :
				uprobe_register(inode, offset, uc);
}

#define stp_uprobe_unregister_nosync(inode, offset, uc, handle)	\
	uprobe_unregister((inode), (offset), (uc))
#define stp_uprobe_unregister_sync() do { } while (0)
#endif

/* ---- associative arrays (map.c) ---- */
#include <linux/list_sort.h>

/*
 * list_sort() with a compare function of const list_heads, the 6.1 form (5.13+).  Before,
 * it took mutable ones: a compare function of that form calls ours, through PRIV.
 */
#ifdef STP_HAVE_LIST_SORT_CONST
#define stp_list_sort(priv, head, cmp) list_sort(priv, head, cmp)
#else
struct stp_list_sort_call {
	void *priv;
	int (*cmp)(void *priv, const struct list_head *a, const struct list_head *b);
};

static int stp_list_sort_cmp(void *priv, struct list_head *a, struct list_head *b)
{
	struct stp_list_sort_call *call = priv;

	return call->cmp(call->priv, a, b);
}

static inline void stp_list_sort(void *priv, struct list_head *head,
				 int (*cmp)(void *priv, const struct list_head *a,
					    const struct list_head *b))
{
	struct stp_list_sort_call call = { .priv = priv, .cmp = cmp };

	list_sort(&call, head, stp_list_sort_cmp);
}
#endif

/* ---- fault-safe memory reads (memory.c) and clocks (tapset); the 6.1 forms ---- */
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

/* copy_from_kernel_nofault() (5.8+); older kernels have probe_kernel_read(). */
#ifdef STP_HAVE_COPY_FROM_KERNEL_NOFAULT
#define stp_copy_from_kernel_nofault(dst, src, len) copy_from_kernel_nofault(dst, src, len)
#else
#define stp_copy_from_kernel_nofault(dst, src, len) probe_kernel_read(dst, src, len)
#endif

/* copy_from_user_nofault() (5.8+); older kernels have probe_user_read(). */
#ifdef STP_HAVE_COPY_FROM_USER_NOFAULT
#define stp_copy_from_user_nofault(dst, src, len) copy_from_user_nofault(dst, src, len)
#else
#define stp_copy_from_user_nofault(dst, src, len) probe_user_read(dst, src, len)
#endif

/* strncpy_from_kernel_nofault() (5.8+); before, strncpy_from_unsafe(). */
#ifdef STP_HAVE_STRNCPY_FROM_KERNEL_NOFAULT
#define stp_strncpy_from_kernel_nofault(dst, src, n) strncpy_from_kernel_nofault(dst, src, n)
#else
#define stp_strncpy_from_kernel_nofault(dst, src, n) strncpy_from_unsafe(dst, src, n)
#endif

/* strncpy_from_user_nofault() (5.8+); before, strncpy_from_unsafe_user(). */
#ifdef STP_HAVE_STRNCPY_FROM_USER_NOFAULT
#define stp_strncpy_from_user_nofault(dst, src, n) strncpy_from_user_nofault(dst, src, n)
#else
#define stp_strncpy_from_user_nofault(dst, src, n) strncpy_from_unsafe_user(dst, src, n)
#endif

/*
 * strlcpy(): the runtime and pass 3 use strscpy(), but the embedded C of scripts and
 * tapsets written for older kernels calls strlcpy(); where the kernel no longer has it
 * (6.8+), this one does what it did: copy what fits, terminate, return strlen(src).
 */
#include <linux/string.h>
#ifndef STP_HAVE_STRLCPY
static inline size_t stp_strlcpy(char *dst, const char *src, size_t size)
{
	size_t len = strlen(src);

	if (size) {
		size_t n = len < size ? len : size - 1;

		memcpy(dst, src, n);
		dst[n] = '\0';
	}
	return len;
}
#define strlcpy stp_strlcpy
#endif

/* 6.1: ktime_get_real_fast_ns(), NMI-safe wall time (5.1+; no such reader before). */
#define stp_ktime_get_real_fast_ns() ktime_get_real_fast_ns()

#endif
