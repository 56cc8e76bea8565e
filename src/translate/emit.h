/*
 * emit.h - writing the module's C: what pass 3 and the probe families' emit() share.
 */
#ifndef EMIT_H
#define EMIT_H

#include "stap.h"

/* The C file being written. */
struct emitter {
	struct strbuf out;
	struct session *session;
};

void emit(struct emitter *e, const char *fmt, ...) PRINTF_LIKE(2, 3);
/*
 * For a family whose glue takes one table: stp_register_FAMILY() and
 * stp_unregister_FAMILY() hand TABLE to the runtime's REGISTER and UNREGISTER.
 */
void emit_table_registration(struct emitter *e, const char *family, const char *table,
			     const char *reg, const char *unreg);
/* Embedded C, with #line so that compiler errors point into the script. */
void emit_embedded_code(struct emitter *e, struct token *code);
/*
 * A family's table with one entry per probe, and its stp_register_FAMILY() and
 * stp_unregister_FAMILY() through the runtime's REG and UNREG:
 *   static TYPE NAME[] = { ENTRY(probe), ... };
 * ENTRY writes one "\t{ ... },\n" line for a probe of the family.
 */
struct probe_table {
	const char *type;		/* "struct stp_timer_probe" */
	const char *name;		/* "stp_timer_probes" */
	const char *reg, *unreg;	/* "stp_timers_register", "stp_timers_unregister" */
	void (*entry)(struct emitter *e, struct derived_probe *dp);
};
struct probe_family;
void emit_probe_table(struct emitter *e, struct program *prog,
		      const struct probe_family *family, const struct probe_table *table);
/*
 * A family whose probes go in two tables (the kprobes and uprobes of DWARF points, say):
 * TABLES[WHICH(dp)] takes each of its probes, an empty table is left out, and
 * stp_register_FAMILY() registers the first, then the second (taking the first back if
 * the second fails); stp_unregister_FAMILY() unregisters in the reverse order.
 */
void emit_probe_tables(struct emitter *e, struct program *prog,
		       const struct probe_family *family, const struct probe_table tables[2],
		       int (*which)(const struct derived_probe *dp));
/* The C offset of @entry number I of H in its return's data (kretprobe instance data);
 * I = H->nentries gives the size of it all. */
char *entry_offset(struct probe_body *h, int i);
char *c_string(const char *s);		/* "quoted", escaped as a C literal */
/* "static const char NAME[] = ..." of LEN bytes of DATA, NULs too (a table's bytes) */
void emit_bytes(struct emitter *e, const char *name, const char *data, size_t len);
char *c_location(struct token *tok);	/* "identifier 'x' at <input>:1:5", as a C literal */

#endif
