/*
 * header_types.c - the types of C headers, for @cast(p, "type", "<sys/un.h>"): the
 * headers compiled with the compiler's default options and -g into an object whose
 * DWARF describes every type they declare, as stap makes its own module of them.
 *
 * "<a.h><b.h>" names several headers, included in that order (one may need another).
 * The object is made in the cache folder, opened by the caller and removed at once
 * (an open file stays readable): headers change with packages, so it is not kept.
 *
 * "kernel<linux/videodev2.h>" names the target kernel's headers: they are compiled by the
 * kernel's own kbuild (its options, include paths and configuration) into an object kept
 * in the cache per kernel build tree (types/kernel-KEY.o), for the types the kernel's
 * debuginfo lacks (those of code built as modules, or of no code at all).
 */
#include "dw.h"
#include "cache.h"
#include "hash.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The header names of "<a.h><b.h>" (without brackets), or false if it is not so made. */
static bool header_names(const char *spec, struct strlist *names)
{
	const char *p = spec;

	while (*p == '<') {
		size_t len = strcspn(p + 1, "<>");

		if (p[1 + len] != '>' || len == 0)
			break;
		char *name = xstrndup(p + 1, len);

		strlist_add(names, name);
		free(name);
		p += len + 2;
	}
	return *p == '\0' && names->count > 0;
}

bool dw_is_header_spec(const char *spec)
{
	struct strlist names = { 0 };
	bool is = header_names(spec, &names);

	strlist_free(&names);
	return is;
}

char *dw_compile_headers(struct session *s, const char *spec)
{
	static int made;
	struct strlist names = { 0 }, argv = { 0 };
	char *dir = cache_dir(), *folder, *object = NULL;
	const char *cc = "gcc";	/* "the default GCC parameters", as stap(1) says */
	int status = -1;
	pid_t pid;

	if (!header_names(spec, &names)) {
		free(dir);
		return NULL;
	}
	folder = xasprintf("%s/types", dir);
	if (make_dirs(folder) != 0) {
		diag_system_warning("cannot make %s: %s", folder, strerror(errno));
		goto out;
	}
	object = xasprintf("%s/headers-%ld-%d.o", folder, (long)getpid(), made++);
	strlist_add(&argv, cc);
	strlist_add(&argv, "-g");
	strlist_add(&argv, "-fno-eliminate-unused-debug-types");
	strlist_add(&argv, "-c");
	strlist_add(&argv, "-x");
	strlist_add(&argv, "c");
	strlist_add(&argv, "/dev/null");
	for (int i = 0; i < names.count; i++) {
		strlist_add(&argv, "-include");
		strlist_add(&argv, names.items[i]);
	}
	strlist_add(&argv, "-o");
	strlist_add(&argv, object);
	if (verbose_at(s, 2, 2)) {
		char *command = command_text(&argv);

		fprintf(stderr, "Pass 2: the types of %s: %s\n", spec, command);
		free(command);
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		dup2(STDERR_FILENO, STDOUT_FILENO);	/* its messages, as stap shows them */
		execvp(cc, argv.items);
		fprintf(stderr, "cannot run %s: %s\n", cc, strerror(errno));
		_exit(127);
	}
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		/* "WARNING: gcc exited with status: 1", as stap says it */
		if (pid > 0 && WIFEXITED(status))
			diag_system_warning("%s exited with status: %d", cc, WEXITSTATUS(status));
		else
			diag_system_warning("%s did not run: %s", cc,
					    pid < 0 ? strerror(errno) : "killed");
		unlink(object);
		free(object);
		object = NULL;
	}
out:
	strlist_free(&names);
	strlist_free(&argv);
	free(folder);
	free(dir);
	return object;
}

/* Runs ARGV (make) with its output in the file LOG; its exit status, or -1. */
static int run_logged(struct strlist *argv, const char *log)
{
	int status = -1;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
		}
		execvp(argv->items[0], argv->items);
		fprintf(stderr, "cannot run %s: %s\n", argv->items[0], strerror(errno));
		_exit(127);
	}
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return pid > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

char *dw_compile_kernel_headers(struct session *s, const char *spec)
{
	static const char kbuild[] = "ccflags-y := -g -fno-eliminate-unused-debug-types\n"
				     "obj-m := types.o\n";
	struct strlist names = { 0 }, argv = { 0 };
	struct strbuf source = { 0 };
	char *dir = NULL, *object = NULL, *work = NULL, *key, *path, *log = NULL;
	struct hasher h;

	if (!header_names(spec, &names) || !s->kernel_build_dir)
		goto out;
	hasher_init(&h);
	hash_string(&h, "stapler kernel header types 1");
	hash_string(&h, spec);
	hash_string(&h, s->kernel_build_dir);
	path = xasprintf("%s/.config", s->kernel_build_dir);
	hash_file_stat(&h, path);
	free(path);
	path = xasprintf("%s/include/generated/utsrelease.h", s->kernel_build_dir);
	hash_file_stat(&h, path);
	free(path);
	key = hasher_hex(&h);
	dir = cache_dir();
	object = xasprintf("%s/types/kernel-%s.o", dir, key);
	free(key);
	if (cache_mode == CACHE_USE && is_file(object))
		goto out;

	/* a folder of our own for kbuild, beside where the object is kept */
	work = xasprintf("%s/types/kernel-work-XXXXXX", dir);
	path = xasprintf("%s/types", dir);
	if (make_dirs(path) != 0 || !mkdtemp(work)) {
		diag_system_warning("cannot make a folder in %s: %s", path, strerror(errno));
		free(path);
		free(object);
		object = NULL;
		goto out;
	}
	free(path);
	sb_puts(&source, "/* the kernel headers of a @cast, compiled for their types */\n");
	for (int i = 0; i < names.count; i++)
		sb_printf(&source, "#include <%s>\n", names.items[i]);
	path = xasprintf("%s/types.c", work);
	write_file(path, source.data, source.len);
	free(path);
	path = xasprintf("%s/Kbuild", work);
	write_file(path, kbuild, strlen(kbuild));
	free(path);
	strlist_add(&argv, "make");
	path = xasprintf("-C%s", s->kernel_build_dir);
	strlist_add(&argv, path);
	free(path);
	path = xasprintf("M=%s", work);
	strlist_add(&argv, path);
	free(path);
	strlist_add(&argv, "types.o");
	if (verbose_at(s, 2, 2)) {
		char *command = command_text(&argv);

		fprintf(stderr, "Pass 2: the types of kernel%s: %s\n", spec, command);
		free(command);
	}
	log = xasprintf("%s/make.log", work);
	path = xasprintf("%s/types.o", work);
	if (run_logged(&argv, log) != 0 || rename(path, object) != 0) {
		char *text = read_file(log, NULL), *prefix = xasprintf("%s/", work);

		/* the compiler's errors, as stap shows gcc's (without make's lines and our
		 * folder's name) */
		for (char *line = text, *end; line && *line; line = end) {
			end = line + strcspn(line, "\n");
			if (*end)
				*end++ = '\0';
			if (strstr(line, "error:"))
				fprintf(stderr, "%s\n", starts_with(line, prefix) ?
					line + strlen(prefix) : line);
		}
		diag_system_warning("kbuild could not compile the headers of kernel%s", spec);
		free(prefix);
		free(text);
		free(object);
		object = NULL;
	}
	free(path);
out:
	if (work)
		remove_tree_warning(work);
	free(work);
	free(log);
	free(dir);
	sb_free(&source);
	strlist_free(&names);
	strlist_free(&argv);
	return object;
}
