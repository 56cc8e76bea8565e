/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * begin_end.c - the begin and end probe family: begin probes run when stapio starts the
 * session, before any other family registers; end probes run once at the orderly end,
 * after every other family has unregistered.  Pass 3 sorts each table by sequence number.
 */

static void stp_run_probe_table(const struct stp_probe *const *probes, size_t count,
				enum stp_session_state state)
{
	size_t i;

	for (i = 0; i < count; i++)
		stp_probe_run(probes[i], state);
}
