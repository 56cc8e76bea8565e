/*
 * family_begin_end.c - begin, end, error (each with an optional sequence number N), never.
 *
 * begin probes run when the session starts, end probes when it ends in order, error
 * probes when it ends because of an error (instead of end); each kind sorted by N
 * (default 0) and, among equal N, in the order stap's sort leaves them (run_order()).
 * never probes are checked like any other and never run.  Runtime glue: runtime/begin_end.c.
 */
#include "elaborate/elaborate.h"
#include "translate/emit.h"
#include "family.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char *const begin_end_templates[] = {
	"begin", "begin(number)", "end", "end(number)", "error", "error(number)", "never", NULL,
};

static bool begin_end_build(struct elaborator *el, struct probe_point *pp,
			    struct derived_probe *proto)
{
	struct component *c = pp->components;
	int64_t sequence = 0;

	if (c->arg)
		sequence = c->arg->number;
	proto->sequence = sequence;
	add_derived_probe(el, proto, c->arg ? xasprintf("%s(%" PRId64 ")", c->name, sequence) :
					      xstrdup(c->name), NULL);
	return true;
}

static bool runs_earlier(const void *a, const void *b)
{
	return ((const struct derived_probe *)a)->sequence <
	       ((const struct derived_probe *)b)->sequence;
}

/*
 * The begin, end and error probes in the order they run: stap sorts the three kinds
 * together by sequence number with C++'s std::sort, which is not stable: of more than 16
 * such probes, those with one number run in an order of its making (of 28 begin probes
 * with a begin(-1) before and a begin(1) after them, the first and then the others from
 * the last up).  NULL-terminated.
 */
static struct derived_probe **run_order(struct program *prog)
{
	struct derived_probe **sorted = xcalloc(prog->nprobes + 1, sizeof(*sorted));
	size_t count = 0;

	for (struct derived_probe *dp = prog->probes; dp; dp = dp->next)
		if (dp->family == &begin_end_family &&
		    strcmp(probe_point_first_name(dp->point), "never") != 0)
			sorted[count++] = dp;
	cxx_sort((void **)sorted, count, runs_earlier);
	return sorted;
}

/* Emits the table of NAME probes in their order in SORTED; returns how many. */
static int emit_table(struct emitter *e, struct derived_probe **sorted, const char *name)
{
	int count = 0;

	for (struct derived_probe **dp = sorted; *dp; dp++) {
		if (strcmp(probe_point_first_name((*dp)->point), name) != 0)
			continue;
		if (count++ == 0)
			emit(e, "static const struct stp_probe *const stp_%s_probes[] = {\n", name);
		emit(e, "\t&stp_probes[%d],\n", (*dp)->index);
	}
	if (count)
		emit(e, "};\n\n");
	return count;
}

static void begin_end_emit(struct emitter *e, struct program *prog)
{
	struct derived_probe **sorted = run_order(prog);
	int begins = emit_table(e, sorted, "begin");
	int ends = emit_table(e, sorted, "end");
	int errors = emit_table(e, sorted, "error");

	free(sorted);

	emit(e, "static int stp_register_begin_end(void)\n{\n");
	if (begins)
		emit(e, "\tstp_run_probe_table(stp_begin_probes, ARRAY_SIZE(stp_begin_probes), "
			"STP_SESSION_STARTING);\n");
	emit(e, "\treturn 0;\n}\n\n");
	emit(e, "static void stp_unregister_begin_end(bool run_end_probes)\n{\n");
	if (ends || errors)
		emit(e, "\tif (run_end_probes)\n"
			"\t\tstp_run_end_or_error(%s, %s,\n\t\t\t\t     %s, %s);\n",
		     ends ? "stp_end_probes" : "NULL",
		     ends ? "ARRAY_SIZE(stp_end_probes)" : "0",
		     errors ? "stp_error_probes" : "NULL",
		     errors ? "ARRAY_SIZE(stp_error_probes)" : "0");
	else
		emit(e, "\t(void)run_end_probes;\n");
	emit(e, "}\n\n");
}

const struct probe_family begin_end_family = {
	.name = "begin_end",
	.templates = begin_end_templates,
	.build = begin_end_build,
	.emit = begin_end_emit,
};
