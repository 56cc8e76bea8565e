/*
 * privilege.c - --privilege=stapusr|stapsys|stapdev (and --unprivileged): what a script
 * built for a less privileged user may use, as stap(1) "UNPRIVILEGED USERS" lists it.
 *
 *   stapdev  everything (the default)
 *   stapsys  every probe point and tapset function, but no guru mode and no embedded C
 *            of the script's own (options.c refuses -g; the parser, embedded C)
 *   stapusr  that, and only the probe points of its own processes and of time: begin,
 *            end, error, never, process.*, timer.{jiffies,s,sec,ms,msec,us,usec,ns,nsec,
 *            hz}(N); and only the tapset functions with embedded C whose code says
 *            it is safe for them: "unprivileged" or "myproc-unprivileged", as stap's
 *            tapsets mark theirs (embedded-C expressions of tapset functions alike);
 *            only the library's marks count, not those of a tapset in an -I folder
 *            (stap 4.8 takes those too: a user's own tapset could read the kernel)
 *
 * Pass 2 says what is refused in stap's words.
 */
#include "stap.h"
#include "elaborate.h"

#include <string.h>

const char *session_privilege(const struct session *s)
{
	return s->privilege ? s->privilege : "stapdev";
}

static bool is_stapusr(const struct session *s)
{
	return strcmp(session_privilege(s), "stapusr") == 0;
}

/* What a stapusr script may probe: its own processes, and time. */
static bool stapusr_point(const struct probe_point *pp)
{
	static const char *const everywhere[] = { "begin", "end", "error", "never", "process" };
	static const char *const timers[] = { "jiffies", "s", "sec", "ms", "msec", "us", "usec",
					      "ns", "nsec", "hz" };
	const struct component *first = pp->components;

	for (size_t i = 0; i < sizeof(everywhere) / sizeof(everywhere[0]); i++)
		if (strcmp(first->name, everywhere[i]) == 0)
			return true;
	if (strcmp(first->name, "timer") != 0 || !first->next)
		return false;
	for (size_t i = 0; i < sizeof(timers) / sizeof(timers[0]); i++)
		if (strcmp(first->next->name, timers[i]) == 0)
			return true;
	return false;
}

/*
 * Whether the session's privilege may use the concrete point PP (a family's form); if
 * not, says so at its last component, as stap does.
 */
bool privilege_allows_point(struct elaborator *el, struct probe_point *pp)
{
	const struct component *last = pp->components;

	if (!is_stapusr(el->session) || stapusr_point(pp))
		return true;
	while (last->next)
		last = last->next;
	semantic_error(el, last->tok, "probe point is not allowed for --privilege=%s",
		       session_privilege(el->session));
	return false;
}

/*
 * @cast to a kernel type, @var of a kernel variable (N): kernel memory at an address the
 * script chooses, which a stapusr script may not read (stap 4.8 finds no kernel types or
 * variables for it: "type definition ... not found", "unresolved @var() expression").
 * The tapsets' own uses are theirs.
 */
bool privilege_allows_kernel_memory(struct elaborator *el, struct node *n, bool quiet)
{
	if (!is_stapusr(el->session) || (n->tok->file && n->tok->file->is_tapset &&
					 !n->tok->file->from_include_dir))
		return true;
	if (!quiet)
		semantic_error(el, n->tok, "%s of kernel memory is not allowed for "
			       "--privilege=%s", n->kind == ND_CAST ? "@cast" : "@var",
			       session_privilege(el->session));
	return false;
}

/* A tapset of an -I folder: its author is not the library's, whose marks stapusr trusts. */
static bool from_include_dir(const struct token *tok)
{
	return tok && tok->file && tok->file->from_include_dir;
}

/* An embedded-C function of the library says it is safe for stapusr in its code's comments. */
static bool unprivileged_function(const struct function *f)
{
	const char *code = f->embedded ? f->embedded->text : "";

	if (from_include_dir(f->tok))
		return false;
	return strstr(code, "/* unprivileged */") || strstr(code, "/* myproc-unprivileged */");
}

bool function_unprivileged(const struct function *f)
{
	return f->embedded ? unprivileged_function(f) : !from_include_dir(f->tok);
}

/* An embedded-C expression of a tapset (%{ ... %} in a script function) not marked as
 * safe for stapusr; @const's are. */
static bool refuse_embedded_expression(struct node *n, void *arg)
{
	struct elaborator *el = arg;

	if (n->kind == ND_EMBEDDED_EXPR && (from_include_dir(n->tok) ||
					    (!strstr(n->string, "/* unprivileged */") &&
					     !strstr(n->string, "/* myproc-unprivileged */"))))
		semantic_error(el, n->tok, "embedded expression may not be used when "
			       "--privilege=%s is specified", session_privilege(el->session));
	return true;
}

/* After the functions are resolved: those stapusr may not call. */
void check_function_privilege(struct elaborator *el)
{
	if (!is_stapusr(el->session))
		return;
	for (struct function *f = el->prog->functions; f; f = f->next_used) {
		if (f->embedded && !unprivileged_function(f))
			semantic_error(el, f->tok, "function may not be used when "
				       "--privilege=%s is specified",
				       session_privilege(el->session));
		if (f->body)
			walk_nodes(f->body, refuse_embedded_expression, el);
	}
	for (struct probe_body *h = el->prog->bodies; h; h = h->next)
		walk_nodes(h->body, refuse_embedded_expression, el);
}
