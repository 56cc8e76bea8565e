/*
 * family.h - the probe families: what a family file in src/families/ provides.
 *
 * A family is one file in src/families/ (family_NAME.c: its points' forms, how it builds
 * derived probes in pass 2, its registration table in pass 3) and its glue in runtime/
 * (NAME.c).  probe_family.c lists the families and matches probe points against their
 * forms.  The dwarf family places its points in two ways, each a file: from the DWARF
 * (family_dwarf.c, the family itself) and from the kernel's BTF (family_dwarf_btf.c);
 * what they share is family_dwarf.h and dwarf_point.c.  family_kprobe.c writes the
 * entries of runtime/kprobe.c's table for the kprobe and dwarf families alike.
 */
#ifndef FAMILY_H
#define FAMILY_H

#include "stap.h"

struct elaborator;
struct emitter;
struct probe_table;

/* What stap -t's "from:" chain names first, before the aliases and the script's point */
enum family_from {
	FROM_NOTHING,			/* the point as written resolves as it is */
	FROM_NAME,			/* the probe's name: dwarf's function@file:line */
	FROM_POINT,			/* the family's point as written (perf, hwbkpt) */
};

struct probe_family {
	const char *name;		/* also names its C glue: stp_register_NAME() */
	enum family_from from_made;	/* stap -t's report */
	/* the forms of its points: "timer.ms(number).randomize(number)", NULL-ended */
	const char *const *templates;
	/*
	 * Pass 2: checks a concrete point (one of its forms, wildcards in names resolved), adds
	 * derived probes with add_derived_probe(); false (after saying why) when it does
	 * not resolve.  Wildcards in arguments may add several: kprobe.function("vfs_*").
	 */
	bool (*build)(struct elaborator *el, struct probe_point *pp, struct derived_probe *proto);
	/*
	 * Pass 2: resolves a target variable N (ND_TARGET: $name, $$vars, ...) in the
	 * context of DP: sets N->access (or rewrites N, e.g. $$vars into a sprintf), else
	 * says why (not when QUIET: @defined asks).  NULL: the family's probes have none.
	 */
	enum target_resolution (*resolve_target)(struct elaborator *el, struct derived_probe *dp,
						 struct node *n, bool quiet);
	/* -L: the target variables of DP (" $name:type ..."), listed for the aliases
	 * that expand to it (-L lists a point's own as it places it); NULL: none */
	char *(*list_variables)(struct derived_probe *dp);
	/* Pass 2: what a write to a target variable says without -g (NULL: the usual) */
	const char *target_write_refusal;
	/* Pass 2: whether DP does something with an empty handler (a perf counter), so that
	 * it is not elided; NULL: nothing */
	bool (*works_without_handler)(struct derived_probe *dp);
	/* Pass 3: what it cannot translate of this probe yet, or NULL. */
	const char *(*missing)(struct derived_probe *dp);
	/*
	 * Pass 3: the C its probes need before their table (trace's probe functions); or,
	 * with no table, all of it: its tables, stp_register_NAME() and
	 * stp_unregister_NAME().  NULL: nothing before the table.
	 */
	void (*emit)(struct emitter *e, struct program *prog);
	/*
	 * Pass 3: the table its runtime glue registers, one entry per probe, when it is one
	 * (translate/emit.h: emit_probe_table() writes it with stp_register_NAME() and
	 * stp_unregister_NAME()).  NULL and no emit: the family cannot be translated yet.
	 */
	const struct probe_table *table;
};

/* probe_family.c */
struct family_match {
	const struct probe_family *family;
	struct probe_point *point;	/* concrete: the form's names in place of wildcards */
};
/* In the order pass 3 registers them (and the reverse of unregistering), NULL-ended. */
extern const struct probe_family *const probe_families[];
int match_probe_families(struct probe_point *pp, struct family_match **out);
void forget_probe_templates(void);
int family_prefix_length(struct probe_point *pp);
char *probe_point_mismatch(struct probe_point *pp, const struct strlist *aliases,
			   struct token **where, bool *suffix);
const char *probe_point_first_name(struct probe_point *pp);

/*
 * family_kprobe.c: an entry of runtime/kprobe.c's table (struct stp_kprobe_probe), for
 * the kprobe family's probes and the dwarf family's kernel and module ones.
 */
struct kprobe_entry {
	const char *symbol;	/* "name" or "module:name"; NULL: at ADDRESS */
	uint64_t offset;	/* from the symbol, written only WITH_OFFSET */
	bool with_offset;
	uint64_t address;
	bool is_return;
	int64_t maxactive;	/* <= 0: the kernel's default */
	bool wait_for_module;	/* a module's symbol: registered when the module comes */
	/* a callee's entry: the return addresses it runs for, from the probe's address */
	const int64_t *callers;
	int ncallers;
	const char *chain;	/* .callees(N): ", .chain = ..." (NULL: none) */
};
/* ", .callers = (const long[]){ -5, 12 }, .ncallers = 2": a callee's (NONE: nothing) */
void emit_callers(struct strbuf *sb, const int64_t *callers, int ncallers);
void emit_kprobe_entry(struct emitter *e, struct derived_probe *dp, const struct kprobe_entry *k);

/* family_perf.c: whether a perf probe of the program defines the counter NAME */
bool perf_counter_defined(struct elaborator *el, const char *name);
/* ... and whether @perf("NAME") reads one in a handler of CONTEXT (NULL: no context) */
bool perf_counter_readable(struct elaborator *el, const char *name,
			   const struct derived_probe *context);

/* family_*.c */
extern const struct probe_family begin_end_family;
extern const struct probe_family timer_family;
extern const struct probe_family kprobe_family;
extern const struct probe_family procfs_family;
extern const struct probe_family dwarf_family;
extern const struct probe_family trace_family;
extern const struct probe_family netfilter_family;
extern const struct probe_family hwbkpt_family;
extern const struct probe_family process_family;
extern const struct probe_family perf_family;

#endif
