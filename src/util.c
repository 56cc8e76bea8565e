/*
 * util.c - memory, strings, files and hashing shared by all passes.
 */
#include "stap.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#ifdef STAP_FUZZING
/* (free)(p) is the C library's: the macro free(p) is xfree(p). */
/* An open-addressing set of the live allocations, so xfree_all() can free them. */
static void **tracked;
static size_t tracked_capacity, tracked_used;	/* used counts tombstones too */
static char tombstone;

/* Fibonacci hashing: the product's high bits, which every bit of P feeds (its low bits
 * come from P's low bits alone, and allocations share those). */
static size_t slot_of(void *p, size_t capacity)
{
	return (size_t)(((uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ULL) >> 32) % capacity;
}

static void track(void *p);

static void rehash(size_t capacity)
{
	void **old = tracked;
	size_t old_capacity = tracked_capacity;

	tracked = calloc(capacity, sizeof(*tracked));
	tracked_capacity = capacity;
	tracked_used = 0;
	for (size_t i = 0; i < old_capacity; i++)
		if (old[i] && old[i] != &tombstone)
			track(old[i]);
	(free)(old);
}

static void track(void *p)
{
	size_t i;

	if ((tracked_used + 1) * 2 > tracked_capacity)
		rehash(tracked_capacity ? tracked_capacity * 2 : 1024);
	for (i = slot_of(p, tracked_capacity); tracked[i] && tracked[i] != &tombstone;
	     i = (i + 1) % tracked_capacity)
		;
	if (!tracked[i])
		tracked_used++;
	tracked[i] = p;
}

static void untrack(void *p)
{
	for (size_t i = slot_of(p, tracked_capacity); tracked_capacity && tracked[i];
	     i = (i + 1) % tracked_capacity)
		if (tracked[i] == p) {
			tracked[i] = &tombstone;
			return;
		}
}

void xfree(void *p)
{
	if (p)
		untrack(p);
	(free)(p);
}

void xfree_all(void)
{
	for (size_t i = 0; i < tracked_capacity; i++)
		if (tracked[i] && tracked[i] != &tombstone)
			(free)(tracked[i]);
	(free)(tracked);
	tracked = NULL;
	tracked_capacity = tracked_used = 0;
}
#define TRACK(p) track(p)
#define UNTRACK(p) untrack(p)
#else
#define TRACK(p) ((void)0)
#define UNTRACK(p) ((void)0)
#endif

static NORETURN void out_of_memory(void)
{
	fputs("ERROR: out of memory\n", stderr);
	exit(1);
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		out_of_memory();
	TRACK(p);
	return p;
}

void *xcalloc(size_t count, size_t size)
{
	void *p = calloc(count ? count : 1, size ? size : 1);

	if (!p)
		out_of_memory();
	TRACK(p);
	return p;
}

void *xrealloc(void *p, size_t size)
{
	if (p)
		UNTRACK(p);
	p = realloc(p, size ? size : 1);
	if (!p)
		out_of_memory();
	TRACK(p);
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	struct strbuf sb = { 0 };
	va_list ap;

	va_start(ap, fmt);
	sb_vprintf(&sb, fmt, ap);
	va_end(ap);
	return sb_steal(&sb);
}

bool starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

char *read_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	size_t cap, used = 0;
	char *data;
	ssize_t n;

	if (fd < 0)
		return NULL;
	/* room for the whole of a regular file, its NUL, and one byte more, so the read that
	 * finds its end needs no more room */
	cap = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 ?
		      (size_t)st.st_size + 2 : 4096;
	data = xmalloc(cap);
	for (;;) {
		if (used + 1 == cap) {
			cap *= 2;
			data = xrealloc(data, cap);
		}
		n = read(fd, data + used, cap - 1 - used);
		if (n == 0)
			break;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			close(fd);
			free(data);
			return NULL;
		}
		used += (size_t)n;
	}
	close(fd);
	data[used] = '\0';
	if (len)
		*len = used;
	return data;
}

bool file_identity(const char *path, struct file_identity *id)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return false;
	*id = (struct file_identity){
		.size = (long long)st.st_size,
		.sec = (long long)st.st_mtim.tv_sec,
		.nsec = (long long)st.st_mtim.tv_nsec,
		.ino = (unsigned long long)st.st_ino,
	};
	return true;
}

int write_file(const char *path, const char *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		return -1;
	while (len > 0) {
		ssize_t n = write(fd, data, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			close(fd);
			return -1;
		}
		data += n;
		len -= n;
	}
	return close(fd);
}

static struct strlist *remove_failures;	/* remove_tree()'s, for remove_entry() */

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	if (remove(path) && errno != ENOENT) {
		char *why = xasprintf("cannot remove %s: %s", path, strerror(errno));

		strlist_add(remove_failures, why);
		free(why);
	}
	return 0;
}

/* rm -rf PATH; what could not be removed is said in FAILURES ("cannot remove P: why"). */
void remove_tree(const char *path, struct strlist *failures)
{
	remove_failures = failures;
	nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	remove_failures = NULL;
}

/* The regular files under DIR (recursively), sorted: a stable order to hash them in. */
struct strlist tree_files(const char *dir)
{
	struct strlist files = { 0 }, dirs = { 0 };

	strlist_add(&dirs, dir);
	for (int i = 0; i < dirs.count; i++) {
		DIR *d = opendir(dirs.items[i]);
		struct dirent *e;

		if (!d)
			continue;
		while ((e = readdir(d))) {
			char *path;

			if (e->d_name[0] == '.')
				continue;
			path = xasprintf("%s/%s", dirs.items[i], e->d_name);
			if (is_dir(path))
				strlist_add(&dirs, path);
			else if (is_file(path))
				strlist_add(&files, path);
			free(path);
		}
		closedir(d);
	}
	strlist_free(&dirs);
	qsort(files.items, files.count, sizeof(files.items[0]), compare_strings);
	return files;
}


bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* DIR/NAME when NAME has a slash, else the first file named NAME in DIR or its subfolders
 * (in name order, a folder's files before its subfolders), or NULL. */
char *find_file_under(const char *dir, const char *name)
{
	struct dirent **entries;
	char *found = NULL, *path;
	int n;

	if (strchr(name, '/')) {
		path = xasprintf("%s/%s", dir, name);
		if (is_file(path))
			return path;
		free(path);
		return NULL;
	}
	n = scandir(dir, &entries, NULL, alphasort);
	for (int pass = 0; pass < 2; pass++)	/* the files, then the subfolders */
		for (int i = 0; i < n && !found; i++) {
			const char *e = entries[i]->d_name;

			if (e[0] == '.')
				continue;
			path = xasprintf("%s/%s", dir, e);
			if (pass == 0 && strcmp(e, name) == 0 && is_file(path))
				found = xstrdup(path);
			else if (pass == 1 && is_dir(path))
				found = find_file_under(path, name);
			free(path);
		}
	for (int i = 0; i < n; i++)
		free(entries[i]);
	if (n >= 0)
		free(entries);
	return found;
}

const char *target_env(const struct session *s, const char *var)
{
	size_t n = strlen(var);

	for (int i = s->sysenv.count - 1; i >= 0; i--)	/* the last one given wins */
		if (strncmp(s->sysenv.items[i], var, n) == 0 && s->sysenv.items[i][n] == '=')
			return s->sysenv.items[i] + n + 1;
	return getenv(var);
}

/* The folder holding the running program, to find runtime/ and tapset/ in a build tree. */
char *dir_of_executable(void)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);

	if (n <= 0)
		return NULL;
	path[n] = '\0';
	return xstrdup(dirname(path));
}

/* FNV-1a, 64 bits: names modules and keys caches, not security. */
uint64_t hash64(const void *data, size_t len, uint64_t seed)
{
	const unsigned char *p = data;
	uint64_t h = 0xcbf29ce484222325ULL ^ seed;

	while (len--) {
		h ^= *p++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* Levenshtein distance, for "did you mean" lists: the five closest names, ties going to
 * the earlier one in the list given (stap has no cut-off). */
int edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	int *row = xcalloc(lb + 1, sizeof(*row));
	int result;

	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int diagonal = row[0];

		row[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int above = row[j];
			int best = diagonal + (a[i - 1] != b[j - 1]);

			if (above + 1 < best)
				best = above + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diagonal = above;
		}
	}
	result = row[lb];
	free(row);
	return result;
}

struct candidate {
	const char *name;
	int distance, order;
};

static int compare_candidates(const void *x, const void *y)
{
	const struct candidate *a = x, *b = y;

	if (a->distance != b->distance)
		return a->distance - b->distance;
	return a->order - b->order;
}

static char *similar(const char *name, const char *const *names, int count, int min_distance);

/* The closest names, but not NAME itself. */
char *similar_names(const char *name, const char *const *names, int count)
{
	return similar(name, names, count, 1);
}

/* The closest names, NAME itself included (a probe point form with other arguments). */
char *similar_names_including(const char *name, const char *const *names, int count)
{
	return similar(name, names, count, 0);
}

static char *similar(const char *name, const char *const *names, int count, int min_distance)
{
	enum { MAX_SUGGESTIONS = 5 };
	struct candidate *c = xcalloc(count + 1, sizeof(*c));
	struct strbuf sb = { 0 };
	int n = 0, shown = 0;

	for (int i = 0; i < count; i++) {
		int d = edit_distance(name, names[i]);

		if (d >= min_distance)
			c[n++] = (struct candidate){ names[i], d, i };
	}
	qsort(c, n, sizeof(*c), compare_candidates);
	for (int i = 0; i < n && shown < MAX_SUGGESTIONS; i++) {
		bool seen = false;

		for (int k = 0; k < i; k++)
			seen |= strcmp(c[k].name, c[i].name) == 0;
		if (seen)
			continue;
		sb_puts(&sb, shown++ ? ", " : " (similar: ");
		sb_puts(&sb, c[i].name);
	}
	if (shown)
		sb_putc(&sb, ')');
	free(c);
	return sb_steal(&sb);
}

/* ---- strbuf ---- */

static void sb_reserve(struct strbuf *sb, size_t extra)
{
	if (sb->len + extra + 1 <= sb->cap)
		return;
	while (sb->len + extra + 1 > sb->cap)
		sb->cap = sb->cap ? sb->cap * 2 : 64;
	sb->data = xrealloc(sb->data, sb->cap);
}

void sb_putn(struct strbuf *sb, const char *s, size_t n)
{
	sb_reserve(sb, n);
	memcpy(sb->data + sb->len, s, n);
	sb->len += n;
	sb->data[sb->len] = '\0';
}

void sb_putc(struct strbuf *sb, char c)
{
	sb_putn(sb, &c, 1);
}

void sb_puts(struct strbuf *sb, const char *s)
{
	sb_putn(sb, s, strlen(s));
}

void sb_vprintf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list copy;
	int n;

	va_copy(copy, ap);
	n = vsnprintf(NULL, 0, fmt, copy);
	va_end(copy);
	if (n < 0)
		return;
	sb_reserve(sb, n);
	vsnprintf(sb->data + sb->len, n + 1, fmt, ap);
	sb->len += n;
}

void sb_printf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sb_vprintf(sb, fmt, ap);
	va_end(ap);
}

/* Writes s as a C (and stap) string literal. */
void sb_put_c_string(struct strbuf *sb, const char *s)
{
	sb_putc(sb, '"');
	for (; *s; s++) {
		unsigned char c = *s;

		switch (c) {
		case '"': sb_puts(sb, "\\\""); break;
		case '\\': sb_puts(sb, "\\\\"); break;
		case '\n': sb_puts(sb, "\\n"); break;
		case '\t': sb_puts(sb, "\\t"); break;
		case '\r': sb_puts(sb, "\\r"); break;
		case '\a': sb_puts(sb, "\\a"); break;
		case '\b': sb_puts(sb, "\\b"); break;
		case '\f': sb_puts(sb, "\\f"); break;
		case '\v': sb_puts(sb, "\\v"); break;
		default:
			if (c < 0x20 || c == 0x7f)
				sb_printf(sb, "\\%03o", c);
			else
				sb_putc(sb, c);
		}
	}
	sb_putc(sb, '"');
}

char *sb_steal(struct strbuf *sb)
{
	char *p = sb->data ? sb->data : xstrdup("");

	sb->data = NULL;
	sb->len = sb->cap = 0;
	return p;
}

void sb_free(struct strbuf *sb)
{
	free(sb->data);
	sb->data = NULL;
	sb->len = sb->cap = 0;
}

void strlist_add(struct strlist *l, const char *s)
{
	if (l->count + 1 >= l->cap) {
		l->cap = l->cap ? l->cap * 2 : 8;
		l->items = xrealloc(l->items, l->cap * sizeof(*l->items));
	}
	l->items[l->count++] = xstrdup(s);
	l->items[l->count] = NULL;
}

/* For qsort of char *: by strcmp. */
/*
 * std::sort as GNU libstdc++ implements it: quicksort (median of three moved to the
 * front, unguarded partition) down to runs of 16, heapsort past a depth of 2 log2(n),
 * then one insertion sort.  Equal items end in a particular, unstable order; stap sorts
 * its begin/end/error probes so, and users see that order when many share a sequence.
 */
enum { CXX_SORT_RUN = 16 };

typedef bool cxx_less(const void *a, const void *b);

static void swap_items(void **a, void **b)
{
	void *t = *a;

	*a = *b;
	*b = t;
}

/* Moves the median of *a, *b and *c to *result. */
static void median_to_first(void **result, void **a, void **b, void **c, cxx_less *less)
{
	if (less(*a, *b)) {
		if (less(*b, *c))
			swap_items(result, b);
		else if (less(*a, *c))
			swap_items(result, c);
		else
			swap_items(result, a);
	} else if (less(*a, *c)) {
		swap_items(result, a);
	} else if (less(*b, *c)) {
		swap_items(result, c);
	} else {
		swap_items(result, b);
	}
}

/* Partitions [first, last) around *pivot, which lies before first; returns the cut. */
static void **unguarded_partition(void **first, void **last, void **pivot, cxx_less *less)
{
	for (;;) {
		while (less(*first, *pivot))
			first++;
		last--;
		while (less(*pivot, *last))
			last--;
		if (first >= last)
			return first;
		swap_items(first, last);
		first++;
	}
}

/* Sifts VALUE down from HOLE in the heap items[0..len), then back up to no higher than TOP. */
static void adjust_heap(void **items, size_t hole, size_t len, void *value, cxx_less *less)
{
	size_t top = hole, child = hole, parent;

	while (len > 2 && child < (len - 1) / 2) {
		child = 2 * (child + 1);
		if (less(items[child], items[child - 1]))
			child--;
		items[hole] = items[child];
		hole = child;
	}
	if ((len & 1) == 0 && child == (len - 2) / 2) {
		child = 2 * (child + 1);
		items[hole] = items[child - 1];
		hole = child - 1;
	}
	parent = hole ? (hole - 1) / 2 : 0;
	while (hole > top && less(items[parent], value)) {
		items[hole] = items[parent];
		hole = parent;
		parent = hole ? (hole - 1) / 2 : 0;
	}
	items[hole] = value;
}

static void heap_sort(void **items, size_t len, cxx_less *less)
{
	if (len < 2)
		return;
	for (size_t parent = (len - 2) / 2;; parent--) {
		adjust_heap(items, parent, len, items[parent], less);
		if (parent == 0)
			break;
	}
	while (len > 1) {
		void *value = items[--len];

		items[len] = items[0];
		adjust_heap(items, 0, len, value, less);
	}
}

static void introsort_loop(void **first, void **last, int depth, cxx_less *less)
{
	while (last - first > CXX_SORT_RUN) {
		void **cut;

		if (depth == 0) {
			heap_sort(first, (size_t)(last - first), less);
			return;
		}
		depth--;
		median_to_first(first, first + 1, first + (last - first) / 2, last - 1, less);
		cut = unguarded_partition(first + 1, last, first, less);
		introsort_loop(cut, last, depth, less);
		last = cut;
	}
}

/* Moves *at down past the items greater than it (something before them is not). */
static void unguarded_insert(void **at, cxx_less *less)
{
	void *value = *at;

	while (less(value, at[-1])) {
		*at = at[-1];
		at--;
	}
	*at = value;
}

static void insertion_sort(void **first, void **last, cxx_less *less)
{
	for (void **i = first + 1; i < last; i++) {
		if (less(*i, *first)) {
			void *value = *i;

			memmove(first + 1, first, (size_t)(i - first) * sizeof(*first));
			*first = value;
		} else {
			unguarded_insert(i, less);
		}
	}
}

void cxx_sort(void **items, size_t n, bool (*less)(const void *a, const void *b))
{
	int log2n = 0;

	if (n < 2)
		return;
	while ((n >> (log2n + 1)) != 0)
		log2n++;
	introsort_loop(items, items + n, 2 * log2n, less);
	if (n > CXX_SORT_RUN) {
		insertion_sort(items, items + CXX_SORT_RUN, less);
		for (void **i = items + CXX_SORT_RUN; i < items + n; i++)
			unguarded_insert(i, less);
	} else {
		insertion_sort(items, items + n, less);
	}
}

int compare_strings(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* For qsort of char *: shorter first, then by strcmp (the order of stap's suggestions). */
int compare_strings_by_length(const void *a, const void *b)
{
	size_t la = strlen(*(char *const *)a), lb = strlen(*(char *const *)b);

	return la != lb ? (la < lb ? -1 : 1) : compare_strings(a, b);
}

void strlist_free(struct strlist *l)
{
	for (int i = 0; i < l->count; i++)
		free(l->items[i]);
	free(l->items);
	memset(l, 0, sizeof(*l));
}

static uint64_t string_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

uint32_t string_set_add(struct string_set *set, const char *name)
{
	size_t i;

	if (2 * (set->count + 1) > set->cap) {	/* grow: half empty at most */
		size_t cap = set->cap ? 2 * set->cap : 64;
		uint32_t *slots = xcalloc(cap, sizeof(*slots));

		for (uint32_t k = 0; k < set->count; k++) {
			for (i = string_hash(set->names[k]) & (cap - 1); slots[i]; i = (i + 1) & (cap - 1))
				;
			slots[i] = k + 1;
		}
		free(set->slots);
		set->slots = slots;
		set->cap = cap;
	}
	for (i = string_hash(name) & (set->cap - 1); set->slots[i]; i = (i + 1) & (set->cap - 1))
		if (strcmp(set->names[set->slots[i] - 1], name) == 0)
			return set->slots[i] - 1;
	set->names = xrealloc(set->names, (set->count + 1) * sizeof(*set->names));
	set->names[set->count] = xstrdup(name);
	set->slots[i] = ++set->count;
	return set->count - 1;
}

void string_set_free(struct string_set *set)
{
	for (uint32_t k = 0; k < set->count; k++)
		free(set->names[k]);
	free(set->names);
	free(set->slots);
	memset(set, 0, sizeof(*set));
}

/* The kernel's name for this machine's architecture (ARCH in kbuild): x86_64, arm64, ... */
const char *kernel_arch(void)
{
	static const struct {
		const char *machine, *arch;
	} names[] = {
		{ "aarch64", "arm64" }, { "i386", "i386" }, { "i486", "i386" },
		{ "i586", "i386" }, { "i686", "i386" }, { "ppc64", "powerpc" },
		{ "ppc64le", "powerpc" }, { "ppc", "powerpc" }, { "s390x", "s390" },
		{ "mips64", "mips" }, { "riscv64", "riscv" },
	};
	static struct utsname u;

	if (!u.machine[0])
		uname(&u);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(u.machine, names[i].machine) == 0)
			return names[i].arch;
	if (starts_with(u.machine, "arm"))
		return "arm";
	return u.machine;
}

/* Milliseconds of the monotonic clock, for -v's timings of steps within a pass. */
double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

bool verbose_at(struct session *s, int pass, int level)
{
	return s->verbose[pass - 1] >= level;
}

/* ARGV as a shell would need it written: words with special characters quoted. */
char *command_text(const struct strlist *argv)
{
	struct strbuf sb = { 0 };

	for (int i = 0; i < argv->count; i++) {
		const char *arg = argv->items[i];

		if (i)
			sb_putc(&sb, ' ');
		if (*arg && !arg[strcspn(arg, " \t\n'\"\\$`;&|<>*?()")]) {
			sb_puts(&sb, arg);
			continue;
		}
		sb_putc(&sb, '\'');
		for (; *arg; arg++)
			sb_puts(&sb, *arg == '\'' ? "'\\''" : (char[]){ *arg, 0 });
		sb_putc(&sb, '\'');
	}
	return sb_steal(&sb);
}

/* "Running make -C ..." for -vv. */
void show_command(const struct strlist *argv)
{
	char *text = command_text(argv);

	fprintf(stderr, "Running %s\n", text);
	free(text);
}

/* mkdir -p, each folder made private */
int make_dirs(const char *path)
{
	char *p = xstrdup(path);

	for (char *slash = strchr(p + 1, '/');; slash = strchr(slash + 1, '/')) {
		if (slash)
			*slash = '\0';
		if (mkdir(p, 0700) && errno != EEXIST) {
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
	fchmod(fd, 0600);	/* mkstemp's mode; said for the reader */
	if (close(fd) || rename(tmp, path))
		unlink(tmp);
	else
		rc = 0;
out:
	free(tmp);
	free(dir);
	return rc;
}

char *which_program(const char *program)
{
	const char *path = getenv("PATH");
	char *found = NULL, *copy, *dir, *save = NULL;

	if (strchr(program, '/'))
		return access(program, X_OK) == 0 ? realpath(program, NULL) : NULL;
	copy = xstrdup(path && *path ? path : "/usr/bin:/bin");
	for (dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
		char *candidate = xasprintf("%s/%s", *dir ? dir : ".", program);

		if (access(candidate, X_OK) == 0 && is_file(candidate))
			found = realpath(candidate, NULL);
		free(candidate);
	}
	free(copy);
	return found;
}
