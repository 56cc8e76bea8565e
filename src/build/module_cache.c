/*
 * module_cache.c - the module cache: passes 3 and 4 done once per script and conditions.
 *
 * Layout, in $STAPLER_CACHE_DIR, else $XDG_CACHE_HOME/stapler, else ~/.cache/stapler:
 *   modules/KK/KEY.c, KEY.ko   a translated and compiled module (KK: KEY's first two digits)
 *   autoconf/REL-KEY/stp_autoconf.h   the kernel API tests of one kernel build tree (kbuild.c)
 *   compilers/version-KEY      what a compiler's --version says (KEY: its file's identity)
 * KEY hashes everything that changes the C or the build (cache_key()).  The module name is
 * not part of it: a hit under another name is renamed in the copy, as staprun -R would.
 * Files appear by rename() of a finished temporary file in the same folder, so two stap
 * runs racing on one entry each see a whole file or none; the .ko is written last.
 *
 * The modules are kept within a size, as stap(1) "CACHING" describes: cache_mb_limit
 * holds the megabytes (256 when the file is missing, which is then written), and after a
 * new entry is stored, at most once every cache_clean_interval_s seconds (300), the least
 * recently used entries go until the rest fit.  A hit touches its .ko, so the .ko's time
 * is when the entry was last used; the file last_cleaned's time is when the cache was
 * last cleaned.  The cleaning walks modules/ by folder descriptors and never follows a
 * link: a modules/KK that points elsewhere is skipped, not emptied.
 */
#include "module_cache.h"
#include "cache.h"
#include "hash.h"
#include "../../staprun/modimage.h"
#include "../../staprun/sdt_markers.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- what the key covers ---- */

/* VAR's value among the -B options (make's command line, where the last one counts) */
static const char *make_arg(struct session *s, const char *var)
{
	const char *value = NULL;
	size_t n = strlen(var);

	for (int i = 0; i < s->make_args.count; i++)
		if (strncmp(s->make_args.items[i], var, n) == 0 && s->make_args.items[i][n] == '=')
			value = s->make_args.items[i] + n + 1;
	return value;
}

/*
 * The compiler kbuild will run: CC from -B (the kernel's Makefile sets CC itself, so the
 * environment's CC does not count), else clang when LLVM is set (LLVM=1, LLVM=-15 as a
 * suffix, LLVM=/prefix/), else $(CROSS_COMPILE)gcc.
 */
char *kbuild_compiler(struct session *s)
{
	const char *cc = make_arg(s, "CC"), *llvm = make_arg(s, "LLVM");
	const char *cross = make_arg(s, "CROSS_COMPILE");

	if (cc)
		return xstrdup(cc);
	if (!llvm)
		llvm = getenv("LLVM");
	if (llvm && *llvm) {
		size_t n = strlen(llvm);

		if (llvm[n - 1] == '/')
			return xasprintf("%sclang", llvm);
		return xasprintf("clang%s", llvm[0] == '-' ? llvm : "");
	}
	if (!cross)
		cross = getenv("CROSS_COMPILE");
	return xasprintf("%sgcc", cross ? cross : "");
}

/*
 * What `COMPILER --version` says (all of it): a new compiler makes other modules.  Asked
 * once per compiler file: the answer is kept in the cache's compilers/ folder under a key
 * of the file's identity, size and time, so a cache hit runs no program.
 */
static void hash_compiler_version(struct hasher *h, struct session *s)
{
	char *compiler = kbuild_compiler(s), *file = which_program(compiler), *kept = NULL;
	char *command, *version;
	struct strbuf out = { 0 };
	char buf[4096];
	size_t n;
	FILE *f;

	hash_string(h, compiler);
	if (file && cache_mode == CACHE_USE) {
		kept = cache_path_for_file("compilers", "version-", compiler, file);
		version = read_file(kept, &n);
		if (version) {
			hash_bytes(h, version, n);
			free(version);
			goto done;
		}
	}
	command = xasprintf("%s --version 2>/dev/null", compiler);
	f = popen(command, "r");
	while (f && (n = fread(buf, 1, sizeof(buf), f)) > 0)
		sb_putn(&out, buf, n);
	if (!f || pclose(f) != 0) {
		sb_free(&out);
		hash_string(h, "(no version)");
	} else {
		hash_bytes(h, out.data ? out.data : "", out.len);
		if (kept && out.len) {
			char *dir = xstrdup(kept);

			*strrchr(dir, '/') = '\0';
			if (make_dirs(dir) == 0)
				install_file(kept, out.data, out.len);
			free(dir);
		}
		sb_free(&out);
	}
	free(command);
done:
	free(kept);
	free(file);
	free(compiler);
}

/* The kernel build tree: its identity, and the configuration and the compiler modules
 * are built with. */
void hash_kernel(struct hasher *h, struct session *s)
{
	static const char *const files[] = {
		"Module.symvers", "include/generated/autoconf.h", "include/generated/utsrelease.h",
		"Makefile",
	};
	char *real = realpath(s->kernel_build_dir, NULL);
	char *config = xasprintf("%s/.config", s->kernel_build_dir);

	hash_string(h, s->kernel_release);
	hash_string(h, real ? real : s->kernel_build_dir);
	hash_file(h, config);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *path = xasprintf("%s/%s", s->kernel_build_dir, files[i]);

		hash_file_stat(h, path);
		free(path);
	}
	/* make reads these from the environment */
	static const char *const env[] = { "KCFLAGS", "KCPPFLAGS", "CC", "LLVM", "ARCH",
					   "CROSS_COMPILE", "KBUILD_EXTRA_SYMBOLS" };
	for (size_t i = 0; i < sizeof(env) / sizeof(env[0]); i++) {
		hash_string(h, env[i]);
		hash_string(h, getenv(env[i]) ? getenv(env[i]) : "");
	}
	hash_compiler_version(h, s);
	free(real);
	free(config);
}

static void hash_strlist(struct hasher *h, const char *label, const struct strlist *l)
{
	hash_string(h, label);
	for (int i = 0; i < l->count; i++)
		hash_string(h, l->items[i]);
	hash_string(h, "(end)");
}

/*
 * The key of a script's module: the program pass 2 made (with bodies), plus the inputs
 * that change the C without showing in it (source names and positions appear in the C's
 * messages, so the script text and the tapsets' identities count), the translator, the
 * runtime, the kernel and the options that change the C or the build.
 */
char *cache_key(struct session *s, struct program *prog, const char *script_name,
		const char *script_text)
{
	struct hasher h;
	char *dump = NULL;
	size_t dump_len = 0;
	FILE *f = open_memstream(&dump, &dump_len);

	hasher_init(&h);
	hash_string(&h, "stapler module cache 1");
	hash_string(&h, STAPLER_VERSION);
	hash_self(&h);
	hash_tree(&h, s->runtime_dir, true);
	hash_tree(&h, s->tapset_dir, false);
	hash_strlist(&h, "-I", &s->include_dirs);
	for (int i = 0; i < s->include_dirs.count; i++)
		hash_tree(&h, s->include_dirs.items[i], false);

	hash_string(&h, script_name);
	hash_string(&h, script_text);
	hash_strlist(&h, "args", &s->script_args);
	hash_strlist(&h, "-E", &s->extra_scripts);
	hash_strlist(&h, "--modinfo", &s->modinfo);
	if (f) {
		dump_program(f, prog, true);
		fclose(f);
		hash_bytes(&h, dump, dump_len);
		free(dump);
	}

	hash_kernel(&h, s);
	hash_strlist(&h, "-D", &s->defines);
	hash_strlist(&h, "-B", &s->make_args);
	hash_strlist(&h, "-G", &s->global_settings);
	hash_string(&h, s->guru ? "-g" : "");
	hash_string(&h, s->unoptimized ? "-u" : "");
	hash_string(&h, s->compat_version);
	hash_string(&h, session_privilege(s));
	return hasher_hex(&h);
}

static char *entry_path(const char *key, const char *ext)
{
	char *dir = cache_dir();
	char *path = xasprintf("%s/modules/%.2s/%s.%s", dir, key, key, ext);

	free(dir);
	return path;
}

/* ---- lookup and store ---- */

/*
 * A cached module for KEY: its C and .ko copied into the work folder under the session's
 * module name.  Returns true on a hit (s->module_path set).
 */
bool cache_fetch(struct session *s, const char *key)
{
	char *c_cached, *ko_cached, *c_data = NULL, *ko_data = NULL, *c_path = NULL, *ko_path;
	size_t c_len, ko_len;
	bool hit = false;

	if (cache_mode != CACHE_USE)
		return false;
	c_cached = entry_path(key, "c");
	ko_cached = entry_path(key, "ko");
	ko_path = xasprintf("%s/%s.ko", s->tmpdir, s->module_name);
	if (!(ko_data = read_file(ko_cached, &ko_len)) || !(c_data = read_file(c_cached, &c_len)))
		goto out;
	/* the name is in the image (struct module and .modinfo), not only in the file name */
	if (modimage_rename(ko_data, ko_len, s->module_name)) {
		if (verbose_at(s, 4, 1))
			fprintf(stderr, "Pass 4: cached %s cannot be renamed to %s; compiling "
				"afresh\n", ko_cached, s->module_name);
		goto out;
	}
	c_path = xasprintf("%s/%s.c", s->tmpdir, s->module_name);
	if (write_file(c_path, c_data, c_len) || write_file(ko_path, ko_data, ko_len))
		goto out;
	/* recently used: the size limit removes the entries used longest ago first */
	utimensat(AT_FDCWD, ko_cached, NULL, 0);
	STP_MARK2(stap, cache__get, c_cached, ko_cached);
	if (verbose_at(s, 3, 1))
		fprintf(stderr, "Pass 3: using cached %s\n", c_cached);
	if (verbose_at(s, 4, 1))
		fprintf(stderr, "Pass 4: using cached %s\n", ko_cached);
	s->module_path = ko_path;
	ko_path = NULL;
	hit = true;
out:
	free(c_cached);
	free(ko_cached);
	free(c_data);
	free(ko_data);
	free(c_path);
	free(ko_path);
	return hit;
}

/* ---- the size limit ---- */

#define CACHE_MB_LIMIT_DEFAULT 256
#define CACHE_CLEAN_INTERVAL_DEFAULT 300

/*
 * The whole number in the cache's file NAME; when the file is missing, it is written with
 * DEFAULT (as stap does, so the limit can be found and edited).  A file that does not
 * hold a number gives DEFAULT too.
 */
static long cache_setting(struct session *s, const char *dir, const char *name, long def)
{
	char *path = xasprintf("%s/%s", dir, name);
	char *text = read_file(path, NULL);
	long value = def;

	if (text) {
		char *end;
		long n = strtol(text, &end, 10);

		while (isspace((unsigned char)*end))
			end++;
		if (end != text && !*end && n >= 0)
			value = n;
		else if (verbose_at(s, 4, 1))
			fprintf(stderr, "Pass 4: %s holds no number; using %ld\n", path, def);
	} else {
		char *line = xasprintf("%ld\n", def);

		install_file(path, line, strlen(line));
		free(line);
	}
	free(text);
	free(path);
	return value;
}

struct cache_entry {
	char *folder;		/* KK, in modules/ */
	char *ko;		/* KEY.ko in it; KEY.c beside it */
	off_t size;		/* of both */
	struct timespec used;	/* the .ko's modification time */
};

static int compare_entries_by_use(const void *a, const void *b)
{
	const struct cache_entry *x = a, *y = b;

	if (x->used.tv_sec != y->used.tv_sec)
		return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
	if (x->used.tv_nsec != y->used.tv_nsec)
		return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
	if (strcmp(x->folder, y->folder))
		return strcmp(x->folder, y->folder);
	return strcmp(x->ko, y->ko);
}

/* KEY.ko to KEY.EXT */
static char *sibling(const char *ko, const char *ext)
{
	return xasprintf("%.*s.%s", (int)(strlen(ko) - strlen(".ko")), ko, ext);
}

/* The folder NAME in the folder AT (AT_FDCWD: a path), opened without following a link. */
static int open_folder(int at, const char *name)
{
	return openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* The module entries in the folder KK (descriptor FD), added to *ENTRIES. */
static void folder_entries(int fd, const char *kk, struct cache_entry **entries, int *n,
			   int *capacity, off_t *total)
{
	DIR *d = fdopendir(fd);
	struct dirent *e;

	if (!d) {
		close(fd);
		return;
	}
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		struct stat ko_st, c_st;
		char *c;

		if (e->d_name[0] == '.' || len < 4 || strcmp(e->d_name + len - 3, ".ko") != 0 ||
		    fstatat(fd, e->d_name, &ko_st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(ko_st.st_mode))
			continue;
		if (*n == *capacity) {
			*capacity = *capacity ? 2 * *capacity : 64;
			*entries = xrealloc(*entries, *capacity * sizeof(**entries));
		}
		c = sibling(e->d_name, "c");
		(*entries)[*n] = (struct cache_entry){
			.folder = xstrdup(kk),
			.ko = xstrdup(e->d_name),
			.size = ko_st.st_size,
			.used = ko_st.st_mtim,
		};
		if (fstatat(fd, c, &c_st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(c_st.st_mode))
			(*entries)[*n].size += c_st.st_size;
		*total += (*entries)[*n].size;
		(*n)++;
		free(c);
	}
	closedir(d);
}

/* The module entries of the cache, least recently used first; their total size. */
static struct cache_entry *cache_entries(const char *dir, int *count, off_t *total)
{
	char *modules = xasprintf("%s/modules", dir);
	struct cache_entry *entries = NULL;
	int fd = open_folder(AT_FDCWD, modules), n = 0, capacity = 0;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;

	*total = 0;
	while (d && (e = readdir(d))) {
		int sub;

		if (e->d_name[0] == '.' || (sub = open_folder(fd, e->d_name)) < 0)
			continue;
		folder_entries(sub, e->d_name, &entries, &n, &capacity, total);
	}
	if (d)
		closedir(d);
	else if (fd >= 0)
		close(fd);
	free(modules);
	if (n)
		qsort(entries, n, sizeof(entries[0]), compare_entries_by_use);
	*count = n;
	return entries;
}

/* Removes ENTRY's .ko, then its .c (without the .ko the entry is gone), in DIR/modules. */
static void remove_entry(const char *dir, const struct cache_entry *entry)
{
	char *modules = xasprintf("%s/modules", dir);
	int fd = open_folder(AT_FDCWD, modules), sub = fd >= 0 ? open_folder(fd, entry->folder) : -1;

	if (sub >= 0) {
		char *c = sibling(entry->ko, "c");

		unlinkat(sub, entry->ko, 0);
		unlinkat(sub, c, 0);
		free(c);
		close(sub);
	}
	if (fd >= 0)
		close(fd);
	free(modules);
}

/*
 * After storing KEPT (the .ko of this run's entry, never removed): if the last cleaning
 * is older than the interval, the least recently used entries go until the modules fit
 * in the limit.  Another stap may clean at the same time; a file already gone is fine.
 */
static void cache_limit(struct session *s, const char *kept)
{
	char *dir = cache_dir();
	long limit_mb = cache_setting(s, dir, "cache_mb_limit", CACHE_MB_LIMIT_DEFAULT);
	long interval = cache_setting(s, dir, "cache_clean_interval_s",
				      CACHE_CLEAN_INTERVAL_DEFAULT);
	char *stamp = xasprintf("%s/last_cleaned", dir);
	struct cache_entry *entries;
	struct stat st;
	off_t total, limit = (off_t)limit_mb * 1024 * 1024, freed = 0;
	int count, removed = 0;
	time_t now = time(NULL);

	if (stat(stamp, &st) == 0 && now >= st.st_mtime && now - st.st_mtime < interval) {
		if (verbose_at(s, 4, 2))
			fprintf(stderr, "Pass 4: the cache was cleaned %lds ago (every %lds)\n",
				(long)(now - st.st_mtime), interval);
		goto out;
	}
	install_file(stamp, "", 0);	/* now */
	entries = cache_entries(dir, &count, &total);
	for (int i = 0; i < count; i++) {
		char *path = xasprintf("%s/modules/%s/%s", dir, entries[i].folder, entries[i].ko);

		if (total > limit && strcmp(path, kept) != 0) {
			STP_MARK1(stap, cache__clean, path);
			remove_entry(dir, &entries[i]);
			total -= entries[i].size;
			freed += entries[i].size;
			removed++;
		}
		free(path);
		free(entries[i].folder);
		free(entries[i].ko);
	}
	free(entries);
	if (verbose_at(s, 4, 2))
		fprintf(stderr, "Pass 4: cleaned the cache: removed %d of %d modules (%lld KiB), "
			"kept %lld KiB of the %ld MiB allowed\n", removed, count,
			(long long)freed / 1024, (long long)total / 1024, limit_mb);
out:
	free(stamp);
	free(dir);
}

/* After a successful pass 4: the C, then the .ko (whose presence completes the entry). */
void cache_store(struct session *s, const char *key)
{
	char *c_path = xasprintf("%s/%s.c", s->tmpdir, s->module_name);
	char *c_cached = entry_path(key, "c");
	char *ko_cached = entry_path(key, "ko");
	char *c_data = read_file(c_path, NULL), *ko_data = NULL;
	size_t ko_len;

	if (cache_mode == CACHE_DISABLED || !c_data || !s->module_path)
		goto out;
	ko_data = read_file(s->module_path, &ko_len);
	if (!ko_data || install_file(c_cached, c_data, strlen(c_data)) ||
	    install_file(ko_cached, ko_data, ko_len)) {
		if (verbose_at(s, 4, 1))
			fprintf(stderr, "Pass 4: cannot write to the cache %s: %s\n", ko_cached,
				strerror(errno));
	} else {
		STP_MARK2(stap, cache__add__source, c_path, c_cached);
		STP_MARK2(stap, cache__add__module, s->module_path, ko_cached);
		if (verbose_at(s, 4, 2))
			fprintf(stderr, "Copying %s to %s\n", s->module_path, ko_cached);
		cache_limit(s, ko_cached);
	}
out:
	free(c_path);
	free(c_cached);
	free(ko_cached);
	free(c_data);
	free(ko_data);
}
