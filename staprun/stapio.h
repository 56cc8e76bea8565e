/*
 * stapio.h - what the parts of stapio share: the output files (stapio_output.c), the
 * -c command (stapio_child.c) and the session loop (stapio.c).
 */
#ifndef STAPIO_H
#define STAPIO_H

#include "common.h"

#include <signal.h>
#include <sys/types.h>

/* Set by signal handlers and failures; the loop in stapio.c acts on them. */
extern volatile sig_atomic_t stop_requested;	/* end the session in order */
extern bool output_failed;			/* a write of the output failed */

/* ---- output files (stapio_output.c) ---- */

struct output_config {
	const char *file;		/* -o FILE (strftime formats), or NULL: stdout */
	unsigned long long size_limit;	/* -S SIZE in bytes, 0: no limit */
	unsigned long max_files;	/* -S ...,N: files kept, 0: all */
	bool numbered;			/* -S given: FILE.0, FILE.1, ... */
	bool daemon;			/* -D: FILE_cpuN in bulk mode */
};

struct out_stream;

/* One stream for the shared buffer (cpu < 0) or for CPU cpu's buffer in bulk mode. */
struct out_stream *output_open(const struct output_config *cfg, int cpu);
void output_write(struct out_stream *st, const char *buf, size_t len);
/* The end of a read round: what is held back waiting for its end of line goes out. */
void output_end_round(struct out_stream *st);
/* SIGUSR2, switch_file(): go on in the next file (nothing happens on stdout). */
void output_switch(struct out_stream *st);
/* A daemon: standard error goes to the current file, and follows it to the next one. */
void output_own_stderr(struct out_stream *st);
/* Flushes and closes; false if that failed. */
bool output_close(struct out_stream *st);
/* Opens PATH for writing as the real user (stapio may run setuid root). */
int open_as_user(const char *path, int flags, mode_t mode);

/* ---- the -c command (stapio_child.c) ---- */

/* Forks CMD held before exec; returns its pid, or -1.  CMD gets MODULE's name (and the
 * verbosity) in its environment, as stap's stapio gives them. */
pid_t child_spawn(const char *cmd, const char *module);
/* The module started: the child may exec. */
void child_release(void);
/* The module did not start: the child must not run. */
void child_kill(void);
/* Reaps the child if it ended (a warning if it failed); true once it has. */
bool child_reap(void);
/* It ended on its own with a status other than 0, or by a signal: stapio's status is 1. */
bool child_has_failed(void);
/* system(): runs LEN bytes of CMD with /bin/sh -c as the real user, not waited for. */
void system_spawn(const char *cmd, size_t len);

#endif
