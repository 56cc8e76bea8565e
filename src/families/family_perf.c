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
 * when it starts.
 *
 * A .process probe counts each task of the program with an event of its own, which the
 * runtime creates when the task begins (runtime/perf.c): pass 2 adds, for each such probe,
 * the probe process("PATH").begin, process("PATH").thread.begin { __perf_attach(ID) } as a
 * file of the program's own (the process family says when a task of PATH begins).
 * @perf("NAME") is resolved (resolve.c) into __perf_read("NAME"), the value of the current
 * task's counter NAME.
 */
#include "debuginfo/dw.h"
#include "elaborate/elaborate.h"
#include "translate/emit.h"
#include "family.h"
#include "family_dwarf.h"

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
	int attach_id;		/* .process: what its begin probes pass to __perf_attach() */
	const char *counter;	/* .counter: its name, or NULL */
};

/* The program of .process("PATH") or .process (the -c command), as stap writes it: its
 * real path.  stap takes a file that is not there as it is written; here it is refused
 * (its begin probes, which count its tasks, need it), as process("PATH").begin is. */
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
	if (!program_path(el->session, path, &target, &file, &why)) {
		semantic_error(el, NULL, "%s", why);
		free(why);
	}
	free(path);
	free(file);
	return target;
}

/* A counter's name is the program's: two probes may not define the same one. */
bool perf_counter_defined(struct elaborator *el, const char *name)
{
	for (struct derived_probe *dp = el->prog->probes; dp; dp = dp->next) {
		const struct perf_probe *other = dp->data;

		if (dp->family == &perf_family && other->counter &&
		    strcmp(other->counter, name) == 0)
			return true;
	}
	return false;
}

/* Whether @perf("NAME") in a handler whose target variables resolve in CONTEXT (NULL:
 * none) reads a counter.  In a DWARF probe, as in stap, only a counter of every task or
 * one counting the probe's own program is there. */
bool perf_counter_readable(struct elaborator *el, const char *name,
			   const struct derived_probe *context)
{
	const char *program = NULL;

	if (!context || context->family != &dwarf_family)
		return perf_counter_defined(el, name);
	if (context->data) {
		const struct dwarf_probe *d = context->data;

		program = d->process ? d->process : d->file;
	}
	for (struct derived_probe *dp = el->prog->probes; dp; dp = dp->next) {
		const struct perf_probe *other = dp->data;

		if (dp->family == &perf_family && other->counter &&
		    strcmp(other->counter, name) == 0 &&
		    (!other->process || (program && strcmp(other->process, program) == 0)))
			return true;
	}
	return false;
}

/* The probes that start the counting of each task of P's program: when a process of it
 * begins (runs it, or forks while it does) and when a thread of one begins; one set for
 * the probes of one program, which share their attach_id. */
static void add_attach_probes(struct elaborator *el, struct perf_probe *p)
{
	struct source_file *src;
	struct stapfile *file;
	char *quoted;
	int errors = 0;

	for (struct derived_probe *dp = el->prog->probes; dp; dp = dp->next) {
		struct perf_probe *other = dp->data;

		if (dp->family != &perf_family || !other->process)
			continue;
		if (strcmp(other->process, p->process) == 0) {
			p->attach_id = other->attach_id;	/* its set counts for both */
			return;
		}
		if (other->attach_id > p->attach_id)
			p->attach_id = other->attach_id;
	}
	p->attach_id++;
	src = xcalloc(1, sizeof(*src));
	quoted = c_string(p->process);
	src->name = xasprintf("<perf.process(%s)>", quoted);
	src->text = xasprintf("probe process(%s).begin, process(%s).thread.begin "
			      "{ __perf_attach(%d) }\n", quoted, quoted, p->attach_id);
	src->is_tapset = true;
	free(quoted);
	file = parse_file(el->pp, src, true, false, &errors);
	if (!errors)
		add_program_file(el, file);	/* derived with the tapset files' probes */
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
			if (!el->listing && perf_counter_defined(el, p->counter)) {
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
		return true;
	}
	if (p->process)
		add_attach_probes(el, p);
	add_derived_probe(el, proto, sb_steal(&name), p);
	return true;
}

/* A counter works without a handler: @perf reads it. */
static bool perf_works_without_handler(struct derived_probe *dp)
{
	return ((struct perf_probe *)dp->data)->counter != NULL;
}

static void perf_entry(struct emitter *e, struct derived_probe *dp)
{
	const struct perf_probe *p = dp->data;
	char *counter = p->counter ? c_string(p->counter) : NULL;

	emit(e, "\t{ .probe = &stp_probes[%d], .type = %" PRId64 "U, .config = %" PRId64
		"ULL, .period = %" PRId64 "ULL, .freq = %d, .attach_id = %d, .counter = %s },\n",
	     dp->index, p->type, p->config, p->period, p->freq, p->attach_id,
	     counter ? counter : "NULL");
	free(counter);
}

/* The table runtime/perf.c registers, one event per CPU and probe. */
static const struct probe_table perf_table = {
	"struct stp_perf_probe", "stp_perf_probes", "stp_perf_register",
	"stp_perf_unregister", perf_entry,
};

const struct probe_family perf_family = {
	.name = "perf",
	.from_made = FROM_POINT,
	.templates = perf_templates,
	.build = perf_build,
	.works_without_handler = perf_works_without_handler,
	.table = &perf_table,
};
