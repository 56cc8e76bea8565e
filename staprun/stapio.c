/*
 * stapio.c - the I/O loop of a running session, started by staprun once the module is in.
 *
 * usage: stapio [-v] [-o FILE] MODULE
 *
 * Starts the module's session over the control channel, copies what probes print from
 * the per-CPU relay files to standard output (or FILE), prints the module's warnings and
 * errors on standard error, and ends the session in order when the script calls exit()
 * or on SIGINT/SIGTERM/SIGHUP: the module runs its end probes, stapio drains the rest of
 * the output and has staprun remove the module.  Exit status 1 if the script had errors.
 */
#include "staprun.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef STAPRUN_PATH
#define STAPRUN_PATH "/usr/local/bin/staprun"
#endif

#define POLL_INTERVAL_MS 100	/* relay does not wake readers for partial buffers */

struct session {
	const char *module;
	int ctl_fd;
	int *relay_fds;
	size_t nrelays;
	int out_fd;
	bool exit_sent;
	bool exited;
	int status;
};

static volatile sig_atomic_t stop_requested;

static void on_stop_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static bool output_failed;

/* A full disk or a closed pipe ends the session, with an error status. */
static void write_all(int fd, const char *buf, size_t len)
{
	while (len > 0 && !output_failed) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EPIPE)
				fprintf(stderr, "ERROR: writing the output: %s\n", strerror(errno));
			output_failed = true;
			stop_requested = 1;
			return;
		}
		buf += n;
		len -= n;
	}
}

/* Copies everything the relay buffers hold now. */
static void drain_relays(struct session *s)
{
	static char buf[256 * 1024];

	for (size_t i = 0; i < s->nrelays; i++) {
		ssize_t n;

		while ((n = read(s->relay_fds[i], buf, sizeof(buf))) > 0)
			write_all(s->out_fd, buf, n);
	}
}

static void send_message(struct session *s, uint32_t type, const void *payload, uint32_t len)
{
	char buf[STP_CTL_MSG_MAX];
	struct stp_msg_header hdr = { .type = type, .len = len };

	memcpy(buf, &hdr, sizeof(hdr));
	if (len)
		memcpy(buf + sizeof(hdr), payload, len);
	if (write(s->ctl_fd, buf, sizeof(hdr) + len) < 0)
		fprintf(stderr, "ERROR: cannot write to the control channel of %s: %s\n",
			s->module, strerror(errno));
}

static void request_exit(struct session *s)
{
	if (s->exit_sent)
		return;
	s->exit_sent = true;
	say(1, "asking the module to end the session");
	send_message(s, STP_MSG_EXIT, NULL, 0);
}

static void report_counts(struct session *s, const struct stp_msg_exited *counts)
{
	if (counts->errors || counts->skipped)
		fprintf(stderr, "WARNING: Number of errors: %" PRIu64 ", skipped probes: %" PRIu64 "\n",
			(uint64_t)counts->errors, (uint64_t)counts->skipped);
	if (counts->dropped_bytes)
		fprintf(stderr, "WARNING: %" PRIu64 " bytes of output were dropped: the output "
			"buffers were full\n", (uint64_t)counts->dropped_bytes);
	if (counts->dropped_messages)
		fprintf(stderr, "WARNING: %" PRIu64 " warning or error messages were dropped\n",
			(uint64_t)counts->dropped_messages);
	if (counts->errors)
		s->status = 1;
}

static void handle_message(struct session *s, const char *buf, size_t len)
{
	struct stp_msg_header hdr;
	const char *payload = buf + sizeof(hdr);

	if (len < sizeof(hdr))
		return;
	memcpy(&hdr, buf, sizeof(hdr));
	if (hdr.len > len - sizeof(hdr))
		hdr.len = len - sizeof(hdr);
	switch (hdr.type) {
	case STP_MSG_STARTED: {
		struct stp_msg_started started = { 0 };

		memcpy(&started, payload, hdr.len < sizeof(started) ? hdr.len : sizeof(started));
		say(1, "module started, status %d", started.status);
		if (started.status) {
			fprintf(stderr, "ERROR: the module could not start its probes: %s\n",
				strerror(-started.status));
			s->status = 1;
			request_exit(s);
		}
		break;
	}
	case STP_MSG_REQUEST_EXIT:
		say(1, "the script asked to exit");
		request_exit(s);
		break;
	case STP_MSG_WARNING:
	case STP_MSG_ERROR:
		drain_relays(s);	/* what was printed before comes first */
		fflush(stdout);
		fwrite(payload, 1, hdr.len, stderr);
		break;
	case STP_MSG_EXITED: {
		struct stp_msg_exited counts = { 0 };

		memcpy(&counts, payload, hdr.len < sizeof(counts) ? hdr.len : sizeof(counts));
		drain_relays(s);
		report_counts(s, &counts);
		s->exited = true;
		break;
	}
	default:
		say(1, "ignoring control message of type %u", hdr.type);
	}
}

static bool open_channels(struct session *s)
{
	char *ctl = module_debugfs_path(s->module, STP_CTL_FILE);
	char *pattern = module_debugfs_path(s->module, STP_RELAY_BASENAME "[0-9]*");
	bool ok = false;
	glob_t found = { 0 };

	s->ctl_fd = open(ctl, O_RDWR | O_CLOEXEC);
	if (s->ctl_fd < 0) {
		fprintf(stderr, "ERROR: cannot open the control channel %s: %s%s\n", ctl,
			strerror(errno), errno == EBUSY ? " (another stapio is attached)" : "");
		goto out;
	}
	if (glob(pattern, 0, NULL, &found) != 0 || found.gl_pathc == 0) {
		fprintf(stderr, "ERROR: the module %s has no output buffers (%s)\n", s->module,
			pattern);
		goto out;
	}
	s->relay_fds = calloc(found.gl_pathc, sizeof(*s->relay_fds));
	if (!s->relay_fds)
		fatal("out of memory");
	for (size_t i = 0; i < found.gl_pathc; i++) {
		int fd = open(found.gl_pathv[i], O_RDONLY | O_NONBLOCK | O_CLOEXEC);

		if (fd < 0) {
			fprintf(stderr, "ERROR: cannot open %s: %s\n", found.gl_pathv[i],
				strerror(errno));
			goto out;
		}
		s->relay_fds[s->nrelays++] = fd;
	}
	say(1, "reading %zu output buffers", s->nrelays);
	ok = true;
out:
	globfree(&found);
	free(ctl);
	free(pattern);
	return ok;
}

static void run_session(struct session *s)
{
	struct stp_msg_start start = { .target_pid = 0 };
	char buf[STP_CTL_MSG_MAX];

	send_message(s, STP_MSG_START, &start, sizeof(start));
	while (!s->exited) {
		struct pollfd pfd = { .fd = s->ctl_fd, .events = POLLIN };
		int ready = poll(&pfd, 1, POLL_INTERVAL_MS);

		if (ready < 0 && errno != EINTR)
			fatal("poll: %s", strerror(errno));
		drain_relays(s);
		if (stop_requested)
			request_exit(s);
		if (ready > 0 && (pfd.revents & POLLIN)) {
			ssize_t n = read(s->ctl_fd, buf, sizeof(buf));

			if (n < 0 && errno != EINTR && errno != EAGAIN) {
				fprintf(stderr, "ERROR: reading the control channel: %s\n",
					strerror(errno));
				s->status = 1;
				break;
			}
			if (n > 0)
				handle_message(s, buf, n);
		} else if (ready > 0 && (pfd.revents & (POLLERR | POLLHUP | POLLNVAL))) {
			fprintf(stderr, "ERROR: the control channel of %s closed\n", s->module);
			s->status = 1;
			break;
		}
	}
}

/* Removal needs privilege; staprun does it, as SystemTap's stapio does. */
static int remove_module(struct session *s)
{
	char *staprun = sibling_program("staprun", STAPRUN_PATH);
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		char *argv[] = { "staprun", "-d", (char *)s->module, NULL };

		execv(staprun, argv);
		fprintf(stderr, "ERROR: cannot run %s: %s\n", staprun, strerror(errno));
		_exit(127);
	}
	free(staprun);
	if (pid < 0)
		return 1;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct session s = { .out_fd = STDOUT_FILENO, .ctl_fd = -1 };
	struct sigaction stop = { .sa_handler = on_stop_signal };
	struct sigaction ignore = { .sa_handler = SIG_IGN };
	const char *output_file = NULL;
	int opt;

	program_name = "stapio";
	while ((opt = getopt(argc, argv, "+vo:")) != -1) {
		switch (opt) {
		case 'v':
			verbosity++;
			break;
		case 'o':
			output_file = optarg;
			break;
		default:
			fputs("usage: stapio [-v] [-o FILE] MODULE (started by staprun)\n", stderr);
			return 1;
		}
	}
	if (optind + 1 != argc) {
		fputs("usage: stapio [-v] [-o FILE] MODULE (started by staprun)\n", stderr);
		return 1;
	}
	s.module = argv[optind];
	if (output_file) {
		s.out_fd = open(output_file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
		if (s.out_fd < 0) {
			fprintf(stderr, "ERROR: cannot open output file %s: %s\n", output_file,
				strerror(errno));
			remove_module(&s);
			return 1;
		}
	}
	sigaction(SIGINT, &stop, NULL);
	sigaction(SIGTERM, &stop, NULL);
	sigaction(SIGHUP, &stop, NULL);
	sigaction(SIGPIPE, &ignore, NULL);

	if (open_channels(&s))
		run_session(&s);
	else
		s.status = 1;

	for (size_t i = 0; i < s.nrelays; i++)
		close(s.relay_fds[i]);
	if (s.ctl_fd >= 0)
		close(s.ctl_fd);
	if (s.out_fd != STDOUT_FILENO && close(s.out_fd) != 0) {
		fprintf(stderr, "ERROR: writing %s: %s\n", output_file, strerror(errno));
		s.status = 1;
	}
	if (remove_module(&s) || output_failed)
		s.status = 1;
	return s.status;
}
