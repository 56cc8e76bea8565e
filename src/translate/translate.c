/*
 * translate.c - pass 3: the elaborated program as one C file for the kernel.
 *
 * Layout of the output:
 *   #include "runtime.h"              the runtime, compiled into the module
 *   top-level %{ %} blocks (guru)
 *   globals: values, locks, map and statistic descriptions, -G module parameters
 *   struct probe_N_locals, struct function_NAME_locals, union stp_frame
 *   call_function_NAME()                how a function of one definition is called
 *                                      (translate_expr.c: function_caller())
 *   functions, probe handlers          one C function each; handlers that differ only in
 *                                      their strings share one, and each probe's strings
 *                                      are its table probe_N_K (share_handlers())
 *   stp_probes[]                       every derived probe: handler, point, location
 *   each family's tables and stp_register_FAMILY()/stp_unregister_FAMILY()
 *   stp_script_alloc()/free(), stp_script_start()/stop()
 *
 * Locals live in per-CPU frames (runtime/context.c): frame 0 for the probe, frame N for a
 * function called at depth N.  Each statement (and each loop iteration) spends one
 * MAXACTION unit; a soft error unwinds to `out` (or to the enclosing catch).  Strings are
 * char[MAXSTRINGLEN]; string-valued subexpressions that need storage get a temporary in
 * their frame.  A handler takes the locks of the globals it uses (through the functions it
 * calls, too) before it starts, in the globals' order, and releases them at `out`.
 */
#include "translate.h"
#include "emit.h"
#include "families/family.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- declarations ---- */

/* A frame's field declared, or (INIT) set at its body's start: 0, or the empty string */
static void emit_field(struct emitter *e, enum stap_type type, const char *name, bool init)
{
	if (init)
		emit(e, type == TYPE_STRING ? "\tl->%s[0] = '\\0';\n" : "\tl->%s = 0;\n", name);
	else
		emit(e, type == TYPE_STRING ? "\tchar %s[MAXSTRINGLEN];\n" : "\ts64 %s;\n", name);
}

/*
 * B's frame: its fields declared (INIT false), or (INIT true) each field that can be read
 * before it is written set at the body's start: numbers 0, strings empty, the stable
 * calls not yet made.  A function's parameters are its caller's to set; a temporary is
 * written before it is read, but an empty one costs a byte.  Clearing the frame whole
 * would cost MAXSTRINGLEN bytes for each string in it on every hit.
 */
static void emit_frame_fields(struct emitter *e, struct body *b, bool init)
{
	struct symbol *params = b->function ? b->function->params : NULL;
	struct symbol *locals = b->function ? b->function->locals :
				b->guarded ? NULL : b->handler->locals;

	/* embedded C of SystemTap before 1.8 reads its arguments as THIS->name too */
	bool old_names = b->function && b->function->embedded &&
			 b->t->session->compat_version &&
			 strverscmp(b->t->session->compat_version, "1.8") < 0;

	for (int list = init ? 1 : 0; list < 2; list++) {
		for (struct symbol *sym = list ? locals : params; sym; sym = sym->next) {
			char *field = xasprintf("l_%s", sym->name);

			if (list == 0 && old_names) {
				emit(e, "\tunion {\n");
				emit_field(e, sym->type, field, false);
				emit_field(e, sym->type, sym->name, false);
				emit(e, "\t};\n");
			} else {
				emit_field(e, sym->type, field, init);
			}
			free(field);
		}
	}
	if (b->function && b->function->return_type != TYPE_UNKNOWN)
		emit_field(e, b->function->return_type, "__retvalue", init);
	for (int i = 0; i < b->ntemps; i++) {
		char *field = xasprintf("_tmp%d", i);

		emit_field(e, TYPE_STRING, field, init);
		free(field);
	}
	for (int i = 0; i < b->nstables; i++) {
		char *field = xasprintf("_stable%d", i);

		if (!init)	/* the value is written before it is read */
			emit_field(e, b->stables[i]->return_type, field, false);
		emit(e, init ? "\tl->%s_set = false;\n" : "\tbool %s_set;\n", field);
		free(field);
	}
}

static void emit_locals_struct(struct emitter *e, struct body *b)
{
	emit(e, "struct %s_locals {\n", b->frame);
	emit_frame_fields(e, b, false);
	emit(e, "\tchar __unused;\n");	/* never empty */
	emit(e, "};\n\n");
}

/* Embedded C sees its arguments and result through SystemTap's documented macros. */
static void emit_embedded_function(struct emitter *e, struct body *b)
{
	struct function *f = b->function;
	struct token *code = f->embedded;

	for (struct symbol *p = f->params; p; p = p->next)
		emit(e, "#define STAP_ARG_%s (l->l_%s)\n", p->name, p->name);
	if (f->return_type != TYPE_UNKNOWN) {
		emit(e, "#define STAP_RETVALUE (l->__retvalue)\n");
		if (f->return_type == TYPE_STRING)
			emit(e, "#define STAP_RETURN(v) do { stp_string_copy(STAP_RETVALUE, (v)); "
				"goto out; } while (0)\n");
		else
			emit(e, "#define STAP_RETURN(v) do { STAP_RETVALUE = (v); goto out; } while (0)\n");
	}
	emit(e, "#define STAP_ERROR(...) do { stp_soft_error(CONTEXT, __VA_ARGS__); goto out; } "
		"while (0)\n");
	emit(e, "#define STAP_PRINTF(...) _stp_printf(__VA_ARGS__)\n");
	/* the next overload of the function takes the call, as `next` in a script function */
	emit(e, "#define STAP_NEXT do { c->next_called = true; goto out; } while (0)\n");
	/* SystemTap before 1.8 spelled the result THIS->__retvalue; stap 4.8 still takes it */
	emit(e, "#define THIS l\n");
	emit(e, "static void %s(struct context *c)\n{\n", b->frame);
	emit(e, "\tstruct %s_locals *l = &STP_FRAME(c, c->nesting)->%s;\n\n", b->frame, b->frame);
	emit(e, "\t(void)l;\n");
	emit_frame_fields(e, b, true);
	emit(e, "\t{\n");
	emit_embedded_code(e, code);
	emit(e, "\t}\n\tgoto out;\nout:\n\t;\n}\n");
	emit(e, "#undef STAP_ERROR\n#undef STAP_PRINTF\n#undef STAP_NEXT\n#undef THIS\n");
	for (struct symbol *p = f->params; p; p = p->next)
		emit(e, "#undef STAP_ARG_%s\n", p->name);
	if (f->return_type != TYPE_UNKNOWN)
		emit(e, "#undef STAP_RETVALUE\n#undef STAP_RETURN\n");
	emit(e, "\n");
}

/* The locks LOCKS names, in the globals' order, as the table NAME; how many. */
static int emit_locks_named(struct emitter *e, struct translator *t,
			    const enum global_access *locks, const char *name)
{
	int count = 0;

	for (int i = 0; i < t->nglobals; i++)
		count += locks[i] != ACCESS_NONE;
	if (!count)
		return 0;
	emit(e, "static const struct stp_lock_req %s[] = {\n", name);
	for (int i = 0; i < t->nglobals; i++)
		if (locks[i] != ACCESS_NONE)
			emit(e, "\t{ &%s_lock, %s },\t/* %s */\n", t->globals[i].name,
			     locks[i] == ACCESS_WRITE ? "true" : "false",
			     locks[i] == ACCESS_WRITE ? "write" : "read");
	emit(e, "};\n");
	return count;
}

/* The locks a probe condition or an @entry body takes, in the globals' order. */
static int emit_lock_table(struct emitter *e, struct body *b)
{
	char *name = xasprintf("%s_locks", b->frame);
	int count = emit_locks_named(e, b->t, b->locks, name);

	free(name);
	if (count)
		emit(e, "\n");
	return count;
}

/* A handler's lock regions (translate_handler()): a table and its size for each. */
static void emit_region_tables(struct emitter *e, struct body *b)
{
	for (int r = 0; r < b->nregions; r++) {
		char *name = xasprintf("%s_locks_%d", b->frame, r);
		int count = emit_locks_named(e, b->t, b->regions[r], name);

		emit(e, "#define %s_nlocks_%d %d\n", b->frame, r, count);
		free(name);
	}
	if (b->nregions)
		emit(e, "\n");
}

/* B's CODE with its literals' markers (body_literal()) as the literals, or as _K[n] when
 * its function reads them from the probe's table. */
static void emit_code(struct emitter *e, struct body *b, const char *code)
{
	const char *p = code, *m;

	while ((m = strchr(p, '\001'))) {
		char *end;
		long n = m[1] == 'K' ? strtol(m + 2, &end, 10) : -1;

		if (n < 0 || n >= b->consts.count || end == m + 2 || *end != '\001') {
			sb_putn(&e->out, p, m + 1 - p);	/* not a marker: embedded C's own byte */
			p = m + 1;
			continue;
		}
		sb_putn(&e->out, p, m - p);
		if (b->sharing)
			emit(e, "_K[%ld]", n);
		else
			emit(e, "%s", b->consts.items[n]);
		p = end + 1;
	}
	emit(e, "%s", p);
}

/* The function that runs H's probes: its body's, or the one it shares. */
static char *handler_function(struct translator *t, struct probe_body *h)
{
	struct body *b = t->handler_bodies[h->index];

	if (!b)
		return xasprintf("probe_%d", h->index);
	return xstrdup(b->shared ? b->shared->frame : b->frame);
}

/* A sharing handler's literals, for the function its probes run (share_handlers()) */
static void emit_literal_table(struct emitter *e, struct body *b)
{
	if (!b->sharing)
		return;
	emit(e, "static char *const %s_K[] = {\n", b->frame);
	for (int i = 0; i < b->consts.count; i++)
		emit(e, "\t%s,\n", b->consts.items[i]);
	emit(e, "};\n\n");
}

static void emit_body_function(struct emitter *e, struct body *b)
{
	int locks = 0;
	char *handler;

	if (b->function && b->function->embedded) {
		emit_embedded_function(e, b);
		return;
	}
	if (b->guarded) {
		/* the condition under the locks of the globals it reads, then (the locks
		 * released) the probe's own handler, which takes its own */
		locks = emit_lock_table(e, b);
		emit(e, "static void %s(struct context *c)\n{\n"
			"\tstruct %s_locals *l = &STP_FRAME(c, 0)->%s;\n\tbool run;\n\n"
			"\t(void)l;\n",
		     b->frame, b->frame, b->frame);
		emit_frame_fields(e, b, true);
		if (locks)
			emit(e, "\tif (!stp_lock_globals(%s_locks, %d))\n\t\treturn;\n", b->frame,
			     locks);
		emit_code(e, b, b->code.data);
		if (locks)
			emit(e, "\tstp_unlock_globals(%s_locks, %d);\n", b->frame, locks);
		handler = handler_function(b->t, b->guarded->handler);
		emit(e, "\tif (run)\n\t\t%s(c);\n}\n\n", handler);
		free(handler);
		return;
	}
	if (b->shared)		/* its function is the other body's */
		return;
	if (b->function) {
		emit(e, "static void %s(struct context *c)\n{\n"
			"\tstruct %s_locals *l = &STP_FRAME(c, c->nesting)->%s;\n\n"
			"\t(void)l;\n",
		     b->frame, b->frame, b->frame);
		emit_frame_fields(e, b, true);
	} else if (b->locks) {	/* an @entry body: its locks around all of it */
		locks = emit_lock_table(e, b);
		emit(e, "static void %s(struct context *c)\n{\n"
			"\tstruct %s_locals *l = &STP_FRAME(c, 0)->%s;\n\n"
			"\t(void)l;\n",
		     b->frame, b->frame, b->frame);
		emit_frame_fields(e, b, true);
		if (locks)
			emit(e, "\tif (!stp_lock_globals(%s_locks, %d))\n\t\treturn;\n", b->frame, locks);
	} else {		/* a handler: its lock regions */
		emit_region_tables(e, b);
		emit(e, "static void %s(struct context *c)\n{\n"
			"\tstruct %s_locals *l = &STP_FRAME(c, 0)->%s;\n",
		     b->frame, b->frame, b->frame);
		if (b->nregions)
			emit(e, "\tconst struct stp_lock_req *_held = NULL;\n\tint _nheld = 0;\n");
		if (b->sharing)
			emit(e, "\tchar *const *_K = c->probe->consts;\n");
		emit(e, "\n\t(void)l;\n");
		emit_frame_fields(e, b, true);
	}
	emit_code(e, b, b->code.data ? b->code.data : "");
	emit(e, "\tgoto out;\nout:\n");
	if (locks)
		emit(e, "\tstp_unlock_globals(%s_locks, %d);\n", b->frame, locks);
	else if (b->nregions)
		emit(e, "\tif (_held)\n\t\tstp_unlock_globals(_held, _nheld);\n");
	else
		emit(e, "\treturn;\n");
	emit(e, "}\n\n");
}

static void emit_stat_desc(struct emitter *e, struct global_c *g)
{
	struct node *h = g->hist;

	emit(e, "static struct stp_stat_desc %s_stat = {", g->name);
	if (h && strcmp(h->string, "@hist_linear") == 0)
		emit(e, " .hist = STP_HIST_LINEAR, .start = %" PRId64 "LL, .stop = %" PRId64
			"LL, .interval = %" PRId64 "LL,", h->args->number, h->args->next->number,
		     h->args->next->next->number);
	else if (h)
		emit(e, " .hist = STP_HIST_LOG,");
	emit(e, " .bit_shift = %" PRId64 " };\n", g->bit_shift);
}

static void emit_globals(struct emitter *e, struct translator *t)
{
	for (int i = 0; i < t->nglobals; i++) {
		struct global_c *g = &t->globals[i];
		struct symbol *sym = g->sym;
		bool param = !g->name_shared;	/* -G names the first of a name */

		emit(e, "/* global %s%s */\n", sym->name, g->is_array ? "[]" : "");
		emit(e, "STP_GLOBAL_LOCK(%s_lock, \"%s\");\n", g->name, sym->name);
		if (g->is_stats)
			emit_stat_desc(e, g);
		if (g->is_array) {
			emit(e, "static const struct stp_map_desc %s_desc = { .name = \"%s\", "
				".nkeys = %d, .key_types = {", g->name, sym->name, sym->arity);
			for (int k = 0; k < sym->arity; k++)
				emit(e, " %s,", sym->key_types[k] == TYPE_STRING ? "STP_TYPE_STRING" :
										    "STP_TYPE_LONG");
			emit(e, " }, .value_type = %s, .max_entries = %s, .wrap = %s%s%s%s };\n",
			     g->is_stats ? "STP_TYPE_STATS" :
			     sym->type == TYPE_STRING ? "STP_TYPE_STRING" : "STP_TYPE_LONG",
			     sym->array_size > 0 ? xasprintf("%" PRId64, sym->array_size) :
						   "MAXMAPENTRIES",
			     sym->wrap ? "true" : "false",
			     g->is_stats ? ", .stat = &" : "", g->is_stats ? g->name : "",
			     g->is_stats ? "_stat" : "");
			emit(e, "static struct %s *%s;\n", g->is_stats ? "stp_pmap" : "stp_map", g->name);
		} else if (g->is_stats) {
			emit(e, "static struct stp_pstat *%s;\n", g->name);
		} else if (sym->type == TYPE_STRING) {
			char *init = c_string(sym->init && sym->init->kind == ND_STRING ?
					      sym->init->string : "");

			emit(e, "static char %s[MAXSTRINGLEN] = %s;\n", g->name, init);
			if (param)
				emit(e, "STP_PARAM_STRING(%d, \"%s\", %s);\n", i, sym->name, g->name);
			free(init);
		} else {
			int64_t init = sym->init && sym->init->kind == ND_NUMBER ? sym->init->number : 0;

			if (init == INT64_MIN)
				emit(e, "static s64 %s = -9223372036854775807LL - 1;\n", g->name);
			else
				emit(e, "static s64 %s = %" PRId64 "LL;\n", g->name, init);
			if (param)
				emit(e, "STP_PARAM_S64(%d, \"%s\", %s);\n", i, sym->name, g->name);
		}
		emit(e, "\n");
	}
	/* for the lock timeouts reported at the end (runtime/globals.c) */
	emit(e, "static struct stp_global_lock *const *stp_script_global_locks(void)\n{\n"
		"\tstatic struct stp_global_lock *const locks[] = {");
	for (int i = 0; i < t->nglobals; i++)
		emit(e, " &%s_lock,", t->globals[i].name);
	emit(e, " NULL };\n\n\treturn locks;\n}\n\n");
}

/*
 * Embedded C's reach into script globals (stap(1), "Embedded C"): where a function's code
 * or an expression has pragma:read:NAME, STAP_GLOBAL_GET_NAME(keys...) gives the global's
 * value (a string as a pointer; 0 or "" for an element not there); where it has
 * pragma:write:NAME, STAP_GLOBAL_SET_NAME(keys..., value) sets it.  Defined before the C
 * function holding the code and undefined after it; the handlers that run such code take
 * the global's lock (translate_analysis.c).  Statistics are refused in pass 2.
 */
struct pragma_macros {
	struct translator *t;
	unsigned char *wanted;		/* per global: 1 read, 2 write */
};

static void want_pragma_macro(const char *name, size_t len, bool write, void *arg)
{
	struct pragma_macros *pm = arg;
	struct global_c *g = pragma_global_c(pm->t, name, len);

	if (g)
		pm->wanted[g - pm->t->globals] |= write ? 2 : 1;
}

static bool want_expression_macros(struct node *n, void *arg)
{
	if (n->kind == ND_EMBEDDED_EXPR)
		embedded_pragma_globals(n->string, want_pragma_macro, arg);
	return true;
}

static void define_pragma_macros(struct emitter *e, struct global_c *g, unsigned char wanted,
				 struct strbuf *undef)
{
	struct symbol *sym = g->sym;
	bool string = sym->type == TYPE_STRING;
	struct strbuf keys = { 0 }, params = { 0 };

	if (g->is_stats)
		return;
	for (int k = 0; g->is_array && k < sym->arity; k++) {
		sb_printf(&params, "k%d, ", k);
		sb_printf(&keys, "_gk[%d].%c = (k%d); ", k,
			  sym->key_types[k] == TYPE_STRING ? 's' : 'l', k);
	}
	if (params.len)		/* "k0, k1" for GET */
		params.data[params.len -= 2] = 0;
	if (wanted & 1) {
		if (!g->is_array)
			emit(e, "#define STAP_GLOBAL_GET_%s() (%s%s)\n", sym->name,
			     string ? "(const char *)" : "", g->name);
		else
			emit(e, "#define STAP_GLOBAL_GET_%s(%s) ({ union stp_key _gk[%d]; "
				"%sstruct stp_map_entry *_ge = stp_map_find(%s, _gk); %s; })\n",
			     sym->name, params.data, sym->arity, keys.data, g->name,
			     string ? "_ge ? (const char *)stp_entry_string(_ge) : \"\"" :
				      "_ge ? *stp_entry_long(_ge) : 0");
		sb_printf(undef, "#undef STAP_GLOBAL_GET_%s\n", sym->name);
	}
	if (wanted & 2) {
		if (!g->is_array && string)
			emit(e, "#define STAP_GLOBAL_SET_%s(val) stp_string_copy(%s, (val))\n",
			     sym->name, g->name);
		else if (!g->is_array)
			emit(e, "#define STAP_GLOBAL_SET_%s(val) ((void)(%s = (val)))\n",
			     sym->name, g->name);
		else
			emit(e, "#define STAP_GLOBAL_SET_%s(%s, val) do { union stp_key _gk[%d]; "
				"%sstruct stp_map_entry *_ge = stp_map_insert(%s, _gk); "
				"if (!_ge) stp_array_overflow(CONTEXT, &%s_desc); else %s; } while (0)\n",
			     sym->name, params.data, sym->arity, keys.data, g->name, g->name,
			     string ? "stp_string_copy(stp_entry_string(_ge), (val))" :
				      "*stp_entry_long(_ge) = (val)");
		sb_printf(undef, "#undef STAP_GLOBAL_SET_%s\n", sym->name);
	}
	sb_free(&keys);
	sb_free(&params);
}

/* The macros B's embedded C asks for; UNDEF gets the lines that take them back. */
static void emit_pragma_macros(struct emitter *e, struct body *b, struct strbuf *undef)
{
	struct pragma_macros pm = { b->t, xcalloc(b->t->nglobals + 1, 1) };

	if (b->function && b->function->embedded)
		embedded_pragma_globals(b->function->embedded->text, want_pragma_macro, &pm);
	else if (b->function)
		walk_nodes(b->function->body, want_expression_macros, &pm);
	else if (b->handler)
		walk_nodes(b->handler->body, want_expression_macros, &pm);
	for (int i = 0; i < b->t->nglobals; i++)
		if (pm.wanted[i])
			define_pragma_macros(e, &b->t->globals[i], pm.wanted[i], undef);
	free(pm.wanted);
}

static void emit_body(struct emitter *e, struct body *b)
{
	struct strbuf undef = { 0 };

	emit_pragma_macros(e, b, &undef);
	emit_body_function(e, b);
	if (undef.len)
		emit(e, "%s\n", undef.data);
	sb_free(&undef);
}

static void emit_alloc_free(struct emitter *e, struct translator *t)
{
	emit(e, "static int stp_script_alloc(void)\n{\n");
	for (int i = 0; i < t->nglobals; i++) {
		struct global_c *g = &t->globals[i];

		if (!g->is_array && !g->is_stats)
			continue;
		if (g->is_stats)
			emit(e, "\tstp_stat_desc_init(&%s_stat);\n", g->name);
		emit(e, "\t%s = %s(%s%s%s);\n\tif (!%s)\n\t\treturn -ENOMEM;\n", g->name,
		     g->is_array ? (g->is_stats ? "stp_pmap_alloc" : "stp_map_alloc") :
				   "stp_pstat_alloc",
		     "&", g->name, g->is_array ? "_desc" : "_stat", g->name);
	}
	emit(e, "\treturn 0;\n}\n\n");
	emit(e, "static void stp_script_free(void)\n{\n");
	for (int i = t->nglobals - 1; i >= 0; i--) {
		struct global_c *g = &t->globals[i];

		if (!g->is_array && !g->is_stats)
			continue;
		emit(e, "\t%s(%s);\n\t%s = NULL;\n",	/* the free functions take NULL */
		     g->is_array ? (g->is_stats ? "stp_pmap_free" : "stp_map_free") : "stp_pstat_free",
		     g->name, g->name);
	}
	emit(e, "}\n\n");
}

/* With user-space symbols (USYMS) these are stp_script_start/stop_probes, which
 * user_symbols_emit()'s stp_script_start/stop run between the tables' start and stop. */
static void emit_script_start_stop(struct emitter *e, struct translator *t, bool usyms)
{
	struct program *prog = t->prog;
	const char *suffix = usyms ? "_probes" : "";
	const struct probe_family *used[64];
	int nused = 0;

	for (int i = 0; probe_families[i]; i++)
		for (struct derived_probe *dp = prog->probes; dp; dp = dp->next)
			if (dp->family == probe_families[i]) {
				used[nused++] = probe_families[i];
				break;
			}

	/* modules' static variables are found before any probe runs, forgotten after */
	bool symbols = prog->module_symbols.count > 0;

	emit(e, "static int stp_script_start%s(void)\n{\n\tint rc = 0;\n\n", suffix);
	for (int i = 0; i < t->nglobals; i++)
		if (t->globals[i].is_stats && t->globals[i].hist &&
		    strcmp(t->globals[i].hist->string, "@hist_linear") == 0)
			emit(e, "	if (stp_hist_linear_check(&%s_stat, \"%s\"))\n"
				"\t\treturn STP_START_REPORTED;\n", t->globals[i].name,
			     t->globals[i].sym->name);
	if (symbols)
		emit(e, "\trc = stp_module_symbols_start();\n\tif (rc)\n\t\treturn rc;\n");
	for (int i = 0; i < nused; i++) {
		emit(e, "\trc = stp_register_%s();\n\tif (rc)\n", used[i]->name);
		if (i > 0)
			emit(e, "\t\tgoto unwind_%d;\n", i - 1);
		else
			emit(e, symbols ? "\t\tgoto unwind_symbols;\n" : "\t\treturn rc;\n");
	}
	emit(e, "\treturn rc;\n");
	for (int i = nused - 2; i >= 0; i--)
		emit(e, "unwind_%d:\n\tstp_unregister_%s(false);\n%s", i, used[i]->name,
		     i == 0 && !symbols ? "\treturn rc;\n" : "");
	if (symbols)
		emit(e, "unwind_symbols:\n\tstp_module_symbols_stop();\n\treturn rc;\n");
	emit(e, "}\n\n");

	emit(e, "static void stp_script_stop%s(bool run_end_probes)\n{\n", suffix);
	if (nused == 0)
		emit(e, "\t(void)run_end_probes;\n");
	for (int i = nused - 1; i >= 0; i--)
		emit(e, "\tstp_unregister_%s(run_end_probes);\n", used[i]->name);
	if (symbols)
		emit(e, "\tstp_module_symbols_stop();\n");
	emit(e, "}\n");
}


/* ---- the module ---- */

static struct body *new_body(struct translator *t, struct body *bodies, int *nbodies,
			     char *frame)
{
	struct body *b = &bodies[(*nbodies)++];

	b->t = t;
	b->frame = frame;
	b->error_label = "out";
	return b;
}

/*
 * Every function, handler and probe condition as C statements.  They are translated
 * before anything is emitted: their temporaries size the frames.
 */
static struct body *translate_bodies(struct translator *t, int *nbodies)
{
	struct program *prog = t->prog;
	struct body *bodies = xcalloc(2 * prog->nbodies + prog->nfunctions + prog->nprobes + 1,
				      sizeof(*bodies));

	t->handler_bodies = xcalloc(prog->nbodies + 1, sizeof(*t->handler_bodies));

	for (struct function *f = prog->functions; f; f = f->next_used) {
		struct body *b = new_body(t, bodies, nbodies, xstrdup(function_c_name(t, f)));

		b->function = f;
		if (f->body)
			translate_function_body(b, f);
	}
	for (struct probe_body *h = prog->bodies; h; h = h->next) {
		struct body *b;

		if (h->elided)
			continue;
		b = new_body(t, bodies, nbodies, xasprintf("probe_%d", h->index));
		b->handler = h;
		b->hoist = true;
		t->handler_bodies[h->index] = b;
		translate_handler(b, h->body, 1);
	}
	/* a return probe's @entry(...): its function's entry evaluates and keeps them */
	for (struct probe_body *h = prog->bodies; h; h = h->next) {
		struct body *b;

		if (h->elided || !h->nentries)
			continue;
		b = new_body(t, bodies, nbodies, xasprintf("probe_%d_entry", h->index));
		b->handler = h;
		b->locks = xcalloc(t->nglobals + 1, sizeof(*b->locks));
		for (int i = 0; i < h->nentries; i++) {
			enum global_access *used = handler_access(t, h->entries[i]->lhs);
			char *value = translate_expr(b, h->entries[i]->lhs);
			char *where = entry_offset(h, i);

			for (int g = 0; g < t->nglobals; g++)
				if (b->locks[g] < used[g])
					b->locks[g] = used[g];
			if (h->entries[i]->type == TYPE_STRING)
				body_line(b, 1, "stp_string_copy(stp_kept_string(c, %s), %s);", where,
					  value);
			else
				body_line(b, 1, "*stp_kept_long(c, %s) = %s;", where, value);
			free(value);
			free(where);
			free(used);
		}
	}
	/* a point with "if (cond)" runs its handler only while the condition holds */
	for (struct derived_probe *dp = prog->probes; dp; dp = dp->next) {
		struct body *b;
		char *cond;

		if (!dp->condition)
			continue;
		b = new_body(t, bodies, nbodies,
			     xasprintf("probe_%d_if_%d", dp->handler->index, dp->index));
		b->handler = dp->handler;
		b->guarded = dp;
		b->locks = handler_access(t, dp->condition);
		cond = translate_expr(b, dp->condition);
		body_line(b, 1, "run = (%s) != 0;", cond);
		free(cond);
	}
	return bodies;
}

/*
 * Handlers whose C is the same but for their literals (an alias or a wildcard expanded to
 * many points, each prologue setting `name = "read"`, each statement placed in its own
 * tapset file) share one function, which reads the literals from the probe's table
 * (stp_probe.consts): the compiler makes one function, not hundreds.  The comparison is
 * of the C as it would be written, frame and lock tables included, the body's own name
 * taken out.  A handler that shares with none keeps its literals in its code.
 */
struct shared_text {
	char *text;
	struct body *b;
};

static int compare_shared_texts(const void *x, const void *y)
{
	const struct shared_text *a = x, *b = y;
	int c = strcmp(a->text, b->text);

	return c ? c : (a->b > b->b) - (a->b < b->b);
}

/*
 * TEXT with each NAME that stands alone as a name, or begins one with '_', as "@F";
 * not inside a string or character literal, whose text is what the code prints.
 */
static char *without_name(const char *text, const char *name)
{
	struct strbuf sb = { 0 };
	size_t n = strlen(name);
	const char *p = text;

	while (*p) {
		if (*p == '"' || *p == '\'') {
			const char *q = p + 1;

			while (*q && *q != *p)
				q += q[0] == '\\' && q[1] ? 2 : 1;
			q += *q != 0;
			sb_putn(&sb, p, q - p);
			p = q;
		} else if (strncmp(p, name, n) == 0 && !isalnum((unsigned char)p[n]) &&
			   (p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_'))) {
			sb_puts(&sb, "@F");
			p += n;
		} else {
			sb_putc(&sb, *p++);
		}
	}
	return sb_steal(&sb);
}

static void emit_locals_struct(struct emitter *e, struct body *b);

static void share_handlers(struct translator *t, struct body *bodies, int nbodies)
{
	struct shared_text *texts = xcalloc(nbodies + 1, sizeof(*texts));
	int n = 0;

	for (int i = 0; i < nbodies; i++) {
		struct body *b = &bodies[i];
		struct emitter scratch = { .session = t->session };

		if (!b->hoist)
			continue;
		b->sharing = true;	/* markers as _K[n]: the same for the same code */
		emit_locals_struct(&scratch, b);
		emit_body(&scratch, b);
		texts[n].text = without_name(scratch.out.data, b->frame);
		texts[n++].b = b;
		sb_free(&scratch.out);
	}
	qsort(texts, n, sizeof(*texts), compare_shared_texts);
	for (int i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && strcmp(texts[i].text, texts[j].text) == 0; j++)
			texts[j].b->shared = texts[i].b;
		if (j == i + 1)
			texts[i].b->sharing = false;
	}
	for (int i = 0; i < n; i++)
		free(texts[i].text);
	free(texts);
}

/* One frame of locals per body; a CPU's frames hold the deepest call chain's. */
static void emit_frames(struct emitter *e, struct body *bodies, int nbodies)
{
	for (int i = 0; i < nbodies; i++)
		emit_locals_struct(e, &bodies[i]);
	emit(e, "union stp_frame {\n");
	for (int i = 0; i < nbodies; i++)
		emit(e, "\tstruct %s_locals %s;\n", bodies[i].frame, bodies[i].frame);
	emit(e, "};\n\n");
	emit(e, "#define STP_FRAME(c, depth) (&((union stp_frame *)(c)->frames)[depth])\n\n");
	emit(e, "static size_t stp_script_frame_size(void)\n{\n"
		"\treturn sizeof(union stp_frame);\n}\n\n");
}

/* stp_probes[]: every derived probe, its handler, its point and where it was written. */
static void emit_probes_array(struct emitter *e, struct translator *t)
{
	struct program *prog = t->prog;

	emit(e, "static const struct stp_probe stp_probes[] = {\n");
	for (struct derived_probe *dp = prog->probes; dp; dp = dp->next) {
		char *pp = derived_probe_pp(dp);
		char *point = c_string(pp);
		char *script_point = c_string(dp->script_point ? dp->script_point : pp);
		char *from_point = c_string(dp->from_point ? dp->from_point : dp->name);
		struct token *at = dp->location ? dp->location : dp->point->tok;
		char *where = xasprintf("%s:%d:%d", at->file->name, at->line, at->column);
		char *location = c_string(where);
		struct body *body = t->handler_bodies[dp->handler->index];
		char *handler = dp->condition ?
			xasprintf("probe_%d_if_%d", dp->handler->index, dp->index) :
			handler_function(t, dp->handler);

		emit(e, "\t[%d] = { .handler = %s, .point = %s, .script_point = %s, "
		     ".from_point = %s, .location = %s", dp->index, handler, point,
		     script_point, from_point, location);
		if (body && body->sharing)
			emit(e, ", .consts = %s_K", body->frame);
		emit(e, " },\n");
		free(from_point);
		free(pp);
		free(point);
		free(script_point);
		free(where);
		free(location);
		free(handler);
	}
	emit(e, "};\n\n");
	emit(e, "static __maybe_unused const struct stp_probe *stp_script_probes(size_t *count)\n{\n"
		"\t*count = ARRAY_SIZE(stp_probes);\n\treturn stp_probes;\n}\n\n");
	emit(e, "static bool stp_script_reads_stdin(void)\n{\n\treturn %s;\n}\n\n",
	     prog->reads_stdin ? "true" : "false");
	/* what a return probe's function entry runs: its @entry values */
	for (struct probe_body *h = prog->bodies; h; h = h->next)
		if (!h->elided && h->nentries && h->context)
			emit(e, "static const struct stp_probe probe_%d_entry_probe = { "
				".handler = probe_%d_entry, .point = stp_probes[%d].point, "
				".script_point = stp_probes[%d].script_point, "
				".from_point = stp_probes[%d].from_point, "
				".location = stp_probes[%d].location };\n\n", h->index, h->index,
			     h->context->index, h->context->index, h->context->index,
			     h->context->index);
}

/* Each family used writes its own tables and stp_register_FAMILY()/unregister. */
static void emit_family_tables(struct emitter *e, struct program *prog)
{
	for (int i = 0; probe_families[i]; i++) {
		bool used = false;

		for (struct derived_probe *dp = prog->probes; dp; dp = dp->next)
			used |= dp->family == probe_families[i];
		if (used && probe_families[i]->emit)
			probe_families[i]->emit(e, prog);
		if (used && probe_families[i]->table)
			emit_probe_table(e, prog, probe_families[i], probe_families[i]->table);
	}
}

char *translate(struct session *s, struct program *prog)
{
	struct emitter e = { .session = s };
	struct translator t = { .session = s, .prog = prog };
	struct body *bodies;
	int nbodies = 0;
	bool usyms = program_uses_pragma(prog, "pragma:usymbols") ||	/* user_symbols.c */
		     prog->user_file_addresses;
	bool ulines = program_uses_pragma(prog, "pragma:ulines");
	bool klines = program_uses_pragma(prog, "pragma:klines");	/* kernel_lines_c.c */

	if (analyze_program(&t))
		return NULL;
	bodies = translate_bodies(&t, &nbodies);
	share_handlers(&t, bodies, nbodies);

	emit(&e, "/* Generated by stapler %s pass 3 from %s.  Do not edit. */\n",
	     STAPLER_VERSION, prog->files->source->name);
	if (prog->jiffies_link)	/* runtime/target_vars.c moves link-time addresses by it */
		emit(&e, "#define STP_JIFFIES_LINK %#" PRIx64 "ULL\n", prog->jiffies_link);
	if (prog->module_symbols.count) {	/* runtime/module_symbols.c finds them */
		emit(&e, "#define STP_MODULE_SYMBOLS");
		for (int i = 0; i < prog->module_symbols.count; i++)
			emit(&e, "%s \"%s\"", i ? "," : "", prog->module_symbols.items[i]);
		emit(&e, "\n");
	}
	if (t.nregexes) {	/* the context's room for =~ (runtime/regex.c) */
		int groups = 1;
		size_t scratch = 1;

		for (int i = 0; i < t.nregexes; i++) {
			if (!t.regexes[i].re)
				continue;
			if (regex_groups(t.regexes[i].re) > groups)
				groups = regex_groups(t.regexes[i].re);
			if (regex_scratch_words(t.regexes[i].re) > scratch)
				scratch = regex_scratch_words(t.regexes[i].re);
		}
		emit(&e, "#define STP_REGEX_GROUPS %d\n#define STP_REGEX_SCRATCH %zu\n", groups,
		     scratch);
	}
	if (usyms)	/* runtime/usymbols.c */
		emit(&e, "#define STP_USYMBOLS 1\n");
	if (klines)	/* runtime/klines.c */
		emit(&e, "#define STP_KLINES 1\n");
	/* as stap, for embedded C that asks whether the wall clock is read */
	if (program_uses_pragma(prog, "pragma:gettimeofday"))
		emit(&e, "#define STAP_NEED_GETTIMEOFDAY 1\n");
	/* runtime/netfilter.c, whose networking headers are a fifth of a small module's
	 * compile, only for netfilter probes */
	for (struct derived_probe *dp = prog->probes; dp; dp = dp->next) {
		if (dp->family == &netfilter_family) {
			emit(&e, "#define STP_NETFILTER 1\n");
			break;
		}
	}
	/* --compatible=1.2 and older: %p zero-padded (runtime/format.c) */
	if (s->compat_version && strverscmp(s->compat_version, "1.3") < 0)
		emit(&e, "#define STP_FMT_POINTER_PADDED 1\n");
	/* the deepest chain of calls, as stap works it out (-DMAXNESTING=N overrides) */
	emit(&e, "#ifndef MAXNESTING\n#define MAXNESTING %d\n#endif\n", script_nesting(&t));
	emit(&e, "#include \"runtime.h\"\n\n");
	for (int i = 0; i < s->modinfo.count; i++) {	/* --modinfo NAME=VALUE */
		const char *arg = s->modinfo.items[i], *value = strchr(arg, '=') + 1;
		char *quoted = c_string(value);

		emit(&e, "MODULE_INFO(%.*s, %s);\n", (int)(value - 1 - arg), arg, quoted);
		free(quoted);
	}
	if (klines)
		kernel_lines_emit(&e, s);
	emit(&e, "/* embedded C reaches the probe's context as CONTEXT */\n#define CONTEXT c\n\n");
	for (struct stapfile *file = prog->files; file; file = file->next)
		for (struct embed *em = file->embeds; em; em = em->next)
			emit_embedded_code(&e, em->code);
	for (int i = 0; i < t.nregexes; i++) {
		char *name = xasprintf("stp_regex_%d", i);
		char *pattern = c_string(t.regexes[i].pattern);

		emit(&e, "// =~ %s\n", pattern);
		if (t.regexes[i].re)
			regex_emit(&e.out, t.regexes[i].re, name);
		regex_free(t.regexes[i].re);
		free(name);
		free(pattern);
	}
	free(t.regexes);
	emit_globals(&e, &t);
	emit_frames(&e, bodies, nbodies);
	emit_alloc_free(&e, &t);
	for (struct function *f = prog->functions; f; f = f->next_used)
		emit(&e, "static void %s(struct context *c);\n", function_c_name(&t, f));
	emit(&e, "\n");
	for (struct function *f = prog->functions; f; f = f->next_used) {
		if (has_caller_function(f)) {
			char *caller = function_caller(&t, f);

			emit(&e, "%s\n", caller);
			free(caller);
		}
	}
	for (int i = 0; i < nbodies; i++) {
		emit_literal_table(&e, &bodies[i]);
		emit_body(&e, &bodies[i]);
	}
	emit_probes_array(&e, &t);
	emit_family_tables(&e, prog);
	t.errors += user_symbols_emit(&e, s, usyms, ulines);
	emit_script_start_stop(&e, &t, usyms);

	for (int i = 0; i < nbodies; i++) {
		free(bodies[i].frame);
		free(bodies[i].locks);
		free(bodies[i].stables);
		free(bodies[i].stable_scope);
		sb_free(&bodies[i].code);
		strlist_free(&bodies[i].consts);
	}
	free(bodies);
	free(t.handler_bodies);
	if (t.errors) {
		sb_free(&e.out);
		return NULL;
	}
	return sb_steal(&e.out);
}
