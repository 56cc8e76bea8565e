/*
 * translate_target.c - pass 3: target variables, @var and @cast as C.
 *
 * A target_access (stap.h) becomes one statement expression: the address (or value)
 * its location gives, each step through memory, then the result, all through the
 * runtime's fault-safe reads (runtime/target.c).  The handler's error location is set
 * to the target expression first, so a bad pointer's soft error names it:
 * "kernel read fault at 0x... near identifier '$file' at script.stp:3:9".
 */
#include "translate.h"
#include "emit.h"
#include "debuginfo/ctype.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The number of chars of the array a string result reads (its type's count). */
static int64_t string_length(const struct target_access *a)
{
	struct ctype *t = ctype_resolve(a->type);

	return t && t->kind == CT_ARRAY && t->count > 0 ? t->count : 0;
}

/* "u64 _tID = START; ...steps...; " : the address (or the value) of N's access. */
static char *target_steps(struct body *b, const struct target_access *a, int id)
{
	struct strbuf sb = { 0 };
	char *start = a->base ? translate_expr(b, a->base) : xstrdup(a->start);

	sb_printf(&sb, "u64 _t%d = (u64)(%s); ", id, start);
	free(start);
	for (int i = 0; i < a->nsteps; i++) {
		const struct target_step *s = &a->steps[i];
		char *index;

		switch (s->kind) {
		case TSTEP_ADD:
			sb_printf(&sb, "_t%d += %" PRId64 "LL; ", id, s->offset);
			break;
		case TSTEP_LOAD:
			sb_printf(&sb, "_t%d = stp_%s_deref(c, _t%d, 8); ", id,
				  a->user ? "user" : "target", id);
			break;
		case TSTEP_INDEX:
			index = translate_expr(b, s->index);
			sb_printf(&sb, "_t%d += (u64)(s64)(%s) * %" PRId64 "ULL; ", id, index,
				  s->scale);
			free(index);
			break;
		}
	}
	return sb_steal(&sb);
}

/* "s64 _vID = stp_target_read(c, _tID, ...)" as C, the number N's access reads. */
static char *number_read(const struct target_access *a, int id)
{
	return xasprintf("stp_%s_%s(c, _t%d, %d, %d, %d, %d)", a->user ? "user" : "target",
			 a->start_is_value && !a->nsteps ? "value" : "read", id, a->size,
			 a->is_signed, a->bit_offset, a->bit_size);
}

char *translate_target_place(struct body *b, struct node *n, int id)
{
	char *where = c_location(n->tok), *steps = target_steps(b, n->access, id);
	char *read = number_read(n->access, id);
	char *s = xasprintf("c->last_stmt = %s; %ss64 _tv%d = %s; ", where, steps, id, read);

	free(where);
	free(steps);
	free(read);
	return s;
}

char *translate_target(struct body *b, struct node *n)
{
	const struct target_access *a = n->access;
	struct strbuf sb = { 0 };
	int id = b->unique++, temp;
	char *where = c_location(n->tok), *steps = target_steps(b, a, id), *read;

	sb_printf(&sb, "({ const char *_w%d = c->last_stmt; c->last_stmt = %s; %s", id, where,
		  steps);
	free(where);
	free(steps);
	switch (a->result) {
	case TRESULT_ADDRESS:
		sb_printf(&sb, "if (likely(!c->last_error)) c->last_stmt = _w%d; (s64)_t%d; })", id,
			  id);
		break;
	case TRESULT_STRING:
		temp = new_temp(b);
		sb_printf(&sb, "stp_%s_string(c, l->_tmp%d, _t%d, %" PRId64 "); "
			  "if (likely(!c->last_error)) c->last_stmt = _w%d; "
			  "(const char *)l->_tmp%d; })", a->user ? "user" : "target", temp, id,
			  string_length(a), id, temp);
		break;
	case TRESULT_LONG:
		read = number_read(a, id);
		sb_printf(&sb, "s64 _v%d = %s; if (likely(!c->last_error)) c->last_stmt = _w%d; "
			  "_v%d; })", id, read, id, id);
		free(read);
		break;
	}
	return sb_steal(&sb);
}
