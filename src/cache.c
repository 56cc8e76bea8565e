/*
 * cache.c - the cache folder, which every pass that keeps what it derived shares:
 * $STAPLER_CACHE_DIR, else $XDG_CACHE_HOME/stapler, else $HOME/.cache/stapler, else (no
 * HOME: root under env -i, a systemd unit) .cache/stapler in the user's home of the
 * password database (root's is /root).
 *
 *   modules/, autoconf/   the module cache and the kernel API tests (build/)
 *   dwarf/, btf/, tracepoints/   what the debuginfo layer read of a file (debuginfo/)
 *   tapsets/              the syscall tapset written for a kernel (elaborate/)
 * Files appear whole, by rename() of a finished temporary file (install_file()), so two
 * stap runs racing on one file each see a whole file or none.
 *
 * The cache is private: root loads the modules in it and gcc reads its headers, so a file
 * someone else could plant there would run in the kernel.  Folders are made 0700 and files
 * 0600, and a cache folder is used only if it is the user's own, not open to others, and
 * every folder above it belongs to root or the user and is writable by nobody else (a
 * root-owned sticky folder such as /tmp aside: there others cannot move what is ours).
 * When it is not, stap says why, and the run caches nothing: it gets a fresh private
 * folder, removed at exit.
 */
#include "cache.h"
#include "hash.h"
#include "../staprun/sdt_markers.h"

#include <errno.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum cache_mode cache_mode = CACHE_USE;

static char *cache_folder;	/* checked, made; or the run's scratch folder */
static char *scratch_folder;	/* the run's own when no cache folder was safe */

/* The home of the password database, when it is a folder (not "/" or "/nonexistent"). */
static char *passwd_home(void)
{
	struct passwd *pw = getpwuid(geteuid());

	if (!pw || !pw->pw_dir || pw->pw_dir[0] != '/' || !pw->pw_dir[1] || !is_dir(pw->pw_dir))
		return NULL;
	return xstrdup(pw->pw_dir);
}

char *user_home(void)
{
	return passwd_home();
}

/* Why folder ST at PATH may not be above the cache, or NULL. */
static char *unsafe_above(const char *path, const struct stat *st)
{
	if (!S_ISDIR(st->st_mode))
		return xasprintf("%s is not a folder", path);
	if (st->st_uid != 0 && st->st_uid != geteuid())
		return xasprintf("%s belongs to uid %u", path, (unsigned)st->st_uid);
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !(st->st_uid == 0 && (st->st_mode & S_ISVTX)))
		return xasprintf("others can write to %s", path);
	return NULL;
}

/*
 * Makes the cache folder DIR (an absolute path) and checks it; NULL when it is safe to use,
 * else why not.  The folders that exist are checked from the root down before anything is
 * made in them; what is missing is made 0700, one folder at a time.  *CHECKED is the path
 * checked, links resolved: the one to use (a link on the way to DIR may sit in a folder
 * others can write to, and be changed after the check).
 */
static char *unsafe_cache_folder(const char *dir, char **checked)
{
	char *real = NULL, *missing, *why = NULL, *p;
	struct stat st;
	size_t len;

	if (dir[0] != '/')
		return xasprintf("%s is not an absolute path", dir);
	/* the longest part of DIR that exists, with its links resolved */
	for (len = strlen(dir); len > 0; len--) {
		if (len < strlen(dir) && dir[len] != '/')
			continue;
		p = xstrndup(dir, len);
		real = realpath(p, NULL);
		free(p);
		if (real || errno != ENOENT)
			break;
	}
	if (!real && len > 0)
		return xasprintf("%.*s: %s", (int)len, dir, strerror(errno));
	if (!real)
		real = xstrdup("/");
	missing = xstrdup(dir + len);
	/* each folder from the root down to REAL (the cache folder itself is checked below) */
	for (char *slash = real;; slash = strchr(slash + 1, '/')) {
		char *prefix = slash ? xstrndup(real, slash == real ? 1 : (size_t)(slash - real))
				     : xstrdup(real);

		if (lstat(prefix, &st))
			why = xasprintf("%s: %s", prefix, strerror(errno));
		else if (slash || strspn(missing, "/") < strlen(missing))
			why = unsafe_above(prefix, &st);
		free(prefix);
		if (why || !slash)
			break;
	}
	/* then the folders to make, each the user's own (one that appeared meanwhile too) */
	for (char *name = strtok(missing, "/"); !why && name; name = strtok(NULL, "/")) {
		char *next;

		if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
			why = xasprintf("%s is not a plain path", dir);
			break;
		}
		next = xasprintf("%s%s%s", real, strcmp(real, "/") ? "/" : "", name);
		free(real);
		real = next;
		if (mkdir(real, 0700) && errno != EEXIST)
			why = xasprintf("cannot make %s: %s", real, strerror(errno));
		else if (lstat(real, &st))
			why = xasprintf("%s: %s", real, strerror(errno));
	}
	/* the cache folder itself: the user's, and private (older stapler made it 0755) */
	if (!why) {
		if (!S_ISDIR(st.st_mode))
			why = xasprintf("%s is not a folder", real);
		else if (st.st_uid != geteuid())
			why = xasprintf("%s belongs to uid %u", real, (unsigned)st.st_uid);
		else if ((st.st_mode & 077) && chmod(real, 0700))
			why = xasprintf("cannot make %s private: %s", real, strerror(errno));
	}
	free(missing);
	if (why || !checked)
		free(real);
	else
		*checked = real;
	return why;
}

/* The private folder DIR made or checked as the cache folder is (above); NULL when it is
 * safe, else why not.  *CHECKED: the path to use. */
char *private_folder(const char *dir, char **checked)
{
	return unsafe_cache_folder(dir, checked);
}

/* A fresh private folder of this run's, removed at exit: a run whose cache is unsafe. */
static char *make_scratch_folder(void)
{
	const char *tmp = getenv("TMPDIR");
	char *dir = xasprintf("%s/stapler-cache-XXXXXX", tmp && *tmp == '/' ? tmp : "/tmp");

	if (!mkdtemp(dir)) {
		free(dir);
		dir = xstrdup("/nonexistent/stapler-cache");	/* every write fails, harmlessly */
		return dir;
	}
	scratch_folder = xstrdup(dir);
	atexit(cache_cleanup);
	return dir;
}

/* The cache folder, made and checked the first time it is asked for (see above). */
char *cache_dir(void)
{
	const char *dir = getenv("STAPLER_CACHE_DIR");
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	char *wanted = NULL, *home_of_passwd, *why;

	if (cache_folder)
		return xstrdup(cache_folder);
	if (dir && *dir)
		wanted = xstrdup(dir);
	else if (xdg && *xdg == '/')
		wanted = xasprintf("%s/stapler", xdg);
	else if (home && *home)
		wanted = xasprintf("%s/.cache/stapler", home);
	else if ((home_of_passwd = passwd_home())) {
		wanted = xasprintf("%s/.cache/stapler", home_of_passwd);
		free(home_of_passwd);
	}
	why = wanted ? unsafe_cache_folder(wanted, &cache_folder)
		     : xstrdup("no HOME, and the user has no home folder");
	/* HOME may be someone else's (sudo keeps it): then the user's own home */
	if (why && !(dir && *dir) && (home_of_passwd = passwd_home())) {
		char *own = xasprintf("%s/.cache/stapler", home_of_passwd);
		char *own_why = wanted && strcmp(own, wanted) == 0 ? xstrdup("the same folder")
				: unsafe_cache_folder(own, &cache_folder);

		free(home_of_passwd);
		if (!own_why) {
			diag_system_warning("not using the cache folder %s: %s; using %s", wanted,
					    why, own);
			free(why);
			why = NULL;
		}
		free(own_why);
		free(own);
	}
	if (why) {
		diag_system_warning("not using the cache folder %s: %s; nothing is cached",
				    wanted ? wanted : "", why);
		free(why);
		cache_folder = make_scratch_folder();
		if (cache_mode == CACHE_USE)
			cache_mode = CACHE_POISONED;	/* nothing to read in a new folder */
	}
	free(wanted);
	return xstrdup(cache_folder);
}

void cache_cleanup(void)
{
	if (scratch_folder) {
		remove_tree_warning(scratch_folder);
		free(scratch_folder);
		scratch_folder = NULL;
	}
}

/* --clean-cache: everything goes, modules and kernel API test results. */
int cache_clean(bool verbose)
{
	char *dir = cache_dir();

	if (scratch_folder)	/* not one to touch: cache_dir() said why */
		return 1;
	STP_MARK1(stap, cache__clean, dir);
	if (is_dir(dir))
		remove_tree_warning(dir);
	if (verbose)
		fprintf(stderr, "Cleaned the cache folder %s\n", dir);
	free(dir);
	return 0;
}
char *cache_path_for_file(const char *folder, const char *name, const char *tag,
			  const char *source)
{
	struct hasher h;
	char *exe = realpath("/proc/self/exe", NULL), *dir, *key, *path;

	hasher_init(&h);
	hash_string(&h, tag);
	hash_file_stat(&h, source);
	hash_file_stat(&h, exe ? exe : "/proc/self/exe");
	free(exe);
	key = hasher_hex(&h);
	dir = cache_dir();
	path = xasprintf("%s/%s/%s%s", dir, folder, name, key);
	free(dir);
	free(key);
	return path;
}
