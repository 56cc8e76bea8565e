/*
 * staprun.h - what staprun (the loader) and stapio (the I/O loop) share.
 * The protocol with the module is in runtime/transport_msgs.h.
 */
#ifndef STAPRUN_H
#define STAPRUN_H

#include <stdbool.h>
#include <stddef.h>

#include "transport_msgs.h"

#define DEBUGFS_ROOT "/sys/kernel/debug"

extern const char *program_name;	/* "staprun" or "stapio", for messages */
extern int verbosity;

void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void say(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* /sys/kernel/debug/systemtap/MODULE[/NAME] */
char *module_debugfs_path(const char *module, const char *name);
bool ensure_debugfs_mounted(void);

/* NAME beside the running program (a build tree), or FALLBACK (the installed path). */
char *sibling_program(const char *name, const char *fallback);

#endif
