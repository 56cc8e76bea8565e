/*
 * options.c - stap's command line into the struct session every pass reads: the options,
 * the script and its arguments, where the runtime, the tapsets and the back ends are,
 * and which kernel to build for.
 */
#include "stap.h"
#include "cache.h"

#include <ctype.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <wordexp.h>

#ifndef PKGDATADIR
#define PKGDATADIR "/usr/local/share/stapler"
#endif
#ifndef BINDIR
#define BINDIR "/usr/local/bin"
#endif
#ifndef PKGLIBEXECDIR
#define PKGLIBEXECDIR "/usr/local/libexec/stapler"
#endif
#ifndef DEFAULT_KERNEL_BUILD
#define DEFAULT_KERNEL_BUILD ""
#endif

static const char usage_text[] =
"Stapler translator/driver (version " STAPLER_VERSION "), a SystemTap-compatible toolchain.\n"
"\n"
"Usage: stap [options] FILE [ARGS ...]     Run the script in FILE ('-' for stdin).\n"
"   or: stap [options] -e SCRIPT [ARGS ...] Run the given script.\n"
"\n"
"ARGS are available to the script as $1 .. $N (tokens) and @1 .. @N (strings).\n"
"\n"
"Options (those marked * are not implemented yet and are refused; $SYSTEMTAP_DIR/rc's\n"
"come first):\n"
"   --            end of options; the rest are the script and its arguments\n"
"   -h, --help    show this help\n"
"   -V, --version show the version\n"
"   -v            more verbose: per-pass summaries, then more; repeatable\n"
"   --vp ABCDE    verbosity of each pass, e.g. --vp 00021\n"
"   -p NUM        stop after pass NUM: 1 parse, 2 elaborate, 3 translate,\n"
"                 4 compile, 5 run (default); passes 1-3 print what they made,\n"
"                 pass 4 copies the module to the current folder and prints its name\n"
"   -e SCRIPT     run the given script instead of a file\n"
"   -E SCRIPT     run SCRIPT too, beside the main one (also with -l/-L); repeatable\n"
"   --example     FILE names an example script (ours, then SystemTap's)\n"
"   -I DIR        look for tapset scripts in DIR too; repeatable\n"
"   -D NM=VAL     define a C macro for the module, e.g. -D MAXACTION=5000\n"
"   -B NM=VAL     pass an option to the kernel's kbuild make\n"
"   -R DIR        look for the runtime in DIR\n"
"   -r DIR        build for the kernel whose build tree is DIR\n"
"   -r RELEASE    build for kernel RELEASE (/lib/modules/RELEASE/build)\n"
"   -m MODULE     name the module MODULE instead of stap_HASH\n"
"   -k            keep the temporary folder of passes 3 and 4, and say where\n"
"   -g            guru mode: allow embedded C in the script\n"
"   -u            unoptimized translation: pass 2 elides nothing\n"
"   -w            suppress warnings\n"
"   -t            report each probe's hits and cycles, and lock contention, at the end\n"
"   -W            turn warnings into errors\n"
"   -o FILE       send the script's output to FILE\n"
"   --tmpdir DIR  make the temporary folder inside DIR (default $TMPDIR, /tmp)\n"
"   --disable-cache  neither read nor write the module cache\n"
"   --poison-cache   do not read the module cache, but write to it\n"
"   --clean-cache    remove the cache folder ($STAPLER_CACHE_DIR, else\n"
"                 $XDG_CACHE_HOME/stapler, else ~/.cache/stapler) and exit\n"
"   -c CMD        start the probes, run CMD, and exit when CMD finishes;\n"
"                 target() is CMD's pid\n"
"   -x PID        set target() to PID (the script runs independently of it)\n"
"   -G VAR=VAL    set the script's global VAR to VAL when the module loads\n"
"   --modinfo NAME=VALUE\n"
"                 a MODULE_INFO(NAME, \"VALUE\") entry in the module's .modinfo\n"
"   -a ARCH       build for ARCH: x86_64 only\n"
"   --rlimit-as=NUM, --rlimit-cpu=NUM, --rlimit-nproc=NUM, --rlimit-stack=NUM,\n"
"   --rlimit-fsize=NUM\n"
"                 limit this stap process: its address space and stack in bytes,\n"
"                 CPU time in seconds, processes, size of the files it writes\n"
"   -d MODULE     symbol data for MODULE (a kernel module: always looked up in the\n"
"                 running kernel, so this changes nothing); -d PATH: the symbols\n"
"                 and unwind table of a user-space program or library\n"
"   --ldd         add the shared libraries the probed and -d programs need\n"
"   --sysroot DIR the target's files are under DIR: process(\"/usr/bin/x\") reads\n"
"                 DIR/usr/bin/x here, and probes /usr/bin/x where the module runs\n"
"   --sysenv=VAR=VALUE\n"
"                 the target's VAR: its PATH finds process(\"NAME\") (under --sysroot),\n"
"                 its LD_LIBRARY_PATH the libraries .library(\"NAME\") names\n"
"   --all-modules symbol data for every loaded kernel module: always so in stapler\n"
"   -l PROBE      list the probe points matching PROBE (wildcards, aliases)\n"
"   -L PROBE      list them with the variables their handlers have\n"
"   -s NUM        use an NUM megabyte buffer for the output (per CPU with -b)\n"
"   -b            bulk mode: one output file per CPU (FILE_N with -o FILE)\n"
"   -S SIZE[,N]   switch output files at SIZE megabytes, keep N of them\n"
"   -T SECONDS    exit the script after SECONDS\n"
"   -F            flight recorder: with -o, run in the background and print the\n"
"                 pid; without, load the probes, start them and detach\n"
"                 (staprun -A MODULE attaches again)\n"
"   -P            --prologue-searching=always\n"
"   --target-namespaces=PID\n"
"                 ns_pid() and the other ns_* functions see ids as the namespaces\n"
"                 of process PID see them (by default, stapio's)\n"
"   --check-version\n"
"                 warn of the probes, functions and globals the script uses whose\n"
"                 text tests systemtap_v (what may differ from version to version)\n"
"   --skip-badvars\n"
"                 a context variable ($name) that does not resolve is 0, with a\n"
"                 warning; one that faults when read is 0, without an error\n"
"   --prologue-searching[=WHEN]\n"
"                 where function probes go: after the prologue (always, the\n"
"                 default WHEN), at the entry (never), or after the prologue only\n"
"                 in code compiled without optimization (auto, the default)\n"
"   --color[=WHEN], --colour[=WHEN]\n"
"                 colour the messages: always (WHEN's default), never, or auto\n"
"                 (the default: when stderr is a terminal); SYSTEMTAP_COLORS\n"
"                 chooses the colours\n"
"   --compatible=VERSION\n"
"                 the language of SystemTap VERSION (at most " STAP_COMPAT_VERSION "): the\n"
"                 preprocessor's systemtap_v is VERSION\n"
"   --btf         kernel.function and module().function probes, their target\n"
"                 variables, @cast and tracepoints from the kernel's BTF rather\n"
"                 than its DWARF (the default when the DWARF is not installed)\n"
"   --remote URL  run pass 5 on the host URL ([USER@]HOST[:PORT], ssh://...) over\n"
"                 ssh, with a module built here for its kernel; repeatable\n"
"   --remote-prefix\n"
"                 begin each line of the remote hosts' output with \"N: \", N the\n"
"                 index of its --remote (from 0)\n"
"   --vm          run pass 5 in a disposable virtual machine booting the kernel\n"
"                 built for (-r; by default the configured reference kernel);\n"
"                 output streams here, Ctrl-C reaches the script, and -o files\n"
"                 are copied back\n"
"   --privilege=stapusr|stapsys|stapdev, --unprivileged (stapusr)\n"
"                 build for a less privileged user: pass 2 refuses what that\n"
"                 user may not use (stapusr: only begin, end, error, never,\n"
"                 process.* and timer probes, no kernel-only tapset functions;\n"
"                 both: no -g, no embedded C)\n"
" * --runtime=dyninst, --dyninst, --runtime=bpf, --bpf\n"
"                 the other runtimes (--runtime=kernel is the kernel module: accepted)\n"
" * --use-server[=SERVER], --list-servers[=WHAT], --trust-servers[=SPEC],\n"
"   --use-server-on-error[=yes|no]\n"
"                 the compile server (modules are built here; =no is accepted)\n"
" * --download-debuginfo[=yes|no|ask|SECONDS]\n"
"                 debuginfo from abrt (install the -dbg package; =no is accepted)\n"
" * -q            tapset coverage\n"
" * -i, --interactive\n"
"                 the interactive mode\n"
"   --save-uprobes\n"
"                 accepted: the kernel has its own uprobes, there is no module\n"
"                 to save\n"
"   --sign-module sign the module with a Machine Owner Key, made the first time\n"
"                 (~/.systemtap/ssl/server/moks/, as stap keeps them), for a\n"
"                 kernel that loads only signed modules (Secure Boot, lockdown,\n"
"                 module.sig_enforce); also when $SYSTEMTAP_SIGN is set, or when\n"
"                 the running kernel enforces signatures\n"
"   --suppress-handler-errors\n"
"                 errors in probe handlers end the handler only: they are\n"
"                 counted, not shown, and do not end the session (nor do\n"
"                 skipped probes)\n"
"   --suppress-time-limits\n"
"                 no overload check (STP_OVERLOAD_*), MAXACTION or MAXTRYLOCK;\n"
"                 needs -g\n"
"   --dump-probe-types, --dump-probe-aliases, --dump-functions\n"
"                 list the forms of probe point, the tapsets' probe aliases, or\n"
"                 their public functions with their types, and exit\n"
"\n"
"The runtime is found with -R, $SYSTEMTAP_RUNTIME, beside this program (a build\n"
"tree), or in " PKGDATADIR "/runtime; tapsets likewise with $SYSTEMTAP_TAPSET.\n";

enum long_only_options {
	OPT_VP = 256,
	OPT_TMPDIR,
	OPT_DISABLE_CACHE,
	OPT_POISON_CACHE,
	OPT_CLEAN_CACHE,
	OPT_PRIVILEGE,
	OPT_UNPRIVILEGED,
	OPT_SUPPRESS_HANDLER_ERRORS,
	OPT_SUPPRESS_TIME_LIMITS,
	OPT_DUMP_PROBE_TYPES,
	OPT_DUMP_PROBE_ALIASES,
	OPT_DUMP_FUNCTIONS,
	OPT_VM,
	OPT_PROLOGUE_SEARCHING,
	OPT_LDD,
	OPT_ALL_MODULES,
	OPT_RUNTIME,
	OPT_DYNINST,
	OPT_BPF,
	OPT_SYSROOT,
	OPT_COMPATIBLE,
	OPT_COLOUR,
	OPT_BTF,
	OPT_SIGN_MODULE,
	OPT_MODINFO,
	OPT_RLIMIT_AS,
	OPT_RLIMIT_CPU,
	OPT_RLIMIT_NPROC,
	OPT_RLIMIT_STACK,
	OPT_RLIMIT_FSIZE,
	OPT_SKIP_BADVARS,
	OPT_CHECK_VERSION,
	OPT_TARGET_NAMESPACES,
	OPT_EXAMPLE,
	OPT_SYSENV,
	OPT_REMOTE,
	OPT_REMOTE_PREFIX,
	OPT_COMPILE_SERVER,
	OPT_USE_SERVER_ON_ERROR,
	OPT_DOWNLOAD_DEBUGINFO,
	OPT_SAVE_UPROBES,
	OPT_INTERACTIVE,
};

static const struct option long_options[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ "vp", required_argument, NULL, OPT_VP },
	{ "tmpdir", required_argument, NULL, OPT_TMPDIR },
	{ "disable-cache", no_argument, NULL, OPT_DISABLE_CACHE },
	{ "poison-cache", no_argument, NULL, OPT_POISON_CACHE },
	{ "clean-cache", no_argument, NULL, OPT_CLEAN_CACHE },
	{ "privilege", required_argument, NULL, OPT_PRIVILEGE },
	{ "unprivileged", no_argument, NULL, OPT_UNPRIVILEGED },
	{ "suppress-handler-errors", no_argument, NULL, OPT_SUPPRESS_HANDLER_ERRORS },
	{ "suppress-time-limits", no_argument, NULL, OPT_SUPPRESS_TIME_LIMITS },
	{ "dump-probe-types", no_argument, NULL, OPT_DUMP_PROBE_TYPES },
	{ "dump-probe-aliases", no_argument, NULL, OPT_DUMP_PROBE_ALIASES },
	{ "dump-functions", no_argument, NULL, OPT_DUMP_FUNCTIONS },
	{ "vm", no_argument, NULL, OPT_VM },
	{ "remote", required_argument, NULL, OPT_REMOTE },
	{ "remote-prefix", no_argument, NULL, OPT_REMOTE_PREFIX },
	{ "btf", no_argument, NULL, OPT_BTF },
	{ "sign-module", no_argument, NULL, OPT_SIGN_MODULE },
	{ "prologue-searching", optional_argument, NULL, OPT_PROLOGUE_SEARCHING },
	{ "ldd", no_argument, NULL, OPT_LDD },
	{ "all-modules", no_argument, NULL, OPT_ALL_MODULES },
	{ "runtime", required_argument, NULL, OPT_RUNTIME },
	{ "dyninst", no_argument, NULL, OPT_DYNINST },
	{ "bpf", no_argument, NULL, OPT_BPF },
	{ "sysroot", required_argument, NULL, OPT_SYSROOT },
	{ "compatible", required_argument, NULL, OPT_COMPATIBLE },
	{ "color", optional_argument, NULL, OPT_COLOUR },
	{ "colour", optional_argument, NULL, OPT_COLOUR },
	{ "modinfo", required_argument, NULL, OPT_MODINFO },
	{ "rlimit-as", required_argument, NULL, OPT_RLIMIT_AS },
	{ "rlimit-cpu", required_argument, NULL, OPT_RLIMIT_CPU },
	{ "rlimit-nproc", required_argument, NULL, OPT_RLIMIT_NPROC },
	{ "rlimit-stack", required_argument, NULL, OPT_RLIMIT_STACK },
	{ "rlimit-fsize", required_argument, NULL, OPT_RLIMIT_FSIZE },
	{ "skip-badvars", no_argument, NULL, OPT_SKIP_BADVARS },
	{ "check-version", no_argument, NULL, OPT_CHECK_VERSION },
	{ "target-namespaces", required_argument, NULL, OPT_TARGET_NAMESPACES },
	{ "example", no_argument, NULL, OPT_EXAMPLE },
	{ "sysenv", required_argument, NULL, OPT_SYSENV },
	{ "use-server", optional_argument, NULL, OPT_COMPILE_SERVER },
	{ "list-servers", optional_argument, NULL, OPT_COMPILE_SERVER },
	{ "trust-servers", optional_argument, NULL, OPT_COMPILE_SERVER },
	{ "use-server-on-error", optional_argument, NULL, OPT_USE_SERVER_ON_ERROR },
	{ "download-debuginfo", optional_argument, NULL, OPT_DOWNLOAD_DEBUGINFO },
	{ "save-uprobes", no_argument, NULL, OPT_SAVE_UPROBES },
	{ "interactive", no_argument, NULL, OPT_INTERACTIVE },
	{ NULL, 0, NULL, 0 },
};

static NORETURN void usage_error(const char *fmt, ...) PRINTF_LIKE(1, 2);

static void usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("stap: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry '--help' for more information. [man stap]\n", stderr);	/* stap's */
	exit(1);
}

static NORETURN void not_implemented(const char *what)
{
	fprintf(stderr, "stap: %s is not implemented yet in stapler " STAPLER_VERSION ".\n", what);
	exit(1);
}

static void print_version(void)
{
	printf("Stapler translator/driver (version %s/%s, SystemTap-compatible)\n",
	       STAPLER_VERSION, dwfl_version(NULL));
	printf("This is free software; see the source for copying conditions.\n");
	printf("enabled features: kbuild relay\n");
}

/* ---- paths ---- */

/* DIR/NAME beside the executable when it has MARKER (a build tree), else the installed one. */
static const char *find_data_dir(const char *env, const char *name, const char *marker)
{
	const char *from_env = getenv(env);
	char *exe_dir = dir_of_executable();

	if (from_env && *from_env)
		return from_env;
	if (exe_dir) {
		char *dir = xasprintf("%s/%s", exe_dir, name);
		char *probe = xasprintf("%s/%s", dir, marker);
		bool found = is_file(probe);

		free(probe);
		free(exe_dir);
		if (found)
			return dir;
		free(dir);
	}
	return xasprintf("%s/%s", PKGDATADIR, name);
}

/* staprun/NAME in a build tree, NAME beside stap, else INSTALLED. */
static const char *find_backend(const char *name, const char *installed)
{
	char *exe_dir = dir_of_executable();

	for (int i = 0; exe_dir && i < 2; i++) {
		char *path = xasprintf("%s/%s%s", exe_dir, i == 0 ? "staprun/" : "", name);

		if (is_file(path) && access(path, X_OK) == 0) {
			free(exe_dir);
			return path;
		}
		free(path);
	}
	free(exe_dir);
	return installed;
}

/* UTS_RELEASE of a build tree (Debian's include/config/kernel.release holds the upstream
 * version, not the package's release). */
static char *build_tree_release(const char *dir)
{
	char *path = xasprintf("%s/include/generated/utsrelease.h", dir);
	char *text = read_file(path, NULL);
	char *release = NULL, *start, *end;

	free(path);
	if (text && (start = strstr(text, "UTS_RELEASE \"")) &&
	    (end = strchr(start += strlen("UTS_RELEASE \""), '"')))
		release = xstrndup(start, end - start);
	free(text);
	return release;
}

/* -r RELEASE or -r DIR; by default the running kernel, or the configured build tree. */
static void choose_kernel(struct session *s, const char *r_option)
{
	struct utsname u;

	if (r_option && strchr(r_option, '/')) {
		char *release = build_tree_release(r_option);

		if (!release)
			usage_error("cannot tell the kernel release of build tree %s "
				    "(no include/generated/utsrelease.h)", r_option);
		s->kernel_release = release;
		s->kernel_build_dir = r_option;
		return;
	}
	if (r_option) {
		s->kernel_release = r_option;
	} else {
		uname(&u);
		s->kernel_release = xstrdup(u.release);
	}
	s->kernel_build_dir = xasprintf("/lib/modules/%s/build", s->kernel_release);
	if (!r_option && !is_dir(s->kernel_build_dir) && *DEFAULT_KERNEL_BUILD) {
		/* No tree for the running kernel: use the one configure chose. */
		choose_kernel(s, DEFAULT_KERNEL_BUILD);
		if (verbose_at(s, 1, 1))
			fprintf(stderr, "No build tree for the running kernel; using %s (%s)\n",
				s->kernel_build_dir, s->kernel_release);
	}
}

/* ---- options ---- */

static const char *absolute_path(const char *path)
{
	char *resolved = realpath(path, NULL);

	return resolved ? resolved : path;
}

static void parse_vp(struct session *s, const char *digits)
{
	size_t n = strlen(digits);

	if (n == 0 || n > 5 || strspn(digits, "0123456789") != n)
		usage_error("--vp takes up to five digits, one per pass");
	for (size_t i = 0; i < n; i++)
		s->verbose[i] += digits[i] - '0';
}

static void check_define(const char *arg)
{
	size_t name_len = strcspn(arg, "=");

	if (name_len == 0 || strspn(arg, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				    "0123456789_") != name_len ||
	    (arg[0] >= '0' && arg[0] <= '9'))
		usage_error("-D takes NAME or NAME=VALUE with a C identifier for NAME: '%s'", arg);
}

/* -G NAME=VALUE, with stap's own safety pattern (values reach the module's parameters). */
static void check_global_setting(const char *setting)
{
	const char *p = setting;
	bool ok = (*p >= 'a' && *p <= 'z') || *p == '_';

	while (ok && *p && *p != '=') {
		ok = (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_';
		p++;
	}
	ok = ok && *p == '=' && p[1];
	for (p = ok ? p + 1 : p; ok && *p; p++)
		ok = (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || strchr("_.-", *p);
	if (!ok) {
		diag_error("Safety pattern mismatch for -G parameter ('%s' vs. "
			   "'^[a-z_][a-z0-9_]*=[a-z0-9_.-]+$')", setting);
		exit(1);
	}
}

/* A whole number in [min, max] for OPTION, or a usage error naming WHAT. */
static long parse_count(const char *arg, long min, long max, const char *option,
			const char *what)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(arg, &end, 10);
	if (errno || end == arg || *end || n < min || n > max)
		usage_error("Invalid %s '%s' for %s (should be %ld-%ld).", what, arg, option, min,
			    max);
	return n;
}

/* --prologue-searching[=never|always|auto]: where function probes go (dw.h) */
static int parse_prologue_searching(const char *when)
{
	static const char *const modes[] = { "auto", "always", "never" };	/* enum dw_prologue */

	if (!when)
		return 1;	/* always */
	for (int i = 0; i < 3; i++)
		if (strcmp(when, modes[i]) == 0)
			return i;
	fprintf(stderr, "Invalid argument '%s' for --prologue-searching.\n", when);	/* stap's */
	exit(1);
}

/* --rlimit-as/cpu/nproc/stack/fsize=NUM: the limit of this stap process (soft and hard),
 * as stap sets it on itself. */
static void set_rlimit(int opt, const char *arg)
{
	static const struct { int opt, resource; const char *name; } limits[] = {
		{ OPT_RLIMIT_AS, RLIMIT_AS, "--rlimit-as" },
		{ OPT_RLIMIT_CPU, RLIMIT_CPU, "--rlimit-cpu" },
		{ OPT_RLIMIT_NPROC, RLIMIT_NPROC, "--rlimit-nproc" },
		{ OPT_RLIMIT_STACK, RLIMIT_STACK, "--rlimit-stack" },
		{ OPT_RLIMIT_FSIZE, RLIMIT_FSIZE, "--rlimit-fsize" },
	};

	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
		struct rlimit r;

		if (limits[i].opt != opt)
			continue;
		r.rlim_cur = r.rlim_max = (rlim_t)parse_count(arg, 0, LONG_MAX, limits[i].name,
							      "limit");
		if (setrlimit(limits[i].resource, &r) != 0) {
			fprintf(stderr, "Unable to set resource limits for %s: %s\n",
				limits[i].name, strerror(errno));
			exit(1);
		}
	}
}

/* --modinfo NAME=VALUE: a MODULE_INFO(NAME, "VALUE") of the module; NAME a C name. */
static void check_modinfo(const char *arg)
{
	const char *eq = strchr(arg, '=');
	size_t n = eq ? (size_t)(eq - arg) : 0;

	if (!n || !(isalpha((unsigned char)arg[0]) || arg[0] == '_') ||
	    strspn(arg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != n)
		usage_error("invalid --modinfo '%s': expected NAME=VALUE, NAME of letters, digits "
			    "and '_'", arg);
}

/* -a ARCH: the architecture to build for; stapler builds for x86_64 alone. */
static void check_architecture(const char *arch)
{
	if (strcmp(arch, "x86_64") != 0)
		usage_error("architecture '%s' is not supported: stapler builds modules for "
			    "x86_64 only", arch);
}

/* --privilege=LEVEL, --unprivileged (stapusr): once only */
static void set_privilege(struct session *s, const char *level)
{
	if (strcmp(level, "stapusr") != 0 && strcmp(level, "stapsys") != 0 &&
	    strcmp(level, "stapdev") != 0) {
		fprintf(stderr, "Invalid argument '%s' for --privilege.\n", level);	/* stap's */
		exit(1);
	}
	if (s->privilege)
		usage_error("Privilege level may be set only once.");
	s->privilege = level;
}

/* Whether the user running stap is in group NAME (as a supplementary or the real group). */
static bool in_group(const char *name)
{
	struct group *g = getgrnam(name);
	gid_t groups[NGROUPS_MAX];
	int n;

	if (!g)
		return false;
	if (getgid() == g->gr_gid)
		return true;
	n = getgroups(NGROUPS_MAX, groups);
	for (int i = 0; i < n; i++)
		if (groups[i] == g->gr_gid)
			return true;
	return false;
}

/*
 * As stap(1) says: without --privilege, a run of pass 5 by a user who is neither root nor
 * in the group stapdev builds for the privilege that user has (stapsys or stapusr), which
 * is all staprun would load for them; a user in none of the groups is refused, in stap's
 * words.  Not with --vm: the guest is the user's own.
 */
static void default_privilege(struct session *s)
{
	if (s->privilege || s->last_pass < 5 || s->list_pattern || s->vm || getuid() == 0 ||
	    in_group("stapdev"))
		return;
	if (in_group("stapsys"))
		s->privilege = "stapsys";
	else if (in_group("stapusr"))
		s->privilege = "stapusr";
	else
		usage_error("You are trying to run systemtap as a normal user.\nYou should either "
			    "be root, or be part of the group \"stapusr\" and possibly one of the "
			    "groups \"stapsys\" or \"stapdev\". " MAN_PAGE("stap"));
	if (verbose_at(s, 1, 1))
		fprintf(stderr, "--privilege=%s was automatically selected because you are a "
			"member of the group %s. " MAN_PAGE("stap") "\n", s->privilege,
			s->privilege);
}

/* -S SIZE[,N]: megabytes per output file, and how many files to keep. */
static void check_switch_option(const char *arg)
{
	char *end;
	long size = strtol(arg, &end, 10), count = 1;

	if (*end == ',' && end[1])
		count = strtol(end + 1, &end, 10);
	if (end == arg || *end || size < 1 || size > 4095 || count < 1 || count > 4096)
		usage_error("Invalid -S '%s' (should be SIZE[,N]: SIZE megabytes, 1-4095, and "
			    "at most N files).", arg);
}

/* What the options leave for after all of them are read. */
struct cli_state {
	bool example;			/* --example: FILE names one of the example scripts */
	const char *r_option;		/* -r, else the default kernel */
	const char *colour_when;	/* --color's WHEN; NULL: auto */
	bool clean_cache;		/* --clean-cache */
	bool suppress_time_limits;	/* --suppress-time-limits */
};

/* The flag of the session that option OPT sets, or NULL: OPT does more than that. */
static bool *flag_option(struct session *s, int opt)
{
	switch (opt) {
	case 'k': return &s->keep_tmpdir;
	case 'g': return &s->guru;
	case 'u': return &s->unoptimized;
	case 'w': return &s->suppress_warnings;
	case 'W': return &s->warnings_as_errors;
	case 'b': return &s->bulk_mode;
	case 'F': return &s->flight_recorder;
	case OPT_VM: return &s->vm;
	case OPT_REMOTE_PREFIX: return &s->remote_prefix;
	case OPT_LDD: return &s->ldd;
	case OPT_BTF: return &s->use_btf;	/* the kernel's BTF even when its DWARF is there */
	case OPT_SIGN_MODULE: return &s->sign_module;
	case OPT_ALL_MODULES: return &s->all_modules;
	default: return NULL;
	}
}

/* The text of the session that option OPT sets to its argument, or NULL. */
static const char **text_option(struct session *s, int opt)
{
	switch (opt) {
	case 'R': return &s->runtime_dir;
	case 'o': return &s->output_file;
	case 'c': return &s->target_cmd;
	case OPT_TMPDIR: return &s->tmpdir_parent;
	default: return NULL;
	}
}

/* The list of the session that option OPT adds its argument to, as it is, or NULL. */
static struct strlist *list_option(struct session *s, int opt)
{
	switch (opt) {
	case 'I': return &s->include_dirs;
	case OPT_REMOTE: return &s->remote_urls;
	case 'B': return &s->make_args;
	default: return NULL;
	}
}

/* Option OPT, getopt_long()'s answer (its argument in optarg), when it does more than
 * set a flag, a text or add to a list. */
static void take_option(struct session *s, struct cli_state *cli, int opt)
{
	switch (opt) {
	case 'h':
		fputs(usage_text, stdout);
		exit(0);
	case 'V':
		print_version();
		exit(0);
	case 'v':
		for (int i = 0; i < 5; i++)
			s->verbose[i]++;
		break;
	case OPT_VP:
		parse_vp(s, optarg);
		break;
	case 'p':
		if (strlen(optarg) != 1 || optarg[0] < '1' || optarg[0] > '5')
			usage_error("Invalid pass number '%s' (should be 1-5).", optarg);
		s->last_pass = optarg[0] - '0';
		break;
	case 'e':
		if (s->script_text)
			usage_error("only one -e script is allowed");
		s->script_text = optarg;
		break;
	case 'D':
		check_define(optarg);
		strlist_add(&s->defines, optarg);
		break;
	case 't':	/* the probe hit report (runtime/timing.c), as stap's -t */
		strlist_add(&s->defines, "STP_TIMING");
		break;
	case 'r':
		cli->r_option = optarg;
		break;
	case 'm':
		if (!valid_module_name(optarg))
			usage_error("invalid module name '%s': use letters, digits and '_', "
				    "at most 55 characters", optarg);
		s->module_name = optarg;
		break;
	case OPT_DISABLE_CACHE:
		cache_mode = CACHE_DISABLED;
		break;
	case OPT_POISON_CACHE:
		if (cache_mode != CACHE_DISABLED)
			cache_mode = CACHE_POISONED;
		break;
	case OPT_CLEAN_CACHE:
		cli->clean_cache = true;
		break;
	case 'x':
		s->target_pid = parse_count(optarg, 1, INT_MAX, "-x", "process id");
		break;
	case 'G':
		check_global_setting(optarg);
		strlist_add(&s->global_settings, optarg);
		break;
	case 'l':
	case 'L':
		s->list_pattern = optarg;
		s->list_locals = opt == 'L';
		break;
	case 's':
		s->buffer_mb = parse_count(optarg, 1, 4095, "-s", "buffer size");
		break;
	case 'S':
		check_switch_option(optarg);
		s->switch_files = optarg;
		break;
	case 'T':
		s->timeout_secs = parse_count(optarg, 1, INT_MAX / 1000, "-T", "timeout");
		break;
	case OPT_PROLOGUE_SEARCHING:
		s->prologue_searching = parse_prologue_searching(optarg);
		break;
	case 'P':	/* --prologue-searching=always */
		s->prologue_searching = parse_prologue_searching("always");
		break;
	case 'a':
		check_architecture(optarg);
		break;
	case 'E':	/* run beside the main script */
		strlist_add(&s->extra_scripts, optarg);
		break;
	case OPT_EXAMPLE:	/* the script's name is an example's */
		cli->example = true;
		break;
	case OPT_CHECK_VERSION:
		s->check_version = true;
		break;
	case OPT_TARGET_NAMESPACES: {	/* a process id; whether it exists is known at START */
		char *end;
		long pid;

		errno = 0;
		pid = strtol(optarg, &end, 10);
		if (errno || end == optarg || *end || pid < 1 || pid > INT32_MAX) {
			fputs("Invalid process ID number for target namespaces.\n", stderr);
			exit(1);	/* stap's words */
		}
		s->target_ns_pid = pid;
		break;
	}
	case OPT_SKIP_BADVARS:	/* pass 2 makes them 0; the runtime reads faults as 0 */
		s->skip_badvars = true;
		strlist_add(&s->defines, "STP_SKIP_BADVARS");
		break;
	case OPT_MODINFO:
		check_modinfo(optarg);
		strlist_add(&s->modinfo, optarg);
		break;
	case OPT_RLIMIT_AS:
	case OPT_RLIMIT_CPU:
	case OPT_RLIMIT_NPROC:
	case OPT_RLIMIT_STACK:
	case OPT_RLIMIT_FSIZE:
		set_rlimit(opt, optarg);
		break;
	case 'd':	/* a path names a program; anything else a kernel module */
		strlist_add(strchr(optarg, '/') ? &s->symbol_programs : &s->symbol_modules,
			    optarg);
		break;
	case OPT_SYSROOT:	/* the target's files: process("/usr/bin/x") is DIR/usr/bin/x */
		if (!*optarg || optarg[0] != '/')
			usage_error("Invalid --sysroot '%s' (should be an absolute path).",
				    optarg);
		s->sysroot = optarg;
		break;
	case OPT_SYSENV:	/* the target's environment: PATH, LD_LIBRARY_PATH */
		if (!strchr(optarg, '=') || optarg[0] == '=')
			usage_error("Invalid --sysenv '%s' (should be VAR=VALUE).", optarg);
		strlist_add(&s->sysenv, optarg);
		break;
	case OPT_COLOUR:	/* --color alone is always */
		cli->colour_when = optarg ? optarg : "always";
		break;
	case OPT_COMPATIBLE:	/* an older language: systemtap_v, never a newer one */
		if (strverscmp(optarg, STAP_COMPAT_VERSION) > 0) {
			diag_error("systemtap version " STAP_COMPAT_VERSION
				   " cannot be compatible with future version %s", optarg);
			exit(1);
		}
		s->compat_version = optarg;
		break;
	case OPT_RUNTIME:	/* the kernel module is the one runtime there is */
		if (strcmp(optarg, "kernel") == 0)
			break;
		if (strcmp(optarg, "dyninst") == 0)
			not_implemented("the dyninst runtime (--runtime=dyninst, --dyninst)");
		if (strcmp(optarg, "bpf") == 0)
			not_implemented("the bpf runtime (--runtime=bpf, --bpf)");
		usage_error("Invalid --runtime '%s' (should be kernel, dyninst or bpf).",
			    optarg);
	case OPT_COMPILE_SERVER:
		not_implemented("the compile server (--use-server, --list-servers, "
				"--trust-servers)");
	case OPT_USE_SERVER_ON_ERROR:	/* "no" is what stap does by default */
		if (optarg && strcmp(optarg, "no") == 0)
			break;
		if (optarg && strcmp(optarg, "yes") != 0)
			usage_error("Invalid argument '%s' for --use-server-on-error.", optarg);
		not_implemented("the compile server (--use-server-on-error)");
	case OPT_DOWNLOAD_DEBUGINFO:	/* likewise */
		if (optarg && strcmp(optarg, "no") == 0)
			break;
		not_implemented("downloading debuginfo (--download-debuginfo; install the "
				"kernel's -dbg package)");
	case OPT_SAVE_UPROBES:
		/* stap saves the uprobes module it builds for kernels without their own
		 * uprobes; the kernels stapler builds for have CONFIG_UPROBES: nothing to save */
		break;
	case 'q':
		not_implemented("tapset coverage (-q)");
	case 'i':
	case OPT_INTERACTIVE:
		not_implemented("the interactive mode (-i, --interactive)");
	case OPT_DYNINST:
		not_implemented("the dyninst runtime (--runtime=dyninst, --dyninst)");
	case OPT_BPF:
		not_implemented("the bpf runtime (--runtime=bpf, --bpf)");
	case OPT_PRIVILEGE:	/* what pass 2 allows (privilege.c) */
	case OPT_UNPRIVILEGED:
		set_privilege(s, opt == OPT_UNPRIVILEGED ? "stapusr" : optarg);
		break;
	case OPT_SUPPRESS_HANDLER_ERRORS:	/* the runtime counts them, silently */
		strlist_add(&s->defines, "STP_SUPPRESS_HANDLER_ERRORS");
		break;
	case OPT_SUPPRESS_TIME_LIMITS:	/* no overload check, MAXACTION or MAXTRYLOCK */
		cli->suppress_time_limits = true;
		break;
	case OPT_DUMP_PROBE_TYPES:
		s->dump = DUMP_PROBE_TYPES;
		break;
	case OPT_DUMP_PROBE_ALIASES:
		s->dump = DUMP_PROBE_ALIASES;
		break;
	case OPT_DUMP_FUNCTIONS:
		s->dump = DUMP_FUNCTIONS;
		break;
	default:
		fputs("Try '--help' for more information. [man stap]\n", stderr);
		exit(1);
	}
}

/* What the options say together, checked once all are read, in stap's order. */
static void check_options(struct session *s, const struct cli_state *cli)
{
	if (!diag_set_colour(cli->colour_when)) {	/* stap's words */
		fprintf(stderr, "Invalid argument '%s' for --color.\n", cli->colour_when);
		exit(1);
	}
	default_privilege(s);
	if (s->guru && s->privilege && strcmp(s->privilege, "stapdev") != 0)
		usage_error("You can't specify -g and --privilege=%s together.", s->privilege);
	if (s->target_cmd && s->target_pid)
		usage_error("You can't specify -c and -x options together.");
	if (s->switch_files && !s->output_file)
		usage_error("-S needs -o FILE: it switches output files.");
	if (s->bulk_mode)	/* the runtime keeps one buffer per CPU */
		strlist_add(&s->defines, "STP_BULKMODE");
	if (cli->suppress_time_limits && !s->guru) {	/* stap's words, without a colon */
		fprintf(stderr, "ERROR --suppress-time-limits requires guru mode (-g)\n");
		exit(1);
	}
	if (cli->suppress_time_limits)
		strlist_add(&s->defines, "STAP_SUPPRESS_TIME_LIMITS_ENABLE");
	if (cli->clean_cache)	/* like stap: the cleanup, then exit */
		exit(cache_clean(verbose_at(s, 1, 1)) ? 1 : 0);
}

/*
 * --remote: what goes with it; and in one of the builds it runs (remote.c: this program
 * again, with REMOTE_BUILD_ENV=RELEASE:MODULE_OUT), a build for RELEASE whose module is
 * left at MODULE_OUT (or, for -p1..-p4, those passes for RELEASE).
 */
static void remote_build_options(struct session *s, struct cli_state *cli)
{
	const char *build = getenv(REMOTE_BUILD_ENV), *colon;

	if (build && *build && (colon = strchr(build, ':')) && colon > build) {
		strlist_free(&s->remote_urls);
		s->remote_prefix = false;
		cli->r_option = xstrndup(build, colon - build);
		if (s->last_pass == 5) {
			s->last_pass = 4;
			s->module_out = colon + 1;
		}
		return;
	}
	if (!s->remote_urls.count) {
		if (s->remote_prefix)
			usage_error("--remote-prefix needs --remote");
		return;
	}
	if (cli->r_option)
		usage_error("--remote builds for each host's own kernel: -r does not go with it");
	if (s->vm)
		usage_error("--remote and --vm cannot go together: pass 5 runs either on the "
			    "--remote hosts or in a local guest (for a guest reached over ssh, "
			    "see stap-vm --ssh)");
	if (s->list_pattern)
		usage_error("-l and -L list the probe points of this machine's kernel, not of "
			    "the --remote hosts'");
	if (s->flight_recorder)
		usage_error("-F cannot go with --remote: a session left running on a host has "
			    "nobody to stream its output here");
	if (s->switch_files)
		usage_error("-S cannot go with --remote: the hosts' output comes here, into "
			    "one stream");
}

/*
 * As stap: a -r kernel that is not the running one cannot be run here, so the last pass
 * is 4 (with stap's warning).  Not for --vm or --remote, whose pass 5 runs elsewhere, nor
 * for the default kernel chosen when the running one has no build tree (pass 5 then
 * fails and suggests --vm, run.c).
 */
static void force_last_pass_4(struct session *s, const char *r_option)
{
	struct utsname u;

	if (!r_option || s->last_pass != 5 || s->list_pattern || s->dump || s->vm ||
	    s->remote_urls.count ||
	    uname(&u) != 0 || strcmp(u.release, s->kernel_release) == 0)
		return;
	fputs("WARNING: kernel release/architecture mismatch with host forces last-pass 4.\n",
	      stderr);
	s->last_pass = 4;
}

/* Where the runtime, the tapsets and staprun are, and the kernel to build for. */
static void find_installation(struct session *s, const char *r_option)
{
	if (!s->runtime_dir)
		s->runtime_dir = find_data_dir("SYSTEMTAP_RUNTIME", "runtime", "runtime.h");
	/* kbuild runs in the kernel's tree: relative paths would point there */
	s->runtime_dir = absolute_path(s->runtime_dir);
	s->tmpdir_parent = absolute_path(s->tmpdir_parent);
	s->tapset_dir = find_data_dir("SYSTEMTAP_TAPSET", "tapset", "logging.stp");
	/* --vm runs staprun in the guest through stap-vm, for the reference kernel */
	s->staprun_path = s->vm ? find_backend("stap-vm", PKGLIBEXECDIR "/stap-vm")
				: find_backend("staprun", BINDIR "/staprun");
	/* a test's stand-in for the program pass 5 runs, which gets the same arguments
	 * (testsuite/examples-run.sh makes guest jobs of stap command lines with it) */
	if (getenv("STAPLER_PASS5_PROGRAM") && *getenv("STAPLER_PASS5_PROGRAM"))
		s->staprun_path = getenv("STAPLER_PASS5_PROGRAM");
	if (s->vm && !r_option && *DEFAULT_KERNEL_BUILD)
		r_option = DEFAULT_KERNEL_BUILD;
	if (!s->remote_urls.count)	/* --remote: each build chooses the host's kernel */
		choose_kernel(s, r_option);
	force_last_pass_4(s, r_option);
}

/*
 * The options of $SYSTEMTAP_DIR/rc ($HOME/.systemtap/rc), read before the command line's:
 * ARGV with them after its first word, split as the shell splits words (no command
 * substitution); ARGV itself when there is no such file.
 */
static char **options_with_rc(int *argc, char **argv)
{
	const char *dir = getenv("SYSTEMTAP_DIR");
	char *home = NULL, *path, *text;
	wordexp_t words;
	char **all;

	if (!dir || !*dir)
		dir = home = xasprintf("%s/.systemtap", user_home());
	path = xasprintf("%s/rc", dir);
	text = read_file(path, NULL);
	free(home);
	if (!text) {
		free(path);
		return argv;
	}
	for (char *c = text; *c; c++)	/* lines are words too (wordexp refuses newlines) */
		if (*c == '\n')
			*c = ' ';
	if (wordexp(text, &words, WRDE_NOCMD) != 0) {
		fprintf(stderr, "ERROR: cannot read the options of %s: not words a shell would "
			"split\n", path);
		exit(1);
	}
	all = xcalloc(*argc + words.we_wordc + 1, sizeof(*all));
	all[0] = argv[0];
	for (size_t i = 0; i < words.we_wordc; i++)
		all[1 + i] = xstrdup(words.we_wordv[i]);
	for (int i = 1; i < *argc; i++)
		all[words.we_wordc + i] = argv[i];
	*argc += (int)words.we_wordc;
	wordfree(&words);
	free(text);
	free(path);
	return all;
}

/* --example NAME: the example script NAME, found in our examples, then in SystemTap's
 * (systemtap-doc's), in their subfolders too. */
static const char *find_example(const char *name)
{
	const char *dirs[] = { NULL, PKGDATADIR "/examples", "/usr/share/systemtap/examples" };
	char *exe_dir = dir_of_executable();
	char *found = NULL;

	if (exe_dir)
		dirs[0] = xasprintf("%s/examples", exe_dir);
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]) && !found; i++)
		if (dirs[i])
			found = find_file_under(dirs[i], name);
	free(exe_dir);
	if (!found) {
		fprintf(stderr, "Example '%s' was not found under '%s' nor '%s'\n", name,
			dirs[0] ? dirs[0] : dirs[1], dirs[2]);	/* stap's words, our folders */
		exit(1);
	}
	return found;
}

void parse_options(struct session *s, int argc, char **argv)
{
	struct cli_state cli = { 0 };
	int opt;

	/* as given (getopt permutes it): --remote runs it again for each kernel (remote.c) */
	s->argc = argc;
	s->argv = xcalloc(argc + 1, sizeof(*s->argv));
	memcpy(s->argv, argv, argc * sizeof(*argv));
	argv = options_with_rc(&argc, argv);
	s->last_pass = 5;
	s->tmpdir_parent = "/tmp";
	if (getenv("TMPDIR") && *getenv("TMPDIR"))
		s->tmpdir_parent = getenv("TMPDIR");
	while ((opt = getopt_long(argc, argv, "hVvp:e:E:I:D:B:R:r:m:kguwWto:c:x:G:l:L:s:bS:T:Fd:Pa:qi",
				  long_options, NULL)) != -1) {
		bool *flag = flag_option(s, opt);
		const char **text = text_option(s, opt);
		struct strlist *list = list_option(s, opt);

		if (flag)
			*flag = true;
		else if (text)
			*text = optarg;
		else if (list)
			strlist_add(list, optarg);
		else
			take_option(s, &cli, opt);
	}
	check_options(s, &cli);
	remote_build_options(s, &cli);
	/* the script, unless -e or -l/-L gave it, then its arguments */
	if (!s->script_text && !s->list_pattern && !s->dump) {
		if (optind >= argc) {	/* stap's words, less its -i (no interactive mode) */
			fputs("A script must be specified.\nTry '--help' for more information. "
			      "[man stap]\n", stderr);
			exit(1);
		}
		s->script_file = argv[optind++];
		if (cli.example)
			s->script_file = find_example(s->script_file);
	}
	for (; optind < argc; optind++)
		strlist_add(&s->script_args, argv[optind]);
	if (!cli.r_option && !s->remote_urls.count && getenv("SYSTEMTAP_RELEASE") &&
	    *getenv("SYSTEMTAP_RELEASE"))	/* stap(1): -r's value, from the environment */
		cli.r_option = getenv("SYSTEMTAP_RELEASE");
	find_installation(s, cli.r_option);
}
