/*
 * stapio.c - the I/O loop of a running session, started by staprun once the module is in.
 *
 * usage: stapio [-v]... [-w] [-c CMD | -x PID] [-o FILE] [-S SIZE[,N]] [-T MS] [-D]
 *               [-L | -A] NAME
 *
 * Starts the module's session over the control channel (or attaches to a running one),
 * copies what probes print from the relay files to standard output or the output files,
 * prints the module's warnings and errors on standard error, and ends the session in
 * order when the script calls exit(), the -c command ends, or on SIGINT/SIGTERM/SIGHUP:
 * the module runs its end probes, stapio drains the rest of the output and has staprun
 * remove the module.  SIGQUIT (and -L once started) detaches instead, leaving the module
 * running; -D goes on in the background.  Exit status 1 if anything failed.
 */
#include "stapio.h"
#include "sdt_markers.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <search.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#ifndef STAPRUN_PATH
#define STAPRUN_PATH "/usr/local/bin/staprun"
#endif

#define DEFAULT_TIMEOUT_MS 200		/* staprun(8) -T */
#define EXIT_ANSWER_LIMIT_S 60		/* end probes that take longer are presumed stuck */
#define ROUND_LIMIT (16 << 20)		/* bytes read from one buffer before looking around */

volatile sig_atomic_t stop_requested;
bool output_failed;
static volatile sig_atomic_t detach_requested, switch_requested;

struct relay {
	int fd;
	int cpu;
	bool polled;			/* has a poll method that says something */
	struct out_stream *out;
};

struct session {
	const char *module;
	int ctl_fd;
	bool foreign;			/* another user's session: not ours to remove */
	struct relay *relays;
	size_t nrelays;
	struct out_stream **streams;	/* one, or one per CPU in bulk mode */
	size_t nstreams;
	bool bulk;
	bool started;			/* STARTED {0} arrived (or attached) */
	bool exit_sent;
	bool exited;
	bool have_child;
	time_t exit_sent_at;
	int status;
	int stdin_fd;			/* the module's __stdin file (input.*), or -1 */
	char *skip_reasons;		/* SKIP_REASON lines, shown after the counts */
	size_t skip_reasons_len;
};

static struct {
	bool no_warnings;		/* -w */
	const char *command;		/* -c */
	int target_pid;			/* -x, or the -c command's pid */
	struct output_config out;	/* -o, -S, -D */
	int timeout_ms;			/* -T */
	bool daemon;			/* -D */
	bool load_only;			/* -L */
	bool attach;			/* -A */
} opt = { .timeout_ms = DEFAULT_TIMEOUT_MS };

static const char usage_text[] =
"usage: stapio [-v]... [-w] [-c CMD | -x PID] [-o FILE] [-S SIZE[,N]] [-T MS] [-D]\n"
"              [-L | -A] MODULE\n"
"(started by staprun with the name of a loaded module; see stapio(8))\n";

/* The terminal's settings, while input.* probes read it a character at a time. */
static struct termios saved_termios;
static bool termios_changed;

static void restore_terminal(void)
{
	if (termios_changed) {
		tcsetattr(STDIN_FILENO, TCSANOW, &saved_termios);
		termios_changed = false;
	}
}

/*
 * A script with input.char or input.line probes has the file __stdin in its procfs
 * folder (stapprobes(3stap), INPUT): stapio writes its own standard input there, one
 * character per write (each write runs the probes once), from when the module has
 * started.  A terminal goes into non-canonical mode meanwhile, so characters come as
 * they are typed.  Not with -c (the command owns the terminal), -D or -A.
 */
static void open_module_stdin(struct session *s)
{
	char path[PATH_MAX];

	if (opt.command || opt.daemon || opt.attach || opt.load_only)
		return;
	snprintf(path, sizeof(path), "/proc/systemtap/%s/__stdin", s->module);
	s->stdin_fd = open(path, O_WRONLY | O_CLOEXEC);
	if (s->stdin_fd < 0)
		return;
	say(1, "standard input goes to %s", path);
	if (isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &saved_termios) == 0) {
		struct termios raw = saved_termios;

		raw.c_lflag &= ~ICANON;
		raw.c_cc[VMIN] = 1;
		raw.c_cc[VTIME] = 0;
		if (tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0) {
			termios_changed = true;
			atexit(restore_terminal);
		}
	}
}

/* What standard input has, to the module; at its end (or an error) no more. */
static void forward_stdin(struct session *s)
{
	char buf[256];
	ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	for (ssize_t i = 0; i < n; i++) {
		if (write(s->stdin_fd, &buf[i], 1) != 1) {
			fprintf(stderr, "WARNING: cannot pass standard input to the module: %s\n",
				strerror(errno));
			n = 0;
			break;
		}
	}
	if (n <= 0) {
		close(s->stdin_fd);
		s->stdin_fd = -1;
		restore_terminal();
	}
}

/* The signals whose handlers only set a flag for the session loop. */
static const int flag_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR2, SIGCHLD };

static void on_stop_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void on_quit_signal(int sig)
{
	(void)sig;
	detach_requested = 1;
}

static void on_switch_signal(int sig)
{
	(void)sig;
	switch_requested = 1;
}

static void on_child_signal(int sig)
{
	(void)sig;	/* only to interrupt poll(); the loop reaps */
}

/* One round: everything the buffers hold now, each to its stream. */
static bool drain_relays(struct session *s)
{
	static char buf[256 * 1024];
	bool got = false;

	for (size_t i = 0; i < s->nrelays; i++) {
		size_t total = 0;
		ssize_t n;

		while (total < ROUND_LIMIT && (n = read(s->relays[i].fd, buf, sizeof(buf))) > 0) {
			output_write(s->relays[i].out, buf, n);
			total += n;
			got = true;
		}
	}
	for (size_t i = 0; i < s->nstreams; i++)
		output_end_round(s->streams[i]);
	return got;
}

static void send_message(struct session *s, uint32_t type, const void *payload, uint32_t len)
{
	char buf[STP_CTL_MSG_MAX];
	struct stp_msg_header hdr = { .type = type, .len = len };

	memcpy(buf, &hdr, sizeof(hdr));
	if (len)
		memcpy(buf + sizeof(hdr), payload, len);
	/* the marker's provider is staprun's, as in SystemTap, whose staprun sends them */
	STP_MARK3(staprun, send__ctlmsg, type, payload, len);
	if (write(s->ctl_fd, buf, sizeof(hdr) + len) < 0) {
		fprintf(stderr, "ERROR: cannot write to the control channel of %s: %s\n",
			s->module, strerror(errno));
		s->status = 1;
	}
}

static void request_exit(struct session *s)
{
	if (s->exit_sent)
		return;
	s->exit_sent = true;
	s->exit_sent_at = time(NULL);
	say(1, "asking the module to end the session");
	send_message(s, STP_MSG_EXIT, NULL, 0);
}

static void report_counts(struct session *s, const struct stp_msg_exited *counts)
{
	if (counts->errors || counts->skipped)
		fprintf(stderr, "WARNING: Number of errors: %" PRIu64 ", skipped probes: %"
			PRIu64 "\n", (uint64_t)counts->errors, (uint64_t)counts->skipped);
	if (s->skip_reasons_len)
		fwrite(s->skip_reasons, 1, s->skip_reasons_len, stderr);
	free(s->skip_reasons);
	s->skip_reasons = NULL;
	s->skip_reasons_len = 0;
	if (counts->dropped_bytes)
		fprintf(stderr, "WARNING: %" PRIu64 " bytes of output were dropped: the output "
			"buffers were full (stap -s MB, staprun -b MB make them larger)\n",
			(uint64_t)counts->dropped_bytes);
	if (counts->dropped_messages)
		fprintf(stderr, "WARNING: %" PRIu64 " warning or error messages were dropped "
			"(or system() commands, switch_file() requests)\n",
			(uint64_t)counts->dropped_messages);
	/* as stap 4.8: errors that --suppress-handler-errors caught are counted, not failed */
	if (counts->errors > counts->suppressed_errors)
		s->status = 1;
}

/*
 * Once the module has started, everything that needs root is open (the control channel
 * and the output buffers, then the module's __stdin): stapio goes on as the real user,
 * for good.  Output files are the real user's already; staprun -d, which removes the
 * module at the end, is setuid root on its own.
 */
static void drop_privileges(void)
{
	uid_t uid = getuid();
	gid_t gid = getgid();

	if (uid == geteuid() && gid == getegid())
		return;
	if (setresgid(gid, gid, gid) != 0 || setresuid(uid, uid, uid) != 0)
		fatal("cannot give up root privileges: %s", strerror(errno));
	if (uid != 0 && (setresuid((uid_t)-1, 0, (uid_t)-1) == 0 || geteuid() == 0))
		fatal("root privileges came back after they were given up");
	say(1, "running as user %d from now on", (int)uid);
}

static void handle_started(struct session *s, const struct stp_msg_started *started)
{
	say(1, "module started, status %d", started->status);
	if (started->status == 0) {
		s->started = true;
		if (!(started->flags & STP_STARTED_NO_STDIN))
			open_module_stdin(s);
		drop_privileges();
		if (s->have_child) {
			if (stop_requested)
				child_kill();	/* ended before it began */
			else
				child_release();
		}
		return;
	}
	if (started->status != STP_START_REPORTED)
		fprintf(stderr, "ERROR: the module could not start its probes: %s\n",
			strerror(-started->status));
	s->status = 1;
	if (s->have_child)
		child_kill();
	request_exit(s);
}

/*
 * A warning the module already sent is not shown again, as SystemTap 4.8's stapio does
 * (compared in the guest: warn("same") five times shows one line), unless -v was given.
 * Errors are always shown.  Past MAX_WARNINGS_KEPT different ones, the rest all show.
 */
#define MAX_WARNINGS_KEPT 10000

static int compare_warnings(const void *a, const void *b)
{
	return strcmp(a, b);
}

static bool warning_seen_before(const char *text, size_t len)
{
	static void *seen;
	static size_t kept;
	char *copy;
	void **node;

	if (verbosity > 0 || kept >= MAX_WARNINGS_KEPT)
		return false;
	copy = strndup(text, len);
	if (!copy)
		return false;
	node = tsearch(copy, &seen, compare_warnings);
	if (node && *node != copy) {
		free(copy);
		return true;
	}
	if (node)
		kept++;
	else
		free(copy);
	return false;
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
	STP_MARK3(stapio, recv__ctlmsg, hdr.type, payload, hdr.len);
	switch (hdr.type) {
	case STP_MSG_STARTED: {
		struct stp_msg_started started = { 0 };

		memcpy(&started, payload, hdr.len < sizeof(started) ? hdr.len : sizeof(started));
		handle_started(s, &started);
		break;
	}
	case STP_MSG_REQUEST_EXIT:
		say(1, "the script asked to exit");
		request_exit(s);
		break;
	case STP_MSG_WARNING:
	case STP_MSG_ERROR:
		if (hdr.type == STP_MSG_WARNING && opt.no_warnings)
			break;
		if (hdr.type == STP_MSG_WARNING && warning_seen_before(payload, hdr.len))
			break;
		drain_relays(s);	/* what was printed before comes first */
		fflush(stdout);
		fwrite(payload, 1, hdr.len, stderr);
		fflush(stderr);
		break;
	case STP_MSG_SYSTEM:
		drain_relays(s);	/* what was printed before comes first */
		fflush(stdout);
		system_spawn(payload, hdr.len);
		break;
	case STP_MSG_SWITCH_FILE:
		drain_relays(s);	/* what was printed before stays in the old files */
		for (size_t i = 0; i < s->nstreams; i++)
			output_switch(s->streams[i]);
		break;
	case STP_MSG_SKIP_REASON: {
		char *more = realloc(s->skip_reasons, s->skip_reasons_len + hdr.len);

		if (!more)
			break;
		memcpy(more + s->skip_reasons_len, payload, hdr.len);
		s->skip_reasons = more;
		s->skip_reasons_len += hdr.len;
		break;
	}
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

/* Every message waiting now; false if the channel failed. */
static bool read_messages(struct session *s)
{
	char buf[STP_CTL_MSG_MAX];

	while (!s->exited) {
		ssize_t n = read(s->ctl_fd, buf, sizeof(buf));

		if (n > 0) {
			handle_message(s, buf, n);
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return true;
		fprintf(stderr, "ERROR: reading the control channel of %s: %s\n", s->module,
			n < 0 ? strerror(errno) : "it closed");
		s->status = 1;
		return false;
	}
	return true;
}

/* traceN: N, else -1 */
static int relay_cpu(const char *name)
{
	size_t len = strlen(STP_RELAY_BASENAME);

	if (strncmp(name, STP_RELAY_BASENAME, len) != 0 || !name[len] ||
	    strspn(name + len, "0123456789") != strlen(name + len))
		return -1;
	return atoi(name + len);
}

static int compare_relays(const void *a, const void *b)
{
	const struct relay *x = a, *y = b;

	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

static bool open_outputs(struct session *s)
{
	s->nstreams = s->bulk ? s->nrelays : 1;
	s->streams = calloc(s->nstreams, sizeof(*s->streams));
	if (!s->streams)
		fatal("out of memory");
	for (size_t i = 0; i < s->nstreams; i++) {
		s->streams[i] = output_open(&opt.out, s->bulk ? s->relays[i].cpu : -1);
		if (!s->streams[i])
			return false;
	}
	for (size_t i = 0; i < s->nrelays; i++)
		s->relays[i].out = s->streams[s->bulk ? i : 0];
	return true;
}

/*
 * The session's folder in debugfs is opened once, its owner checked on the opened folder
 * (staprun checked it by name; a session replaced since, of another user's under the same
 * name, is refused here), and its files opened inside it.
 */
static bool open_channels(struct session *s)
{
	char *dir_path = module_debugfs_path(s->module, NULL);
	bool ok = false;
	struct stat st;
	struct dirent *e;
	DIR *d = NULL;
	int dir;

	dir = open(dir_path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dir < 0 || fstat(dir, &st) != 0) {
		if (errno == ENOENT)
			fprintf(stderr, "ERROR: no module %s is loaded (%s is missing)\n",
				s->module, dir_path);
		else
			fprintf(stderr, "ERROR: cannot open %s: %s\n", dir_path, strerror(errno));
		goto out;
	}
	if (!may_use_session(&st, real_user_privilege())) {
		fprintf(stderr, "ERROR: cannot attach to module %s: another user loaded it (only "
			"root, members of stapdev and the user who loaded a module may attach to "
			"it)\n", s->module);
		s->foreign = true;
		goto out;
	}
	s->ctl_fd = openat(dir, STP_CTL_FILE, O_RDWR | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
	if (s->ctl_fd < 0) {
		if (errno == ENOENT)
			fprintf(stderr, "ERROR: no module %s is loaded (%s/%s is missing)\n",
				s->module, dir_path, STP_CTL_FILE);
		else
			fprintf(stderr, "ERROR: cannot open the control channel %s/%s: %s%s\n",
				dir_path, STP_CTL_FILE, strerror(errno),
				errno == EBUSY ? " (another stapio is attached)" : "");
		goto out;
	}
	s->bulk = faccessat(dir, STP_BULKMODE_FILE, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
	d = fdopendir(dup(dir));
	while (d && (e = readdir(d))) {
		int cpu = relay_cpu(e->d_name), fd;
		struct relay *grown;

		if (cpu < 0)
			continue;
		fd = openat(dir, e->d_name, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0) {
			fprintf(stderr, "ERROR: cannot open %s/%s: %s\n", dir_path, e->d_name,
				strerror(errno));
			goto out;
		}
		grown = realloc(s->relays, (s->nrelays + 1) * sizeof(*s->relays));
		if (!grown)
			fatal("out of memory");
		s->relays = grown;
		s->relays[s->nrelays] = (struct relay){ .fd = fd, .cpu = cpu, .polled = true };
		s->nrelays++;
	}
	if (s->nrelays == 0) {
		fprintf(stderr, "ERROR: the module %s has no output buffers (%s/%s[0-9]*)\n",
			s->module, dir_path, STP_RELAY_BASENAME);
		goto out;
	}
	qsort(s->relays, s->nrelays, sizeof(*s->relays), compare_relays);
	say(1, "reading %zu output buffer%s%s", s->nrelays, s->nrelays == 1 ? "" : "s",
	    s->bulk ? " in bulk mode, each into a file of its own" : "");
	ok = open_outputs(s);
out:
	if (d)
		closedir(d);
	if (dir >= 0)
		close(dir);
	free(dir_path);
	return ok;
}

static void close_channels(struct session *s)
{
	for (size_t i = 0; i < s->nrelays; i++)
		close(s->relays[i].fd);
	s->nrelays = 0;
	if (s->ctl_fd >= 0)
		close(s->ctl_fd);
	s->ctl_fd = -1;
	for (size_t i = 0; i < s->nstreams; i++)
		if (s->streams[i] && !output_close(s->streams[i]))
			s->status = 1;
	s->nstreams = 0;
}

/* -D: the session goes on in the background; the parent tells the daemon's pid. */
static void daemonize(struct session *s)
{
	int devnull;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "ERROR: cannot fork the daemon: %s\n", strerror(errno));
		s->status = 1;
		request_exit(s);
		return;
	}
	if (pid > 0) {
		printf("%d\n", (int)pid);
		fflush(stdout);
		_exit(0);
	}
	setsid();
	devnull = open("/dev/null", O_RDWR);
	if (devnull >= 0) {
		dup2(devnull, STDIN_FILENO);
		dup2(devnull, STDOUT_FILENO);
		if (devnull > STDERR_FILENO)
			close(devnull);
	}
	/* no terminal left: messages go where the output goes */
	output_own_stderr(s->streams[0]);
}

enum outcome { SESSION_ENDED, SESSION_DETACHED };

static enum outcome run_session(struct session *s)
{
	struct pollfd *pfds = calloc(s->nrelays + 2, sizeof(*pfds));
	bool daemonized = false;
	sigset_t blocked, unblocked;

	if (!pfds)
		fatal("out of memory");
	/*
	 * The signals that set flags are held while the flags are looked at, and let in only
	 * while waiting (ppoll): one that comes just before the wait ends it at once.
	 */
	sigemptyset(&blocked);
	for (size_t i = 0; i < sizeof(flag_signals) / sizeof(flag_signals[0]); i++)
		sigaddset(&blocked, flag_signals[i]);
	sigprocmask(SIG_BLOCK, &blocked, &unblocked);
	if (opt.attach) {
		s->started = true;
		drop_privileges();
		say(1, "attached to the running session of %s", s->module);
	} else {
		struct stp_msg_start start = { .target_pid = opt.target_pid };

		send_message(s, STP_MSG_START, &start, sizeof(start));
	}
	while (!s->exited) {
		bool relays_woke = false;
		struct timespec timeout = {
			.tv_sec = opt.timeout_ms / 1000,
			.tv_nsec = (long)(opt.timeout_ms % 1000) * 1000000,
		};
		int ready;

		if (opt.load_only && s->started) {
			free(pfds);
			sigprocmask(SIG_SETMASK, &unblocked, NULL);
			return SESSION_DETACHED;
		}
		if (opt.daemon && s->started && !daemonized && !s->exit_sent) {
			daemonize(s);
			daemonized = true;
		}
		pfds[0] = (struct pollfd){ .fd = s->ctl_fd, .events = POLLIN };
		for (size_t i = 0; i < s->nrelays; i++)
			pfds[i + 1] = (struct pollfd){
				.fd = s->relays[i].polled ? s->relays[i].fd : -1,
				.events = POLLIN,
			};
		pfds[s->nrelays + 1] = (struct pollfd){
			.fd = s->stdin_fd >= 0 && !s->exit_sent ? STDIN_FILENO : -1,
			.events = POLLIN,
		};
		ready = ppoll(pfds, s->nrelays + 2, &timeout, &unblocked);
		if (ready > 0 && pfds[s->nrelays + 1].revents)
			forward_stdin(s);
		if (ready < 0 && errno != EINTR)
			fatal("ppoll: %s", strerror(errno));
		for (size_t i = 0; ready > 0 && i < s->nrelays; i++) {
			if (pfds[i + 1].revents & (POLLERR | POLLHUP | POLLNVAL))
				s->relays[i].polled = false;	/* the timeout drives it now */
			else if (pfds[i + 1].revents & POLLIN)
				relays_woke = true;
		}
		if (!drain_relays(s) && relays_woke && !(pfds[0].revents & POLLIN)) {
			/* readable and empty: a file whose poll says nothing; stop asking it */
			for (size_t i = 0; i < s->nrelays; i++)
				if (pfds[i + 1].revents & POLLIN)
					s->relays[i].polled = false;
		}
		if (switch_requested) {
			switch_requested = 0;
			for (size_t i = 0; i < s->nstreams; i++)
				output_switch(s->streams[i]);
		}
		if (detach_requested && !s->exit_sent) {
			free(pfds);
			sigprocmask(SIG_SETMASK, &unblocked, NULL);
			return SESSION_DETACHED;
		}
		if (s->have_child && s->started && child_reap()) {
			say(1, "the command ended");
			request_exit(s);
		}
		if (stop_requested)
			request_exit(s);
		if (!read_messages(s))
			break;
		if (s->exit_sent && !s->exited &&
		    time(NULL) - s->exit_sent_at > EXIT_ANSWER_LIMIT_S) {
			fprintf(stderr, "ERROR: the module %s did not answer the request to exit "
				"within %d seconds; removing it\n", s->module, EXIT_ANSWER_LIMIT_S);
			s->status = 1;
			break;
		}
	}
	free(pfds);
	sigprocmask(SIG_SETMASK, &unblocked, NULL);
	if (s->stdin_fd >= 0)
		close(s->stdin_fd);
	s->stdin_fd = -1;
	restore_terminal();
	return SESSION_ENDED;
}

/* Removal needs privilege; staprun does it. */
static int remove_module(const char *module)
{
	char *staprun = trusted_program("staprun", STAPRUN_PATH);
	int status;
	pid_t pid;

	if (!staprun) {
		fprintf(stderr, "ERROR: cannot remove module %s without staprun\n", module);
		return 1;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		char *argv[] = { "staprun", "-d", (char *)module, NULL };
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);

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

static const char *module_arg;	/* the module staprun loaded (the last argument) */

static struct session *the_session;	/* for remove_loaded_module() */

/*
 * A failure after staprun has loaded the module: do not leave it behind.  The files of
 * the module that are open hold it; they are closed first.
 */
static void remove_loaded_module(void)
{
	struct session *s = the_session;

	if (!module_arg || opt.attach)
		return;
	for (size_t i = 0; s && i < s->nrelays; i++)
		close(s->relays[i].fd);
	if (s && s->ctl_fd >= 0)
		close(s->ctl_fd);
	if (s && s->stdin_fd >= 0)
		close(s->stdin_fd);
	remove_module(module_arg);
}

/* A wrong option: the module staprun loaded is removed (fatal_cleanup). */
static void __attribute__((format(printf, 1, 2), noreturn)) refuse(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	print_error(fmt, ap);
	va_end(ap);
	remove_loaded_module();
	exit(1);
}

/* A number in [MIN, MAX] for WHAT, or refused. */
static long number_option(const char *arg, const char *what, long min, long max)
{
	long v;

	if (!parse_number(arg, min, max, &v))
		refuse("invalid %s '%s' (a number from %ld to %ld)", what, arg, min, max);
	return v;
}

/* -S SIZE[,N]: SIZE megabytes per file, at most N files. */
static void parse_size_option(const char *arg)
{
	long megabytes, files;

	if (!parse_rotation(arg, &megabytes, &files))
		refuse("invalid -S '%s' (SIZE[,N]: megabytes from 1 to %ld, then a number of "
		       "files >= 1)", arg, 1L << 30);
	if (files)
		opt.out.max_files = files;
	opt.out.size_limit = (unsigned long long)megabytes << 20;
	opt.out.numbered = true;
}

static void read_options(int argc, char **argv)
{
	int c;

	/* staprun puts the name last; -A is seen before any refusal needs it */
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "-A") == 0)
			opt.attach = true;
	if (argc > 1 && argv[argc - 1][0] != '-')
		module_arg = argv[argc - 1];
	fatal_cleanup = remove_loaded_module;
	while ((c = getopt(argc, argv, "+vwc:x:o:S:T:DLA")) != -1) {
		switch (c) {
		case 'v':
			verbosity++;
			break;
		case 'w':
			opt.no_warnings = true;
			break;
		case 'c':
			opt.command = optarg;
			break;
		case 'x':
			opt.target_pid = number_option(optarg, "process id for -x", 1, INT_MAX);
			break;
		case 'o':
			opt.out.file = optarg;
			break;
		case 'S':
			parse_size_option(optarg);
			break;
		case 'T':
			opt.timeout_ms = number_option(optarg, "timeout for -T (milliseconds)", 1,
						      INT_MAX);
			break;
		case 'D':
			opt.daemon = true;
			break;
		case 'L':
			opt.load_only = true;
			break;
		case 'A':
			opt.attach = true;
			break;
		default:
			fputs(usage_text, stderr);
			exit(1);
		}
	}
	if (optind + 1 != argc) {
		fputs(usage_text, stderr);
		exit(1);
	}
	if (opt.command && opt.target_pid)
		refuse("-c and -x cannot be used together");
	if (opt.load_only && opt.attach)
		refuse("-L and -A cannot be used together");
	if (opt.load_only && opt.daemon)
		refuse("-L and -D cannot be used together");
	if (opt.attach && (opt.command || opt.target_pid))
		refuse("-A attaches to a started session: its target cannot be set (-c, -x)");
	if (opt.daemon && opt.command)
		refuse("-D cannot be used with -c");
	if (opt.load_only && opt.command)
		refuse("-L cannot be used with -c");
	if (opt.out.size_limit && !opt.out.file)
		refuse("-S needs -o FILE: only output files can be switched");
	if (opt.daemon && !opt.out.file)
		refuse("-D needs -o FILE: a daemon has no terminal to write to");
	opt.out.daemon = opt.daemon;
}

/* Handlers for the session's signals, and none blocked (whatever the parent blocked). */
static void set_signals(void)
{
	struct sigaction stop = { .sa_handler = on_stop_signal };
	struct sigaction quit = { .sa_handler = on_quit_signal };
	struct sigaction usr2 = { .sa_handler = on_switch_signal, .sa_flags = SA_RESTART };
	struct sigaction chld = { .sa_handler = on_child_signal, .sa_flags = SA_NOCLDSTOP };
	struct sigaction ignore = { .sa_handler = SIG_IGN };
	sigset_t none;

	sigaction(SIGINT, &stop, NULL);
	sigaction(SIGTERM, &stop, NULL);
	sigaction(SIGHUP, &stop, NULL);
	sigaction(SIGQUIT, &quit, NULL);
	sigaction(SIGUSR2, &usr2, NULL);
	sigaction(SIGCHLD, &chld, NULL);
	sigaction(SIGPIPE, &ignore, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

int main(int argc, char **argv)
{
	struct session s = { .ctl_fd = -1, .stdin_fd = -1 };
	enum outcome outcome = SESSION_ENDED;
	bool opened;

	program_name = "stapio";
	the_session = &s;
	read_options(argc, argv);
	s.module = argv[optind];
	set_signals();

	if (opt.target_pid && kill(opt.target_pid, 0) != 0 && errno == ESRCH)
		fprintf(stderr, "WARNING: no process %d is running (target() is %d all the "
			"same)\n", opt.target_pid, opt.target_pid);

	opened = open_channels(&s);
	if (!opened) {
		s.status = 1;
	} else if (opt.command && (opt.target_pid = child_spawn(opt.command, s.module)) < 0) {
		s.status = 1;
		opt.target_pid = 0;
	} else {
		s.have_child = opt.command != NULL;
		outcome = run_session(&s);
	}

	if (s.have_child && !s.exited && outcome == SESSION_ENDED && !child_reap())
		child_kill();	/* the session failed under it */
	if (child_has_failed())
		s.status = 1;
	if (outcome == SESSION_DETACHED) {
		drain_relays(&s);
		close_channels(&s);
		fprintf(stderr, "\nDisconnecting from systemtap module.\n"
			"To reconnect, type \"staprun -A %s\"\n", s.module);
		return s.status;
	}
	close_channels(&s);
	if (!opened && (opt.attach || s.foreign))
		return 1;	/* not ours to remove: another stapio may have it, or another user */
	if (remove_module(s.module) || output_failed)
		s.status = 1;
	return s.status;
}
