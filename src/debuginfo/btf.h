/*
 * btf.h - the kernel's BTF: function prototypes and types without debuginfo.
 *
 * A kernel built with CONFIG_DEBUG_INFO_BTF describes every traceable function's
 * prototype and every type in a few megabytes (the vmlinux's .BTF section,
 * /sys/kernel/btf/vmlinux); a module's BTF (its .ko's .BTF, /sys/kernel/btf/MODULE) adds
 * its own on top of the kernel's.  When the kernel's DWARF is not installed (or --btf
 * asks for it), kernel.function, module().function, their target variables, @cast and the
 * tracepoints' arguments come from here (libbpf reads it; ctype_btf.c makes the same type
 * model as the DWARF's).
 *
 * Where the kernel's comes from: /sys/kernel/btf/vmlinux for the running kernel, else
 * the .BTF section of a vmlinux of the release (/boot, the build tree, the -dbg
 * package's unless debuginfo is hidden), else the image (/boot/vmlinuz-REL, or the one
 * `stap --vm` keeps) unpacked once and its .BTF kept in the cache.
 */
#ifndef BTF_H
#define BTF_H

#include "stap.h"

struct btf;
struct ctype;
struct session;

/* A function BTF describes: its name and prototype (BTF_KIND_FUNC_PROTO id). */
struct btf_function {
	const char *name;
	uint32_t proto;
	/* static functions of this name in several files have different prototypes: which
	 * one a probe by the name reaches (the kernel's first symbol) BTF does not say */
	bool ambiguous;
};

/* The BTF of the kernel or of one module (split on the kernel's). */
struct btf_module {
	char *name;			/* "kernel", or the module's name with '_' */
	char *path;			/* where it was read from (-v) */
	bool is_kernel;
	struct btf *btf;
	struct btf_module *base;	/* a module's: the kernel's */
	uint32_t first_id;		/* the first type id of its own (1 for the kernel) */
	uint32_t ntypes;		/* type ids < ntypes are valid */
	struct ctype **types;		/* made on demand, by id - first_id */
	struct btf_function *functions;	/* sorted by name, one per name */
	int nfunctions;
	struct btf_tracepoint *tracepoints;	/* read on first use (btf_trace.c) */
	int ntracepoints;
	bool tracepoints_read;
	struct btf_module *next;
};

/* The kernel's BTF, or NULL (*WHY says why, once, for the caller's message). */
struct btf_module *btf_kernel(struct session *s, const char **why);
/* Module NAME's BTF ('-' and '_' alike), or NULL. */
struct btf_module *btf_module(struct session *s, const char *name);
/* The names of the modules with BTF that PATTERN matches (fnmatch), sorted. */
struct strlist btf_module_names(struct session *s, const char *pattern);
/* Whether target variables and probe points come from BTF: no kernel DWARF, or --btf. */
bool btf_preferred(struct session *s);

/* The function named NAME, or NULL. */
const struct btf_function *btf_function_named(struct btf_module *m, const char *name);
/* A function's parameters: their count; their names and types in NAMES and TYPES
 * (either may be NULL).  *VARARGS: "..." ends them. */
int btf_function_params(struct btf_module *m, const struct btf_function *f,
			const char ***names, struct ctype ***types, bool *varargs);
/* What a function returns (NULL: void). */
struct ctype *btf_function_return(struct btf_module *m, const struct btf_function *f);
/* The type named NAME ("task_struct", "struct task_struct", "u32"), or NULL. */
struct ctype *btf_find_type(struct btf_module *m, const char *name);

/*
 * btf_trace.c: a module's tracepoints, from its __traceiter_NAME functions (whose
 * parameters after the first are the tracepoint's arguments), sorted by system and name.
 * The system is the TRACE_SYSTEM of the trace header that defines NAME, in the kernel's
 * headers; when none there does (a driver's own trace header), the module's name, or
 * "unknown" in the kernel.
 */
struct btf_tracepoint {
	const char *name;
	char *system;
	const struct btf_function *function;
};
int btf_tracepoints(struct session *s, struct btf_module *m, const struct btf_tracepoint **out);

/* ctype_btf.c: the type of BTF type ID of M (NULL: void). */
struct ctype *ctype_of_btf(struct btf_module *m, uint32_t id);

#endif
