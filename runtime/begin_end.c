/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * begin_end.c - the begin, end and error probe family: begin probes run when stapio
 * starts the session, before any other family registers; end probes run once at the
 * orderly end, after every other family has unregistered; error probes run there instead
 * when errors ended the session.  Pass 3 sorts each table by sequence number.
 */

static void stp_run_probe_table(const struct stp_probe *const *probes, size_t count,
				enum stp_session_state state)
{
	size_t i;

	for (i = 0; i < count; i++)
		stp_probe_run(probes[i], state);
}

/*
 * Did the session end because of errors (more than MAXERRORS)?  Then its end probes are
 * skipped and its error probes run instead, as stapprobes(3stap) documents.
 */
static __maybe_unused bool stp_session_failed(void)
{
	return atomic64_read(&stp_error_count) > MAXERRORS;
}

/* The end of a session: end probes, or error probes after an error-triggered end. */
static __maybe_unused void stp_run_end_or_error(const struct stp_probe *const *ends,
						size_t nends,
						const struct stp_probe *const *errors,
						size_t nerrors)
{
	if (stp_session_failed())
		stp_run_probe_table(errors, nerrors, STP_SESSION_STOPPING);
	else
		stp_run_probe_table(ends, nends, STP_SESSION_STOPPING);
}
