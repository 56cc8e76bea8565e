/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * runtime.h - what every stapler module is built from.
 *
 * The C file that pass 3 writes starts with #include "runtime.h" and then defines the
 * script's frames, handlers and probe tables, plus the hooks declared at the end of this
 * file.  The whole module is one translation unit: the runtime's .c files are included here.
 *
 *   context.c     per-CPU probe contexts, session state, running a handler, soft errors
 *   print.c       the per-CPU print buffer that probes write into
 *   transport.c   debugfs control channel and relay buffers (protocol: transport_msgs.h)
 *   strings.c     bounded string helpers for script strings
 *   arith.c       script arithmetic that can fail (division by zero, ...)
 *   begin_end.c   the begin/end probe family
 *   module.c      module init/exit and the control commands
 */
#ifndef STP_RUNTIME_H
#define STP_RUNTIME_H

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/init.h>
#include <linux/irq_work.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/poll.h>
#include <linux/relay.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>

#include "transport_msgs.h"

/* Limits, all overridable with stap -D NAME=VALUE. */
#ifndef MAXSTRINGLEN
#define MAXSTRINGLEN 512
#endif
#ifndef MAXNESTING
#define MAXNESTING 10
#endif
#ifndef MAXACTION
#define MAXACTION 1000
#endif
#ifndef MAXERRORS
#define MAXERRORS 0
#endif
#ifndef MAXSKIPPED
#define MAXSKIPPED 100
#endif
#ifndef STP_PRINT_BUF_SIZE
#define STP_PRINT_BUF_SIZE 8192
#endif
#ifndef STP_RELAY_SUBBUF_SIZE
#define STP_RELAY_SUBBUF_SIZE (64 * 1024)
#endif
#ifndef STP_RELAY_N_SUBBUFS
#define STP_RELAY_N_SUBBUFS 8
#endif

enum stp_session_state {
	STP_SESSION_STARTING,	/* loaded, waiting for stapio's START; begin probes run */
	STP_SESSION_RUNNING,	/* probes registered and running */
	STP_SESSION_STOPPING,	/* exit requested; only end probes run */
	STP_SESSION_STOPPED,	/* probes unregistered, end probes done */
};

struct context;

/* One probe point as pass 3 describes it. */
struct stp_probe {
	void (*handler)(struct context *c);
	const char *point;		/* "begin", what pp() returns */
	const char *location;		/* "<input>:1:1", for messages */
};

/*
 * The per-CPU state of the probe running on that CPU.  A handler owns its CPU's context
 * from entry to exit (preemption off); a probe that fires while it is busy is skipped.
 */
struct context {
	atomic_t busy;
	const struct stp_probe *probe;
	const char *last_error;		/* set by a soft error; the handler unwinds */
	const char *last_stmt;		/* "identifier 'x' at <input>:2:3" */
	long actions_remaining;		/* MAXACTION budget of this hit */
	int nesting;			/* function call depth, up to MAXNESTING */
	char error_buf[MAXSTRINGLEN];
	size_t print_len;
	char print_buf[STP_PRINT_BUF_SIZE];
	char frames[];			/* MAXNESTING + 1 frames of the script's locals */
};

/*
 * The runtime's interface to generated code and embedded C.  A script uses only some of
 * it, hence __maybe_unused.
 */

/* context.c */
static atomic_t stp_session_state = ATOMIC_INIT(STP_SESSION_STARTING);
static int stp_contexts_alloc(void);
static void stp_contexts_free(void);
static struct context *stp_current_context(void);
static void stp_probe_run(const struct stp_probe *probe, enum stp_session_state state);
static __maybe_unused void stp_soft_error(struct context *c, const char *fmt, ...) __printf(2, 3);
static __maybe_unused void _stp_exit(void);
static __maybe_unused void _stp_error(const char *fmt, ...) __printf(1, 2);
static __maybe_unused void _stp_warn(const char *fmt, ...) __printf(1, 2);

/* print.c */
static __maybe_unused void _stp_print(const char *s);
static __maybe_unused void _stp_print_char(char ch);
static __maybe_unused void _stp_print_long(s64 v);
static __maybe_unused void _stp_printf(const char *fmt, ...) __printf(1, 2);
static void _stp_print_flush(void);

/* strings.c */
static __maybe_unused char *stp_string_copy(char *dst, const char *src);
static __maybe_unused char *stp_string_append(char *dst, const char *src);
static __maybe_unused char *stp_string_concat(char *tmp, const char *a, const char *b);
static __maybe_unused int stp_string_compare(const char *a, const char *b);

/* arith.c */
static __maybe_unused s64 stp_divide(struct context *c, s64 a, s64 b, const char *where);
static __maybe_unused s64 stp_modulo(struct context *c, s64 a, s64 b, const char *where);
static __maybe_unused s64 stp_shift_left(s64 a, s64 n);
static __maybe_unused s64 stp_shift_right(s64 a, s64 n);

/* transport.c */
static int stp_transport_init(void);
static void stp_transport_close(void);
static void stp_ctl_send(u32 type, const void *payload, u32 len);
static void stp_relay_write(const void *data, size_t len);

/* begin_end.c */
static __maybe_unused void stp_run_probe_table(const struct stp_probe *const *probes,
					       size_t count, enum stp_session_state state);

/* module.c */
static void stp_handle_start(const struct stp_msg_start *msg);
static void stp_handle_exit(void);

/* Defined by the script's C file (pass 3). */
static size_t stp_script_frame_size(void);
static int stp_script_start(void);		/* register probes, run begin probes */
static void stp_script_stop(bool run_end_probes);	/* unregister, run end probes */

#include "context.c"
#include "print.c"
#include "strings.c"
#include "arith.c"
#include "transport.c"
#include "begin_end.c"
#include "module.c"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("stapler script module");

#endif
