/*
 * family_perf.c - perf event probes (stapprobes(3stap), PERF): a handler that runs each
 * time a performance counter of the kernel's perf events counts another period.
 *
 *   perf.type(T).config(C)                 every 1000000 counts of the event (T, C) of
 *                                          perf_event_open(2): type 0 hardware, 1
 *                                          software, 3 hardware cache; on every CPU
 *   perf.type(T).config(C).sample(N)       every N counts (N > 0)
 *   perf.type(T).config(C).hz(N)           N times a second (the kernel adapts the period)
 *   perf.type(T).config(C).process("PATH") only while processes of PATH run (a name
 *   perf.type(T).config(C).process         without a slash is looked up in $PATH; no
 *                                          argument: the -c command)
 *   perf.type(T).config(C)[.process[("PATH")]].counter("NAME")
 *                                          no handler: a counter that @perf("NAME") reads
 *
 * The tapset's perf.hw.*, perf.sw.* and perf.hw_cache.* aliases name the events.  As
 * stap, the canonical point has the period: perf.type(1).config(0).sample(1000000), and a
 * .hz(N) point is written .sample(N); the values are handed to the kernel unchecked, and an
 * event it refuses (a hardware counter a virtual machine does not have) fails the session
 * when it starts.  The .process and .counter forms resolve in pass 2 (-p2, -l, -L) but are
 * not translated yet.
 */
#include "debuginfo/dw.h"
#include "elaborate/elaborate.h"
#include "translate/emit.h"
#include "family.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char *const perf_templates[] = {
	"perf.type(number).config(number)",
	"perf.type(number).config(number).sample(number)",
	"perf.type(number).config(number).hz(number)",
	"perf.type(number).config(number).process",
	"perf.type(number).config(number).process(string)",
	"perf.type(number).config(number).counter(string)",
	"perf.type(number).config(number).process.counter(string)",
	"perf.type(number).config(number).process(string).counter(string)",
	NULL,
};

#define PERF_DEFAULT_PERIOD 1000000

/* What pass 3 needs of a perf probe. */
struct perf_probe {
	int64_t type, config;
	int64_t period;		/* counts between runs, or */
	bool freq;		/* runs a second */
	char *process;		/* .process: the program, or NULL: every CPU */
	const char *counter;	/* .counter: its name, or NULL */
};

/* The program of .process("PATH") or .process (the -c command), as stap writes it: the
 * real path of an existing file, else the path as given. */
static char *perf_program(struct elaborator *el, struct component *c)
{
	char *path, *why, *target = NULL, *file = NULL;
	bool present;

	path = process_point_program(el->session, c->arg ? component_string(c, &present) : NULL,
				     0, &why);
	if (!path) {
		semantic_error(el, NULL, "%s", why);
		free(why);
		return NULL;
	}
	if (program_path(el->session, path, &target, &file, &why)) {
		free(path);
		free(file);
		return target;
	}
	free(why);
	return path;
}

/* A counter's name is the program's: two probes may not define the same one. */
static bool counter_taken(struct elaborator *el, const char *name)
{
	for (struct derived_probe *dp = el->prog->probes; dp; dp = dp->next) {
		const struct perf_probe *other = dp->data;

		if (dp->family == &perf_family && other->counter &&
		    strcmp(other->counter, name) == 0)
			return true;
	}
	return false;
}

static bool perf_build(struct elaborator *el, struct probe_point *pp,
		       struct derived_probe *proto)
{
	struct component *c = pp->components->next;
	struct perf_probe *p = xcalloc(1, sizeof(*p));
	struct strbuf name = { 0 };
	bool present;

	p->type = component_number(c, &present);
	c = c->next;
	p->config = component_number(c, &present);
	p->period = PERF_DEFAULT_PERIOD;
	for (c = c->next; c; c = c->next) {
		if (strcmp(c->name, "sample") == 0 || strcmp(c->name, "hz") == 0) {
			p->period = component_number(c, &present);
			p->freq = c->name[0] == 'h';
			if (p->period <= 0) {
				semantic_error(el, c->arg->tok, "invalid perf %s %" PRId64,
					       p->freq ? "frequency" : "sample period", p->period);
				return false;
			}
		} else if (strcmp(c->name, "process") == 0) {
			if (!(p->process = perf_program(el, c)))
				return false;
		} else {
			p->counter = component_string(c, &present);
			p->period = 0;	/* never sampled: read */
			if (!el->listing && counter_taken(el, p->counter)) {
				semantic_error(el, NULL, "duplicate counter name");
				return false;
			}
		}
	}
	sb_printf(&name, "perf.type(%" PRId64 ").config(%" PRId64 ").sample(%" PRId64 ")",
		  p->type, p->config, p->period);
	if (p->process)
		sb_printf(&name, ".process(\"%s\")", p->process);
	if (p->counter)
		sb_printf(&name, ".counter(\"%s\")", p->counter);
	if (el->listing) {	/* -l lists the point as written, as stap does */
		sb_free(&name);
		add_derived_probe(el, proto, probe_point_text(pp, false), p);
	} else {
		add_derived_probe(el, proto, sb_steal(&name), p);
	}
	return true;
}

static const char *perf_missing(struct derived_probe *dp)
{
	const struct perf_probe *p = dp->data;

	if (p->counter)
		return "perf counters (.counter) and @perf";
	if (p->process)
		return "perf probes of a process (.process)";
	return NULL;
}

static void perf_entry(struct emitter *e, struct derived_probe *dp)
{
	const struct perf_probe *p = dp->data;

	emit(e, "\t{ .probe = &stp_probes[%d], .type = %" PRId64 "U, .config = %" PRId64
		"ULL, .period = %" PRId64 "ULL, .freq = %d },\n", dp->index, p->type,
	     p->config, p->period, p->freq);
}

/* The table runtime/perf.c registers, one event per CPU and probe. */
static const struct probe_table perf_table = {
	"struct stp_perf_probe", "stp_perf_probes", "stp_perf_register",
	"stp_perf_unregister", perf_entry,
};

const struct probe_family perf_family = {
	.name = "perf",
	.templates = perf_templates,
	.build = perf_build,
	.missing = perf_missing,
	.table = &perf_table,
};
