/*
 * common.h - what staprun (the loader) and stapio (the I/O loop) share (common.c).
 * The protocol with the module is in runtime/transport_msgs.h.
 *
 * Who runs whom (each program's options are SystemTap's, see stap(1), staprun(8)):
 *
 *   stap [-c CMD] [-x PID] [-o FILE] [-s MB] [-S SIZE[,N]] [-F] [-G VAR=VAL] ... SCRIPT
 *     pass 5 runs
 *   staprun [-v]... [-w] [-c CMD | -x PID] [-o FILE] [-b MB] [-S SIZE[,N]] [-T MS]
 *           [-L | -D] [-R] MODULE.ko [VAR=VALUE ...]
 *   staprun [-v]... [-w] [-o FILE] [-S SIZE[,N]] [-T MS] [-D] -A MODULE
 *   staprun [-v]... -d MODULE|'*'
 *     (stap -s MB is staprun -b MB; stap -F is staprun -L, or -D when -o is given;
 *      stap -T SECS is a timer probe in the module, not a staprun option)
 *   staprun checks privileges and the module, inserts it (renamed with -R; -b adds
 *   _stp_bufsize=MB to the VAR=VALUE parameters) and execs, with the same privileges,
 *   stapio [-v]... [-w] [-c CMD | -x PID] [-o FILE] [-S SIZE[,N]] [-T MS] [-D] [-L | -A] NAME
 *   where NAME is the name the module was loaded under.  stapio runs the session (START
 *   unless -A), and at its end runs `staprun -d NAME` to remove the module, except when it
 *   detaches (-L after START, or SIGQUIT).
 *
 * Exit status of staprun and stapio: 0 when the session ran without errors, 1 when the
 * module reported errors or anything failed (with an "ERROR: ..." line on stderr).
 */
#ifndef STAPRUN_COMMON_H
#define STAPRUN_COMMON_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "transport_msgs.h"

#define DEBUGFS_ROOT "/sys/kernel/debug"

extern const char *program_name;	/* "staprun" or "stapio", for messages */
extern int verbosity;
/* Run by fatal() before it exits (once): stapio removes the module it was handed. */
extern void (*fatal_cleanup)(void);

void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void print_error(const char *fmt, va_list ap);	/* "ERROR: ...\n" on stderr */

/* A decimal number in [MIN, MAX], all of S. */
bool parse_number(const char *s, long min, long max, long *out);
/* -S SIZE[,N]: N at most this (stapio keeps the names of the last N files in memory) */
#define OUTPUT_FILES_MAX 100000
/* -S SIZE[,N]: megabytes per output file (1 to 2^30) and files kept (0: no limit). */
bool parse_rotation(const char *arg, long *megabytes, long *files);
void say(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

enum privilege {
	PRIV_NONE,
	PRIV_STAPUSR,	/* modules installed under /lib/modules/REL/systemtap only */
	PRIV_STAPDEV,	/* any module */
	PRIV_ROOT,
};
enum privilege real_user_privilege(void);	/* root, stapdev, stapusr or none */
struct stat;
/* May the real user attach to, or remove, the session whose debugfs folder is ST?  Root,
 * members of stapdev, and the user who loaded it (staprun gives them the folder). */
bool may_use_session(const struct stat *st, enum privilege priv);

/* /sys/kernel/debug/systemtap/MODULE[/NAME] */
char *module_debugfs_path(const char *module, const char *name);
bool ensure_debugfs_mounted(void);

/*
 * The program NAME to run: for root (real and effective ids), NAME beside the running
 * program (a build tree) if there is one and root alone could have put it there (see
 * installed_by_root()), else INSTALLED, the compiled-in path.  Otherwise
 * (setuid root, where the folder of a hard link to this program may be the user's) only
 * INSTALLED, and only if it and its folders are root's and writable by nobody else: NULL,
 * with an "ERROR: ..." line, if not.
 */
char *trusted_program(const char *name, const char *installed);

/* The file system ids (what files are opened with) become UID and GID: false if they did not. */
bool set_fs_ids(uid_t uid, gid_t gid);

/* A command line for execv(): argv[argc] is NULL; the strings are the caller's, not copied. */
struct arglist {
	char **argv;
	int argc;
};
void arglist_add(struct arglist *l, const char *arg);
/* OPTION VALUE ("-o", "out.txt"), when there is a VALUE; nothing when it is NULL. */
void arglist_add_option(struct arglist *l, const char *option, const char *value);
void arglist_free(struct arglist *l);	/* the vector only */

#endif
