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

#endif
