/*
 * common.c - messages, option values, paths, argument lists and the file system ids shared
 * by staprun and stapio.
 */
#include "common.h"

#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

const char *program_name = "staprun";
int verbosity;
void (*fatal_cleanup)(void);

void print_error(const char *fmt, va_list ap)
{
	fputs("ERROR: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	print_error(fmt, ap);
	va_end(ap);
	if (fatal_cleanup) {
		void (*cleanup)(void) = fatal_cleanup;

		fatal_cleanup = NULL;	/* once, even if it fails in turn */
		cleanup();
	}
	exit(1);
}

bool parse_number(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

bool parse_rotation(const char *arg, long *megabytes, long *files)
{
	const char *comma = strchr(arg, ',');
	char size[32];

	*files = 0;
	if (comma && !parse_number(comma + 1, 1, OUTPUT_FILES_MAX, files))
		return false;
	if ((comma ? (size_t)(comma - arg) : strlen(arg)) >= sizeof(size))
		return false;
	snprintf(size, sizeof(size), "%.*s", (int)(comma ? comma - arg : (long)strlen(arg)), arg);
	return parse_number(size, 1, 1L << 30, megabytes);
}

void say(int level, const char *fmt, ...)
{
	va_list ap;

	if (verbosity < level)
		return;
	fprintf(stderr, "%s: ", program_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

char *module_debugfs_path(const char *module, const char *name)
{
	size_t size = strlen(DEBUGFS_ROOT) + strlen(STP_DEBUGFS_DIR) + strlen(module) +
		      (name ? strlen(name) : 0) + 4;
	char *path = malloc(size);

	if (!path)
		fatal("out of memory");
	snprintf(path, size, "%s/%s/%s%s%s", DEBUGFS_ROOT, STP_DEBUGFS_DIR, module,
		 name ? "/" : "", name ? name : "");
	return path;
}

/* The transport lives in debugfs; mount it if nobody has. */
bool ensure_debugfs_mounted(void)
{
	FILE *mounts = fopen("/proc/mounts", "r");
	char line[1024];
	bool mounted = false;

	if (mounts) {
		while (!mounted && fgets(line, sizeof(line), mounts))
			mounted = strstr(line, " " DEBUGFS_ROOT " debugfs ") != NULL;
		fclose(mounts);
	}
	if (mounted)
		return true;
	say(1, "mounting debugfs on %s", DEBUGFS_ROOT);
	if (mount("debugfs", DEBUGFS_ROOT, "debugfs", 0, NULL) == 0)
		return true;
	fprintf(stderr, "ERROR: cannot mount debugfs on %s: %s\n", DEBUGFS_ROOT, strerror(errno));
	return false;
}

static bool is_regular_executable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/*
 * PATH (links resolved) is root's and only root may change it: the file is not group- or
 * other-writable, and no folder above it is writable by others, or by a group other than
 * root's.  Else false, and unless QUIET an "ERROR: ..." line.
 */
static bool installed_by_root(const char *path, bool quiet)
{
	char *real = realpath(path, NULL);
	struct stat st;
	bool ok = false;

	if (!real) {
		if (!quiet)
			fprintf(stderr, "ERROR: cannot find %s: %s\n", path, strerror(errno));
		return false;
	}
	if (stat(real, &st) != 0 || !S_ISREG(st.st_mode) || access(real, X_OK) != 0) {
		if (!quiet)
			fprintf(stderr, "ERROR: %s is not an executable file\n", path);
		goto out;
	}
	if (st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		if (!quiet)
			fprintf(stderr, "ERROR: %s must be owned by root and writable by nobody "
				"else: staprun running setuid root runs only what root installed\n",
				real);
		goto out;
	}
	for (char *slash = strrchr(real, '/'); slash; slash = strrchr(real, '/')) {
		*slash = '\0';
		if (stat(*real ? real : "/", &st) != 0 || st.st_uid != 0 ||
		    (st.st_mode & S_IWOTH) || ((st.st_mode & S_IWGRP) && st.st_gid != 0)) {
			if (!quiet)
				fprintf(stderr, "ERROR: the folder %s must be owned by root and "
					"writable by nobody else: staprun running setuid root runs "
					"only what root installed\n", *real ? real : "/");
			goto out;
		}
	}
	ok = true;
out:
	free(real);
	return ok;
}

char *trusted_program(const char *name, const char *installed)
{
	char exe[PATH_MAX];
	ssize_t n;

	if (getuid() != 0 || geteuid() != 0 || getgid() != getegid()) {
		/* setuid (or not root at all): a program beside this one may be anybody's */
		if (!installed_by_root(installed, false))
			return NULL;
		return strdup(installed);
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char path[PATH_MAX + 64];

		exe[n] = '\0';
		snprintf(path, sizeof(path), "%s/%s", dirname(exe), name);
		/* root runs it too: only if nobody but root could have put it there (a
		 * group-writable /usr/local/bin of Debian's staff is not root's alone) */
		if (is_regular_executable(path) && installed_by_root(path, true))
			return strdup(path);
	}
	return strdup(installed);
}

void arglist_add(struct arglist *l, const char *arg)
{
	char **grown = realloc(l->argv, (l->argc + 2) * sizeof(*grown));

	if (!grown)
		fatal("out of memory");
	grown[l->argc++] = (char *)arg;
	grown[l->argc] = NULL;
	l->argv = grown;
}

void arglist_add_option(struct arglist *l, const char *option, const char *value)
{
	if (!value)
		return;
	arglist_add(l, option);
	arglist_add(l, value);
}

void arglist_free(struct arglist *l)
{
	free(l->argv);
	l->argv = NULL;
	l->argc = 0;
}

bool set_fs_ids(uid_t uid, gid_t gid)
{
	setfsgid(gid);
	setfsuid(uid);
	/* setfsuid() tells no failure: the ids are asked again */
	return (uid_t)setfsuid((uid_t)-1) == uid && (gid_t)setfsgid((gid_t)-1) == gid;
}

/* ---- who may do what ---- */

static bool real_user_in_group(const char *group)
{
	struct group *gr = getgrnam(group);
	gid_t gid, *groups;
	bool found = false;
	int n;

	if (!gr)
		return false;
	gid = gr->gr_gid;
	if (getgid() == gid)
		return true;
	n = getgroups(0, NULL);
	if (n <= 0)
		return false;
	groups = calloc(n, sizeof(*groups));
	if (!groups)
		fatal("out of memory");
	n = getgroups(n, groups);
	for (int i = 0; i < n && !found; i++)
		found = groups[i] == gid;
	free(groups);
	return found;
}

enum privilege real_user_privilege(void)
{
	if (getuid() == 0)
		return PRIV_ROOT;
	if (real_user_in_group("stapdev"))
		return PRIV_STAPDEV;
	if (real_user_in_group("stapusr"))
		return PRIV_STAPUSR;
	return PRIV_NONE;
}

/* A session whose folder in debugfs is ST: root, stapdev and the user who loaded it. */
bool may_use_session(const struct stat *st, enum privilege priv)
{
	return priv >= PRIV_STAPDEV || st->st_uid == getuid();
}
