/*
 * stapio_child.c - the -c command: forked before START so that its pid is the target pid
 * the module gets, held on a pipe until the module has started, then run as the real user
 * with stapio's own standard input, output and error.  Also the commands of the script's
 * system() calls, run likewise but in the background.
 */
#include "stapio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <wordexp.h>

static pid_t child_pid = -1;
static int release_fd = -1;	/* one byte written here lets the child exec */
static bool child_gone;
static bool child_failed;	/* it exited with a status other than 0, or by a signal */

/*
 * The command's words as the shell would make them (quotes, variables, ~, patterns),
 * run directly, as stap's stapio runs them: so a program that cannot run is
 * "CMD: No such file or directory" with status 1.  What wordexp(3) refuses (a pipe, a
 * redirection, a command substitution, ...) is run by /bin/sh -c.
 */
static void exec_command(const char *cmd)
{
	wordexp_t words;

	if (wordexp(cmd, &words, WRDE_NOCMD) == 0 && words.we_wordc > 0) {
		execvp(words.we_wordv[0], words.we_wordv);
		fprintf(stderr, "%s: %s\n", cmd, strerror(errno));	/* as stap's */
		_exit(1);
	}
	execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
	fprintf(stderr, "ERROR: cannot run /bin/sh for the command: %s\n", strerror(errno));
	_exit(127);
}

/* In a child: the signal dispositions of an ordinary process. */
static void reset_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR2, SIGPIPE, SIGCHLD };
	sigset_t none;

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* In a child: all the way to the real user, so the command cannot regain root. */
static void become_real_user(void)
{
	if (setgid(getgid()) != 0 || setuid(getuid()) != 0) {
		fprintf(stderr, "ERROR: cannot drop privileges for the command: %s\n",
			strerror(errno));
		_exit(127);
	}
	if (getuid() != 0 && (setuid(0) == 0 || seteuid(0) == 0))
		_exit(127);
}

/* What stap's stapio tells its command: its verbosity (-v) and the module's name. */
static void set_command_environment(const char *module)
{
	char level[16];

	snprintf(level, sizeof(level), "%d", verbosity);
	setenv("SYSTEMTAP_VERBOSE", level, 1);
	setenv("SYSTEMTAP_MODULE", module, 1);
}

static void child_main(int hold_fd, const char *cmd, const char *module)
{
	ssize_t n;
	char go;

	reset_signals();
	while ((n = read(hold_fd, &go, 1)) < 0 && errno == EINTR)
		;
	if (n != 1)
		_exit(126);	/* the module did not start: never run */
	close(hold_fd);
	become_real_user();
	set_command_environment(module);
	exec_command(cmd);
}

pid_t child_spawn(const char *cmd, const char *module)
{
	int hold[2];

	if (pipe2(hold, O_CLOEXEC) != 0) {
		fprintf(stderr, "ERROR: cannot make a pipe for the command: %s\n", strerror(errno));
		return -1;
	}
	fflush(NULL);
	child_pid = fork();
	if (child_pid < 0) {
		fprintf(stderr, "ERROR: cannot fork the command: %s\n", strerror(errno));
		close(hold[0]);
		close(hold[1]);
		return -1;
	}
	if (child_pid == 0) {
		close(hold[1]);
		child_main(hold[0], cmd, module);
	}
	close(hold[0]);
	release_fd = hold[1];
	say(1, "command forked as pid %d, held until the module has started", (int)child_pid);
	return child_pid;
}

void child_release(void)
{
	if (release_fd < 0)
		return;
	say(1, "running the command (pid %d)", (int)child_pid);
	if (write(release_fd, "g", 1) != 1)
		fprintf(stderr, "ERROR: cannot start the command: %s\n", strerror(errno));
	close(release_fd);
	release_fd = -1;
}

void child_kill(void)
{
	int status;

	if (child_pid < 0 || child_gone)
		return;
	if (release_fd >= 0) {
		close(release_fd);	/* a held child exits on its own; make sure */
		release_fd = -1;
	}
	kill(child_pid, SIGKILL);
	while (waitpid(child_pid, &status, 0) < 0 && errno == EINTR)
		;
	child_gone = true;
}

bool child_reap(void)
{
	int status;
	pid_t pid;

	if (child_pid < 0 || child_gone)
		return child_gone;
	pid = waitpid(child_pid, &status, WNOHANG);
	if (pid == child_pid || (pid < 0 && errno == ECHILD)) {
		child_gone = true;
		/* stap's words, and its exit status 1, for a command that failed */
		if (pid == child_pid && WIFEXITED(status) && WEXITSTATUS(status)) {
			fprintf(stderr, "WARNING: Child process exited with status %d\n",
				WEXITSTATUS(status));
			child_failed = true;
		} else if (pid == child_pid && WIFSIGNALED(status)) {
			fprintf(stderr, "WARNING: Child process exited with signal %d (%s)\n",
				WTERMSIG(status), strsignal(WTERMSIG(status)));
			child_failed = true;
		} else if (pid == child_pid) {
			say(1, "the command exited with status 0");
		}
	}
	return child_gone;
}

bool child_has_failed(void)
{
	return child_failed;
}

/*
 * system(): the command's process is a grandchild, which init adopts once the child in
 * between has exited: stapio waits for that child only, at once, and never for the
 * command, which may outlive the session.
 */
void system_spawn(const char *cmd, size_t len)
{
	char *line = strndup(cmd, len);
	pid_t pid;
	int status;

	if (!line)
		fatal("out of memory");
	say(1, "system(): running '%s'", line);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "WARNING: system(): cannot fork for '%s': %s\n", line,
			strerror(errno));
	} else if (pid == 0) {
		pid_t command = fork();

		if (command == 0) {
			reset_signals();
			become_real_user();
			execl("/bin/sh", "sh", "-c", line, (char *)NULL);
			fprintf(stderr, "WARNING: system(): cannot run /bin/sh: %s\n",
				strerror(errno));
			_exit(127);
		}
		if (command < 0)
			fprintf(stderr, "WARNING: system(): cannot fork for '%s': %s\n", line,
				strerror(errno));
		_exit(0);
	} else {
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	free(line);
}
