/*
 * shim.h - just enough of the kernel's API to compile runtime pieces that do not touch
 * the kernel (strings.c, arith.c) in user space for unit tests.
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
