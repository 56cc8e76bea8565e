/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * transport_msgs.h - the protocol between a stapler module and stapio.  Both sides include it.
 *
 * Each module makes a folder in debugfs:
 *
 *   /sys/kernel/debug/systemtap/MODULE/.cmd       control channel, one open at a time
 *   /sys/kernel/debug/systemtap/MODULE/trace0     what probes print: one buffer shared by all
 *                                                 CPUs, in the order handlers finished
 *   /sys/kernel/debug/systemtap/MODULE/bulkmode   only in bulk mode (stap -b, -DSTP_BULKMODE):
 *   /sys/kernel/debug/systemtap/MODULE/traceN     then one buffer per CPU N, each read into a
 *                                                 file of its own (FILE_N)
 *
 * The buffer size comes from the module parameter _stp_bufsize (megabytes, 1..4095; staprun
 * -b N passes _stp_bufsize=N, stap -s N asks staprun for it): the whole buffer, or each CPU's
 * in bulk mode.  Output that does not fit is dropped whole (one handler's output at a time)
 * and counted, never overwritten.
 *
 * A control message is a struct stp_msg_header followed by len bytes of payload.  Each
 * write() carries exactly one message to the module; each read() returns exactly one
 * message from it (the reader's buffer must hold STP_CTL_MSG_MAX bytes).  read() blocks
 * until a message is queued, unless the file is O_NONBLOCK; poll() works.
 *
 * A session:
 *   stapio                                   module
 *   START {target_pid}           ──▶         registers probes, runs begin probes
 *                                ◀──         STARTED {status}
 *                                ◀──         WARNING / ERROR {text}   (any time)
 *                                ◀──         REQUEST_EXIT             (exit(), too many errors)
 *                                ◀──         SYSTEM {command}         (system(), any time)
 *                                ◀──         SWITCH_FILE              (switch_file(), any time)
 *   EXIT   (also on SIGINT/TERM) ──▶         unregisters probes, runs end probes
 *                                ◀──         EXITED {counts}          (all output is in relay)
 *   drains traceN, closes, removes the module (staprun -d)
 *
 * SYSTEM and SWITCH_FILE come after what the handler printed before the call is in the
 * output buffer: stapio first copies out what the buffers hold, then runs the command
 * (sh -c, as the real user, in the background: stapio does not wait for it) or moves on to
 * the next output file.
 *
 * Detaching (staprun -L, SIGQUIT): stapio closes .cmd without EXIT; the session keeps
 * running and its output waits in the buffers (dropped and counted when they fill).
 * Attaching (staprun -A): a new stapio opens .cmd and reads on, without START; messages
 * queued meanwhile (REQUEST_EXIT, warnings) arrive then.  START on a started session is
 * answered STARTED {-EALREADY}.
 */
#ifndef STP_TRANSPORT_MSGS_H
#define STP_TRANSPORT_MSGS_H

#include <linux/types.h>	/* __u32 and friends, in the kernel and in user space */

#define STP_DEBUGFS_DIR "systemtap"
#define STP_CTL_FILE ".cmd"
#define STP_RELAY_BASENAME "trace"
#define STP_BULKMODE_FILE "bulkmode"
#define STP_BUFSIZE_PARAM "_stp_bufsize"

#define STP_CTL_PAYLOAD_MAX 1024
#define STP_CTL_MSG_MAX (sizeof(struct stp_msg_header) + STP_CTL_PAYLOAD_MAX)

enum stp_msg_type {
	/* stapio -> module */
	STP_MSG_START = 1,		/* struct stp_msg_start */
	STP_MSG_EXIT = 2,		/* no payload */
	/* module -> stapio */
	STP_MSG_STARTED = 16,		/* struct stp_msg_started */
	STP_MSG_REQUEST_EXIT = 17,	/* no payload */
	STP_MSG_WARNING = 18,		/* text, not NUL-terminated */
	STP_MSG_ERROR = 19,		/* text, not NUL-terminated */
	STP_MSG_EXITED = 20,		/* struct stp_msg_exited */
	STP_MSG_SYSTEM = 21,		/* a shell command for system(), not NUL-terminated */
	STP_MSG_SWITCH_FILE = 22,	/* switch_file(): go on in the next output file */
	STP_MSG_SKIP_REASON = 23,	/* why hits were skipped ("WARNING: Skipped due to
					 * ..."), text: shown after EXITED's counts */
};

struct stp_msg_header {
	__u32 type;
	__u32 len;			/* payload bytes that follow */
};

struct stp_msg_start {
	__s32 target_pid;		/* -x / -c, or 0 */
};

struct stp_msg_started {
	__s32 status;			/* 0, or -errno if registration failed */
	__u32 flags;			/* STP_STARTED_*; a module of before had none */
};
/* The script has no input.* probes: stapio has no __stdin to open (and a script probing
 * openat does not see stapio try, as with stap's stapio). */
#define STP_STARTED_NO_STDIN 1
/* A STARTED status: the session did not start, and the module has said why itself. */
#define STP_START_REPORTED (-125)	/* -ECANCELED */

struct stp_msg_exited {
	__u64 errors;			/* soft errors in handlers */
	__u64 skipped;			/* probe hits not run (re-entry, ...) */
	__u64 dropped_bytes;		/* output lost because relay buffers were full */
	__u64 dropped_messages;		/* control messages lost because the queue was full */
	__u64 suppressed_errors;	/* of the errors: --suppress-handler-errors kept them
					 * quiet, so they do not fail the run */
};

#endif
