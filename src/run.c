/*
 * run.c - pass 5: hand the module to staprun, which loads it and runs stapio.
 */
#include "stap.h"
#include "debuginfo/dw.h"
#include "debuginfo/user_symbols.h"
#include "../staprun/sdt_markers.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile pid_t staprun_pid;

/* stapio ends the session in order on SIGINT/SIGTERM/SIGHUP; pass them on. */
static void forward_signal(int sig)
{
	if (staprun_pid > 0)
		kill(staprun_pid, sig);
}

/* OPTION VALUE, when there is a value. */
static void add_option(struct strlist *argv, const char *option, const char *value)
{
	if (!value)
		return;
	strlist_add(argv, option);
	strlist_add(argv, value);
}

static void add_number_option(struct strlist *argv, const char *option, long value)
{
	char number[24];

	if (!value)
		return;
	snprintf(number, sizeof(number), "%ld", value);
	add_option(argv, option, number);
}

/*
 * Why this machine's kernel cannot load the module, if it can load none of its kind: the
 * module was built for another release, or the kernel has no loadable modules, or loading
 * them is switched off.  NULL when none of these holds (the failure is another).
 */
static const char *why_host_cannot_load(const struct session *s, char *buf, size_t len)
{
	struct utsname u;
	FILE *f;
	int flag = 0;

	if (uname(&u) == 0 && strcmp(u.release, s->kernel_release) != 0) {
		snprintf(buf, len, "it was built for %s, and this kernel is %s", s->kernel_release,
			 u.release);
		return buf;
	}
	if (access("/proc/modules", F_OK) != 0)
		return "this kernel has no loadable modules";
	f = fopen("/proc/sys/kernel/modules_disabled", "r");
	if (f) {
		flag = fgetc(f);
		fclose(f);
	}
	if (flag == '1')
		return "this kernel loads no more modules (kernel.modules_disabled)";
	return NULL;
}

/* After a failed run on the host: --vm, when the host could never have run it. */
static void suggest_vm(const struct session *s)
{
	char buf[256];
	const char *why = why_host_cannot_load(s, buf, sizeof(buf));

	if (why)
		fprintf(stderr, "Tip: this kernel cannot load the module (%s); stap --vm runs the "
			"script in a disposable guest booting %s (man stap-vm).\n", why,
			s->kernel_release);
}

static void add_unique(struct strlist *l, const char *item)
{
	for (int i = 0; i < l->count; i++)
		if (strcmp(l->items[i], item) == 0)
			return;
	strlist_add(l, item);
}

/*
 * --vm: the host files the guest needs at their paths, for stap-vm's --file: the programs
 * and libraries the script probes or names with -d (and --ldd's), and -c's program when
 * it is a path.  Not with --sysroot: the probed paths are the sysroot's, which stap-vm
 * copies whole.
 */
static void add_guest_files(struct session *s, struct strlist *argv)
{
	struct strlist files = { 0 };
	char *program, *why = NULL;

	if (s->sysroot)
		return;
	user_files_resolve(s);
	for (int i = 0; i < s->nuser_files; i++)
		if (s->user_files[i].target[0] == '/')
			add_unique(&files, s->user_files[i].target);
	if (s->target_cmd) {	/* its program, as a process probe without a path names it */
		program = process_point_program(s, NULL, 0, &why);
		if (program && program[0] == '/' && is_file(program))
			add_unique(&files, program);
		free(program);
		free(why);
	}
	for (int i = 0; i < files.count; i++)
		add_option(argv, "--file", files.items[i]);
	strlist_free(&files);
}

/*
 * What staprun gets after its own name, for the session's options and MODULE: stap's run
 * options in staprun's words, the module, the -G settings and module parameters.  (-o
 * names a file here: --remote takes it out and writes there what the hosts send.)
 */
void staprun_arguments(struct session *s, struct strlist *argv, const char *module)
{
	for (int i = 0; i < s->verbose[4]; i++)
		strlist_add(argv, "-v");
	if (s->suppress_warnings)
		strlist_add(argv, "-w");
	add_option(argv, "-c", s->target_cmd);
	add_number_option(argv, "-x", s->target_pid);
	if (!s->remote_urls.count)
		add_option(argv, "-o", s->output_file);
	add_number_option(argv, "-b", s->buffer_mb);	/* stap -s is staprun -b */
	add_option(argv, "-S", s->switch_files);
	if (s->flight_recorder)	/* stap -F: detach, or a daemon writing to -o's file */
		strlist_add(argv, s->output_file ? "-D" : "-L");
	strlist_add(argv, module);
	for (int i = 0; i < s->global_settings.count; i++)	/* -G var=value */
		strlist_add(argv, s->global_settings.items[i]);
	if (s->target_ns_pid) {	/* a module parameter (runtime/module.c) */
		char *param = xasprintf("stp_target_ns_pid=%ld", s->target_ns_pid);

		strlist_add(argv, param);
		free(param);
	}
}

int run_module(struct session *s)
{
	static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction forward = { .sa_handler = forward_signal }, old[3];
	struct strlist argv = { 0 };
	char *command;
	int status = 0;
	pid_t pid;

	strlist_add(&argv, s->staprun_path);
	if (s->vm) {	/* stap-vm [--rel REL] [-v] [--sysroot DIR] -- STAPRUN-ARGS */
		strlist_add(&argv, "--rel");
		strlist_add(&argv, s->kernel_release);
		add_option(&argv, "--sysroot", s->sysroot);	/* the programs it probes */
		add_guest_files(s, &argv);
		if (s->verbose[4])
			strlist_add(&argv, "-v");
		strlist_add(&argv, "--");
	}
	staprun_arguments(s, &argv, s->module_path);
	if (verbose_at(s, 5, 2))
		show_command(&argv);

	fflush(NULL);
	command = command_text(&argv);
	STP_MARK1(stap, stap_system__start, command);
	free(command);
	pid = fork();
	STP_MARK2(stap, stap_system__spawn, pid < 0 ? errno : 0, pid);
	if (pid < 0) {
		perror("ERROR: fork");
		strlist_free(&argv);
		return 1;
	}
	if (pid == 0) {
		execv(s->staprun_path, argv.items);
		diag_error("cannot run %s: %s", s->staprun_path, strerror(errno));
		_exit(127);
	}
	staprun_pid = pid;
	for (int i = 0; i < 3; i++)
		sigaction(forwarded[i], &forward, &old[i]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	STP_MARK1(stap, stap_system__complete, status);
	staprun_pid = 0;
	for (int i = 0; i < 3; i++)
		sigaction(forwarded[i], &old[i], NULL);
	strlist_free(&argv);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFEXITED(status))
		diag_system_warning("%s exited with status: %d", s->staprun_path,
				    WEXITSTATUS(status));
	else
		diag_system_warning("%s ended by signal %d", s->staprun_path,
				    WTERMSIG(status));
	if (!s->vm)
		suggest_vm(s);
	return 1;
}
