/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * module.c - module init/exit and the two commands stapio sends: START and EXIT.
 *
 * Loading only prepares (contexts, debugfs, relay); probes are registered on START so no
 * output is lost before stapio reads.  EXIT unregisters, runs end probes and reports the
 * counts.  Unloading without EXIT (stapio killed) unregisters without running end probes.
 */

static bool stp_started, stp_stopped;
static pid_t stp_target_pid;

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
	reply.status = stp_script_start();
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
}

module_init(stp_module_init);
module_exit(stp_module_exit);
