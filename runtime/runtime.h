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
 *   memory.c      fault-safe reads of kernel and user memory
 *   target_vars.c what target variables read: registers, memory, KASLR-moved addresses
 *   format.c      stap's printf format language
 *   stat.c        statistics: aggregates and histograms, per-CPU scalars
 *   map.c         associative arrays, per-CPU arrays of statistics, wildcard keys
 *   globals.c     the script's globals: reader/writer locks bounded by MAXTRYLOCK
 *   timing.c      stap -t: each probe's hits and cycles, lock contention, at the end
 *   begin_end.c   the begin/end/error probe family
 *   timer.c       timer.* probes: hrtimers, jiffies timers, per-CPU profile timers
 *   kprobe.c      kprobe.* probes: kprobes and kretprobes
 *   tracepoint.c  kernel.trace(...) probes: the kernel's tracepoint API
 *   process.c     process.begin/end, process.thread.begin/end, process.syscall probes:
 *                 the life events of user processes; the -c/-x target's hierarchy
 *   uprobe.c      process("PATH").function/.statement/.mark probes: the kernel's uprobes
 *   netfilter.c   netfilter.hook(...) probes: netfilter hook functions (only with
 *                 STP_NETFILTER: its networking headers cost a fifth of a small compile)
 *   module_symbols.c  where modules' static variables are (target variables); kallsyms
 *   symbols.c     kernel addresses as symbols, backtraces from the kernel's unwinder
 *   usymbols.c    user-space addresses as symbols, backtraces of the user stack (the
 *                 tables pass 3 writes; only with STP_USYMBOLS)
 *   klines.c      kernel addresses to source lines (the table pass 3 writes; only with
 *                 STP_KLINES)
 *   hwbkpt.c      kernel.data(...) probes: hardware breakpoints
 *   perf.c        perf.type(...).config(...) probes: the kernel's perf events, per CPU
 *   procfs.c      procfs.* probes: files under /proc/systemtap/MODULE
 *   regex.c       str =~ "re": the automata pass 3 compiled, run on a string
 *   module.c      module init/exit and the control commands
 *   embedded.h    what stap's documentation gives embedded C: kread(), kwrite(), CATCH_DEREF_FAULT()
 *
 * map.c, stat.c, format.c, strings.c, arith.c and regex.c use nothing of the kernel beyond what
 * testsuite/unit/shim.h provides, so they are unit-tested in user space.
 */
#ifndef STP_RUNTIME_H
#define STP_RUNTIME_H

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/init.h>
#include <linux/irq_work.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/poll.h>
#include <linux/relay.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timex.h>
#include <linux/uaccess.h>
#include <linux/version.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#include <asm/local.h>

#include "transport_msgs.h"
#include "compat.h"

/*
 * Limits, all overridable with stap -D NAME=VALUE.  Each default applies only when the
 * command line left the name undefined.
 */

/*
 * --suppress-time-limits (guru mode): no bound on a handler's statements or a lock's
 * attempts, and no overload check.
 */
#ifdef STAP_SUPPRESS_TIME_LIMITS_ENABLE
#undef MAXACTION
#define MAXACTION LONG_MAX
#undef MAXACTION_INTERRUPTIBLE
#define MAXACTION_INTERRUPTIBLE LONG_MAX
#undef MAXTRYLOCK
#define MAXTRYLOCK INT_MAX
#ifndef STP_NO_OVERLOAD
#define STP_NO_OVERLOAD
#endif
#endif

/*
 * Overload: more than STP_OVERLOAD_THRESHOLD cycles spent in handlers on one CPU within
 * STP_OVERLOAD_INTERVAL cycles ends the session ("probe overhead exceeded threshold"),
 * so a script cannot take more than about half of a CPU.  -DSTP_NO_OVERLOAD turns it off.
 */
#ifndef STP_OVERLOAD_INTERVAL
#define STP_OVERLOAD_INTERVAL 1000000000LL
#endif
#ifndef STP_OVERLOAD_THRESHOLD
#define STP_OVERLOAD_THRESHOLD 500000000LL
#endif

/* script execution */
#ifndef MAXACTION
#define MAXACTION 1000		/* statements one handler may run */
#endif
/*
 * As in the modules stap 4.8 builds, a handler may run MAXACTION_INTERRUPTIBLE statements
 * unless -DINTERRUPTIBLE=0: stap(1) documents it for probes run with interrupts on, but
 * its runtime defines INTERRUPTIBLE as 1, so every probe gets it (measured in the guest:
 * 4000 turns of a loop, 8000 statements, run in a kprobe, a timer or a begin probe).
 */
#ifndef MAXACTION_INTERRUPTIBLE
#define MAXACTION_INTERRUPTIBLE (MAXACTION * 10)
#endif
#ifndef INTERRUPTIBLE
#define INTERRUPTIBLE 1
#endif
#ifndef MAXNESTING
#define MAXNESTING 10		/* depth of script function calls (pass 3 sets it) */
#endif
#ifndef MAXSTRINGLEN
#define MAXSTRINGLEN 512	/* bytes of a string value, NUL included */
#endif
#ifndef STP_MAX_KEYS
#define STP_MAX_KEYS 9		/* index expressions of an array, as in SystemTap */
#endif
#ifndef MAXMAPENTRIES
#define MAXMAPENTRIES 2048	/* elements of a global array */
#endif
#ifndef MAXBACKTRACE
#define MAXBACKTRACE 20		/* frames of a kernel backtrace */
#endif

/* when the session gives up */
#ifndef MAXERRORS
#define MAXERRORS 0		/* errors tolerated; the next one ends the session */
#endif
#ifndef MAXSKIPPED
#define MAXSKIPPED 100		/* skipped probe hits tolerated */
#endif
#ifndef STP_SKIP_BADVARS
#define STP_SKIP_BADVARS 0	/* 1: --skip-badvars; 0 or 1 either way (@const reads it) */
#endif

/*
 * global locks: a hit waits up to about a millisecond for a lock, as SystemTap 4.8's
 * modules do (stap(1) says 1000 attempts, but the modules stap 4.8 builds make 100,
 * 10 microseconds apart).  A shorter wait skips hits whenever the holder's CPU is slow
 * for a moment: an interrupt, or a virtual CPU that its host did not run.
 */
#ifndef MAXTRYLOCK
#define MAXTRYLOCK 100		/* attempts before a hit is skipped */
#endif
#ifndef TRYLOCKDELAY
#define TRYLOCKDELAY 10		/* microseconds between attempts */
#endif

/* output */
#ifndef STP_PRINT_BUF_SIZE
#define STP_PRINT_BUF_SIZE 8192	/* bytes of a handler's print buffer */
#endif
#ifndef STP_BUFSIZE_MB
#define STP_BUFSIZE_MB 4	/* output buffer (per CPU in bulk mode); _stp_bufsize overrides */
#endif
#ifndef STP_RELAY_N_SUBBUFS
#define STP_RELAY_N_SUBBUFS 8	/* relay sub-buffers the output buffer is split into */
#endif

enum stp_session_state {
	STP_SESSION_STARTING,	/* loaded, waiting for stapio's START; begin probes run */
	STP_SESSION_RUNNING,	/* probes registered and running */
	STP_SESSION_STOPPING,	/* exit requested; only end probes run */
	STP_SESSION_STOPPED,	/* probes unregistered, end probes done */
};

struct context;

/* struct stp_regex_match, which the context holds (pass 3 may define STP_REGEX_GROUPS
 * and STP_REGEX_SCRATCH first, the most its expressions need) */
#include "regex.c"

/* One probe point as pass 3 describes it. */
struct stp_probe {
	void (*handler)(struct context *c);
	const char *point;		/* "begin", what pp() returns */
	const char *script_point;	/* pn(): the alias named, or the point resolved */
	const char *from_point;		/* stap -t's "from:"s (pass 2's derived_probe says what) */
	const char *location;		/* "<input>:1:1", for messages */
	char *const *consts;		/* a shared handler's literals, this probe's (pass 3) */
};

/*
 * What a family's glue knows about one hit, handed to stp_probe_run_hit() and copied into
 * the context for the tapset functions (registers, return probe, per-family data).
 */
struct stp_hit {
	struct pt_regs *regs;		/* kprobes: registers at the probe; else NULL */
	unsigned long addr;		/* kprobes: the probed address (regs->ip is past it) */
	bool is_return;			/* a .return probe */
	void *data;			/* the family's own (procfs buffer, tracepoint arguments) */
	char *kept;			/* a return probe's @entry values (its entry's too) */
	unsigned long user_bias;	/* uprobes: where the probed file is loaded, less its
					 * link-time addresses */
};

/*
 * The per-CPU state of the probe running on that CPU.  A handler owns its CPU's context
 * from entry to exit (preemption off); a probe that fires while it is busy is skipped.
 * Only its CPU touches busy (a hit of an interrupt or NMI there included), so it is a
 * local_t: safe against them without a locked instruction.
 */
struct context {
	local_t busy;
	const struct stp_probe *probe;
	struct pt_regs *regs;		/* from struct stp_hit */
	unsigned long probe_addr;	/* from struct stp_hit: 0, or the kprobe's address */
	bool is_return;
	void *probe_data;
	char *kept;			/* from struct stp_hit */
	unsigned long user_bias;	/* from struct stp_hit */
	const char *last_error;		/* set by a soft error; the handler unwinds */
	const char *last_stmt;		/* "identifier 'x' at <input>:2:3" */
	long actions_remaining;		/* MAXACTION budget of this hit */
	int nesting;			/* function call depth, up to MAXNESTING */
	bool next_called;		/* a function ran `next`: its next overload takes over */
	bool aborted;			/* abort() ran: the handler unwinds past every catch */
	u64 overload_start;		/* cycles: this CPU's overload interval began */
	u64 overload_used;		/* cycles spent in handlers since */
	char error_buf[MAXSTRINGLEN];
	char symbol_buf[KSYM_SYMBOL_LEN];	/* symbols.c: the text of the last lookup */
	struct stp_regex_match regex;	/* the hit's last =~, for matched() (regex.c) */
	int regex_scratch[STP_REGEX_SCRATCH];	/* where =~ finds the groups */
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
static __maybe_unused void stp_probe_run(const struct stp_probe *probe,
					 enum stp_session_state state);
static __maybe_unused void stp_probe_run_hit(const struct stp_probe *probe,
					     enum stp_session_state state,
					     const struct stp_hit *hit);
/* A last_stmt that reports a soft error as its message alone, as stap reports error("msg"). */
#define STP_NO_PLACE ""
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
static __maybe_unused char *stp_string_append_long(char *dst, s64 v);

/* arith.c */
static __maybe_unused s64 stp_divide(struct context *c, s64 a, s64 b, const char *where);
static __maybe_unused s64 stp_modulo(struct context *c, s64 a, s64 b, const char *where);
static __maybe_unused s64 stp_shift_left(s64 a, s64 n);
static __maybe_unused s64 stp_shift_right(s64 a, s64 n);
static __maybe_unused s64 stp_shift_right_logical(s64 a, s64 n);

/* memory.c: 0, or -EFAULT after a soft error "read fault [man error::fault] at 0x..." in C */
static __maybe_unused int stp_read_kernel(struct context *c, void *dst, unsigned long addr,
					  size_t len);
static __maybe_unused int stp_read_user(struct context *c, void *dst, unsigned long addr,
					size_t len);
/* The same, the error naming what was read: "kernel long copy fault at 0x8 ..." */
static __maybe_unused int stp_read_kernel_as(struct context *c, void *dst, unsigned long addr,
					     size_t len, const char *what);
/* Copies without reporting: 0 or -EFAULT (format.c's %m, and the unit shim's memcpy). */
static __maybe_unused int stp_copy_kernel_nofault(void *dst, unsigned long addr, size_t len);
/* A C string of at most SIZE - 1 bytes into DST (NUL-terminated): its length, or -EFAULT
 * after a soft error "kernel/user string copy fault ...".  With c NULL the two string
 * readers and stp_read_kernel/stp_read_user report nothing (DST is zeroed or ""). */
static __maybe_unused long stp_read_kernel_string(struct context *c, char *dst,
						  unsigned long addr, size_t size);
static __maybe_unused long stp_read_user_string(struct context *c, char *dst,
						unsigned long addr, size_t size);
/* A UTF-16 (WIDTH 2) or UTF-32 (4) string as UTF-8: its length, or -EFAULT/-EILSEQ after
 * a soft error ("invalid UTF-16 character U+D83D at 0x..."). */
static __maybe_unused long stp_read_utf_string(struct context *c, char *dst, unsigned long addr,
					       size_t size, int width, bool user);
/* The N bytes at BUF (of SIZE) rewritten in place as C escapes (\n, \", \ooo), at most
 * MAXLEN characters (0: SIZE - 1), in double quotes with STP_ESCAPE_QUOTED (true), not
 * cut when it fits whole with STP_ESCAPE_WHOLE; returns the new length.  For text_str(),
 * text_strn() and the *_quoted tapset functions. */
#define STP_ESCAPE_QUOTED	1u
#define STP_ESCAPE_WHOLE	2u
#define STP_ESCAPE_BYTEWISE	4u	/* cut a character at a time (memory.c) */
static __maybe_unused size_t stp_text_escape(char *buf, size_t n, size_t size, size_t maxlen,
					     unsigned int flags);

#define STP_DECLARE_FORMAT
#define STP_DECLARE_STAT
#define STP_DECLARE_MAP
#include "data.h"

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
static int stp_script_alloc(void);		/* the globals' maps and statistics, at load */
static void stp_script_free(void);
static int stp_script_start(void);		/* register probes, run begin probes */
static void stp_script_stop(bool run_end_probes);	/* unregister, run end probes */
struct stp_global_lock;
static struct stp_global_lock *const *stp_script_global_locks(void);	/* NULL-ended */
static __maybe_unused const struct stp_probe *stp_script_probes(size_t *count);	/* stp_probes[] */
static bool stp_script_reads_stdin(void);	/* input.char/input.line: a __stdin file */

/* timing.c (stap -t); without it these are nothing, their arguments not even evaluated */
#ifdef STP_TIMING
static void stp_timing_record(const struct stp_probe *probe, u64 cycles);
static void stp_timing_contended(struct stp_global_lock *lock);
#else
#define stp_timing_record(probe, cycles) do { } while (0)
#define stp_timing_contended(lock) do { } while (0)
#endif

#include "alloc.c"
#include "context.c"
#include "print.c"
#include "strings.c"
#include "arith.c"
#include "memory.c"
#include "target_vars.c"
#include "callers.c"
#include "format.c"
#include "stat.c"
#include "map.c"
#include "globals.c"
#include "timing.c"
#include "transport.c"
#include "begin_end.c"
#include "timer.c"
#include "kprobe.c"
#include "tracepoint.c"
#include "process.c"
#include "uprobe.c"
#include "usymbols.c"
#ifdef STP_KLINES
#include "klines.c"
#endif
#ifdef STP_NETFILTER
#include "netfilter.c"
#endif
#include "module_symbols.c"
#include "symbols.c"
#include "hwbkpt.c"
#include "perf.c"
#include "procfs.c"
#include "module.c"
#include "embedded.h"	/* last: macros for embedded C only */

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("stapler script module");
/*
 * The module's name in .modinfo with room after it for any name the kernel allows
 * (MODULE_NAME_LEN - 1): this entry comes before the one modpost writes, so the kernel
 * reads it, and a module is renamed to a longer name in place (stap's module cache hands
 * a module built as stap_HASH out as stap_HASH_PID; staprun -R); the renaming blanks
 * modpost's entry.  Fifty-five NULs.
 */
#define STP_NUL5 "\0" "\0" "\0" "\0" "\0"
MODULE_INFO(name, KBUILD_MODNAME STP_NUL5 STP_NUL5 STP_NUL5 STP_NUL5 STP_NUL5 STP_NUL5
	    STP_NUL5 STP_NUL5 STP_NUL5 STP_NUL5 STP_NUL5);

#endif
