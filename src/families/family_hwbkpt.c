/*
 * family_hwbkpt.c - hardware breakpoints on kernel data (stapprobes(3stap), HARDWARE
 * BREAKPOINTS): the handler runs when the CPU reads or writes the watched bytes.
 *
 *   kernel.data(ADDRESS).write             a write of the byte at ADDRESS
 *   kernel.data(ADDRESS).rw                a read or a write
 *   kernel.data(ADDRESS).length(LEN).write LEN bytes (1, 2, 4 or 8 on x86: a length in
 *   kernel.data(ADDRESS).length(LEN).rw    between is rounded up)
 *   kernel.data("SYMBOL").write            a global variable of the kernel, found by
 *   kernel.data("SYMBOL").rw               name when the session starts
 *
 * The CPU's debug registers are few (4 on x86): a probe the kernel cannot give one to
 * is a registration warning when the session starts.
 */
#include "elaborate/elaborate.h"
#include "translate/emit.h"
#include "family.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char *const hwbkpt_templates[] = {
	"kernel.data(number).write", "kernel.data(number).rw",
	"kernel.data(number).length(number).write", "kernel.data(number).length(number).rw",
	"kernel.data(string).write", "kernel.data(string).rw",
	NULL,
};

/* What pass 3 needs of a hardware breakpoint. */
struct hwbkpt_probe {
	const char *symbol;	/* or NULL: */
	uint64_t address;
	int64_t length;		/* bytes, as the hardware watches them */
	bool rw;		/* reads too, not only writes */
};

#define HWBKPT_MAX_LENGTH 8

static bool hwbkpt_build(struct elaborator *el, struct probe_point *pp,
			 struct derived_probe *proto)
{
	struct hwbkpt_probe *h = xcalloc(1, sizeof(*h));
	struct component *data = pp->components->next;
	bool present;
	int64_t length = 1;

	for (struct component *c = data->next; c; c = c->next) {
		if (strcmp(c->name, "length") == 0)
			length = component_number(c, &present);
		else
			h->rw = strcmp(c->name, "rw") == 0;
	}
	if (data->arg->kind == ND_STRING)
		h->symbol = component_string(data, &present);
	else
		h->address = (uint64_t)component_number(data, &present);
	if (length <= 0 || length > HWBKPT_MAX_LENGTH) {
		semantic_error(el, NULL, "hardware breakpoint length %" PRId64 " is out of range "
			       "(1 to %d bytes)", length, HWBKPT_MAX_LENGTH);
		return false;
	}
	for (h->length = 1; h->length < length; h->length *= 2)
		;		/* what the debug registers can watch: 1, 2, 4 or 8 bytes */
	add_derived_probe(el, proto, h->symbol ?
			  xasprintf("kernel.data(\"%s\").length(1).%s", h->symbol,
				    h->rw ? "rw" : "write") :
			  xasprintf("kernel.data(%#" PRIx64 ").length(%" PRId64 ").%s", h->address,
				    length, h->rw ? "rw" : "write"), h);
	return true;
}

static void hwbkpt_entry(struct emitter *e, struct derived_probe *dp)
{
	struct hwbkpt_probe *h = dp->data;
	char *symbol = h->symbol ? c_string(h->symbol) : NULL;

	emit(e, "\t{ .probe = &stp_probes[%d], .symbol = %s, .address = %#" PRIx64 "ULL, "
	     ".length = %" PRId64 ", .rw = %d },\n", dp->index, symbol ? symbol : "NULL",
	     h->address, h->length, h->rw);
	free(symbol);
}

/* The table runtime/hwbkpt.c registers, one breakpoint per probe. */
static const struct probe_table hwbkpt_table = {
	"struct stp_hwbkpt_probe", "stp_hwbkpt_probes", "stp_hwbkpts_register",
	"stp_hwbkpts_unregister", hwbkpt_entry,
};

const struct probe_family hwbkpt_family = {
	.name = "hwbkpt",
	.from_made = FROM_POINT,
	.templates = hwbkpt_templates,
	.build = hwbkpt_build,
	.table = &hwbkpt_table,
};
