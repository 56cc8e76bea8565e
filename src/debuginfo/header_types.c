/*
 * header_types.c - the types of C headers, for @cast(p, "type", "<sys/un.h>"): the
 * headers compiled with the compiler's default options and -g into an object whose
 * DWARF describes every type they declare, as stap makes its own module of them.
 *
 * "<a.h><b.h>" names several headers, included in that order (one may need another).
 * The object is made in the cache folder, opened by the caller and removed at once
 * (an open file stays readable): headers change with packages, so it is not kept.
 */
#include "dw.h"
#include "cache.h"

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
