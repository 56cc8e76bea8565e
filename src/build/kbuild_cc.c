/*
 * kbuild_cc.c - kbuild-cc, the compiler pass 4 gives kbuild: the kernel's probes of its
 * compiler answered from a cache.
 *
 *   kbuild-cc FOLDER COMPILER ARG...
 *
 * Before it builds anything, a kernel's top-level Makefile asks its compiler about 30
 * questions (`$(call cc-option,...)`: does `-Werror OPTION -c -x c /dev/null` compile?),
 * in every kbuild run, each a compiler, a cc1 and an assembler: about 0.4 s of the 1.2 s
 * that building a small module takes.  The answers depend only on the question and the
 * tools, so this program keeps them: a run of COMPILER whose only inputs are its
 * arguments and its standard input (every input file /dev/null or `-`, or none at all, as
 * in `--version`) is looked up in FOLDER under a hash of the arguments (the value of -o,
 * a temporary name of make's, left out), standard input, the environment the compiler
 * reads, and the identity of the compiler and assembler files.  On a hit its exit status,
 * output, error output and -o file are replayed without running anything; on a miss it
 * runs and they are kept.  Any other run (a real compile, anything naming a file it would
 * read or write besides -o) is COMPILER itself, exec'd.
 *
 * stap passes `CC=kbuild-cc FOLDER COMPILER` to make (kbuild.c), FOLDER being in the
 * cache beside the kernel's API test results.  Entries appear by rename(), whole or not
 * at all, so concurrent builds share them safely.
 */
#include "stap.h"
#include "hash.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_KEPT (1 << 20)	/* outputs larger than this are not kept */

/* Options whose value is the next argument and names no file. */
static bool takes_value(const char *arg)
{
	static const char *const names[] = { "-x", "-D", "-U", "-I", "-isystem", "-iquote",
					     "-idirafter", "--param" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(arg, names[i]) == 0)
			return true;
	return false;
}

/* Options that read or write files of their own (dependency files, forced includes,
 * response files, specs): their runs are not kept. */
static bool names_files(const char *arg)
{
	static const char *const prefixes[] = { "@", "-include", "-imacros", "-M", "-Wp,",
						"-specs", "-save-temps", "-fdump", "-Wl," };

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (starts_with(arg, prefixes[i]))
			return true;
	return false;
}

/*
 * Whether the run of ARGV (the compiler's arguments) can be kept: its inputs are only
 * /dev/null or standard input.  *OUT: -o's value (NULL without one); *STDIN: reads it.
 */
static bool keepable(char **argv, int argc, const char **out, bool *reads_stdin)
{
	*out = NULL;
	*reads_stdin = false;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "-o") == 0) {
			if (i + 1 == argc || *out)
				return false;
			*out = argv[++i];
		} else if (strcmp(a, "-") == 0) {
			*reads_stdin = true;
		} else if (a[0] == '-') {
			if (names_files(a))
				return false;
			if (takes_value(a) && ++i == argc)
				return false;
		} else if (strcmp(a, "/dev/null") != 0) {
			return false;	/* a file to compile */
		}
	}
	return true;
}

static void hash_program(struct hasher *h, const char *name)
{
	char *file = which_program(name);

	hash_string(h, file ? file : "(none)");
	if (file)
		hash_file_stat(h, file);
	free(file);
}

static char *read_all(int fd, size_t *len)
{
	struct strbuf sb = { 0 };
	char buf[65536];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		sb_putn(&sb, buf, n);
	}
	*len = sb.len;
	return sb.data ? sb_steal(&sb) : xstrdup("");
}

static void write_all(int fd, const char *p, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return;
		p += n;
		len -= n;
	}
}

/*
 * An entry: "kbuild-cc STATUS OUTLEN ERRLEN OBJLEN\n" (OBJLEN -1: no -o file), then the
 * three texts.  Replays it; false when it is not a whole entry.
 */
static bool replay(const char *data, size_t len, const char *out, int *status)
{
	long long lens[3];
	int n;

	if (sscanf(data, "kbuild-cc %d %lld %lld %lld\n%n", status, &lens[0], &lens[1], &lens[2],
		   &n) != 4 || lens[0] < 0 || lens[1] < 0 || lens[2] < -1 ||
	    (size_t)n + lens[0] + lens[1] + (lens[2] > 0 ? lens[2] : 0) != len)
		return false;
	data += n;
	write_all(STDOUT_FILENO, data, lens[0]);
	write_all(STDERR_FILENO, data + lens[0], lens[1]);
	if (out && lens[2] >= 0)
		write_file(out, data + lens[0] + lens[1], lens[2]);
	return true;
}

/* A temporary file in FOLDER, already unlinked, holding DATA; -1 when it cannot be made. */
static int scratch_file(const char *folder, const char *data, size_t len)
{
	char *path = xasprintf("%s/.scratch-XXXXXX", folder);
	int fd = mkstemp(path);

	if (fd >= 0) {
		unlink(path);
		write_all(fd, data, len);
		lseek(fd, 0, SEEK_SET);
	}
	free(path);
	return fd;
}

/* Runs the compiler with stdin from IN_FD (-1: this one's), its outputs kept; its status
 * as a shell reports it. */
static int run_kept(char **argv, int in_fd, int out_fd, int err_fd)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (in_fd >= 0)
			dup2(in_fd, STDIN_FILENO);
		dup2(out_fd, STDOUT_FILENO);
		dup2(err_fd, STDERR_FILENO);
		execvp(argv[0], argv);
		fprintf(stderr, "kbuild-cc: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFSIGNALED(status))
		return -1;
	return WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
	const char *folder, *out;
	char **cc, *key, *entry, *input = NULL, *texts[3] = { 0 };
	size_t input_len = 0, lens[3] = { 0 }, len;
	bool reads_stdin;
	int status, fds[3] = { -1, -1, -1 }, in_fd = -1;
	struct hasher h;
	struct strbuf sb = { 0 };

	if (argc < 3) {
		fprintf(stderr, "usage: kbuild-cc FOLDER COMPILER [ARG...]\n");
		return 2;
	}
	folder = argv[1];
	cc = argv + 2;
	if (!keepable(cc + 1, argc - 3, &out, &reads_stdin) || make_dirs(folder)) {
		execvp(cc[0], cc);
		fprintf(stderr, "kbuild-cc: cannot run %s: %s\n", cc[0], strerror(errno));
		return 127;
	}

	hasher_init(&h);
	hash_string(&h, "kbuild-cc 1");
	hash_program(&h, cc[0]);
	hash_program(&h, "as");
	static const char *const env[] = { "PATH", "LANG", "LC_ALL", "LC_MESSAGES", "LC_CTYPE",
					   "GCC_EXEC_PREFIX", "COMPILER_PATH", "CPATH",
					   "C_INCLUDE_PATH", "SOURCE_DATE_EPOCH" };
	for (size_t i = 0; i < sizeof(env) / sizeof(env[0]); i++) {
		hash_string(&h, env[i]);
		hash_string(&h, getenv(env[i]) ? getenv(env[i]) : "(unset)");
	}
	for (int i = 0; cc[i]; i++)
		hash_string(&h, cc[i] == out ? "(-o FILE)" : cc[i]);
	if (reads_stdin) {
		input = read_all(STDIN_FILENO, &input_len);
		hash_bytes(&h, input, input_len);
	}
	key = hasher_hex(&h);
	entry = xasprintf("%s/%s", folder, key);

	texts[0] = read_file(entry, &len);
	if (texts[0] && replay(texts[0], len, out, &status))
		return status;
	free(texts[0]);
	texts[0] = NULL;

	/* a miss: the compiler's run, its outputs kept, then given as its own would be */
	if (reads_stdin)
		in_fd = scratch_file(folder, input, input_len);
	fds[0] = scratch_file(folder, "", 0);
	fds[1] = scratch_file(folder, "", 0);
	if ((reads_stdin && in_fd < 0) || fds[0] < 0 || fds[1] < 0) {
		fprintf(stderr, "kbuild-cc: cannot write in %s: %s\n", folder, strerror(errno));
		return 127;
	}
	if (out)
		unlink(out);
	status = run_kept(cc, in_fd, fds[0], fds[1]);
	for (int i = 0; i < 2; i++) {
		lseek(fds[i], 0, SEEK_SET);
		texts[i] = read_all(fds[i], &lens[i]);
	}
	write_all(STDOUT_FILENO, texts[0], lens[0]);
	write_all(STDERR_FILENO, texts[1], lens[1]);
	texts[2] = out ? read_file(out, &lens[2]) : NULL;
	if (status >= 0 && lens[0] + lens[1] + lens[2] <= MAX_KEPT) {
		sb_printf(&sb, "kbuild-cc %d %zu %zu %lld\n", status, lens[0], lens[1],
			  texts[2] ? (long long)lens[2] : -1LL);
		for (int i = 0; i < 3; i++)
			if (texts[i])
				sb_putn(&sb, texts[i], lens[i]);
		install_file(entry, sb.data, sb.len);
	}
	return status < 0 ? 127 : status;
}
