/*
 * cache.c - the cache folder, which every pass that keeps what it derived shares:
 * $STAPLER_CACHE_DIR, else $XDG_CACHE_HOME/stapler, else ~/.cache/stapler.
 *
 *   modules/, autoconf/   the module cache and the kernel API tests (build/)
 *   dwarf/, btf/, tracepoints/   what the debuginfo layer read of a file (debuginfo/)
 *   tapsets/              the syscall tapset written for a kernel (elaborate/)
 * Files appear whole, by rename() of a finished temporary file (install_file()), so two
 * stap runs racing on one file each see a whole file or none.
 */
#include "cache.h"
#include "hash.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum cache_mode cache_mode = CACHE_USE;

char *cache_dir(void)
{
	const char *dir = getenv("STAPLER_CACHE_DIR");
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");

	if (dir && *dir)
		return xstrdup(dir);
	if (xdg && *xdg == '/')
		return xasprintf("%s/stapler", xdg);
	return xasprintf("%s/.cache/stapler", home && *home ? home : "/tmp");
}

/* mkdir -p */
int make_dirs(const char *path)
{
	char *p = xstrdup(path);

	for (char *slash = strchr(p + 1, '/');; slash = strchr(slash + 1, '/')) {
		if (slash)
			*slash = '\0';
		if (mkdir(p, 0755) && errno != EEXIST) {
			free(p);
			return -1;
		}
		if (!slash)
			break;
		*slash = '/';
	}
	free(p);
	return is_dir(path) ? 0 : -1;
}

/* PATH appears whole: written to a temporary name beside it, then renamed. */
int install_file(const char *path, const void *data, size_t len)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/'), *tmp;
	const char *p = data;
	int fd, rc = -1;

	if (slash)
		*slash = '\0';
	if (make_dirs(dir)) {
		free(dir);
		return -1;
	}
	tmp = xasprintf("%s/.tmp-XXXXXX", dir);
	fd = mkstemp(tmp);
	if (fd < 0)
		goto out;
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			close(fd);
			unlink(tmp);
			goto out;
		}
		p += n;
		len -= n;
	}
	fchmod(fd, 0644);
	if (close(fd) || rename(tmp, path))
		unlink(tmp);
	else
		rc = 0;
out:
	free(tmp);
	free(dir);
	return rc;
}

/* --clean-cache: everything goes, modules and kernel API test results. */
int cache_clean(bool verbose)
{
	char *dir = cache_dir();

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
