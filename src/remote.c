/*
 * remote.c - pass 5 on other machines: stap --remote [USER@]HOST[:PORT] ... (stap(1)).
 *
 * Everything goes through the system's ssh, so its configuration, agent, known_hosts and
 * password prompts apply as they would by hand; $STAPLER_SSH names another ssh program,
 * $STAPLER_SSH_OPTIONS adds options (split as the shell splits words) before the host.
 * Each target gets one connection, an ssh control master, and every step after the first
 * is a session of it:
 *
 *   1. ask: the target's kernel release, its architecture and its staprun (stapler's);
 *   2. build: once per distinct release, by this program again with REMOTE_BUILD_ENV set
 *      to RELEASE:FILE (options.c), all of them at once; with -p1..-p4, those passes for
 *      each release and nothing more;
 *   3. copy: the module into a fresh folder of the target (its mktemp -d);
 *   4. run: the target's staprun on it (the helper below), its standard output and error
 *      streaming here as they come, whole lines at a time when there are several targets
 *      or --remote-prefix ("N: " before each line, N the index of the --remote); SIGINT,
 *      SIGTERM and SIGHUP here go to every target as a line on the session's standard
 *      input, which the helper turns into that signal to staprun, so end probes run;
 *   5. close the connections.
 *
 * A target that fails a step is reported by its name and the others go on; the exit
 * status is 0 only when every target's staprun exited with 0.  doc/remote.md has the
 * protocol and its reasons.
 */
#include "stap.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include <wordexp.h>

/*
 * The helper: the command of step 4's session, run by the target's login shell as
 * `sh -c HELPER stapler-remote DIR STAPRUN-ARGS...`.  Its standard input carries the
 * host's signals, one name a line; at its end (the host or the connection is gone) the
 * session ends as at a SIGTERM.  DIR, the module's folder, goes when staprun has ended.
 */
static const char remote_helper[] =
	"d=$1; shift\n"
	"exec 3<&0 </dev/null\n"
	"staprun \"$@\" 3<&- &\n"
	"pid=$!\n"
	"(\n"
	"\twhile read -r sig; do\n"
	"\t\tcase $sig in INT | TERM | HUP) kill -s \"$sig\" \"$pid\" 2>/dev/null ;; esac\n"
	"\tdone\n"
	"\tkill -s TERM \"$pid\" 2>/dev/null\n"
	") <&3 >/dev/null 2>&1 &\n"
	"reader=$!\n"
	"exec 3<&-\n"
	"wait \"$pid\"\n"
	"st=$?\n"
	"kill \"$reader\" 2>/dev/null\n"
	"rm -rf \"$d\"\n"
	"exit $st\n";

/* Step 1's command: release, machine, and the first line of staprun -V, one a line. */
static const char remote_ask[] =
	"uname -r; uname -m; p=$(command -v staprun) && \"$p\" -V 2>&1 | head -n 1";

/* Step 3's: a folder for the module, which comes on standard input; its path, printed. */
static const char remote_copy[] =
	"umask 077 && d=$(mktemp -d /tmp/stapler-remote.XXXXXX) && cat >\"$d/%s\" && "
	"echo \"$d\"";

struct line_out {			/* what one of a target's streams sent, not yet a line */
	struct strbuf pending;
	FILE *to;
	int fd;				/* -1 at its end */
};

struct target {
	int index;			/* of its --remote: the N of "N: " and of remote_id() */
	const char *url;		/* as given */
	char *user, *host, *port;	/* user and port may be NULL */
	char *control;			/* the master's socket */
	bool connected;
	char *release, *machine;
	char *module;			/* here */
	char *dir;			/* the module's folder there */
	char *failure;			/* why it stopped, or NULL */
	pid_t run_pid;			/* step 4's ssh */
	int signal_fd;			/* its standard input, -1 once closed */
	struct line_out out, err;
	int status;			/* step 4's: staprun's exit status, 255 for ssh's */
};

static int signal_pipe[2] = { -1, -1 };
static volatile sig_atomic_t interrupted;	/* a signal came: no step after this one */

static void note_signal(int sig)
{
	int saved = errno;
	unsigned char c = (unsigned char)sig;

	interrupted = 1;

	if (write(signal_pipe[1], &c, 1) < 0) {
		/* a full pipe holds signals enough */
	}
	errno = saved;
}

static void fail_target(struct target *t, const char *fmt, ...) PRINTF_LIKE(2, 3);

static void fail_target(struct target *t, const char *fmt, ...)
{
	struct strbuf sb = { 0 };
	va_list ap;

	if (t->failure)
		return;
	va_start(ap, fmt);
	sb_vprintf(&sb, fmt, ap);
	va_end(ap);
	t->failure = sb_steal(&sb);
}

/*
 * URL: [USER@]HOST[:PORT] or ssh://[USER@]HOST[:PORT][/], HOST maybe [IPV6].  False with
 * *why set when it is none of these.
 */
static bool parse_url(struct target *t, const char *url, const char **why)
{
	const char *p = url, *at, *end, *colon;
	char *rest;

	if (starts_with(p, "ssh://"))
		p += 6;
	else if (strstr(p, "://") || starts_with(p, "unix:") || starts_with(p, "direct:") ||
		 starts_with(p, "stapsh:") || starts_with(p, "libvirt:")) {
		*why = "stapler reaches remote hosts over ssh only: [USER@]HOST[:PORT] or "
		       "ssh://[USER@]HOST[:PORT]";
		return false;
	}
	rest = xstrdup(p);
	end = rest + strlen(rest);
	if (end > rest && end[-1] == '/' && p != url)
		rest[--end - rest] = '\0';
	at = strrchr(rest, '@');
	if (at) {
		t->user = xstrndup(rest, at - rest);
		p = at + 1;
	} else {
		p = rest;
	}
	if (*p == '[') {		/* [IPV6]:PORT */
		const char *close = strchr(p, ']');

		if (!close || (close[1] && close[1] != ':')) {
			*why = "an IPv6 address goes in brackets: [ADDRESS] or [ADDRESS]:PORT";
			return false;
		}
		t->host = xstrndup(p + 1, close - p - 1);
		colon = close[1] ? close + 1 : NULL;
	} else {
		colon = strchr(p, ':');
		t->host = colon ? xstrndup(p, colon - p) : xstrdup(p);
	}
	if (colon) {
		t->port = xstrdup(colon + 1);
		if (!*t->port || strspn(t->port, "0123456789") != strlen(t->port) ||
		    atol(t->port) < 1 || atol(t->port) > 65535) {
			*why = "the port must be a number from 1 to 65535";
			return false;
		}
	}
	if (!*t->host || strchr(t->host, '/') || t->host[0] == '-' ||
	    (t->user && (!*t->user || t->user[0] == '-'))) {
		*why = "it names no host (the forms: [USER@]HOST[:PORT], ssh://[USER@]HOST[:PORT])";
		return false;
	}
	return true;
}

/* What an ssh command of a target does with its control master. */
enum ssh_use {
	SSH_MASTER,		/* opens it (step 1) */
	SSH_SESSION,		/* a session of it */
	SSH_EXIT,		/* closes it (ssh -O exit) */
};

/* The ssh command for target T up to its host: options, the control socket, port, user. */
static void ssh_command(struct strlist *argv, const struct target *t, enum ssh_use use)
{
	bool master = use == SSH_MASTER;

	const char *program = getenv("STAPLER_SSH"), *options = getenv("STAPLER_SSH_OPTIONS");
	char *control = xasprintf("ControlPath=%s", t->control);

	strlist_add(argv, program && *program ? program : "ssh");
	strlist_add(argv, "-x");	/* no X11 forwarding, no terminal: a plain channel */
	strlist_add(argv, "-T");
	if (options && *options) {
		wordexp_t words;

		if (wordexp(options, &words, WRDE_NOCMD) == 0) {
			for (size_t i = 0; i < words.we_wordc; i++)
				strlist_add(argv, words.we_wordv[i]);
			wordfree(&words);
		}
	}
	strlist_add(argv, "-o");
	strlist_add(argv, control);
	strlist_add(argv, "-o");
	strlist_add(argv, master ? "ControlMaster=yes" : "ControlMaster=no");
	if (master) {	/* idle (between steps) at most this long, if we are gone */
		strlist_add(argv, "-o");
		strlist_add(argv, "ControlPersist=600");
	}
	if (t->port) {
		strlist_add(argv, "-p");
		strlist_add(argv, t->port);
	}
	if (t->user) {
		strlist_add(argv, "-l");
		strlist_add(argv, t->user);
	}
	if (use == SSH_EXIT) {
		strlist_add(argv, "-O");
		strlist_add(argv, "exit");
	}
	strlist_add(argv, "--");
	strlist_add(argv, t->host);
	free(control);
}

/* S single-quoted for a POSIX shell. */
static void shell_quote(struct strbuf *sb, const char *s)
{
	sb_putc(sb, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			sb_puts(sb, "'\\''");
		else
			sb_putc(sb, *s);
	}
	sb_putc(sb, '\'');
}

/*
 * Starts ARGV with standard input from IN_FD (or /dev/null when -1) and output to OUT_FD
 * and ERR_FD (-1: ours).  OWN_GROUP puts it in a process group of its own, so that a
 * Ctrl-C on the terminal reaches only us (we pass it on as the protocol says).
 */
static pid_t spawn(struct session *s, struct strlist *argv, int in_fd, int out_fd, int err_fd,
		   bool own_group)
{
	pid_t pid;

	if (verbose_at(s, 5, 2))
		show_command(argv);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		diag_error("fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		if (own_group)
			setpgid(0, 0);
		dup2(in_fd >= 0 ? in_fd : null, 0);
		if (out_fd >= 0)
			dup2(out_fd, 1);
		if (err_fd >= 0)
			dup2(err_fd, 2);
		signal(SIGPIPE, SIG_DFL);
		execvp(argv->items[0], argv->items);
		fprintf(stderr, "ERROR: cannot run %s: %s\n", argv->items[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

static int wait_status(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 255;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

/* A temporary file's text, without its last newline; "" when there is none. */
static char *file_text(const char *path)
{
	char *text = read_file(path, NULL);
	size_t n;

	if (!text)
		return xstrdup("");
	n = strlen(text);
	while (n && (text[n - 1] == '\n' || text[n - 1] == '\r'))
		text[--n] = '\0';
	return text;
}

/* What ssh said on its standard error (in PATH), indented under the target's failure. */
static void append_ssh_words(struct target *t, const char *path)
{
	char *words = file_text(path), *line, *save = NULL;
	struct strbuf sb = { 0 };

	if (!t->failure || !*words) {
		free(words);
		return;
	}
	sb_puts(&sb, t->failure);
	for (line = strtok_r(words, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		sb_printf(&sb, "\n  %s", line);
	free(t->failure);
	t->failure = sb_steal(&sb);
	free(words);
}

/*
 * Runs the ssh session COMMAND on every target that has not failed, all at once, with
 * standard input from INPUT[i] (a file, or NULL); each one's standard output is left in
 * WORK/out.N and its error in WORK/err.N.  Files, not pipes: a control master that ssh
 * puts in the background could keep a pipe open after its session ended.
 */
static void run_everywhere(struct session *s, struct target *ts, int n, const char *work,
			   char **commands, char **inputs, bool master, int *statuses)
{
	pid_t *pids = xcalloc(n, sizeof(*pids));

	for (int i = 0; i < n; i++) {
		struct strlist argv = { 0 };
		char *out = xasprintf("%s/out.%d", work, i), *err = xasprintf("%s/err.%d", work, i);
		int in = -1, o, e;

		pids[i] = -1;
		statuses[i] = 255;
		if (ts[i].failure)
			goto next;
		ssh_command(&argv, &ts[i], master ? SSH_MASTER : SSH_SESSION);
		strlist_add(&argv, commands[i]);
		o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (inputs && inputs[i])
			in = open(inputs[i], O_RDONLY);
		if (o >= 0 && e >= 0 && (!inputs || !inputs[i] || in >= 0))
			pids[i] = spawn(s, &argv, in, o, e, !master);
		if (o >= 0)
			close(o);
		if (e >= 0)
			close(e);
		if (in >= 0)
			close(in);
		strlist_free(&argv);
next:
		free(out);
		free(err);
	}
	for (int i = 0; i < n; i++)
		if (pids[i] > 0)
			statuses[i] = wait_status(pids[i]);
	free(pids);
}

/* Step 1: connect to each target and ask what it runs. */
static void ask_targets(struct session *s, struct target *ts, int n, const char *work)
{
	char **commands = xcalloc(n, sizeof(*commands));
	int *statuses = xcalloc(n, sizeof(*statuses));
	struct utsname host;

	uname(&host);
	for (int i = 0; i < n; i++)
		commands[i] = (char *)remote_ask;
	run_everywhere(s, ts, n, work, commands, NULL, true, statuses);
	for (int i = 0; i < n; i++) {
		struct target *t = &ts[i];
		char *out = xasprintf("%s/out.%d", work, i), *err = xasprintf("%s/err.%d", work, i);
		char *text = file_text(out), *save = NULL, *line;
		char *fields[3] = { 0 };
		int nf = 0;

		if (t->failure)
			goto next;
		for (line = strtok_r(text, "\n", &save); line && nf < 3;
		     line = strtok_r(NULL, "\n", &save))
			fields[nf++] = line;
		if (statuses[i] == 255) {
			fail_target(t, "cannot connect over ssh");
		} else {
			t->connected = true;
			if (nf < 2 || statuses[i] == 127)
				fail_target(t, "did not say its kernel release and architecture "
					    "(uname -r, uname -m)");
			else if (nf < 3 || !*fields[2])
				fail_target(t, "has no staprun on the PATH of its ssh sessions: "
					    "install stapler there (make install)");
			else if (!strstr(fields[2], "Stapler"))
				fail_target(t, "its staprun is not stapler's (%s): the module "
					    "needs stapler's staprun and stapio", fields[2]);
		}
		if (!t->failure || t->connected) {
			t->release = xstrdup(fields[0] ? fields[0] : "");
			t->machine = xstrdup(fields[1] ? fields[1] : "");
		}
		if (!t->failure && strcmp(t->machine, host.machine) != 0)
			fail_target(t, "is %s, and stapler builds modules for this machine's "
				    "architecture (%s) only", t->machine, host.machine);
		if (!t->failure && (!*t->release || strpbrk(t->release, "/: ")))
			fail_target(t, "said an odd kernel release '%s'", t->release);
		append_ssh_words(t, err);
		if (verbose_at(s, 5, 1) && !t->failure)
			fprintf(stderr, "Pass 5: %s runs %s (%s).\n", t->url, t->release, t->machine);
next:
		free(text);
		free(out);
		free(err);
	}
	free(commands);
	free(statuses);
}

/*
 * Step 2: a build for each distinct release, all at once: this program with the same
 * command line (stap's messages of each build come out as they would).  Returns the
 * number of builds that failed.
 */
static int build_for_targets(struct session *s, struct target *ts, int n, const char *work)
{
	struct strlist releases = { 0 }, modules = { 0 };
	char *stdin_copy = NULL;
	pid_t *pids;
	int failed = 0;

	/* `stap -`: the script on our standard input, kept for every build to read */
	if (s->script_file && strcmp(s->script_file, "-") == 0 && !s->script_text) {
		size_t len;
		char *text = read_file("/dev/stdin", &len);

		stdin_copy = xasprintf("%s/stdin.stp", work);
		if (!text || write_file(stdin_copy, text, len)) {
			diag_error("cannot read the script on standard input: %s", strerror(errno));
			free(text);
			free(stdin_copy);
			for (int i = 0; i < n; i++)
				fail_target(&ts[i], "no script to build");
			return 1;
		}
		free(text);
	}

	for (int i = 0; i < n; i++) {
		bool seen = false;

		if (ts[i].failure)
			continue;
		for (int r = 0; r < releases.count; r++)
			seen |= strcmp(releases.items[r], ts[i].release) == 0;
		if (!seen) {
			char *module = xasprintf("%s/build%d.ko", work, releases.count);

			strlist_add(&releases, ts[i].release);
			strlist_add(&modules, module);
			free(module);
		}
	}
	pids = xcalloc(releases.count + 1, sizeof(*pids));
	for (int r = 0; r < releases.count; r++) {
		char *value = xasprintf("%s:%s", releases.items[r], modules.items[r]);
		struct strlist argv = { 0 };

		if (verbose_at(s, 1, 1))
			fprintf(stderr, "Building for %s (the kernel of", releases.items[r]);
		for (int i = 0; i < n && verbose_at(s, 1, 1); i++)
			if (!ts[i].failure && strcmp(ts[i].release, releases.items[r]) == 0)
				fprintf(stderr, " %s", ts[i].url);
		if (verbose_at(s, 1, 1))
			fputs(").\n", stderr);
		setenv(REMOTE_BUILD_ENV, value, 1);
		for (int a = 0; a < s->argc; a++)
			strlist_add(&argv, s->argv[a]);
		fflush(NULL);
		pids[r] = fork();
		if (pids[r] == 0) {
			if (stdin_copy) {	/* the script stap - read, for each build */
				int fd = open(stdin_copy, O_RDONLY);

				if (fd >= 0)
					dup2(fd, 0);
			}
			execv("/proc/self/exe", argv.items);
			fprintf(stderr, "ERROR: cannot run /proc/self/exe: %s\n", strerror(errno));
			_exit(127);
		}
		unsetenv(REMOTE_BUILD_ENV);
		strlist_free(&argv);
		free(value);
	}
	for (int r = 0; r < releases.count; r++) {
		int status = pids[r] > 0 ? wait_status(pids[r]) : 1;

		for (int i = 0; i < n; i++) {
			if (ts[i].failure || strcmp(ts[i].release, releases.items[r]) != 0)
				continue;
			if (status != 0)
				fail_target(&ts[i], "the build for its kernel %s failed",
					    releases.items[r]);
			else
				ts[i].module = xstrdup(modules.items[r]);
		}
		failed += status != 0;
	}
	free(pids);
	free(stdin_copy);
	strlist_free(&releases);
	strlist_free(&modules);
	return failed;
}

/* Step 3: each module into a fresh folder of its target. */
static void copy_modules(struct session *s, struct target *ts, int n, const char *work,
			 const char *module_name)
{
	char **commands = xcalloc(n, sizeof(*commands));
	char **inputs = xcalloc(n, sizeof(*inputs));
	int *statuses = xcalloc(n, sizeof(*statuses));

	for (int i = 0; i < n; i++) {
		commands[i] = xasprintf(remote_copy, module_name);
		inputs[i] = ts[i].module;
	}
	run_everywhere(s, ts, n, work, commands, inputs, false, statuses);
	for (int i = 0; i < n; i++) {
		char *out = xasprintf("%s/out.%d", work, i), *err = xasprintf("%s/err.%d", work, i);

		if (!ts[i].failure) {
			ts[i].dir = file_text(out);
			if (statuses[i] != 0 || ts[i].dir[0] != '/' || strchr(ts[i].dir, '\''))
				fail_target(&ts[i], "the module could not be copied there "
					    "(status %d)", statuses[i]);
			append_ssh_words(&ts[i], err);
		}
		free(commands[i]);
		free(out);
		free(err);
	}
	free(commands);
	free(inputs);
	free(statuses);
}

/* The module folders step 3 made, removed (when the runs do not take place). */
static void remove_copies(struct session *s, struct target *ts, int n, const char *work)
{
	char **commands = xcalloc(n, sizeof(*commands));
	int *statuses = xcalloc(n, sizeof(*statuses));

	for (int i = 0; i < n; i++) {
		struct strbuf sb = { 0 };

		if (!ts[i].failure && ts[i].dir) {
			sb_puts(&sb, "rm -rf ");
			shell_quote(&sb, ts[i].dir);
		} else {
			sb_puts(&sb, "true");
		}
		commands[i] = sb_steal(&sb);
	}
	run_everywhere(s, ts, n, work, commands, NULL, false, statuses);
	for (int i = 0; i < n; i++)
		free(commands[i]);
	free(commands);
	free(statuses);
}

/* ---- step 4: the runs, their output here ---- */

static bool line_mode;		/* whole lines (several targets, or the prefix) */

/* What came on one of T's streams: written on as whole lines, or at once. */
static void pass_on(struct session *s, struct target *t, struct line_out *lo, const char *buf,
		    size_t len)
{
	if (!line_mode) {
		fwrite(buf, 1, len, lo->to);
		fflush(lo->to);
		return;
	}
	sb_putn(&lo->pending, buf, len);
	for (;;) {
		char *text = lo->pending.data, *nl;
		size_t line;

		if (!text || !(nl = memchr(text, '\n', lo->pending.len)))
			break;
		line = nl - text + 1;
		if (s->remote_prefix)
			fprintf(lo->to, "%d: ", t->index);
		fwrite(text, 1, line, lo->to);
		memmove(text, nl + 1, lo->pending.len - line);
		lo->pending.len -= line;
	}
	fflush(lo->to);
}

/* The end of one of T's streams: what is left of its last line. */
static void stream_ended(struct session *s, struct target *t, struct line_out *lo)
{
	if (line_mode && lo->pending.len) {
		if (s->remote_prefix)
			fprintf(lo->to, "%d: ", t->index);
		fwrite(lo->pending.data, 1, lo->pending.len, lo->to);
		fputc('\n', lo->to);
		fflush(lo->to);
	}
	sb_free(&lo->pending);
	close(lo->fd);
	lo->fd = -1;
}

static bool start_run(struct session *s, struct target *t, const char *module_name, FILE *out)
{
	struct strlist argv = { 0 }, run = { 0 };
	struct strbuf command = { 0 };
	int in[2], o[2], e[2];
	char *module = xasprintf("%s/%s", t->dir, module_name);
	char *remote = xasprintf("%d:%s", t->index, t->url);

	/* the staprun arguments: the session's, -R (a name of its own, as one host may run
	 * the script twice) and -r N:URI (remote_id(), remote_uri()) */
	strlist_add(&run, "-R");
	if (!strchr(t->url, '"')) {
		strlist_add(&run, "-r");
		strlist_add(&run, remote);
	}
	staprun_arguments(s, &run, module);
	sb_puts(&command, "sh -c ");
	shell_quote(&command, remote_helper);
	sb_puts(&command, " stapler-remote ");
	shell_quote(&command, t->dir);
	for (int i = 0; i < run.count; i++) {
		sb_putc(&command, ' ');
		shell_quote(&command, run.items[i]);
	}
	ssh_command(&argv, t, SSH_SESSION);
	strlist_add(&argv, command.data);
	if (pipe(in) || pipe(o) || pipe(e)) {
		fail_target(t, "pipe: %s", strerror(errno));
		return false;
	}
	t->run_pid = spawn(s, &argv, in[0], o[1], e[1], true);
	close(in[0]);
	close(o[1]);
	close(e[1]);
	fcntl(in[1], F_SETFD, FD_CLOEXEC);
	fcntl(o[0], F_SETFD, FD_CLOEXEC);
	fcntl(e[0], F_SETFD, FD_CLOEXEC);
	t->signal_fd = in[1];
	t->out = (struct line_out){ .fd = o[0], .to = out };
	t->err = (struct line_out){ .fd = e[0], .to = stderr };
	strlist_free(&argv);
	strlist_free(&run);
	sb_free(&command);
	free(module);
	free(remote);
	if (t->run_pid < 0) {
		fail_target(t, "cannot start ssh");
		return false;
	}
	return true;
}

/* Signal SIG to every target still running, as a line of the protocol. */
static void forward(struct target *ts, int n, int sig)
{
	const char *name = sig == SIGINT ? "INT\n" : sig == SIGTERM ? "TERM\n" : "HUP\n";

	for (int i = 0; i < n; i++)
		if (ts[i].signal_fd >= 0 && write(ts[i].signal_fd, name, strlen(name)) < 0) {
			close(ts[i].signal_fd);	/* its session has ended */
			ts[i].signal_fd = -1;
		}
}

static void run_targets(struct session *s, struct target *ts, int n, const char *module_name,
			FILE *out)
{
	struct pollfd *fds = xcalloc(2 * n + 1, sizeof(*fds));
	int running = 0;

	for (int i = 0; i < n; i++) {
		ts[i].signal_fd = -1;
		ts[i].out.fd = ts[i].err.fd = -1;
		if (!ts[i].failure && start_run(s, &ts[i], module_name, out))
			running++;
	}
	while (running) {
		int nfds = 0;
		struct line_out *streams[2 * n];
		struct target *owners[2 * n];

		fds[nfds++] = (struct pollfd){ .fd = signal_pipe[0], .events = POLLIN };
		for (int i = 0; i < n; i++) {
			struct line_out *both[2] = { &ts[i].out, &ts[i].err };

			for (int k = 0; k < 2; k++) {
				if (both[k]->fd < 0)
					continue;
				streams[nfds - 1] = both[k];
				owners[nfds - 1] = &ts[i];
				fds[nfds++] = (struct pollfd){ .fd = both[k]->fd, .events = POLLIN };
			}
		}
		if (nfds == 1)
			break;
		if (poll(fds, nfds, -1) < 0) {
			if (errno == EINTR)
				continue;
			diag_error("poll: %s", strerror(errno));
			break;
		}
		if (fds[0].revents & POLLIN) {
			unsigned char sig;

			if (read(signal_pipe[0], &sig, 1) == 1)
				forward(ts, n, sig);
		}
		for (int f = 1; f < nfds; f++) {
			char buf[65536];
			ssize_t got;

			if (!fds[f].revents)
				continue;
			got = read(fds[f].fd, buf, sizeof(buf));
			if (got > 0)
				pass_on(s, owners[f - 1], streams[f - 1], buf, (size_t)got);
			else if (got == 0 || errno != EINTR)
				stream_ended(s, owners[f - 1], streams[f - 1]);
		}
	}
	for (int i = 0; i < n; i++) {
		struct target *t = &ts[i];

		if (t->run_pid <= 0)
			continue;
		if (t->signal_fd >= 0)
			close(t->signal_fd);
		t->signal_fd = -1;
		t->status = wait_status(t->run_pid);
		if (t->status == 255)
			fail_target(t, "its ssh session ended with status 255 (the connection "
				    "was lost, or ssh failed)");
		else if (t->status)
			fail_target(t, "staprun exited with status %d", t->status);
	}
	free(fds);
}

/* Step 5: each master connection closed, each leftover folder removed. */
static void close_targets(struct session *s, struct target *ts, int n)
{
	for (int i = 0; i < n; i++) {
		struct strlist argv = { 0 };
		int null = open("/dev/null", O_WRONLY);
		pid_t pid;

		if (!ts[i].connected)
			continue;
		ssh_command(&argv, &ts[i], SSH_EXIT);
		pid = spawn(s, &argv, -1, null, null, true);
		if (pid > 0)
			wait_status(pid);
		if (null >= 0)
			close(null);
		strlist_free(&argv);
	}
}

/* A signal came before the runs: said once, not as each host's failure; status 1. */
static int stopped_before_runs(struct target *ts, int n)
{
	fputs("stap: interrupted before the script ran on the --remote hosts\n", stderr);
	for (int i = 0; i < n; i++)
		ts[i].failure = NULL;
	return 1;
}

int run_remote(struct session *s)
{
	static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction note = { .sa_handler = note_signal }, old[3], ignore = { 0 }, old_pipe;
	int n = s->remote_urls.count, failed = 0, rc = 0;
	struct target *ts = xcalloc(n, sizeof(*ts));
	char *work = xasprintf("%s/stapremoteXXXXXX", s->tmpdir_parent), *sockets;
	char *module_name;
	FILE *out = stdout;
	double start = now_ms();

	for (int i = 0; i < n; i++) {
		const char *why = NULL;

		ts[i].index = i;
		ts[i].url = s->remote_urls.items[i];
		if (!parse_url(&ts[i], ts[i].url, &why)) {
			diag_error("--remote %s: %s", ts[i].url, why);
			return 1;
		}
	}
	if (!mkdtemp(work)) {
		diag_error("cannot make a temporary folder in %s: %s", s->tmpdir_parent,
			   strerror(errno));
		return 1;
	}
	/* a unix socket's path has room for about 100 bytes, and ssh adds 17 while it makes
	 * one: a long $TMPDIR gets the sockets a folder of /tmp's */
	sockets = work;
	if (strlen(work) > 70) {
		sockets = xstrdup("/tmp/stapsshXXXXXX");
		if (!mkdtemp(sockets)) {
			free(sockets);
			sockets = work;
		}
	}
	for (int i = 0; i < n; i++)
		ts[i].control = xasprintf("%s/c%d", sockets, i);
	if (s->last_pass == 5 && s->output_file && !(out = fopen(s->output_file, "w"))) {
		diag_error("cannot write %s: %s", s->output_file, strerror(errno));
		if (sockets != work)
			remove_tree_warning(sockets);
		remove_tree_warning(work);
		return 1;
	}
	if (pipe(signal_pipe) == 0) {
		fcntl(signal_pipe[0], F_SETFD, FD_CLOEXEC);
		fcntl(signal_pipe[1], F_SETFD, FD_CLOEXEC);
		fcntl(signal_pipe[1], F_SETFL, O_NONBLOCK);
	}
	for (int i = 0; i < 3; i++)
		sigaction(forwarded[i], &note, &old[i]);
	ignore.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &ignore, &old_pipe);

	/* A signal before the runs (a Ctrl-C reaches the builds and the first ssh commands,
	 * which share our terminal) ends it all: said once, not as each host's failure. */
	ask_targets(s, ts, n, work);
	if (!interrupted)
		failed = build_for_targets(s, ts, n, work);
	if (interrupted) {
		rc = stopped_before_runs(ts, n);
		goto done;
	}
	if (s->last_pass < 5) {
		rc = failed ? 1 : 0;
		goto done;
	}
	/* the file's name there (staprun -R loads it under a name of its own) */
	module_name = xasprintf("%s.ko", s->module_name ? s->module_name : "stap_remote");
	if (verbose_at(s, 5, 1))
		fprintf(stderr, "Pass 5: connected and built in %.0f ms.\n", now_ms() - start);
	copy_modules(s, ts, n, work, module_name);
	if (interrupted) {	/* before the runs: the copies go */
		remove_copies(s, ts, n, work);
		free(module_name);
		rc = stopped_before_runs(ts, n);
		goto done;
	}
	line_mode = n > 1 || s->remote_prefix;
	run_targets(s, ts, n, module_name, out);
	free(module_name);
done:
	close_targets(s, ts, n);
	for (int i = 0; i < 3; i++)
		sigaction(forwarded[i], &old[i], NULL);
	sigaction(SIGPIPE, &old_pipe, NULL);
	if (out != stdout)
		fclose(out);
	for (int i = 0; i < n; i++) {
		if (!ts[i].failure)
			continue;
		diag_error("--remote %s (%d): %s", ts[i].url, i, ts[i].failure);
		rc = 1;
	}
	if (verbose_at(s, 5, 1))
		fprintf(stderr, "Pass 5: ran on %d %s in %.0f ms.\n", n, n == 1 ? "host" : "hosts",
			now_ms() - start);
	if (sockets != work)
		remove_tree_warning(sockets);
	remove_tree_warning(work);
	return rc;
}
