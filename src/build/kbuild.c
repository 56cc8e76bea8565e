/*
 * kbuild.c - pass 4: the C file to a .ko with the target kernel's own kbuild.
 *
 * Pass 3 left MODULE.c in the work folder; this adds a Kbuild file and runs
 *   make -C /lib/modules/REL/build M=WORKDIR modules [-B options]
 * Compiler output is kept in WORKDIR/make.log; when the build fails, the compiler's
 * messages are shown (make's own chatter left out).
 *
 * Before that, the kernel API tests: each runtime/autoconf/NAME.c compiles only when the
 * target kernel has one form of an API.  All of them are compiled in one kbuild run
 * (make -k, one object each) and each object that appears gives "#define STP_HAVE_NAME 1"
 * in stp_autoconf.h, which runtime/compat.h includes.  The result is cached per kernel
 * build tree, so this happens once per kernel.
 */
#include "module_cache.h"
#include "cache.h"
#include "hash.h"
#include "../../staprun/modimage.h"
#include "../../staprun/sdt_markers.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <dirent.h>
#include <ctype.h>
#include <unistd.h>

#ifndef PKGLIBEXECDIR
#define PKGLIBEXECDIR "/usr/local/libexec/stapler"
#endif

/* Module names: letters, digits and '_', at most 55 characters (MODULE_NAME_LEN - 1). */
#define MAX_MODULE_NAME 55

char *default_module_name(struct session *s, const char *script_text)
{
	uint64_t h = hash64(script_text, strlen(script_text), 0);

	for (int i = 0; i < s->script_args.count; i++)
		h = hash64(s->script_args.items[i], strlen(s->script_args.items[i]) + 1, h);
	for (int i = 0; i < s->defines.count; i++)
		h = hash64(s->defines.items[i], strlen(s->defines.items[i]) + 1, h);
	h = hash64(s->kernel_release, strlen(s->kernel_release), h ^ (s->guru ? 1 : 0));
	return xasprintf("stap_%016" PRIx64, h);
}

bool valid_module_name(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > MAX_MODULE_NAME)
		return false;
	return strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == n;
}

/* A make variable value that the shell kbuild hands it to sees as one word. */
static void put_shell_quoted(struct strbuf *sb, const char *s)
{
	sb_putc(sb, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			sb_puts(sb, "'\\''");
		else if (*s == '$')
			sb_puts(sb, "$$");	/* make would expand it */
		else
			sb_putc(sb, *s);
	}
	sb_putc(sb, '\'');
}

static void show_log(const char *path);

/*
 * The progress line of a long step: on a terminal, without -v, a line on stderr that says
 * what runs and for how long, rewritten each second from the second second on, and
 * erased when the step ends (so the messages after it start on a clean line).  Nothing
 * when stderr is no terminal: logs stay as they were.  STAPLER_PROGRESS_AFTER=SECONDS
 * starts the line sooner or later (the tests use 0).
 */
struct progress {
	const char *what;	/* NULL: no line */
	double start;
	long after;		/* the first second shown */
	long shown;		/* the seconds on the line, -1 before the first */
};

static void progress_begin(struct progress *p, struct session *s, const char *what)
{
	const char *after = getenv("STAPLER_PROGRESS_AFTER");
	bool verbose = false;

	for (int i = 0; i < 5; i++)
		verbose |= s->verbose[i] > 0;
	p->what = !verbose && isatty(STDERR_FILENO) && !getenv("STAPLER_NO_PROGRESS") ? what : NULL;
	p->start = now_ms();
	p->after = after && *after ? strtol(after, NULL, 10) : 2;
	p->shown = -1;
}

static void progress_tick(struct progress *p)
{
	long seconds;

	if (!p->what)
		return;
	seconds = (long)((now_ms() - p->start) / 1000);
	if (seconds >= p->after && seconds != p->shown) {
		fprintf(stderr, "\r%s (%lds)\033[K", p->what, seconds);
		fflush(stderr);
		p->shown = seconds;
	}
}

static void progress_end(struct progress *p)
{
	if (p->what && p->shown >= 0) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	p->what = NULL;
}

/*
 * Runs make with ARGV, its output into LOG (or on stderr with SHOW); make's exit status.
 * PROGRESS: the progress line's words while it runs (none when SHOW).
 */
static int run_make(struct session *s, struct strlist *argv, const char *log, bool show,
		    const char *progress)
{
	struct progress line;
	char *command;
	int status;
	pid_t pid;

	fflush(NULL);
	command = command_text(argv);
	STP_MARK1(stap, stap_system__start, command);
	free(command);
	pid = fork();
	STP_MARK2(stap, stap_system__spawn, pid < 0 ? errno : 0, pid);
	if (pid < 0) {
		perror("ERROR: fork");
		return -1;
	}
	if (pid == 0) {
		if (!show) {
			int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);

			if (fd >= 0) {
				dup2(fd, STDOUT_FILENO);
				dup2(fd, STDERR_FILENO);
				close(fd);
			}
		} else {
			dup2(STDERR_FILENO, STDOUT_FILENO);
		}
		execvp("make", argv->items);
		diag_error("cannot run make: %s", strerror(errno));
		_exit(127);
	}
	progress_begin(&line, s, show ? NULL : progress);
	for (;;) {
		pid_t done = waitpid(pid, &status, line.what ? WNOHANG : 0);

		if (done == pid)
			break;
		if (done < 0 && errno != EINTR) {
			perror("ERROR: waitpid");
			progress_end(&line);
			return -1;
		}
		if (done == 0) {	/* still running: the line, then a fifth of a second */
			progress_tick(&line);
			nanosleep(&(struct timespec){ .tv_nsec = 200000000 }, NULL);
		}
	}
	progress_end(&line);
	STP_MARK1(stap, stap_system__complete, status);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* -B options that choose the compiler, which the API tests must use too. */
static bool is_toolchain_arg(const char *arg)
{
	static const char *const names[] = { "CC=", "LLVM=", "ARCH=", "CROSS_COMPILE=", "LD=" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (starts_with(arg, names[i]))
			return true;
	return false;
}

/* NAME of each runtime/autoconf/NAME.c, sorted. */
static struct strlist autoconf_tests(const char *dir)
{
	struct strlist names = { 0 };
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		size_t n = strlen(e->d_name);

		if (n > 2 && strcmp(e->d_name + n - 2, ".c") == 0 && e->d_name[0] != '.') {
			char *name = xstrndup(e->d_name, n - 2);

			strlist_add(&names, name);
			free(name);
		}
	}
	if (d)
		closedir(d);
	qsort(names.items, names.count, sizeof(names.items[0]), compare_strings);
	return names;
}

/*
 * Values kbuild works out by running programs in every make it starts, which the kernel
 * API tests' run prints once per kernel (as "stapler-kbuild NAME=VALUE"), kept in a file
 * each: the compiler kbuild runs (for kbuild-cc, not given to make as it is); 6.1's
 * PAHOLE_FLAGS, a recursive variable that runs scripts/pahole-flags.sh and pahole at each
 * expansion (five times a build, 0.15 s); CFLAGS_GCOV, whose -fprofile-update test runs
 * nm twice on the compiler's objects in every make (0.15 s, a tenth of a hello world's
 * build).  The last two are given to make as they are (a variable on make's command line
 * makes the Makefile's assignments to it, and the programs they run, go unevaluated),
 * unless -B sets the variable or one it is made from (build_module()).
 */
static const struct {
	const char *var, *file;
	bool to_make;
	const char *made_from;	/* -B of this variable too leaves the kept value out */
} kbuild_values[] = {
	{ "CC", "compiler", false, NULL },
	{ "PAHOLE_FLAGS", "pahole_flags", true, "PAHOLE" },
	{ "CFLAGS_GCOV", "cflags_gcov", true, NULL },
};

/* Each value make's LOG printed, into WORK/FILE (kbuild_values). */
static void keep_kbuild_values(const char *log, const char *work)
{
	char *log_text = read_file(log, NULL), *text = log_text ? xasprintf("\n%s", log_text) : NULL;

	for (size_t i = 0; text && i < sizeof(kbuild_values) / sizeof(kbuild_values[0]); i++) {
		char *mark = xasprintf("\nstapler-kbuild %s=", kbuild_values[i].var);
		char *line = strstr(text, mark), *path;

		if (line) {
			char *value = line + strlen(mark);
			size_t n;

			value += strspn(value, " \t");
			n = strcspn(value, "\n");
			path = xasprintf("%s/%s", work, kbuild_values[i].file);
			write_file(path, value, n);
			free(path);
		}
		free(mark);
	}
	free(text);
	free(log_text);
}

/* Compiles the tests in WORK; the text of stp_autoconf.h, or NULL when none compiled. */
static char *run_autoconf(struct session *s, const char *tests_dir, const struct strlist *tests,
			  const char *work)
{
	struct strbuf kbuild = { 0 }, header = { 0 };
	struct strlist argv = { 0 };
	char *log = xasprintf("%s/make.log", work);
	char *path;
	int found = 0;

	sb_puts(&kbuild, "# Generated by stapler: kernel API tests, one object each.\n");
	/* a mismatched form must fail to compile, not merely warn */
	sb_puts(&kbuild, "ccflags-y := -Werror=implicit-function-declaration "
		"-Werror=incompatible-pointer-types -Werror=int-conversion\n");
	/* the values kbuild_values names, as kbuild has them */
	for (size_t i = 0; i < sizeof(kbuild_values) / sizeof(kbuild_values[0]); i++)
		sb_printf(&kbuild, "$(info stapler-kbuild %s=$(%s))\n", kbuild_values[i].var,
			  kbuild_values[i].var);
	for (int i = 0; i < tests->count; i++) {
		char *src = xasprintf("%s/%s.c", tests_dir, tests->items[i]);
		char *dst = xasprintf("%s/%s.c", work, tests->items[i]);
		size_t len;
		char *text = read_file(src, &len);

		if (!text || write_file(dst, text, len))
			diag_system_warning("cannot copy %s to %s", src, dst);
		sb_printf(&kbuild, "obj-m += %s.o\n", tests->items[i]);
		free(text);
		free(src);
		free(dst);
	}
	path = xasprintf("%s/Kbuild", work);
	write_file(path, kbuild.data, kbuild.len);
	free(path);

	strlist_add(&argv, "make");
	strlist_add(&argv, "-k");
	path = xasprintf("-j%ld", sysconf(_SC_NPROCESSORS_ONLN) > 0 ?
			 sysconf(_SC_NPROCESSORS_ONLN) + 1 : 2);
	strlist_add(&argv, path);
	free(path);
	path = xasprintf("-C%s", s->kernel_build_dir);
	strlist_add(&argv, path);
	free(path);
	path = xasprintf("M=%s", work);
	strlist_add(&argv, path);
	free(path);
	for (int i = 0; i < s->make_args.count; i++)
		if (is_toolchain_arg(s->make_args.items[i]))
			strlist_add(&argv, s->make_args.items[i]);
	for (int i = 0; i < tests->count; i++) {
		char *target = xasprintf("%s.o", tests->items[i]);

		strlist_add(&argv, target);
		free(target);
	}
	if (verbose_at(s, 4, 2))
		show_command(&argv);
	/* failures are expected: they are the answers */
	run_make(s, &argv, log, false, "Pass 4: testing the kernel's API (once per kernel)");

	sb_printf(&header, "/* stp_autoconf.h - the kernel API tests of runtime/autoconf for\n"
		  " * kernel %s (%s), written by stapler's pass 4. */\n",
		  s->kernel_release, s->kernel_build_dir);
	for (int i = 0; i < tests->count; i++) {
		char *obj = xasprintf("%s/%s.o", work, tests->items[i]);
		char *macro = xstrdup(tests->items[i]);

		for (char *p = macro; *p; p++)
			*p = toupper((unsigned char)*p);
		if (is_file(obj)) {
			sb_printf(&header, "#define STP_HAVE_%s 1\n", macro);
			found++;
		} else {
			sb_printf(&header, "/* #undef STP_HAVE_%s */\n", macro);
		}
		free(obj);
		free(macro);
	}
	strlist_free(&argv);
	if (!found) {
		/* not one test compiled: the build tree is unusable, not the kernel that old */
		diag_error("the kernel API tests compiled none of %d tests against %s",
			   tests->count, s->kernel_build_dir);
		show_log(log);
		sb_free(&header);
	}
	if (found)
		keep_kbuild_values(log, work);
	free(log);
	sb_free(&kbuild);
	return found ? sb_steal(&header) : NULL;
}

/* FROM/NAME copied to TO/NAME, appearing whole, when there is one. */
static void copy_into(const char *from, const char *to, const char *name)
{
	char *src = xasprintf("%s/%s", from, name), *dst = xasprintf("%s/%s", to, name);
	size_t len;
	char *text = read_file(src, &len);

	if (text)
		install_file(dst, text, len);
	free(text);
	free(src);
	free(dst);
}

char *autoconf_dir(struct session *s)
{
	char *tests_dir = xasprintf("%s/autoconf", s->runtime_dir);
	struct strlist tests = autoconf_tests(tests_dir);
	struct hasher h;
	char *key, *cache = NULL, *cached = NULL, *work, *header, *header_path, *result = NULL;
	char *pahole;

	hasher_init(&h);
	hash_string(&h, "stapler autoconf 3");	/* 3: CFLAGS_GCOV kept */
	pahole = which_program("pahole");	/* PAHOLE_FLAGS follows its version */
	hash_string(&h, pahole ? pahole : "(no pahole)");
	if (pahole)
		hash_file_stat(&h, pahole);
	free(pahole);
	hash_kernel(&h, s);
	hash_tree(&h, tests_dir, true);
	for (int i = 0; i < s->make_args.count; i++)
		if (is_toolchain_arg(s->make_args.items[i]))
			hash_string(&h, s->make_args.items[i]);
	key = hasher_hex(&h);
	if (cache_mode != CACHE_DISABLED) {
		char *dir = cache_dir();

		cache = xasprintf("%s/autoconf/%s-%.16s", dir, s->kernel_release, key);
		cached = xasprintf("%s/stp_autoconf.h", cache);
		free(dir);
		if (cache_mode == CACHE_USE && is_file(cached)) {
			if (verbose_at(s, 4, 2))
				fprintf(stderr, "Pass 4: using cached kernel API tests %s\n", cached);
			result = cache;
			cache = NULL;
			goto out;
		}
	}

	work = xasprintf("%s/autoconf", s->tmpdir);
	if (mkdir(work, 0755) && errno != EEXIST) {
		diag_error("cannot make %s: %s", work, strerror(errno));
		free(work);
		goto out;
	}
	header = run_autoconf(s, tests_dir, &tests, work);
	if (header) {
		header_path = xasprintf("%s/stp_autoconf.h", work);
		write_file(header_path, header, strlen(header));
		free(header_path);
		if (verbose_at(s, 4, 1))
			fprintf(stderr, "Pass 4: tested %d kernel APIs of %s\n", tests.count,
				s->kernel_release);
		if (cache)	/* before the header, which says the folder is whole */
			for (size_t i = 0; i < sizeof(kbuild_values) / sizeof(kbuild_values[0]); i++)
				copy_into(work, cache, kbuild_values[i].file);
		if (cache && install_file(cached, header, strlen(header)) == 0) {
			result = cache;
			cache = NULL;
		} else {
			result = xstrdup(work);
		}
		free(header);
	}
	free(work);
out:
	strlist_free(&tests);
	free(tests_dir);
	free(key);
	free(cache);
	free(cached);
	return result;
}

static char *kbuild_file(struct session *s, const char *autoconf)
{
	struct strbuf sb = { 0 };
	char *vmlinux;

	sb_printf(&sb, "# Generated by stapler pass 4.\nobj-m := %s.o\n", s->module_name);
	sb_printf(&sb, "ccflags-y := -I%s -I%s\n", s->runtime_dir, autoconf);
	/*
	 * No DWARF for the module: nothing reads it (stap reports by script location), and
	 * it is a tenth of the compile.  Only without vmlinux in the tree, where kbuild skips
	 * the modules' BTF, which pahole would make from that DWARF.
	 */
	vmlinux = xasprintf("%s/vmlinux", s->kernel_build_dir);
	if (!is_file(vmlinux))
		sb_puts(&sb, "ccflags-y += -g0\n");
	free(vmlinux);
	for (int i = 0; i < s->defines.count; i++) {
		char *flag = xasprintf("-D%s", s->defines.items[i]);

		sb_puts(&sb, "ccflags-y += ");
		put_shell_quoted(&sb, flag);
		sb_putc(&sb, '\n');
		free(flag);
	}
	return sb_steal(&sb);
}

/* The compiler's messages in make's log, without make's own lines ("make[1]: ...",
 * "  CC [M]  ...") that say nothing about the script. */
static void show_log(const char *path)
{
	char *log = read_file(path, NULL);
	char *line, *next;

	if (!log)
		return;
	for (line = log; *line; line = next) {
		size_t n = strcspn(line, "\n");
		bool chatter;

		next = line + n + (line[n] == '\n');
		chatter = starts_with(line, "make: ") || starts_with(line, "make[") ||
			  (starts_with(line, "  ") && n > 10 && line[2] >= 'A' && line[2] <= 'Z' &&
			   strspn(line + 2, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_ []") >= 4) ||
			  starts_with(line, "Skipping BTF generation");
		if (!chatter)
			fwrite(line, 1, next - line, stderr);
	}
	free(log);
}

/*
 * The kernel's build tree is there (its .config), or an error that says which packages
 * give it, before any compiling (stap checks the same file first).
 */
static bool have_build_tree(struct session *s)
{
	char *config = xasprintf("%s/.config", s->kernel_build_dir);
	bool ok = access(config, R_OK) == 0;

	if (!ok) {
		diag_error("Checking \"%s\" failed with error: %s", config, strerror(errno));
		fprintf(stderr, "Tip: kernel %s needs its headers (and, for probe points and "
			"symbols, its debuginfo): apt-get install linux-headers-%s "
			"linux-image-%s-dbg\n", s->kernel_release, s->kernel_release,
			s->kernel_release);
	}
	free(config);
	return ok;
}

/*
 * The fresh module keeps one name in .modinfo: the runtime's entry, which has room for a
 * longer name; modpost's becomes NULs (modimage_rename).  Without the runtime's entry,
 * modpost's stays as it is.
 */
static void settle_module_name(struct session *s, const char *ko_path)
{
	size_t len;
	char *image = read_file(ko_path, &len);

	if (image && modimage_rename(image, len, s->module_name) == 0 &&
	    write_file(ko_path, image, len))
		diag_error("cannot write %s: %s", ko_path, strerror(errno));
	free(image);
}

/* Whether make's shell takes PATH as one word as it is: nothing to quote. */
static bool plain_path(const char *path)
{
	return strspn(path, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			    "/._+-") == strlen(path);
}

/*
 * "CC=kbuild-cc FOLDER COMPILER": the compiler kbuild uses (the kernel API tests saw it in
 * AUTOCONF, the cache's folder for the kernel) through kbuild-cc, which answers the
 * kernel Makefile's questions to its compiler from FOLDER (src/build/kbuild_cc.c).  NULL,
 * kbuild as it is, when the cache is not in use or kbuild-cc is not there.
 */
static char *kbuild_cc_arg(const char *autoconf)
{
	char *exe_dir = dir_of_executable(), *wrapper = NULL, *compiler_file, *compiler;
	char *folder, *arg = NULL;

	if (cache_mode != CACHE_USE)
		return NULL;
	if (exe_dir) {		/* in the source tree, beside stap */
		wrapper = xasprintf("%s/src/build/kbuild-cc", exe_dir);
		free(exe_dir);
	}
	if (!wrapper || access(wrapper, X_OK)) {
		free(wrapper);
		wrapper = xstrdup(PKGLIBEXECDIR "/kbuild-cc");
	}
	compiler_file = xasprintf("%s/compiler", autoconf);
	compiler = read_file(compiler_file, NULL);
	folder = xasprintf("%s/kbuild-cc", autoconf);
	if (compiler && *compiler && access(wrapper, X_OK) == 0 && plain_path(wrapper) &&
	    plain_path(folder))
		arg = xasprintf("CC=%s %s %s", wrapper, folder, compiler);
	free(compiler_file);
	free(compiler);
	free(folder);
	free(wrapper);
	return arg;
}

/* -B sets make variable VAR */
static bool make_arg_sets(struct session *s, const char *var)
{
	size_t n = strlen(var);

	for (int i = 0; i < s->make_args.count; i++)
		if (strncmp(s->make_args.items[i], var, n) == 0 && s->make_args.items[i][n] == '=')
			return true;
	return false;
}

/* "VAR=VALUE" for each kept value of kbuild_values that goes to make (as kbuild had it
 * for the kernel API tests in AUTOCONF), into ARGV */
static void add_kept_values(struct session *s, const char *autoconf, struct strlist *argv)
{
	for (size_t i = 0; i < sizeof(kbuild_values) / sizeof(kbuild_values[0]); i++) {
		char *path, *value;

		if (!kbuild_values[i].to_make || make_arg_sets(s, kbuild_values[i].var) ||
		    (kbuild_values[i].made_from && make_arg_sets(s, kbuild_values[i].made_from)))
			continue;
		path = xasprintf("%s/%s", autoconf, kbuild_values[i].file);
		value = read_file(path, NULL);
		if (value) {
			char *arg = xasprintf("%s=%s", kbuild_values[i].var, value);

			strlist_add(argv, arg);
			free(arg);
		}
		free(value);
		free(path);
	}
}

int build_module(struct session *s)
{
	char *kbuild_path = xasprintf("%s/Kbuild", s->tmpdir);
	char *log_path = xasprintf("%s/make.log", s->tmpdir);
	char *ko_path = xasprintf("%s/%s.ko", s->tmpdir, s->module_name);
	char *autoconf = have_build_tree(s) ? autoconf_dir(s) : NULL;
	char *kbuild = NULL;
	char *dir_arg = xasprintf("-C%s", s->kernel_build_dir);
	char *m_arg = xasprintf("M=%s", s->tmpdir), *cc_arg = NULL;
	struct strlist argv = { 0 };
	bool show_output = verbose_at(s, 4, 2);
	int status, rc = -1;

	if (!autoconf)
		goto out;
	kbuild = kbuild_file(s, autoconf);
	if (write_file(kbuild_path, kbuild, strlen(kbuild))) {
		diag_error("cannot write to %s: %s", s->tmpdir, strerror(errno));
		goto out;
	}
	strlist_add(&argv, "make");
	strlist_add(&argv, dir_arg);
	strlist_add(&argv, m_arg);
	strlist_add(&argv, "modules");
	if (verbose_at(s, 4, 3))
		strlist_add(&argv, "V=1");
	for (int i = 0; i < s->make_args.count; i++)
		strlist_add(&argv, s->make_args.items[i]);
	if ((cc_arg = kbuild_cc_arg(autoconf)))
		strlist_add(&argv, cc_arg);
	add_kept_values(s, autoconf, &argv);
	if (verbose_at(s, 4, 2))
		show_command(&argv);

	status = run_make(s, &argv, log_path, show_output, "Pass 4: compiling C");
	if (status != 0 || !is_file(ko_path)) {
		if (!show_output)
			show_log(log_path);
		if (!is_dir(s->kernel_build_dir))
			diag_error("no kernel build tree at %s (install the kernel's headers, "
				   "or use -r)", s->kernel_build_dir);
		goto out;
	}
	settle_module_name(s, ko_path);
	s->module_path = ko_path;
	ko_path = NULL;
	rc = 0;
out:
	strlist_free(&argv);
	free(kbuild_path);
	free(log_path);
	free(ko_path);
	free(kbuild);
	free(autoconf);
	free(dir_arg);
	free(m_arg);
	free(cc_arg);
	return rc;
}
