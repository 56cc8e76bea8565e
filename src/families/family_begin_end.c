/*
 * family_begin_end.c - begin, end, error (each with an optional sequence number N), never.
 *
 * begin probes run when the session starts, end probes when it ends in order, error
 * probes when it ends because of an error (instead of end); each kind sorted by N
 * (default 0) and then by its order in the script.  never probes are checked like any
 * other and never run.  Runtime glue: runtime/begin_end.c.
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

static bool is_kind(struct derived_probe *dp, const char *name)
{
	return dp->family == &begin_end_family &&
	       strcmp(probe_point_first_name(dp->point), name) == 0;
}

/* Emits the table of NAME probes sorted by sequence (stable); returns how many. */
static int emit_table(struct emitter *e, struct program *prog, const char *name)
{
	int count = 0;
	struct derived_probe **sorted = xcalloc(prog->nprobes, sizeof(*sorted));

	for (struct derived_probe *dp = prog->probes; dp; dp = dp->next) {
		int i;

		if (!is_kind(dp, name))
			continue;
		/* insertion sort keeps script order among equal sequence numbers */
		for (i = count; i > 0 && sorted[i - 1]->sequence > dp->sequence; i--)
			sorted[i] = sorted[i - 1];
		sorted[i] = dp;
		count++;
	}
	if (count) {
		emit(e, "static const struct stp_probe *const stp_%s_probes[] = {\n", name);
		for (int i = 0; i < count; i++)
			emit(e, "\t&stp_probes[%d],\n", sorted[i]->index);
		emit(e, "};\n\n");
	}
	free(sorted);
	return count;
}

static void begin_end_emit(struct emitter *e, struct program *prog)
{
	int begins = emit_table(e, prog, "begin");
	int ends = emit_table(e, prog, "end");
	int errors = emit_table(e, prog, "error");

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
