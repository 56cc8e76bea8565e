/*
 * main.c - the stap command: the options (options.c), then the five passes in order, as
 * far as -p asks.  Each pass is one function here that hands its result to the next in
 * struct passes; with -v each reports its time and memory as stap does.
 */
#include "stap.h"
#include "../staprun/sdt_markers.h"
#include "cache.h"
#include "build/module_cache.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* ---- per-pass reports: "Pass N: ... using Xvirt/Yres/Zshr/Wdata kb, in ... ms." ---- */

struct pass_clock {
	struct rusage usage;
	struct timespec wall;
};

/* CPU time of stap and of the programs it ran (make, the compiler). */
static void cpu_usage(struct rusage *total)
{
	struct rusage children;

	getrusage(RUSAGE_SELF, total);
	getrusage(RUSAGE_CHILDREN, &children);
	timeradd(&total->ru_utime, &children.ru_utime, &total->ru_utime);
	timeradd(&total->ru_stime, &children.ru_stime, &total->ru_stime);
}

static void clock_start(struct pass_clock *pc)
{
	cpu_usage(&pc->usage);
	clock_gettime(CLOCK_MONOTONIC, &pc->wall);
}

static long ms_between(struct timeval a, struct timeval b)
{
	return (b.tv_sec - a.tv_sec) * 1000 + (b.tv_usec - a.tv_usec) / 1000;
}

static char *usage_since(struct pass_clock *pc, bool with_memory)
{
	struct rusage now;
	struct timespec wall;
	unsigned long size = 0, resident = 0, shared = 0, text, lib, data = 0;
	long page_kb = sysconf(_SC_PAGESIZE) / 1024;
	char *memory = xstrdup("");
	char *s;
	FILE *f;

	cpu_usage(&now);
	clock_gettime(CLOCK_MONOTONIC, &wall);
	if (with_memory && (f = fopen("/proc/self/statm", "r"))) {
		if (fscanf(f, "%lu %lu %lu %lu %lu %lu", &size, &resident, &shared, &text, &lib,
			   &data) == 6) {
			free(memory);
			memory = xasprintf("using %luvirt/%lures/%lushr/%ludata kb, ",
					   size * page_kb, resident * page_kb, shared * page_kb,
					   data * page_kb);
		}
		fclose(f);
	}
	s = xasprintf("%sin %ldusr/%ldsys/%ldreal ms.", memory,
		      ms_between(pc->usage.ru_utime, now.ru_utime),
		      ms_between(pc->usage.ru_stime, now.ru_stime),
		      (wall.tv_sec - pc->wall.tv_sec) * 1000 +
			      (wall.tv_nsec - pc->wall.tv_nsec) / 1000000);
	free(memory);
	return s;
}

static void remove_tmpdir(struct session *s);

/* Ctrl-C during passes 1-4 still cleans up (pass 5 forwards signals to staprun). */
static struct session *interrupted_session;

static void on_interrupt(int sig)
{
	if (interrupted_session)
		remove_tmpdir(interrupted_session);
	cache_cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void catch_interrupts(struct session *s)
{
	static const int signals[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
	struct sigaction sa = { .sa_handler = on_interrupt };

	interrupted_session = s;
	for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
		sigaction(signals[i], &sa, NULL);
}

static void remove_tmpdir(struct session *s)
{
	if (!s->tmpdir)
		return;
	if (s->keep_tmpdir)
		fprintf(stderr, "Keeping temporary directory \"%s\"\n", s->tmpdir);
	else
		remove_tree_warning(s->tmpdir);
}

/* What the passes hand each other. */
struct passes {
	struct session *s;
	struct source_file *script;
	struct preprocessor *pp;
	struct stapfile *user;		/* pass 1 */
	struct program *prog;		/* pass 2 */
	char *cache_key;		/* of the module, when the cache is used */
	bool cached;			/* a cache hit: passes 3 and 4 are skipped */
	struct pass_clock clock;
};

static struct source_file *read_script(struct session *s)
{
	struct source_file *src = xcalloc(1, sizeof(*src));

	if (s->script_text) {
		src->name = "<input>";
		src->text = xstrdup(s->script_text);
		return src;
	}
	src->name = xstrdup(s->script_file);
	src->text = read_file(strcmp(s->script_file, "-") == 0 ? "/dev/stdin" : s->script_file,
			      NULL);
	if (!src->text) {
		diag_error("cannot read script '%s': %s", s->script_file, strerror(errno));
		exit(1);
	}
	if (strcmp(s->script_file, "-") == 0)
		src->name = "<input>";
	return src;
}

static int fail(struct session *s, int pass, const char *what)
{
	diag_pass_failed(pass, what);
	remove_tmpdir(s);
	return 1;
}

/* "Pass N: WHAT SUMMARY using ... in ... ms." with -v (memory only for passes 1-3). */
static void report_pass(struct passes *p, int pass, const char *what)
{
	char *usage;

	if (!verbose_at(p->s, pass, 1))
		return;
	usage = usage_since(&p->clock, pass <= 3);
	fprintf(stderr, "Pass %d: %s %s\n", pass, what, usage);
	free(usage);
}

/* The end of the list whose first link is at HEAD (any list of next-linked nodes). */
#define LIST_TAIL(head, type) ({ type **t_ = (head); while (*t_) t_ = &(*t_)->next; t_; })

/* -E SCRIPT: each parsed as a file of its own ("<-E N>" in messages), whose probes,
 * functions, globals and embedded C join the script's. */
static void add_extra_scripts(struct session *s, struct preprocessor *pp, struct stapfile *user,
			      int *errors)
{
	for (int i = 0; i < s->extra_scripts.count; i++) {
		struct source_file *src = xcalloc(1, sizeof(*src));
		struct stapfile *extra;

		src->name = xasprintf("<-E %d>", i + 1);
		src->text = xstrdup(s->extra_scripts.items[i]);
		extra = parse_file(pp, src, s->guru, true, errors);
		*LIST_TAIL(&user->probes, struct probe) = extra->probes;
		*LIST_TAIL(&user->functions, struct function) = extra->functions;
		*LIST_TAIL(&user->globals, struct symbol) = extra->globals;
		*LIST_TAIL(&user->embeds, struct embed) = extra->embeds;
	}
}

/* --dump-probe-types, --dump-probe-aliases, --dump-functions: what there is, a line each. */
static int dump_library(struct session *s)
{
	struct preprocessor *pp = preprocessor_new(s);
	struct strlist lines = { 0 };
	int errors = 0;

	if (s->dump != DUMP_PROBE_TYPES)
		tapset_load_macros(s, pp, &errors);
	lines = s->dump == DUMP_PROBE_TYPES ? dump_probe_types() :
		s->dump == DUMP_PROBE_ALIASES ? dump_probe_aliases(s, pp) : dump_functions(s, pp);
	for (int i = 0; i < lines.count; i++)
		puts(lines.items[i]);
	strlist_free(&lines);
	return 0;
}

/*
 * -l / -L PATTERN: the probe points it names (status 1 if none), as "probe PATTERN {}".
 * As in stap, the text may define aliases before the points it lists
 * ("a = kernel.function(...) { ... } probe a"), and name several ("begin {} probe end").
 */
static int list_points(struct session *s)
{
	struct source_file *src = xcalloc(1, sizeof(*src));
	struct preprocessor *pp = preprocessor_new(s);
	struct stapfile *file;
	int errors = 0, listed = 0;

	tapset_load_macros(s, pp, &errors);
	src->name = "<input>";
	src->text = xasprintf("probe %s {}", s->list_pattern);
	file = parse_file(pp, src, s->guru, true, &errors);
	if (errors)
		return fail(s, 1, "parse failed");
	add_extra_scripts(s, pp, file, &errors);	/* their aliases can be listed */
	if (errors)
		return fail(s, 1, "parse failed");
	for (struct probe *p = file->probes; p; p = p->next) {
		struct strlist lines;

		if (p->alias)
			continue;
		lines = list_probe_points(s, pp, file, p, s->list_locals);
		for (int i = 0; i < lines.count; i++)
			puts(lines.items[i]);
		listed += lines.count;
		strlist_free(&lines);
	}
	return listed ? 0 : 1;
}

/* Pass 1: the script (with the macro libraries every script sees); false after errors. */
static bool parse_pass(struct passes *p)
{
	struct session *s = p->s;
	struct stapfile *user;
	int errors = 0, library_files;
	char *what;

	clock_start(&p->clock);
	p->pp = preprocessor_new(s);
	/* the library's part of pass 1 (its macro files; the rest is read in pass 2), then
	 * the script: the markers stap calls pass 1b and 1a */
	STP_MARK1(stap, pass1b__start, s);
	library_files = tapset_load_macros(s, p->pp, &errors);
	STP_MARK1(stap, pass1a__start, s);
	user = p->user = parse_file(p->pp, p->script, s->guru, true, &errors);
	add_extra_scripts(s, p->pp, user, &errors);
	/* as stap: a script of only macro definitions is empty after preprocessing */
	if (!errors && !user->probes && !user->functions && !user->globals && !user->embeds) {
		fprintf(stderr, "Input file '%s' is empty%s.\n", p->script->name,
			user->empty_after_preprocessing || user->macros ? " after preprocessing" : "");
		return false;
	}
	if (errors) {
		fprintf(stderr, "%d parse error%s.\n", errors, errors == 1 ? "" : "s");
		return false;
	}
	if (tapset_check_include_dirs(s, p->pp))
		return false;
	what = xasprintf("parsed user script and %d library scripts", library_files);
	report_pass(p, 1, what);
	free(what);
	return true;
}

/* -T SECS: stap's synthesized `probe timer.ms(SECS * 1000) { exit() }`, first of the script's. */
static void add_timeout_probe(struct session *s, struct preprocessor *pp, struct stapfile *user)
{
	struct source_file *src = xcalloc(1, sizeof(*src));
	struct stapfile *file;
	struct probe *last;
	int errors = 0;

	src->name = "<-T option>";
	src->text = xasprintf("probe timer.ms(%ld) { exit() }", s->timeout_secs * 1000);
	file = parse_file(pp, src, false, false, &errors);
	if (errors || !file->probes)
		return;		/* cannot happen: the text is ours */
	for (last = file->probes; last->next; last = last->next)
		;
	last->next = user->probes;
	user->probes = file->probes;
}

static const char *plural(long n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* Pass 2: what the script means; -p2 prints the program before the summary, as stap. */
static bool elaborate_pass(struct passes *p)
{
	struct session *s = p->s;
	struct program *prog;
	int errors = 0;
	char *what;

	clock_start(&p->clock);
	if (s->timeout_secs)
		add_timeout_probe(s, p->pp, p->user);
	prog = p->prog = elaborate(s, p->pp, p->user, &errors);
	if (errors)
		return false;
	if (s->last_pass == 2) {
		dump_program(stdout, prog, verbose_at(s, 2, 1));
		fflush(stdout);
	}
	what = xasprintf("analyzed script: %d %s, %d %s, %d %s, %d %s", prog->nprobes,
			 plural(prog->nprobes, "probe", "probes"), prog->nfunctions,
			 plural(prog->nfunctions, "function", "functions"), prog->nembeds,
			 plural(prog->nembeds, "embed", "embeds"), prog->nglobals,
			 plural(prog->nglobals, "global", "globals"));
	report_pass(p, 2, what);
	free(what);
	return true;
}

/* The module's name and the work folder passes 3 and 4 share. */
static bool prepare_module(struct passes *p)
{
	struct session *s = p->s;

	if (!s->module_name) {
		char *name = default_module_name(s, p->script->text);

		/* a session's module carries our pid so two runs of a script can coexist */
		s->module_name = s->last_pass == 5 ? xasprintf("%s_%d", name, (int)getpid()) : name;
	}
	catch_interrupts(s);
	s->tmpdir = xasprintf("%s/stapXXXXXX", s->tmpdir_parent);
	if (!mkdtemp(s->tmpdir)) {
		diag_error("cannot make a temporary folder in %s: %s", s->tmpdir_parent,
			   strerror(errno));
		s->tmpdir = NULL;
		return false;
	}
	return true;
}

/* Pass 3: the module's C; -p3 prints it.  A module cache hit skips passes 3 and 4. */
static bool translate_pass(struct passes *p)
{
	struct session *s = p->s;
	char *c_source, *c_path, *what;

	clock_start(&p->clock);
	if (!prepare_module(p))
		return false;
	/* -p3 prints the C, so it translates */
	if (s->last_pass >= 4 && cache_mode != CACHE_DISABLED) {
		p->cache_key = cache_key(s, p->prog, p->script->name, p->script->text);
		/* the user-space files whose tables the module carries (user_symbols.c) */
		p->cache_key = user_symbols_cache_key(s, p->prog, p->cache_key);
		/* the kernel debuginfo whose line table it carries (kernel_lines.c) */
		p->cache_key = kernel_lines_cache_key(s, p->prog, p->cache_key);
		p->cached = cache_fetch(s, p->cache_key);
		if (p->cached)
			return true;
	}
	c_source = translate(s, p->prog);
	if (!c_source)
		return false;
	c_path = xasprintf("%s/%s.c", s->tmpdir, s->module_name);
	if (write_file(c_path, c_source, strlen(c_source))) {
		diag_error("cannot write %s: %s", c_path, strerror(errno));
		return false;
	}
	what = xasprintf("translated to C into \"%s\"", c_path);
	report_pass(p, 3, what);
	free(what);
	if (s->last_pass == 3)
		fputs(c_source, stdout);
	free(c_source);
	free(c_path);
	return true;
}

/* Pass 4: the kernel's kbuild makes the .ko (unless the cache had it). */
static bool compile_pass(struct passes *p)
{
	struct session *s = p->s;
	char *what;

	if (p->cached)
		return true;
	clock_start(&p->clock);
	if (build_module(s))
		return false;
	what = xasprintf("compiled C into \"%s.ko\"", s->module_name);
	report_pass(p, 4, what);
	free(what);
	if (p->cache_key)
		cache_store(s, p->cache_key);
	return true;
}

/* -p4: the module goes to the current folder (a --remote build's: where remote.c said). */
static int copy_module_here(struct session *s)
{
	size_t len;
	char *data = read_file(s->module_path, &len);
	char *name = s->module_out ? xstrdup(s->module_out) : xasprintf("%s.ko", s->module_name);

	if (!data || write_file(name, data, len)) {
		diag_error("cannot copy %s to %s: %s", s->module_path, name, strerror(errno));
		return -1;
	}
	if (!s->module_out)
		printf("%s\n", name);
	free(data);
	free(name);
	return 0;
}

/* Pass 5: staprun loads the module, stapio streams its output. */
static bool run_pass(struct passes *p)
{
	clock_start(&p->clock);
	if (verbose_at(p->s, 5, 1))
		fputs("Pass 5: starting run.\n", stderr);
	if (run_module(p->s))
		return false;
	report_pass(p, 5, "run completed");
	return true;
}

/* The five passes, as far as -p asks; the exit status.  Each pass N is between the SDT
 * markers passN__start and passN__end (sdt_markers.h), whether it succeeds or not. */
static int run_passes(struct session *s)
{
	struct passes p = { .s = s };
	bool ok;

	p.script = read_script(s);
	ok = parse_pass(&p);
	STP_MARK1(stap, pass1__end, s);
	if (!ok)
		return fail(s, 1, "parse failed");
	if (s->last_pass == 1) {
		dump_parse_tree(stdout, p.user);
		return 0;
	}
	STP_MARK1(stap, pass2__start, s);
	ok = elaborate_pass(&p);
	STP_MARK1(stap, pass2__end, s);
	if (!ok)
		return fail(s, 2, "analysis failed");
	if (s->last_pass == 2)
		return 0;
	STP_MARK1(stap, pass3__start, s);
	ok = translate_pass(&p);
	STP_MARK1(stap, pass3__end, s);
	if (!ok)
		return fail(s, 3, "translation failed");
	if (s->last_pass == 3) {
		remove_tmpdir(s);
		return 0;
	}
	STP_MARK1(stap, pass4__start, s);
	ok = compile_pass(&p) && !(module_signing_wanted(s) && sign_module(s));
	STP_MARK1(stap, pass4__end, s);
	if (!ok)
		return fail(s, 4, "compilation failed");
	if (s->last_pass == 4) {
		if (copy_module_here(s))
			return fail(s, 4, "failed");
		remove_tmpdir(s);
		return 0;
	}
	STP_MARK1(stap, pass5__start, s);
	ok = run_pass(&p);
	STP_MARK1(stap, pass5__end, s);
	if (!ok)
		return fail(s, 5, "run failed");
	remove_tmpdir(s);
	return 0;
}

/*
 * As stap, before anything else: the folder temporary files go in must be a plain path
 * (kbuild's make takes it apart at spaces and shell characters) and must take a new
 * folder (an unusable TMPDIR stops stap at once, not in pass 3).
 */
static bool check_tmpdir(struct session *s)
{
	const char *parent = s->tmpdir_parent;
	char *probe;

	if (parent[strspn(parent, "-/._0123456789abcdefghijklmnopqrstuvwxyz"
				  "ABCDEFGHIJKLMNOPQRSTUVWXYZ")] != '\0') {
		fprintf(stderr, "ERROR: Safety pattern mismatch for TMPDIR ('%s' vs. "
			"'^[-/._0-9a-z]+$') rc=1\n", parent);
		return false;
	}
	probe = xasprintf("%s/stapXXXXXX", parent);
	if (!mkdtemp(probe)) {
		fprintf(stderr, "cannot create temporary directory (\" %s \"): %s\n", probe,
			strerror(errno));
		free(probe);
		return false;
	}
	rmdir(probe);
	free(probe);
	return true;
}

int main(int argc, char **argv)
{
	struct session s = { 0 };
	int rc;

	/* pass 0: the options and the session; pass 6, after the others: the last words */
	STP_MARK1(stap, pass0__start, &s);
	parse_options(&s, argc, argv);
	diag_setup(&s);
	STP_MARK1(stap, pass0__end, &s);
	if (!check_tmpdir(&s))
		return 1;
	rc = s.dump ? dump_library(&s) : s.list_pattern ? list_points(&s)
	   : s.remote_urls.count ? run_remote(&s) : run_passes(&s);
	STP_MARK1(stap, pass6__start, &s);
	/* like stap: the count of repeated diagnostics left out comes last */
	diag_summary();
	STP_MARK1(stap, pass6__end, &s);
	return rc;
}
