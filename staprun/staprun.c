/*
 * staprun.c - the privileged loader: checks who runs it and the module, inserts the module
 * into the kernel and hands over to stapio; attaches to (-A) and removes (-d) sessions.
 * May be installed setuid root: the real user's groups decide what it does for them
 * (staprun(8), SAFETY AND SECURITY).  The command lines are described in common.h.
 */
#include "common.h"
#include "modimage.h"
#include "sdt_markers.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#ifndef STAPIO_PATH
#define STAPIO_PATH "/usr/local/libexec/stapler/stapio"
#endif
#ifndef STAPRUN_PATH
#define STAPRUN_PATH "/usr/local/bin/staprun"
#endif

#define MODULE_SIZE_MAX (512L << 20)	/* a sanity bound on what is read into memory */

static const char usage_text[] =
"Usage: staprun [options] MODULE[.ko] [VAR=VALUE ...]\n"
"       staprun [-v] [-w] [-o FILE [-D] [-S SIZE[,N]]] [-T MS] -A MODULE\n"
"       staprun [-v] -d MODULE|'*'\n"
"\n"
"Loads a module built by stap -p4, runs it (output on standard output), and removes it\n"
"when the script exits or on Ctrl-C.  VAR=VALUE arguments set the script's global VAR\n"
"before it starts (what stap -G passes).  A MODULE with a '/' or ending in .ko is a\n"
"file; any other is a name installed in /lib/modules/`uname -r`/systemtap.\n"
"\n"
"   -v          more verbose; repeatable\n"
"   -V          print the version and exit (with -v first: the installed paths)\n"
"   -w          suppress the script's warnings\n"
"   -c CMD      run CMD (as the real user); the session ends when it does; CMD's pid\n"
"               is the script's target()\n"
"   -x PID      the script's target() is PID\n"
"   -o FILE     send the script's output to FILE (FILE_CPU per CPU in bulk mode)\n"
"   -b MB       output buffer size, 1-4095 megabytes (per CPU in bulk mode)\n"
"   -L          load the module, start the probes and detach, leaving them running\n"
"   -A          attach to the session of the loaded MODULE (left by -L or SIGQUIT)\n"
"   -D          run in the background (needs -o); the pid is printed\n"
"   -R          load under a unique name (MODULE_PID), so one .ko can run twice\n"
"   -S SIZE[,N] start a new output file every SIZE megabytes, keeping the last N\n"
"               (needs -o)\n"
"   -T MS       wait at most MS milliseconds before copying buffered output\n"
"   -d MODULE   remove the loaded module MODULE (not attached); '*' removes every\n"
"               stapler module that is neither attached nor in use\n"
"   -r N:URI    this run is number N of a stap --remote swarm, on the target URI\n"
"               (the script's remote_id() and remote_uri())\n"
"   -h          show this help\n"
"\n"
"Root may load any module; so may members of the group stapdev.  Members of the group\n"
"stapusr may load modules installed under /lib/modules/`uname -r`/systemtap, and attach\n"
"to and remove the sessions they loaded.  Others are refused.\n";

struct options {
	bool suppress_warnings;		/* -w */
	const char *command;		/* -c */
	const char *target_pid;		/* -x */
	const char *output;		/* -o */
	long bufsize;			/* -b, 0 when not given */
	bool leave_running;		/* -L */
	bool attach;			/* -A */
	bool background;		/* -D */
	bool unique_name;		/* -R */
	const char *rotate;		/* -S */
	const char *reader_timeout;	/* -T */
	const char *remove;		/* -d */
	long remote_id;			/* -r N:URI, -1 when not given */
	const char *remote_uri;
	const char *module;		/* MODULE[.ko], or the name with -A */
	char **settings;		/* VAR=VALUE ... */
	int nsettings;
};


static __attribute__((noreturn)) void usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static void usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	print_error(fmt, ap);
	va_end(ap);
	fputs("Run 'staprun -h' for the options.\n", stderr);
	exit(1);
}

/* ---- options ---- */

static bool is_identifier(const char *s, size_t len)
{
	if (!len || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return false;
	for (size_t i = 1; i < len; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
			return false;
	return true;
}

/* getopt's optarg, which must not be empty: else the usage error MESSAGE. */
static const char *nonempty_arg(const char *message)
{
	if (!*optarg)
		usage_error("%s", message);
	return optarg;
}

/* -r N:URI: the run's index among stap --remote's targets, and the target. */
static void read_remote(struct options *o, const char *arg)
{
	char *end;

	errno = 0;
	o->remote_id = strtol(arg, &end, 10);
	if (end == arg || *end != ':' || errno || o->remote_id < 0 || o->remote_id > INT_MAX)
		usage_error("-r needs N:URI, a run's number and its target ('%s')", arg);
	o->remote_uri = end + 1;
	/* the kernel's parameter parser would take it for a quote */
	if (strchr(o->remote_uri, '"'))
		usage_error("-r %s: the target cannot hold '\"'", arg);
}

static void read_options(int argc, char **argv, struct options *o)
{
	long n;
	int opt;

	while ((opt = getopt(argc, argv, "+vVwc:x:o:b:LADRS:T:d:huC:N:M:r:")) != -1) {
		switch (opt) {
		case 'v':
			verbosity++;
			break;
		case 'V':
			printf("Stapler module loader/runner (version %s)\n", STAPLER_VERSION);
			/* -v -V: where the installed programs are (all a setuid staprun runs) */
			if (verbosity)
				printf("staprun: %s\nstapio: %s\n", STAPRUN_PATH, STAPIO_PATH);
			exit(0);
		case 'w':
			o->suppress_warnings = true;
			break;
		case 'c':
			o->command = nonempty_arg("-c needs a command");
			break;
		case 'x':
			if (!parse_number(optarg, 1, INT_MAX, &n))
				usage_error("Invalid process id '%s' for -x", optarg);
			o->target_pid = optarg;
			break;
		case 'o':
			o->output = nonempty_arg("-o needs a file name");
			break;
		case 'b':
			if (!parse_number(optarg, 1, 4095, &o->bufsize))
				usage_error("Invalid buffer size '%s' (should be 1-4095)", optarg);
			break;
		case 'L':
			o->leave_running = true;
			break;
		case 'A':
			o->attach = true;
			break;
		case 'D':
			o->background = true;
			break;
		case 'R':
			o->unique_name = true;
			break;
		case 'S': {
			long files;

			if (!parse_rotation(optarg, &n, &files))
				usage_error("Invalid file size option '%s' (should be SIZE[,N]: "
					    "megabytes, then a number of files from 1 to %d)",
					    optarg, OUTPUT_FILES_MAX);
			o->rotate = optarg;
			break;
		}
		case 'T':
			if (!parse_number(optarg, 1, INT_MAX, &n))
				usage_error("Invalid reader timeout value '%s' (should be >= 1 "
					    "milliseconds)", optarg);
			o->reader_timeout = optarg;
			break;
		case 'd':
			o->remove = nonempty_arg("-d needs a module name, or '*'");
			break;
		case 'h':
			fputs(usage_text, stdout);
			exit(0);
		case 'r':
			read_remote(o, optarg);
			break;
		case 'u':
		case 'C':
		case 'N':
		case 'M':
			usage_error("staprun option -%c is not supported by stapler", opt);
		default:
			fputs(usage_text, stderr);
			exit(1);
		}
	}
	if (optind < argc)
		o->module = argv[optind++];
	o->settings = argv + optind;
	o->nsettings = argc - optind;

	if (o->command && o->target_pid)
		usage_error("You can't specify the '-c' and '-x' options together.");
	if (o->leave_running && o->attach)
		usage_error("You can't specify the '-A' and '-L' options together.");
	if (o->leave_running && o->background)
		usage_error("You can't specify the '-D' and '-L' options together.");
	if (o->background && !o->output)
		usage_error("You have to specify output FILE with '-D' option.");
	if (o->rotate && !o->output)
		usage_error("You have to specify output FILE with '-S' option.");
	if (o->remove) {
		if (o->module || o->attach || o->leave_running || o->command || o->target_pid ||
		    o->output || o->bufsize || o->unique_name || o->background || o->rotate ||
		    o->reader_timeout)
			usage_error("-d MODULE takes no module file and no other options but -v");
		return;
	}
	if (!o->module)
		usage_error("Need a module name or path to load.");
	if (o->attach) {
		if (o->command || o->target_pid || o->bufsize || o->unique_name)
			usage_error("-A attaches to a session already running: -c, -x, -b and "
				    "-R do not apply");
		if (o->nsettings)
			usage_error("-A attaches to a session already running: its globals "
				    "cannot be set (%s)", o->settings[0]);
		if (strchr(o->module, '/'))
			usage_error("-A takes the name of a loaded module, not a file ('%s')",
				    o->module);
	}
	for (int i = 0; i < o->nsettings; i++) {
		const char *s = o->settings[i], *eq = strchr(s, '=');

		if (!eq || !is_identifier(s, eq - s))
			usage_error("'%s' is not a VAR=VALUE setting of a global variable", s);
		/* the kernel's parser would take it for a quote, and join what follows */
		if (strchr(eq + 1, '"'))
			usage_error("the value of %.*s cannot hold '\"'", (int)(eq - s), s);
	}
	if (o->target_pid && kill((pid_t)atol(o->target_pid), 0) != 0 && errno == ESRCH)
		usage_error("-x %s: there is no process %s", o->target_pid, o->target_pid);
}

/* ---- who is asking ---- */

/* Loading needs the kernel's privilege: root, or staprun installed setuid root. */
static void need_effective_root(void)
{
	if (geteuid() != 0)
		fatal("staprun needs root privileges to load and remove modules: run it as root, "
		      "or have it installed setuid root (chmod u+s) so that members of the "
		      "groups stapusr and stapdev can use it");
}

/* ---- the module file ---- */

struct module_file {
	char *path;
	int fd;
	struct stat st;
	char *image;
	size_t len;
};

/* /lib/modules/REL/systemtap: where bare module names are, and what stapusr may load. */
static char *systemtap_folder(const char *release)
{
	char *dir;

	if (asprintf(&dir, "/lib/modules/%s/systemtap", release) < 0)
		fatal("out of memory");
	return dir;
}

/*
 * MODULE names a file when it has a '/' or ends in .ko (staprun ./watch.ko, staprun
 * watch.ko); a bare NAME is /lib/modules/REL/systemtap/NAME.ko, never a file of the
 * current folder, which may be anybody's (cd /tmp; staprun watch).
 */
static bool names_file(const char *arg)
{
	size_t n = strlen(arg);

	return strchr(arg, '/') || (n > 3 && strcmp(arg + n - 3, ".ko") == 0);
}

/* The module's bytes, from the open file m->fd. */
static void read_module(struct module_file *m)
{
	size_t got = 0;

	if (m->st.st_size > MODULE_SIZE_MAX)
		fatal("%s is too large (%lld bytes) to be a stapler module", m->path,
		      (long long)m->st.st_size);
	m->len = m->st.st_size;
	m->image = malloc(m->len ? m->len : 1);
	if (!m->image)
		fatal("out of memory");
	while (got < m->len) {
		ssize_t n = pread(m->fd, m->image + got, m->len - got, got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			fatal("cannot read module %s: %s", m->path, n ? strerror(errno) :
			      "it shrank while being read");
		got += n;
	}
}

/* Flags of the open of a module: never wait (a FIFO), never become a terminal's owner. */
#define MODULE_OPEN_FLAGS (O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)

/* The file system ids of the process become the real user's (true), or back to root's. */
static void act_as_real_user(bool yes)
{
	uid_t uid = yes ? getuid() : geteuid();
	gid_t gid = yes ? getgid() : getegid();

	if (!set_fs_ids(uid, gid))
		fatal("cannot switch to the file system ids %s", yes ? "of the real user" :
		      "of root");
}

/*
 * Root and stapdev: MODULE opened with the real user's rights (a member of stapdev
 * loads what they can read, no more), and only if it is a regular file: it is looked at
 * before it is opened, so a FIFO or a device is never opened.
 */
static void open_module_as_user(struct module_file *m, const char *arg, const char *release)
{
	struct stat before;
	int err = 0;

	if (names_file(arg)) {
		m->path = strdup(arg);
		if (!m->path)
			fatal("out of memory");
	} else {
		char *dir = systemtap_folder(release);

		if (asprintf(&m->path, "%s/%s.ko", dir, arg) < 0)
			fatal("out of memory");
		free(dir);
	}
	act_as_real_user(true);
	if (stat(m->path, &before) != 0)
		err = errno;
	else if (S_ISREG(before.st_mode) &&
		 (m->fd = open(m->path, MODULE_OPEN_FLAGS)) < 0)
		err = errno;
	act_as_real_user(false);
	if (err == ENOENT && !names_file(arg))
		fatal("cannot find module %s: there is no %s (a module file in the current "
		      "folder is named with its .ko, or a path: ./%s.ko)", arg, m->path, arg);
	if (err)
		fatal("cannot open module %s: %s", m->path, strerror(err));
	if (!S_ISREG(before.st_mode))
		fatal("%s is not a regular file", m->path);
	if (fstat(m->fd, &m->st) != 0)
		fatal("cannot examine module %s: %s", m->path, strerror(errno));
	if (m->st.st_dev != before.st_dev || m->st.st_ino != before.st_ino)
		fatal("%s changed while it was being opened", m->path);
}

/* Root-owned and writable by nobody else: what a stapusr member may trust. */
static void check_trusted(const char *path, const struct stat *st)
{
	if (st->st_uid != 0)
		fatal("%s must be owned by root for members of stapusr to load modules from it",
		      path);
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		fatal("%s must not be writable by group or others for members of stapusr to "
		      "load modules from it", path);
}

/* The systemtap folder (open as TOP) and every folder above it are root's alone. */
static void check_systemtap_folder(int top, const char *dir)
{
	char fdlink[64], real[PATH_MAX];
	struct stat st;
	ssize_t n;

	if (fstat(top, &st) != 0)
		fatal("cannot examine %s: %s", dir, strerror(errno));
	check_trusted(dir, &st);
	snprintf(fdlink, sizeof(fdlink), "/proc/self/fd/%d", top);
	n = readlink(fdlink, real, sizeof(real) - 1);
	if (n <= 0 || real[0] != '/')
		fatal("cannot tell where %s is (is /proc mounted?)", dir);
	real[n] = '\0';
	/* above it, a folder root's group may write is still root's */
	for (char *slash = strrchr(real, '/'); slash; slash = strrchr(real, '/')) {
		*slash = '\0';
		if (stat(*real ? real : "/", &st) != 0)
			fatal("cannot examine %s: %s", *real ? real : "/", strerror(errno));
		if (st.st_gid == 0)
			st.st_mode &= ~S_IWGRP;
		check_trusted(*real ? real : "/", &st);
	}
}

/*
 * The part of ARG below the systemtap folder DIR: ARG.ko for a bare name; for a path,
 * what follows DIR (as named, or with its links resolved), made absolute from the current
 * folder.  NULL when ARG is not under DIR.
 */
static char *path_below(const char *arg, const char *dir)
{
	char *abs = NULL, *real = realpath(dir, NULL), *below = NULL;
	const char *prefixes[2] = { dir, real };

	if (!names_file(arg)) {
		if (asprintf(&below, "%s.ko", arg) < 0)
			fatal("out of memory");
		free(real);
		return below;
	}
	if (arg[0] == '/') {
		abs = strdup(arg);
	} else {
		char *cwd = getcwd(NULL, 0);

		if (cwd && asprintf(&abs, "%s/%s", cwd, arg) < 0)
			abs = NULL;
		free(cwd);
	}
	for (int i = 0; abs && !below && i < 2; i++) {
		size_t n = prefixes[i] ? strlen(prefixes[i]) : 0;

		if (n && strncmp(abs, prefixes[i], n) == 0 && abs[n] == '/')
			below = strdup(abs + n + 1);
	}
	free(abs);
	free(real);
	return below;
}

/*
 * stapusr: only what the administrator installed.  The file is reached from the systemtap
 * folder one name at a time, as root (a root-only module there is fine), following no
 * symbolic link and no "..", and every folder on the way and the file itself must be
 * root's and writable by nobody else; the file is looked at before it is opened, so only
 * a regular file is.  Refusals name the path as given, never what a link points to.
 */
static void open_installed_module(struct module_file *m, const char *arg, const char *release)
{
	char *dir = systemtap_folder(release), *below = path_below(arg, dir), *name, *next;
	struct stat st;
	int fd;

	if (!below)
		fatal("members of the group stapusr may only load modules installed under %s; "
		      "%s is not there (ask an administrator to install it, or to add you to "
		      "the group stapdev)", dir, arg);
	if (asprintf(&m->path, "%s/%s", dir, below) < 0)
		fatal("out of memory");
	fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		fatal("cannot find module %s: %s: %s", arg, dir, strerror(errno));
	check_systemtap_folder(fd, dir);
	for (name = below; (next = strchr(name, '/')); name = next + 1) {
		int sub;

		*next = '\0';
		if (!*name || strcmp(name, ".") == 0)
			continue;
		if (strcmp(name, "..") == 0)
			fatal("%s: members of the group stapusr may not name a module with '..'",
			      m->path);
		sub = openat(fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0 && fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISLNK(st.st_mode))
			fatal("%s passes through the symbolic link %s: members of the group stapusr "
			      "may load only modules installed under %s, not through links", m->path,
			      name, dir);
		if (sub < 0)
			fatal("cannot open module %s: %s: %s", m->path, name, strerror(errno));
		close(fd);
		fd = sub;
		if (fstat(fd, &st) != 0)
			fatal("cannot examine %s: %s", name, strerror(errno));
		if (st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH))) {
			char *folder;

			if (asprintf(&folder, "%s/%.*s", dir, (int)(next - below),
				     m->path + strlen(dir) + 1) < 0)
				fatal("out of memory");
			check_trusted(folder, &st);
		}
	}
	if (strcmp(name, "..") == 0 || strcmp(name, ".") == 0 || !*name)
		fatal("%s is not a module file", m->path);
	if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		if (errno == ENOENT)
			fatal("cannot find module %s: there is no %s", arg, m->path);
		fatal("cannot open module %s: %s", m->path, strerror(errno));
	}
	if (S_ISLNK(st.st_mode))
		fatal("%s is a symbolic link: members of the group stapusr may load only module "
		      "files installed under %s, not links", m->path, dir);
	if (!S_ISREG(st.st_mode))
		fatal("%s is not a regular file", m->path);
	check_trusted(m->path, &st);
	m->fd = openat(fd, name, MODULE_OPEN_FLAGS | O_NOFOLLOW);
	if (m->fd < 0)
		fatal("cannot open module %s: %s", m->path, strerror(errno));
	if (fstat(m->fd, &m->st) != 0)
		fatal("cannot examine module %s: %s", m->path, strerror(errno));
	if (m->st.st_dev != st.st_dev || m->st.st_ino != st.st_ino)
		fatal("%s changed while it was being opened", m->path);
	check_trusted(m->path, &m->st);
	close(fd);
	free(below);
	free(dir);
}

/* Opened once: everything checked afterwards is about this open file and its bytes. */
static void open_module(struct module_file *m, const char *arg, enum privilege priv,
			const char *release)
{
	m->fd = -1;
	if (priv == PRIV_STAPUSR)
		open_installed_module(m, arg, release);
	else
		open_module_as_user(m, arg, release);
	read_module(m);
}

static void check_module(const struct module_file *m, struct modimage_info *info,
			 const char *release)
{
	size_t rel_len;

	switch (modimage_read(m->image, m->len, info)) {
	case MODIMAGE_OK:
		break;
	case MODIMAGE_NOT_ELF:
		fatal("%s is not an ELF kernel module: it is not an ELF file at all (staprun "
		      "loads the .ko files stap -p4 builds)", m->path);
	case MODIMAGE_NOT_MODULE:
		fatal("%s is an ELF file but not a kernel module (a module has a .modinfo "
		      "section with name= and a .gnu.linkonce.this_module section)", m->path);
	case MODIMAGE_NO_MEMORY:
		fatal("out of memory");
	}
	if (!modimage_is_stapler(info))
		fatal("%s is a kernel module, but not one built by stapler's stap (module %s%s%s); "
		      "staprun loads only those", m->path, info->name,
		      modimage_get(info, "description") ? ": " : "",
		      modimage_get(info, "description") ? modimage_get(info, "description") : "");
	if (!info->vermagic)
		fatal("%s has no vermagic in its .modinfo: it cannot be checked against this "
		      "kernel", m->path);
	rel_len = modimage_release_len(info->vermagic);
	if (rel_len != strlen(release) || strncmp(info->vermagic, release, rel_len) != 0)
		fatal("module %s was built for kernel \"%.*s\", but this is kernel \"%s\"",
		      m->path, (int)rel_len, info->vermagic, release);
	if (strlen(info->name) >= MODIMAGE_NAME_FIELD)
		fatal("%s has a module name longer than the kernel allows: %s", m->path,
		      info->name);
}

/*
 * -R: NAME_PID, the tail of NAME replaced so that it is no longer than NAME (the room
 * .modinfo has).  The pid is the session's own (staprun becomes stapio), so it is unique
 * among running sessions.
 */
static char *unique_name(const char *name)
{
	char suffix[24], *out;
	size_t len = strlen(name), slen, keep;

	slen = snprintf(suffix, sizeof(suffix), "_%ld", (long)getpid());
	if (len <= slen)
		fatal("-R cannot rename module %s: its name is too short to hold a unique "
		      "suffix (%s); build it with a longer name (stap -m)", name, suffix);
	keep = len - slen;
	if (asprintf(&out, "%.*s%s", (int)keep, name, suffix) < 0)
		fatal("out of memory");
	return out;
}

/* The module's parameter string: the VAR=VALUE settings, then -b's buffer size. */
static char *module_parameters(const struct options *o)
{
	char *params = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&params, &size);

	if (!f)
		fatal("out of memory");
	for (int i = 0; i < o->nsettings; i++) {
		const char *s = o->settings[i], *eq = strchr(s, '=');

		if (i)
			fputc(' ', f);
		/* the kernel's parameter parser takes a quoted value as one */
		if (strpbrk(eq + 1, " \t\n"))
			fprintf(f, "%.*s\"%s\"", (int)(eq - s + 1), s, eq + 1);
		else
			fputs(s, f);
	}
	if (o->bufsize)
		fprintf(f, "%s%s=%ld", o->nsettings ? " " : "", STP_BUFSIZE_PARAM, o->bufsize);
	if (o->remote_id >= 0)	/* runtime/module.c */
		fprintf(f, "%sstp_remote_id=%ld stp_remote_uri=\"%s\"",
			o->nsettings || o->bufsize ? " " : "", o->remote_id, o->remote_uri);
	if (fclose(f) != 0)
		fatal("out of memory");
	return params;
}

/* Whether the module IMAGE (LEN bytes) carries a signature: kbuild's sign-file appends
 * one, and a marker after it. */
static bool module_is_signed(const char *image, size_t len)
{
	static const char marker[] = "~Module signature appended~\n";

	return len >= sizeof(marker) - 1 &&
	       memcmp(image + len - (sizeof(marker) - 1), marker, sizeof(marker) - 1) == 0;
}

/* The kernel's lockdown mode ("integrity", "confidentiality"), or NULL when it has none. */
static const char *kernel_lockdown(void)
{
	static char mode[32];
	char buf[128], *open_br, *close_br;
	FILE *f = fopen("/sys/kernel/security/lockdown", "re");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	open_br = strchr(buf, '[');
	close_br = open_br ? strchr(open_br, ']') : NULL;
	if (!close_br || (size_t)(close_br - open_br - 1) >= sizeof(mode))
		return NULL;
	memcpy(mode, open_br + 1, close_br - open_br - 1);
	mode[close_br - open_br - 1] = '\0';
	return strcmp(mode, "none") == 0 ? NULL : mode;
}

static void explain_insert_error(int err, const struct module_file *m, const char *name)
{
	const char *path = m->path, *lockdown;

	switch (err) {
	case EEXIST:
		fatal("a module named %s is already loaded (another session of it?); remove it "
		      "with 'staprun -d %s', or load another copy under a unique name with -R",
		      name, name);
	case ENOEXEC:
		fatal("the kernel rejected %s as an invalid module (built for another kernel?)",
		      path);
	case EPERM:
		lockdown = kernel_lockdown();
		if (lockdown && !module_is_signed(m->image, m->len))
			fatal("the kernel refused %s: it is locked down (%s) and loads only signed "
			      "modules; build the module with 'stap --sign-module' and enroll its key "
			      "(mokutil --import, then a reboot)", path, lockdown);
		fatal("the kernel does not allow loading %s: %s (module loading disabled, "
		      "lockdown, or missing privilege?)", path, strerror(err));
	case EKEYREJECTED:
	case ENOKEY:
	case EBADMSG:
		if (!module_is_signed(m->image, m->len))
			fatal("the kernel refused %s: it is not signed, and this kernel loads only "
			      "signed modules (Secure Boot, lockdown or module.sig_enforce); build it "
			      "with 'stap --sign-module' and enroll its key (mokutil --import, then a "
			      "reboot)", path);
		fatal("the kernel refused the signature of %s: %s (the key that signed it is not "
		      "one this kernel trusts; enroll it with 'mokutil --import KEY.x509', which "
		      "stap --sign-module names, reboot and confirm the enrollment)", path,
		      strerror(err));
	case EINVAL:
		fatal("the kernel refused %s: %s (a VAR=VALUE setting it could not parse, or a "
		      "kernel mismatch; see dmesg)", path, strerror(err));
	case ENOENT:
		fatal("the kernel refused %s: it needs symbols this kernel does not have "
		      "(see dmesg)", path);
	case ENOSYS:
		fatal("this kernel cannot load modules");
	default:
		fatal("cannot insert module %s: %s", path, strerror(err));
	}
}

/* ---- who owns a session ---- */

/*
 * A session is its loader's: the module's folder in debugfs (made by the module as it
 * loads, gone when it is removed) is given to the real user who loaded it.  Root, members
 * of stapdev and that user may attach to it and remove it; other members of stapusr may
 * not (they would read its output, or end it).
 */
static bool record_owner(const char *name)
{
	char *dir = module_debugfs_path(name, NULL);
	bool ok = true;

	if (getuid() != 0 && lchown(dir, getuid(), (gid_t)-1) != 0) {
		fprintf(stderr, "ERROR: cannot record who loaded module %s (chown %s: %s)\n",
			name, dir, strerror(errno));
		ok = false;
	}
	free(dir);
	return ok;
}

static bool may_control(const char *name, enum privilege priv)
{
	char *dir = module_debugfs_path(name, NULL);
	struct stat st;
	bool yes = lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) && may_use_session(&st, priv);

	free(dir);
	return yes;
}

/* ---- loading ---- */

/* Hands the session to stapio, which keeps this process (and its id). */
static int exec_stapio(const struct options *o, const char *name, bool loaded)
{
	char *stapio = trusted_program("stapio", STAPIO_PATH);
	struct arglist args = { 0 };

	if (!stapio)
		goto failed;

	arglist_add(&args, "stapio");
	for (int i = 0; i < verbosity; i++)
		arglist_add(&args, "-v");
	if (o->suppress_warnings)
		arglist_add(&args, "-w");
	arglist_add_option(&args, "-c", o->command);
	arglist_add_option(&args, "-x", o->target_pid);
	arglist_add_option(&args, "-o", o->output);
	arglist_add_option(&args, "-S", o->rotate);
	arglist_add_option(&args, "-T", o->reader_timeout);
	if (o->background)
		arglist_add(&args, "-D");
	if (o->leave_running)
		arglist_add(&args, "-L");
	if (o->attach)
		arglist_add(&args, "-A");
	arglist_add(&args, name);
	say(1, "starting %s", stapio);
	execv(stapio, args.argv);
	fprintf(stderr, "ERROR: cannot run %s: %s\n", stapio, strerror(errno));
failed:
	if (loaded && syscall(SYS_delete_module, name, O_NONBLOCK) != 0)
		fprintf(stderr, "ERROR: cannot remove module %s: %s\n", name, strerror(errno));
	arglist_free(&args);
	free(stapio);
	return 1;
}

static int load(const struct options *o, enum privilege priv, const char *release)
{
	struct module_file m = { 0 };
	struct modimage_info info;
	char *name, *params;
	int err;

	open_module(&m, o->module, priv, release);
	check_module(&m, &info, release);
	name = strdup(info.name);
	if (!name)
		fatal("out of memory");
	if (o->unique_name) {
		char *renamed = unique_name(info.name);

		err = modimage_rename(m.image, m.len, renamed);
		if (err)
			fatal("-R cannot rename module %s to %s: %s", info.name, renamed,
			      strerror(-err));
		say(1, "renamed module %s to %s", name, renamed);
		free(name);
		name = renamed;
	}
	modimage_free(&info);
	params = module_parameters(o);
	need_effective_root();
	if (!ensure_debugfs_mounted())
		return 1;
	say(1, "inserting module %s (name %s%s%s)", m.path, name, *params ? ", parameters " : "",
	    params);
	/* init_module: the bytes checked (and renamed) are the bytes loaded */
	STP_MARK1(staprun, insert__module, m.path);
	if (syscall(SYS_init_module, m.image, m.len, params) != 0)
		explain_insert_error(errno, &m, name);
	if (!record_owner(name)) {
		if (syscall(SYS_delete_module, name, O_NONBLOCK) != 0)
			fprintf(stderr, "ERROR: cannot remove module %s: %s\n", name,
				strerror(errno));
		return 1;
	}
	free(m.image);
	free(params);
	close(m.fd);
	return exec_stapio(o, name, true);
}

/* ---- attaching and removing ---- */

/* A stapler module: loaded, with its folder in debugfs (made by its transport). */
static bool is_stapler_module(const char *name)
{
	char *dir = module_debugfs_path(name, NULL);
	struct stat st;
	bool yes = stat(dir, &st) == 0 && S_ISDIR(st.st_mode);

	free(dir);
	return yes;
}

/* A name that fits a module's name field and is safe as one folder name under debugfs. */
static bool safe_module_name(const char *name)
{
	return *name && strlen(name) < MODIMAGE_NAME_FIELD && !strchr(name, '/') &&
	       strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

static int attach(const struct options *o, enum privilege priv)
{
	if (!safe_module_name(o->module))
		fatal("'%s' is not a module name", o->module);
	need_effective_root();
	if (!ensure_debugfs_mounted())
		return 1;
	if (!is_stapler_module(o->module))
		fatal("cannot attach to module %s: no stapler module of that name is loaded",
		      o->module);
	if (!may_control(o->module, priv))
		fatal("cannot attach to module %s: another user loaded it (only root, members "
		      "of stapdev and the user who loaded a module may attach to it)", o->module);
	return exec_stapio(o, o->module, false);
}

static int remove_module(const char *name)
{
	say(1, "removing module %s", name);
	STP_MARK1(staprun, remove__module, name);
	if (syscall(SYS_delete_module, name, O_NONBLOCK) == 0) {
		say(1, "module %s removed", name);
		return 0;
	}
	switch (errno) {
	case ENOENT:
		fprintf(stderr, "ERROR: cannot remove module %s: no module of that name is "
			"loaded\n", name);
		break;
	case EWOULDBLOCK:
	case EBUSY:
		fprintf(stderr, "ERROR: cannot remove module %s: it is in use (a stapio is "
			"attached to it?)\n", name);
		break;
	case ENOSYS:
		fprintf(stderr, "ERROR: cannot remove module %s: this kernel cannot unload "
			"modules\n", name);
		break;
	default:
		fprintf(stderr, "ERROR: cannot remove module %s: %s\n", name, strerror(errno));
	}
	return 1;
}

/* Not in use: no references, and nobody holds its control channel. */
static bool module_is_idle(const char *name)
{
	char path[PATH_MAX], buf[32] = "";
	char *ctl;
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "/sys/module/%s/refcnt", name);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	if (strtol(buf, NULL, 10) != 0 || !isdigit((unsigned char)buf[0]))
		return false;
	/* the channel admits one opener at a time: EBUSY means a stapio is attached */
	ctl = module_debugfs_path(name, STP_CTL_FILE);
	fd = open(ctl, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	free(ctl);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static int remove_all(enum privilege priv)
{
	char *root = module_debugfs_path("", NULL);
	struct dirent *e;
	int status = 0;
	DIR *d;

	d = opendir(root);
	if (!d) {
		if (errno != ENOENT)
			fprintf(stderr, "ERROR: cannot read %s: %s\n", root, strerror(errno));
		free(root);
		return errno == ENOENT ? 0 : 1;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || !safe_module_name(e->d_name) ||
		    !is_stapler_module(e->d_name))
			continue;
		if (!may_control(e->d_name, priv)) {
			say(1, "module %s is another user's; left loaded", e->d_name);
			continue;
		}
		if (!module_is_idle(e->d_name)) {
			say(1, "module %s is in use or attached; left loaded", e->d_name);
			continue;
		}
		status |= remove_module(e->d_name);
	}
	closedir(d);
	free(root);
	return status;
}

static int remove_modules(const char *name, enum privilege priv)
{
	need_effective_root();
	if (!ensure_debugfs_mounted())
		return 1;
	if (strcmp(name, "*") == 0)
		return remove_all(priv);
	if (!safe_module_name(name))
		fatal("'%s' is not a module name", name);
	if (!is_stapler_module(name)) {
		char sys[PATH_MAX];

		snprintf(sys, sizeof(sys), "/sys/module/%s", name);
		if (access(sys, F_OK) == 0)
			fatal("cannot remove module %s: it is not a stapler module (it has no "
			      "%s/%s/%s folder); use rmmod", name, DEBUGFS_ROOT, STP_DEBUGFS_DIR,
			      name);
		fatal("cannot remove module %s: no module of that name is loaded", name);
	}
	if (!may_control(name, priv))
		fatal("cannot remove module %s: another user loaded it (only root, members of "
		      "stapdev and the user who loaded a module may remove it)", name);
	return remove_module(name);
}

/*
 * SIGINT, SIGTERM and SIGHUP wait (blocked) until stapio, which staprun becomes, has its
 * handlers: a Ctrl-C while the module loads then ends the session as one a moment later
 * would, end probes and all.  Default, it would kill staprun there, and leave the module
 * loaded with nobody to remove it.  (A blocked signal stays pending across execve.)
 */
static void block_stop_signals(void)
{
	sigset_t stop;

	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	sigprocmask(SIG_BLOCK, &stop, NULL);
}

int main(int argc, char **argv)
{
	struct options o = { .remote_id = -1 };
	enum privilege priv;
	struct utsname uts;

	program_name = "staprun";
	block_stop_signals();
	read_options(argc, argv, &o);
	if (uname(&uts) != 0)
		fatal("uname: %s", strerror(errno));

	priv = real_user_privilege();
	if (priv == PRIV_NONE)
		fatal("you are trying to use staprun as a normal user: you must be root, or a "
		      "member of the group \"stapdev\" (to load any module) or \"stapusr\" (to "
		      "load modules installed under /lib/modules/%s/systemtap); members of "
		      "either may attach to (-A) and remove (-d) the stapler sessions they "
		      "loaded (members of stapdev any)",
		      uts.release);
	if (o.remove)
		return remove_modules(o.remove, priv);
	if (o.attach)
		return attach(&o, priv);
	return load(&o, priv, uts.release);
}
