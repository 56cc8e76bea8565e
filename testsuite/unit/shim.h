/*
 * shim.h - just enough of the kernel's API to compile runtime pieces that do not touch
 * the kernel (strings.c, arith.c, format.c, stat.c, map.c) in user space for unit tests.
 */
#ifndef UNIT_SHIM_H
#define UNIT_SHIM_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef int64_t s64;
typedef uint64_t u64;

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define __maybe_unused __attribute__((unused))
#define min(a, b) ((a) < (b) ? (a) : (b))
/* as the kernel's compiler.h: the compiler forgets where VAR's value came from */
#define OPTIMIZER_HIDE_VAR(var) __asm__("" : "=r"(var) : "0"(var))

#ifndef MAXSTRINGLEN
#define MAXSTRINGLEN 16		/* small, so truncation is easy to test */
#endif

static inline s64 div64_s64(s64 a, s64 b)
{
	return a / b;
}

/* The parts of runtime.h's struct context that these pieces use. */
struct context {
	const char *last_error;
	const char *last_stmt;
	char error_buf[128];
};

static void stp_soft_error(struct context *c, const char *fmt, ...)
{
	va_list ap;

	if (c->last_error)
		return;
	va_start(ap, fmt);
	vsnprintf(c->error_buf, sizeof(c->error_buf), fmt, ap);
	va_end(ap);
	c->last_error = c->error_buf;
}

/* ---- format.c: print buffer, fault-safe reads, the running context ---- */
#include <errno.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
#define __user
#define noinline __attribute__((noinline))


/* What stp_print_bytes() wrote; tests read and reset it. */
static __maybe_unused char stp_unit_print_buf[1 << 16];
static __maybe_unused size_t stp_unit_print_len;
/* The context stp_current_context() returns (soft errors land there); NULL: none. */
static __maybe_unused struct context *stp_unit_context;
/* Reads fail below 4096 and, when set, at or past this address; user reads are counted. */
static __maybe_unused uintptr_t stp_unit_fault_at;
static __maybe_unused int stp_unit_user_reads;

static __maybe_unused void stp_print_bytes(const char *s, size_t len)
{
	if (len > sizeof(stp_unit_print_buf) - stp_unit_print_len)
		len = sizeof(stp_unit_print_buf) - stp_unit_print_len;
	memcpy(stp_unit_print_buf + stp_unit_print_len, s, len);
	stp_unit_print_len += len;
}

static __maybe_unused struct context *stp_current_context(void)
{
	return stp_unit_context;
}

static __maybe_unused int stp_copy_kernel_nofault(void *dst, unsigned long addr, size_t len)
{
	if (addr < 4096 || (stp_unit_fault_at && addr + len > stp_unit_fault_at))
		return -EFAULT;
	memcpy(dst, (const void *)addr, len);
	return 0;
}

static __maybe_unused long stp_copy_from_user_nofault(void *dst, const void *src, size_t len)
{
	stp_unit_user_reads++;
	return stp_copy_kernel_nofault(dst, (unsigned long)src, len);
}

/* ---- stat.c and map.c: runtime.h's declarations of them, allocation, fake CPUs ---- */
#include <stdlib.h>

#define GFP_KERNEL 0
#define SMP_CACHE_BYTES 64
#define ALIGN(x, a) (((x) + (a) - 1) & ~((size_t)(a) - 1))
#define STP_MAX_KEYS 9

static __maybe_unused void *kvzalloc(size_t size, int flags)
{
	(void)flags;
	return calloc(1, size);
}

static __maybe_unused void kvfree(const void *p)
{
	free((void *)p);
}

static __maybe_unused void *kvcalloc(size_t n, size_t size, int flags)
{
	(void)flags;
	return calloc(n, size);	/* NULL when n * size overflows, as the kernel's */
}

/* alloc.c's counted allocations, not counted here */
static __maybe_unused void *stp_kvzalloc(size_t size)
{
	return kvzalloc(size, GFP_KERNEL);
}

static __maybe_unused void *stp_kvcalloc(size_t n, size_t size)
{
	return kvcalloc(n, size, GFP_KERNEL);
}

static inline u64 div64_u64(u64 a, u64 b)
{
	return a / b;
}

static __maybe_unused int scnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (n < 0)
		return 0;
	return (size_t)n < size ? n : (int)size - 1;
}

/* struct_size(): the size of *P with COUNT elements of its flexible array MEMBER. */
#define struct_size(p, member, count) (sizeof(*(p)) + sizeof(*(p)->member) * (size_t)(count))

/*
 * ---- map.c: <linux/list.h> and <linux/list_sort.h>, the functions map.c uses, written
 * from the kernel's documented API (Documentation/core-api/kernel-api.rst) ----
 */
#include <stddef.h>

#define container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))

/* A circular doubly linked list; an empty head points to itself. */
struct list_head {
	struct list_head *next, *prev;
};

static inline void INIT_LIST_HEAD(struct list_head *list)
{
	list->next = list;
	list->prev = list;
}

static inline void stp_unit_list_insert(struct list_head *new, struct list_head *prev,
					struct list_head *next)
{
	next->prev = new;
	new->next = next;
	new->prev = prev;
	prev->next = new;
}

/* NEW right after HEAD (a stack). */
static inline void list_add(struct list_head *new, struct list_head *head)
{
	stp_unit_list_insert(new, head, head->next);
}

/* NEW right before HEAD: last in the list (a queue). */
static inline void list_add_tail(struct list_head *new, struct list_head *head)
{
	stp_unit_list_insert(new, head->prev, head);
}

static inline void stp_unit_list_unlink(struct list_head *entry)
{
	entry->next->prev = entry->prev;
	entry->prev->next = entry->next;
}

/* ENTRY leaves its list; its links are poisoned (NULL here: a use faults). */
static inline void list_del(struct list_head *entry)
{
	stp_unit_list_unlink(entry);
	entry->next = NULL;
	entry->prev = NULL;
}

static inline void list_move(struct list_head *entry, struct list_head *head)
{
	stp_unit_list_unlink(entry);
	list_add(entry, head);
}

static inline void list_move_tail(struct list_head *entry, struct list_head *head)
{
	stp_unit_list_unlink(entry);
	list_add_tail(entry, head);
}

static inline int list_empty(const struct list_head *head)
{
	return head->next == head;
}

static inline int list_is_last(const struct list_head *entry, const struct list_head *head)
{
	return entry->next == head;
}

/* LIST's entries go to the front of HEAD; LIST is left empty. */
static inline void list_splice_init(struct list_head *list, struct list_head *head)
{
	if (list_empty(list))
		return;
	list->prev->next = head->next;
	head->next->prev = list->prev;
	head->next = list->next;
	list->next->prev = head;
	INIT_LIST_HEAD(list);
}

#define list_entry(ptr, type, member) container_of(ptr, type, member)
#define list_first_entry(head, type, member) list_entry((head)->next, type, member)
#define list_first_entry_or_null(head, type, member) \
	(list_empty(head) ? NULL : list_first_entry(head, type, member))
#define list_next_entry(pos, member) list_entry((pos)->member.next, typeof(*(pos)), member)
#define list_for_each_entry(pos, head, member)				\
	for (pos = list_first_entry(head, typeof(*pos), member);	\
	     &pos->member != (head);					\
	     pos = list_next_entry(pos, member))
/* The same, safe against removing POS: N is the next entry, taken first. */
#define list_for_each_entry_safe(pos, n, head, member)			\
	for (pos = list_first_entry(head, typeof(*pos), member),	\
	     n = list_next_entry(pos, member);				\
	     &pos->member != (head);					\
	     pos = n, n = list_next_entry(n, member))

/* A hash bucket: a NULL-terminated list whose head is one pointer (zeroed: empty). */
struct hlist_node {
	struct hlist_node *next, **pprev;
};

struct hlist_head {
	struct hlist_node *first;
};

static inline void hlist_add_head(struct hlist_node *n, struct hlist_head *h)
{
	n->next = h->first;
	if (h->first)
		h->first->pprev = &n->next;
	h->first = n;
	n->pprev = &h->first;
}

static inline void hlist_del(struct hlist_node *n)
{
	*n->pprev = n->next;
	if (n->next)
		n->next->pprev = n->pprev;
	n->next = NULL;
	n->pprev = NULL;
}

#define hlist_entry_safe(ptr, type, member) \
	((ptr) ? container_of(ptr, type, member) : NULL)
#define hlist_for_each_entry(pos, head, member)					\
	for (pos = hlist_entry_safe((head)->first, typeof(*(pos)), member);	\
	     pos;								\
	     pos = hlist_entry_safe((pos)->member.next, typeof(*(pos)), member))

typedef int (*list_cmp_func_t)(void *priv, const struct list_head *a,
			       const struct list_head *b);

/*
 * list_sort(): a stable sort.  CMP(PRIV, A, B) > 0 puts A after B, where A came first in
 * the input; otherwise A stays before B.  An insertion sort here: the result is the same.
 */
static __maybe_unused void list_sort(void *priv, struct list_head *head, list_cmp_func_t cmp)
{
	struct list_head sorted, *pos, *at;

	INIT_LIST_HEAD(&sorted);
	while (!list_empty(head)) {
		pos = head->next;
		list_del(pos);
		/* after the last sorted entry that does not go after POS */
		for (at = sorted.prev; at != &sorted && cmp(priv, at, pos) > 0; at = at->prev)
			;
		list_add(pos, at);
	}
	list_splice_init(&sorted, head);
}

/* runtime/compat.h's name for it (the 6.1 form) */
#define stp_list_sort(priv, head, cmp) list_sort(priv, head, cmp)

/* Possible CPUs 0..nr_cpu_ids-1; tests set both before allocating / adding. */
static __maybe_unused unsigned int nr_cpu_ids = 4;
static __maybe_unused unsigned int stp_unit_cpu;
#define smp_processor_id() (stp_unit_cpu)
#define for_each_possible_cpu(cpu) for ((cpu) = 0; (cpu) < nr_cpu_ids; (cpu)++)

/* runtime/data.h: the tests say which pieces they define */
#if defined(UNIT_STAT) || defined(UNIT_MAP)
#define STP_DECLARE_STAT
#endif
#ifdef UNIT_MAP
#define STP_DECLARE_MAP
#endif
#ifdef UNIT_FORMAT
#define STP_DECLARE_FORMAT
#endif
#include "data.h"

#endif
