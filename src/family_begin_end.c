/*
 * family_begin_end.c - begin, begin(N), end, end(N), never.
 *
 * begin probes run when the session starts, end probes when it ends in order, each
 * sorted by N (default 0) and then by their order in the script.  never probes are checked
 * like any other and never run.  Runtime glue: runtime/begin_end.c.
 */
#include "stap.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char *const begin_end_names[] = { "begin", "end", "never", NULL };

static bool begin_end_build(struct session *s, struct probe *p, struct probe_point *pp,
			    struct derived_probe **out)
{
	struct component *c = pp->components;
	struct derived_probe *dp;

	(void)s;
	if (c->next) {
		diag_at("semantic error", c->next->tok,
			"probe point mismatch: '%s' takes no further components", c->name);
		return false;
	}
	if (c->arg && (c->arg->kind != ND_NUMBER || strcmp(c->name, "never") == 0)) {
		diag_at("semantic error", c->arg->tok,
			"probe point mismatch: '%s' %s", c->name,
			strcmp(c->name, "never") == 0 ? "takes no argument" :
							 "takes a number argument");
		return false;
	}
	dp = xcalloc(1, sizeof(*dp));
	dp->probe = p;
	dp->point = pp;
	dp->family = &begin_end_family;
	if (c->arg) {
		dp->sequence = c->arg->number;
		dp->name = xasprintf("%s(%" PRId64 ")", c->name, dp->sequence);
	} else {
		dp->name = xstrdup(c->name);
	}
	*out = dp;
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

	emit(e, "static int stp_register_begin_end(void)\n{\n");
	if (begins)
		emit(e, "\tstp_run_probe_table(stp_begin_probes, ARRAY_SIZE(stp_begin_probes), "
			"STP_SESSION_STARTING);\n");
	emit(e, "\treturn 0;\n}\n\n");
	emit(e, "static void stp_unregister_begin_end(bool run_end_probes)\n{\n");
	if (ends)
		emit(e, "\tif (run_end_probes)\n"
			"\t\tstp_run_probe_table(stp_end_probes, ARRAY_SIZE(stp_end_probes), "
			"STP_SESSION_STOPPING);\n");
	else
		emit(e, "\t(void)run_end_probes;\n");
	emit(e, "}\n\n");
}

const struct probe_family begin_end_family = {
	.name = "begin_end",
	.point_names = begin_end_names,
	.build = begin_end_build,
	.emit = begin_end_emit,
};
