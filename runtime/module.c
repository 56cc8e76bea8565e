/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * module.c - module init/exit and the two commands stapio sends: START and EXIT.
 *
 * Loading only prepares (contexts, debugfs, relay); probes are registered on START so no
 * output is lost before stapio reads.  EXIT unregisters, runs end probes and reports the
 * counts.  Unloading without EXIT (stapio killed) unregisters without running end probes.
 */

#include <linux/cred.h>
#include <linux/pid_namespace.h>
#include <linux/user_namespace.h>

static bool stp_started, stp_stopped;
static pid_t stp_target_pid;

/*
 * stap --target-namespaces=PID (staprun passes stp_target_ns_pid=PID): the pid and user
 * namespaces the ns_* functions see ids in (context_session.stp), those of process PID
 * (a pid of the initial namespace) as START finds it; without it, stapio's.
 */
static int stp_target_ns_pid;
module_param(stp_target_ns_pid, int, 0400);
static struct pid_namespace *stp_target_pid_ns;

/*
 * stap --remote: staprun -r N:URI passes the run's index among the targets and the
 * target it was given as (remote_id(), remote_uri() of remote.stp); -1 and "" otherwise.
 */
static int stp_remote_id = -1;
module_param(stp_remote_id, int, 0400);
static char *stp_remote_uri;
module_param(stp_remote_uri, charp, 0400);
static struct user_namespace *stp_target_user_ns;

/* The namespaces of process stp_target_ns_pid, referenced; STP_START_REPORTED if none. */
static int stp_target_namespaces_get(void)
{
	struct task_struct *t;

	if (stp_target_ns_pid <= 0)
		return 0;
	rcu_read_lock();
	t = pid_task(find_pid_ns(stp_target_ns_pid, &init_pid_ns), PIDTYPE_PID);
	if (t && task_active_pid_ns(t)) {
		stp_target_pid_ns = get_pid_ns(task_active_pid_ns(t));
		stp_target_user_ns = get_user_ns(__task_cred(t)->user_ns);
	}
	rcu_read_unlock();
	if (stp_target_pid_ns)
		return 0;
	stp_ctl_printf(STP_MSG_ERROR, "ERROR: ", "no process %d for --target-namespaces",
		       stp_target_ns_pid);
	return STP_START_REPORTED;
}

static void stp_target_namespaces_put(void)
{
	if (stp_target_pid_ns)
		put_pid_ns(stp_target_pid_ns);
	if (stp_target_user_ns)
		put_user_ns(stp_target_user_ns);
	stp_target_pid_ns = NULL;
	stp_target_user_ns = NULL;
}

/* START: registers the probes and runs the begin probes; answers STARTED. */
static void stp_handle_start(const struct stp_msg_start *msg)
{
	struct stp_msg_started reply = { 0 };

	lockdep_assert_held(&stp_ctl_command_mutex);
	if (stp_started) {
		reply.status = -EALREADY;
		stp_ctl_send(STP_MSG_STARTED, &reply, sizeof(reply));
		return;
	}
	stp_started = true;
	stp_target_pid = msg->target_pid;
	reply.status = stp_target_namespaces_get();
	if (reply.status == 0)
		reply.status = stp_script_start();
	if (!stp_script_reads_stdin())
		reply.flags |= STP_STARTED_NO_STDIN;
	if (reply.status == 0) {
		atomic_cmpxchg(&stp_session_state, STP_SESSION_STARTING, STP_SESSION_RUNNING);
	} else {
		atomic_set(&stp_session_state, STP_SESSION_STOPPED);
		stp_stopped = true;
	}
	stp_ctl_send(STP_MSG_STARTED, &reply, sizeof(reply));
}

/* EXIT: unregisters the probes and runs the end probes; answers EXITED. */
static void stp_handle_exit(void)
{
	struct stp_msg_exited reply = { 0 };

	lockdep_assert_held(&stp_ctl_command_mutex);
	if (!stp_stopped) {
		atomic_set(&stp_session_state, STP_SESSION_STOPPING);
		if (stp_started)
			stp_script_stop(true);
		atomic_set(&stp_session_state, STP_SESSION_STOPPED);
		stp_stopped = true;
	}
	stp_timing_report();
	stp_report_skip_reasons();
	reply.errors = stp_errors_seen();
	reply.suppressed_errors = atomic64_read(&stp_suppressed_error_count);
	reply.skipped = atomic64_read(&stp_skipped_count);
	reply.dropped_bytes = atomic64_read(&stp_relay_dropped);
	reply.dropped_messages = atomic64_read(&stp_ctl_dropped);
	stp_ctl_send(STP_MSG_EXITED, &reply, sizeof(reply));
}

static int __init stp_module_init(void)
{
	int rc;

	rc = stp_contexts_alloc();
	if (rc)
		return rc;
	rc = stp_script_alloc();
	if (rc)
		goto err_free_script;	/* it leaves what it did allocate to stp_script_free() */
	rc = stp_timing_alloc();
	if (rc)
		goto err_free_script;
	rc = stp_transport_init();
	if (rc)
		goto err_free_script;
	return 0;

err_free_script:
	stp_timing_free();
	stp_script_free();
	stp_contexts_free();
	return rc;
}

static void __exit stp_module_exit(void)
{
	if (stp_started && !stp_stopped) {
		atomic_set(&stp_session_state, STP_SESSION_STOPPING);
		stp_script_stop(false);
		atomic_set(&stp_session_state, STP_SESSION_STOPPED);
	}
	stp_transport_close();
	stp_timing_free();
	stp_script_free();
	stp_contexts_free();
	stp_target_namespaces_put();
}

module_init(stp_module_init);
module_exit(stp_module_exit);
