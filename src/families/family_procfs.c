/*
 * family_procfs.c - files under /proc/systemtap/MODULE/ that a script serves.
 *
 *   procfs("name").read      runs when the file is read; the handler sets $value
 *   procfs("name").write     runs when it is written; $value holds what was written
 *   procfs.read ...          the file is called "command"
 *   ... .read.maxsize(N)     the buffer for what a read returns, in bytes
 *   procfs.umask(N) ...      the file's permissions, as a umask
 *
 * Each file has at most one read probe; all its write probes run on each write.
 */
#include "elaborate/elaborate.h"
#include "translate/emit.h"
#include "family.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char *const procfs_templates[] = {
	"procfs.read", "procfs.read.maxsize(number)", "procfs.write",
	"procfs(string).read", "procfs(string).read.maxsize(number)", "procfs(string).write",
	"procfs.umask(number).read", "procfs.umask(number).read.maxsize(number)",
	"procfs.umask(number).write",
	"procfs(string).umask(number).read", "procfs(string).umask(number).read.maxsize(number)",
	"procfs(string).umask(number).write",
	NULL,
};

/* What pass 3 needs of a procfs probe. */
struct procfs_probe {
	const char *path;	/* under /proc/systemtap/MODULE/ */
	bool write;
	int64_t maxsize;	/* read buffer; 0: the default */
	int64_t umask;		/* -1: the default */
};

/* A path of names separated by single slashes, none of them . or ..; NULL if it is one,
 * else what is wrong with it, in stap's words. */
static const char *path_problem(const char *path)
{
	size_t len = strlen(path);

	if (path[0] == '/')
		return "procfs path cannot start with a '/'";
	if (len == 0 || path[len - 1] == '/')
		return "procfs path cannot end with a '/'";
	for (const char *p = path; *p;) {
		size_t n = strcspn(p, "/");

		if (n == 0)
			return "procfs path component cannot be empty";
		if ((n == 1 && p[0] == '.') || (n == 2 && starts_with(p, "..")))
			return "procfs path cannot be relative (and contain '.' or '..')";
		p += n + (p[n] == '/');
	}
	return NULL;
}

static bool already_probed(struct elaborator *el, const char *path, bool write)
{
	for (struct derived_probe *dp = el->prog->probes; dp; dp = dp->next) {
		struct procfs_probe *other = dp->data;

		if (dp->family == &procfs_family && other->write == write &&
		    strcmp(other->path, path) == 0)
			return true;
	}
	return false;
}

static bool procfs_build(struct elaborator *el, struct probe_point *pp,
			 struct derived_probe *proto)
{
	struct procfs_probe *f = xcalloc(1, sizeof(*f));
	struct component *c = pp->components;
	const char *problem;
	bool present;

	f->path = component_string(c, &present);
	if (!present)
		f->path = "command";
	bool has_maxsize = false;

	f->umask = -1;
	for (c = c->next; c; c = c->next) {
		if (strcmp(c->name, "umask") == 0)
			f->umask = component_number(c, &present);
		else if (strcmp(c->name, "write") == 0)
			f->write = true;
		else if (strcmp(c->name, "maxsize") == 0)
			f->maxsize = component_number(c, &present), has_maxsize = true;
	}
	if ((problem = path_problem(f->path))) {
		semantic_error(el, pp->components->tok, "%s", problem);
		return false;
	}
	if (f->umask != -1 && (f->umask < 0 || f->umask > 0777)) {
		semantic_error(el, NULL, "invalid umask %#" PRIo64, f->umask);
		return false;
	}
	if (has_maxsize && f->maxsize <= 0) {
		semantic_error(el, NULL, "maxsize must be greater than 0");
		return false;
	}
	/* several write probes of one file all run on each write (input.char and
	 * input.line share "__stdin"); a file has one reader */
	if (!el->listing && !f->write && already_probed(el, f->path, f->write)) {
		struct token *resolving = el->resolving;

		el->resolving = NULL;	/* about the program, not this point: as stap says it */
		semantic_error(el, NULL, "only one %s procfs probe can exist for procfs path \"%s\"",
			       f->write ? "write" : "read", f->path);
		el->resolving = resolving;
		return false;
	}
	if (f->write && strcmp(f->path, "__stdin") == 0 && !el->listing)
		el->prog->reads_stdin = true;	/* stapio writes its input there */
	if (f->write)
		proto->handler->procfs_write = true;
	else
		proto->handler->procfs_read = true;
	add_derived_probe(el, proto, probe_point_text(pp, false), f);
	return true;
}

/* The table runtime/procfs.c creates the files from: one entry per path. */
static void procfs_emit(struct emitter *e, struct program *prog)
{
	emit(e, "static struct stp_procfs_file stp_procfs_files[] = {\n");
	for (struct derived_probe *dp = prog->probes; dp; dp = dp->next) {
		struct derived_probe *reader = NULL;
		struct strbuf writers = { 0 };
		struct procfs_probe *f = dp->data;
		int64_t maxsize = 0, umask = -1;
		struct strbuf *sb = &e->out;	/* straight into the C file */
		bool seen = false;

		if (dp->family != &procfs_family)
			continue;
		for (struct derived_probe *o = prog->probes; o != dp; o = o->next)
			seen |= o->family == &procfs_family &&
				strcmp(((struct procfs_probe *)o->data)->path, f->path) == 0;
		if (seen)	/* its file was written with the first probe of that path */
			continue;
		for (struct derived_probe *o = dp; o; o = o->next) {
			struct procfs_probe *of = o->data;

			if (o->family != &procfs_family || strcmp(of->path, f->path) != 0)
				continue;
			if (of->write)
				sb_printf(&writers, "&stp_probes[%d], ", o->index);
			else
				reader = o, maxsize = of->maxsize;
			if (umask < 0)	/* the first umask given for the file */
				umask = of->umask;
		}
		sb_puts(sb, "\t{ .path = ");
		sb_put_c_string(sb, f->path);
		if (reader)
			sb_printf(sb, ", .read_probe = &stp_probes[%d]", reader->index);
		if (writers.data)
			sb_printf(sb, ", .write_probes = (const struct stp_probe *const[]){ %sNULL }",
				  writers.data);
		sb_free(&writers);
		sb_printf(sb, ", .maxsize = %" PRId64 ", .umask = %s%" PRIo64 " },\n", maxsize,
			  umask < 0 ? "-" : "0", umask < 0 ? -umask : umask);
	}
	emit(e, "};\n\n");
	emit_table_registration(e, "procfs", "stp_procfs_files", "stp_procfs_register",
				"stp_procfs_unregister");
}

const struct probe_family procfs_family = {
	.name = "procfs",
	.templates = procfs_templates,
	.build = procfs_build,
	.emit = procfs_emit,
};
