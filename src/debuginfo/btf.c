/*
 * btf.c - finding and reading the kernel's and its modules' BTF (btf.h), with libbpf.
 *
 * A kernel image (bzImage) holds the vmlinux compressed after its setup code; the
 * header says where (payload_offset, payload_length) and the first bytes say how (gzip,
 * xz, zstd, or lz4's legacy frames, the kernel's CONFIG_KERNEL_LZ4).  The vmlinux is
 * unpacked in memory, its .BTF section kept in the cache (CACHE/btf/, keyed by the
 * image's identity), so that a later run reads 4 MB rather than unpacking 60.
 */
#include "btf.h"
#include "cache.h"
#include "dw.h"
#include "ctype.h"

#include <bpf/btf.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <lz4.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

static struct {
	bool kernel_tried;
	const char *kernel_why;
	struct btf_module *kernel;
	struct btf_module *modules;
	struct strlist module_files;	/* every module file found (lazily) */
	bool modules_scanned;
} loaded;

/* The folder where `stap --vm` keeps the kernels it boots (testsuite/vm/kernel-image). */
static char *vm_kernel_folder(const char *release)
{
	const char *cache = getenv("STAPLER_CACHE");

	return xasprintf("%s/kernels/%s", cache && *cache ? cache : "/var/cache/stapler",
			 release);
}

static bool running_kernel(struct session *s)
{
	struct utsname u;

	return uname(&u) == 0 && strcmp(u.release, s->kernel_release) == 0;
}

/* ---- unpacking a kernel image ---- */

struct buffer {
	unsigned char *data;
	size_t len, cap;
};

static unsigned char *buffer_room(struct buffer *b, size_t want)
{
	if (b->len + want > b->cap) {
		b->cap = b->cap ? b->cap : 64 << 20;
		while (b->len + want > b->cap)
			b->cap *= 2;
		b->data = xrealloc(b->data, b->cap);
	}
	return b->data + b->len;
}

#define UNPACK_LIMIT ((size_t)1 << 30)	/* no vmlinux is a gigabyte */

static uint32_t le32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* lz4's legacy format: a magic, then blocks of (le32 size, data) of 8 MB unpacked each;
 * the kernel appends the unpacked size, which reads as a block larger than what is left. */
static bool unpack_lz4(const unsigned char *in, size_t len, struct buffer *out)
{
	const size_t block = 8 << 20;
	size_t at = 4;

	while (at + 4 <= len) {
		uint32_t size = le32(in + at);
		int n;

		at += 4;
		if (size == 0x184c2102)		/* another stream follows */
			continue;
		if (size > len - at || out->len > UNPACK_LIMIT)
			break;
		n = LZ4_decompress_safe((const char *)in + at, (char *)buffer_room(out, block),
					(int)size, (int)block);
		if (n < 0)
			return out->len > 0;
		out->len += n;
		at += size;
	}
	return out->len > 0;
}

static bool unpack_gzip(const unsigned char *in, size_t len, struct buffer *out)
{
	z_stream z = { 0 };
	int rc = Z_OK;

	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return false;
	z.next_in = (unsigned char *)in;
	z.avail_in = (uInt)len;
	while (rc == Z_OK && out->len < UNPACK_LIMIT) {
		z.next_out = buffer_room(out, 1 << 20);
		z.avail_out = 1 << 20;
		rc = inflate(&z, Z_NO_FLUSH);
		out->len += (1 << 20) - z.avail_out;
	}
	inflateEnd(&z);
	return rc == Z_STREAM_END || out->len > 0;
}

static bool unpack_xz(const unsigned char *in, size_t len, struct buffer *out)
{
	lzma_stream z = LZMA_STREAM_INIT;
	lzma_ret rc = LZMA_OK;

	if (lzma_stream_decoder(&z, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK)
		return false;
	z.next_in = in;
	z.avail_in = len;
	while (rc == LZMA_OK && out->len < UNPACK_LIMIT) {
		z.next_out = buffer_room(out, 1 << 20);
		z.avail_out = 1 << 20;
		rc = lzma_code(&z, LZMA_FINISH);
		out->len += (1 << 20) - z.avail_out;
	}
	lzma_end(&z);
	return out->len > 0;
}

static bool unpack_zstd(const unsigned char *in, size_t len, struct buffer *out)
{
	ZSTD_DStream *z = ZSTD_createDStream();
	ZSTD_inBuffer zin = { in, len, 0 };
	size_t rc = 1;

	if (!z)
		return false;
	ZSTD_initDStream(z);
	while (rc != 0 && zin.pos < zin.size && out->len < UNPACK_LIMIT) {
		ZSTD_outBuffer zout = { buffer_room(out, 1 << 20), 1 << 20, 0 };

		rc = ZSTD_decompressStream(z, &zout, &zin);
		if (ZSTD_isError(rc))
			break;
		out->len += zout.pos;
	}
	ZSTD_freeDStream(z);
	return out->len > 0;
}

/* The data compressed at P (SIZE bytes; which compression its magic says) into OUT; NULL,
 * or why not. */
static const char *unpack_payload(const unsigned char *p, size_t size, struct buffer *out)
{
	if (size >= 4 && le32(p) == 0x184c2102)
		return unpack_lz4(p, size, out) ? NULL : "its lz4 payload does not unpack";
	if (size >= 2 && p[0] == 0x1f && p[1] == 0x8b)
		return unpack_gzip(p, size, out) ? NULL : "its gzip payload does not unpack";
	if (size >= 6 && memcmp(p, "\xfd" "7zXZ", 6) == 0)
		return unpack_xz(p, size, out) ? NULL : "its xz payload does not unpack";
	if (size >= 4 && le32(p) == 0xfd2fb528)
		return unpack_zstd(p, size, out) ? NULL : "its zstd payload does not unpack";
	return "its payload is compressed in a way not supported here (lzma, bzip2, lzo)";
}

/* The vmlinux in bzImage IMAGE (LEN bytes) into OUT; NULL, or why not. */
static const char *unpack_image(const unsigned char *image, size_t len, struct buffer *out)
{
	size_t setup, start, size;

	if (len < 0x250 || memcmp(image + 0x202, "HdrS", 4) != 0)
		return "not a bzImage";
	setup = image[0x1f1] ? image[0x1f1] : 4;
	start = (setup + 1) * 512 + le32(image + 0x248);
	size = le32(image + 0x24c);
	if (start >= len || size > len - start)
		return "its header's payload is outside the file";
	return unpack_payload(image + start, size, out);
}

/* The .BTF section of the ELF file in memory (DATA, LEN), copied, or NULL. */
static void *elf_btf_section(void *data, size_t len, size_t *size)
{
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	void *found = NULL;

	elf_version(EV_CURRENT);
	elf = elf_memory(data, len);
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0) {
		elf_end(elf);
		return NULL;
	}
	while (!found && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		const char *name;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type == SHT_NOBITS ||
		    !(name = elf_strptr(elf, shstrndx, shdr.sh_name)) || strcmp(name, ".BTF") ||
		    !(d = elf_getdata(scn, NULL)) || !d->d_size)
			continue;
		found = xmalloc(d->d_size);
		memcpy(found, d->d_buf, d->d_size);
		*size = d->d_size;
	}
	elf_end(elf);
	return found;
}

/* The kernel's BTF from image PATH: from the cache, else unpacked and then cached. */
static struct btf *image_btf(const char *path, const char **why)
{
	char *cached = cache_path_for_file("btf", "vmlinux-", "btf-from-image-1", path);
	struct btf *btf = cache_mode == CACHE_USE ? btf__parse_raw(cached) : NULL;
	struct buffer vmlinux = { 0 };
	unsigned char *image;
	void *section;
	size_t size = 0;
	struct stat st;
	int fd;

	if (btf) {
		free(cached);
		return btf;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		free(cached);
		*why = "cannot be read";
		return NULL;
	}
	image = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (image == MAP_FAILED) {
		free(cached);
		*why = "cannot be read";
		return NULL;
	}
	*why = unpack_image(image, st.st_size, &vmlinux);
	munmap(image, st.st_size);
	section = *why ? NULL : elf_btf_section(vmlinux.data, vmlinux.len, &size);
	free(vmlinux.data);
	if (!*why && !section)
		*why = "its vmlinux has no .BTF section (CONFIG_DEBUG_INFO_BTF)";
	if (section) {
		btf = btf__new(section, size);
		if (!btf)
			*why = "its .BTF section does not parse";
		else if (cache_mode != CACHE_DISABLED)
			install_file(cached, section, size);	/* a failure costs the next run */
		free(section);
	}
	free(cached);
	return btf;
}

static bool is_compressed(const char *path)
{
	const char *dot = strrchr(path, '.');

	return dot && (!strcmp(dot, ".xz") || !strcmp(dot, ".zst") || !strcmp(dot, ".gz"));
}

/*
 * The split BTF of a compressed module file (NAME.ko.xz, .ko.zst, .ko.gz: the kernel's
 * CONFIG_MODULE_COMPRESS_*), on the kernel's BASE; NULL if it has none.  The .BTF section
 * is kept in the cache (libbpf here parses split BTF from a file only).
 */
static struct btf *compressed_module_btf(const char *path, struct btf *base)
{
	char *cached = cache_path_for_file("btf", "module-", "btf-from-module-1", path);
	struct buffer ko = { 0 };
	unsigned char *file;
	struct btf *btf = NULL;
	void *section = NULL;
	size_t len, size = 0;
	int fd;

	if (cache_mode == CACHE_USE && (btf = btf__parse_raw_split(cached, base))) {
		free(cached);
		return btf;
	}
	file = (unsigned char *)read_file(path, &len);
	if (!file) {
		free(cached);
		return NULL;
	}
	if (!unpack_payload(file, len, &ko))
		section = elf_btf_section(ko.data, ko.len, &size);
	free(file);
	free(ko.data);
	if (section && cache_mode == CACHE_DISABLED) {
		/* a file of this run's own, gone once parsed */
		free(cached);
		cached = xasprintf("%s/module-btf-XXXXXX",
				   getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
		fd = mkstemp(cached);
		if (fd >= 0 && write(fd, section, size) == (ssize_t)size)
			btf = btf__parse_raw_split(cached, base);
		if (fd >= 0) {
			close(fd);
			unlink(cached);
		}
	} else if (section && install_file(cached, section, size) == 0) {
		btf = btf__parse_raw_split(cached, base);
	}
	free(section);
	free(cached);
	return btf;
}

/* ---- the modules' tables ---- */

static int compare_functions(const void *a, const void *b)
{
	const struct btf_function *x = a, *y = b;

	return strcmp(x->name, y->name);
}

static struct btf_module *new_module(const char *name, const char *path, struct btf *btf,
				     struct btf_module *base)
{
	struct btf_module *m = xcalloc(1, sizeof(*m));

	m->name = xstrdup(name);
	m->path = xstrdup(path);
	m->is_kernel = !base;
	m->btf = btf;
	m->base = base;
	m->first_id = base ? base->ntypes : 1;
	m->ntypes = btf__type_cnt(btf);
	m->types = xcalloc(m->ntypes - m->first_id + 1, sizeof(*m->types));
	for (uint32_t id = m->first_id; id < m->ntypes; id++)
		m->nfunctions += btf_is_func(btf__type_by_id(btf, id));
	m->functions = xcalloc(m->nfunctions + 1, sizeof(*m->functions));
	m->nfunctions = 0;
	for (uint32_t id = m->first_id; id < m->ntypes; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (btf_is_func(t))
			m->functions[m->nfunctions++] = (struct btf_function){
				.name = btf__name_by_offset(btf, t->name_off), .proto = t->type,
			};
	}
	qsort(m->functions, m->nfunctions, sizeof(*m->functions), compare_functions);
	/* one per name: static functions of one name and prototype in several files */
	if (m->nfunctions) {
		int kept = 1;

		for (int i = 1; i < m->nfunctions; i++) {
			struct btf_function *last = &m->functions[kept - 1];

			if (strcmp(m->functions[i].name, last->name) != 0)
				m->functions[kept++] = m->functions[i];
			else if (m->functions[i].proto != last->proto)
				last->ambiguous = true;
		}
		m->nfunctions = kept;
	}
	return m;
}

/* Every module file of the release: the running kernel's /sys/kernel/btf, or the .ko
 * files under /lib/modules/REL (and the VM's copy of the image package's). */
static void scan_modules(struct session *s)
{
	char *vm, *folder;

	if (loaded.modules_scanned)
		return;
	loaded.modules_scanned = true;
	if (running_kernel(s)) {
		DIR *d = opendir("/sys/kernel/btf");
		struct dirent *e;

		while (d && (e = readdir(d))) {
			if (e->d_name[0] != '.' && strcmp(e->d_name, "vmlinux") != 0) {
				char *path = xasprintf("/sys/kernel/btf/%s", e->d_name);

				strlist_add(&loaded.module_files, path);
				free(path);
			}
		}
		if (d)
			closedir(d);
	}
	for (int i = 0; i < 3; i++) {
		static const char *const folders[] = { "kernel", "updates", "extra" };
		char *dir = xasprintf("/lib/modules/%s/%s", s->kernel_release, folders[i]);

		find_module_files(&loaded.module_files, dir);
		free(dir);
	}
	folder = vm_kernel_folder(s->kernel_release);
	vm = xasprintf("%s/modules/kernel", folder);
	find_module_files(&loaded.module_files, vm);
	free(vm);
	free(folder);
}

/* ---- the API ---- */

bool btf_preferred(struct session *s)
{
	return s->use_btf;
}

struct btf_module *btf_kernel(struct session *s, const char **why)
{
	const char *rel = s->kernel_release;
	char *candidates[] = {
		xasprintf("/boot/vmlinux-%s", rel),
		xasprintf("%s/vmlinux", s->kernel_build_dir),
		debuginfo_hidden() ? NULL : xasprintf("/usr/lib/debug/boot/vmlinux-%s", rel),
		debuginfo_hidden() ? NULL : xasprintf("/usr/lib/debug/lib/modules/%s/vmlinux", rel),
	};
	char *vm = vm_kernel_folder(rel);
	char *images[] = {
		xasprintf("/boot/vmlinuz-%s", rel),
		xasprintf("/lib/modules/%s/vmlinuz", rel),
		xasprintf("%s/vmlinuz", vm),
	};
	const char *image_why = NULL;
	char *image_tried = NULL;
	struct btf *btf = NULL;
	char *from = NULL;

	free(vm);
	if (loaded.kernel_tried) {
		*why = loaded.kernel_why;
		return loaded.kernel;
	}
	loaded.kernel_tried = true;
	if (running_kernel(s) && (btf = btf__parse_raw("/sys/kernel/btf/vmlinux")))
		from = xstrdup("/sys/kernel/btf/vmlinux");
	for (size_t i = 0; !btf && i < sizeof(candidates) / sizeof(*candidates); i++)
		if (candidates[i] && access(candidates[i], R_OK) == 0 &&
		    (btf = btf__parse_elf(candidates[i], NULL)))
			from = xstrdup(candidates[i]);
	for (size_t i = 0; !btf && i < sizeof(images) / sizeof(*images); i++) {
		if (access(images[i], R_OK) != 0)
			continue;
		btf = image_btf(images[i], &image_why);
		if (btf)
			from = xasprintf("%s (unpacked)", images[i]);
		else if (!image_tried)
			image_tried = xstrdup(images[i]);
	}
	for (size_t i = 0; i < sizeof(candidates) / sizeof(*candidates); i++)
		free(candidates[i]);
	for (size_t i = 0; i < sizeof(images) / sizeof(*images); i++)
		free(images[i]);
	if (!btf) {
		loaded.kernel_why = image_tried ?
			xasprintf("no BTF for kernel %s: %s %s", rel, image_tried, image_why) :
			xasprintf("no BTF for kernel %s (no /boot/vmlinuz-%s)", rel, rel);
		*why = loaded.kernel_why;
		free(image_tried);
		return NULL;
	}
	free(image_tried);
	loaded.kernel = new_module("kernel", from, btf, NULL);
	if (verbose_at(s, 2, 1))
		fprintf(stderr, "Kernel types from BTF: %s (%u types, %d functions)\n", from,
			loaded.kernel->ntypes, loaded.kernel->nfunctions);
	free(from);
	return loaded.kernel;
}

static bool same_module_name(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (*a != *b && !((*a == '-' || *a == '_') && (*b == '-' || *b == '_')))
			return false;
	return *a == *b;
}

struct btf_module *btf_module(struct session *s, const char *name)
{
	const char *why;
	struct btf_module *kernel = btf_kernel(s, &why);

	if (!kernel)
		return NULL;
	for (struct btf_module *m = loaded.modules; m; m = m->next)
		if (same_module_name(m->name, name))
			return m;
	scan_modules(s);
	for (int i = 0; i < loaded.module_files.count; i++) {
		const char *path = loaded.module_files.items[i];
		char *file_name = kernel_module_name(path);
		struct btf *btf = NULL;

		if (same_module_name(file_name, name))
			btf = starts_with(path, "/sys/") ? btf__parse_raw_split(path, kernel->btf) :
			      is_compressed(path) ? compressed_module_btf(path, kernel->btf) :
						    btf__parse_elf_split(path, kernel->btf);
		if (btf) {
			struct btf_module *m = new_module(file_name, path, btf, kernel);

			m->next = loaded.modules;
			loaded.modules = m;
			free(file_name);
			if (verbose_at(s, 2, 2))
				fprintf(stderr, "Module %s types from BTF: %s\n", m->name, path);
			return m;
		}
		free(file_name);
	}
	return NULL;
}

struct strlist btf_module_names(struct session *s, const char *pattern)
{
	scan_modules(s);
	return module_names_matching(&loaded.module_files, pattern);
}

const struct btf_function *btf_function_named(struct btf_module *m, const char *name)
{
	struct btf_function key = { .name = name };

	return bsearch(&key, m->functions, m->nfunctions, sizeof(key), compare_functions);
}

int btf_function_params(struct btf_module *m, const struct btf_function *f,
			const char ***names, struct ctype ***types, bool *varargs)
{
	const struct btf_type *proto = btf__type_by_id(m->btf, f->proto);
	const struct btf_param *p = btf_params(proto);
	int n = btf_vlen(proto);

	if (varargs)
		*varargs = n > 0 && !p[n - 1].type && !p[n - 1].name_off;
	if (n > 0 && !p[n - 1].type && !p[n - 1].name_off)
		n--;
	if (names)
		*names = xcalloc(n + 1, sizeof(**names));
	if (types)
		*types = xcalloc(n + 1, sizeof(**types));
	for (int i = 0; i < n; i++) {
		if (names)
			(*names)[i] = btf__name_by_offset(m->btf, p[i].name_off);
		if (types)
			(*types)[i] = ctype_of_btf(m, p[i].type);
	}
	return n;
}

struct ctype *btf_function_return(struct btf_module *m, const struct btf_function *f)
{
	return ctype_of_btf(m, btf__type_by_id(m->btf, f->proto)->type);
}

struct ctype *btf_find_type(struct btf_module *m, const char *name)
{
	static const struct { const char *prefix; int kind; } tagged[] = {
		{ "struct ", BTF_KIND_STRUCT }, { "union ", BTF_KIND_UNION },
		{ "enum ", BTF_KIND_ENUM },
	};
	static const int any[] = { BTF_KIND_STRUCT, BTF_KIND_UNION, BTF_KIND_TYPEDEF,
				   BTF_KIND_ENUM, BTF_KIND_INT };

	for (size_t i = 0; i < sizeof(tagged) / sizeof(*tagged); i++) {
		if (starts_with(name, tagged[i].prefix)) {
			int id = btf__find_by_name_kind(m->btf, name + strlen(tagged[i].prefix),
							tagged[i].kind);

			return id > 0 ? ctype_of_btf(m, id) : NULL;
		}
	}
	for (size_t i = 0; i < sizeof(any) / sizeof(*any); i++) {
		int id = btf__find_by_name_kind(m->btf, name, any[i]);

		if (id > 0)
			return ctype_of_btf(m, id);
	}
	return NULL;
}
