/*
 * family_dwarf.h - the dwarf family's points and probes, as its two ways of placing them
 * share them: family_dwarf.c places a point from the target's DWARF (and is the family),
 * family_dwarf_btf.c places kernel.function and module().function points from the
 * kernel's BTF when there is no DWARF (or --btf asks); dwarf_point.c reads a point and
 * says what both say alike.  family_dwarf.c calls the other two; neither calls it back.
 */
#ifndef FAMILY_DWARF_H
#define FAMILY_DWARF_H

#include "stap.h"
#include "debuginfo/dw.h"

struct btf_module;
struct btf_function;
struct ctype;
struct elaborator;

/* What pass 3 needs of a DWARF probe, and what the target variables will need. */
/* A frame up the stack a .callees(N) probe checks: the return addresses it may hold,
 * from the probe's address, each with the frame rule of the caller it returns into. */
struct chain_return {
	int64_t offset;
	struct dw_frame_rule rule;
};
struct chain_level {
	struct chain_return *returns;
	int nreturns;
};

struct dwarf_probe {
	char *symbol;		/* "vfs_read", or "ext4:ext4_readdir"; NULL: an address, or */
	char *file;		/* in user space: the file probed, where it runs */
	char *process;		/* a .library(...)'s program, whose processes it is for */
	uint64_t offset;	/* from the symbol; in user space, in the file */
	uint64_t vaddr;		/* in user space: the probed instruction's address */
	/* a program's .return: where its @entry values are read (after the prologue), and
	 * the frame address there (DWARF register + offset), which its return finds */
	uint64_t entry_offset, entry_vaddr;
	int cfa_regno;
	int64_t cfa_offset;
	bool is_return;
	bool module_path;	/* module("/path/m.ko"): -p2 notes the place "<m:symbol+N>" */
	/* a callee's entry: where its caller's calls return, from the probe's address (it
	 * runs only when the return address on the stack is one of those) */
	int64_t *callers;
	int ncallers;
	/* .callees(N) below a direct callee: the frames it checks up the stack (the
	 * site's levels), found by the frame rule at its address, then at each return */
	struct dw_frame_rule rule;
	struct chain_level *chain;
	int nchain;
	int64_t maxactive;
	struct dw_site site;	/* NULL module for an absolute address */
	/* a function placed by the kernel's BTF (no DWARF): its module and prototype */
	struct btf_module *btf;
	const struct btf_function *btf_function;
};

/* $NAME as the DWARF of module M has it in scope at link-time address VADDR, for a
 * probe of another family placed there (an SDT marker); *FOUND false, and nothing said,
 * when M has no DWARF of the code there. */
enum target_resolution dwarf_resolve_at(struct elaborator *el, struct dw_module *m,
					uint64_t vaddr, struct node *n, bool quiet, bool *found);

/* The parts of a concrete point. */
struct dwarf_point {
	const char *module;	/* NULL: the kernel */
	bool user;		/* process(...): a program's */
	const char *process;	/* its PATH, or NULL for a PID */
	int64_t pid;
	const char *library;	/* .library(LPATH) */
	char *program;		/* the program resolved: its path where it runs */
	struct strlist files;	/* the files of its modules' names, here (--sysroot) */
	bool reported;		/* an error said why it matches nothing */
	bool statement;		/* .statement(...) rather than .function(...) */
	const char *pattern;	/* NULL: an address */
	uint64_t address;
	struct component *what;	/* the function or statement component */
	bool call, is_return, inline_only, exported, nearest, absolute;
	int64_t maxactive;
	const char *label;
	const char *callee;	/* .callee(PATTERN), .callees: "*" */
	int64_t callees_depth;	/* .callees(N) */
};

/* dwarf_point.c */
void read_dwarf_point(struct probe_point *pp, struct dwarf_point *dp);
void put_point_suffixes(struct strbuf *sb, const struct dwarf_point *dp);
void no_function_match(struct elaborator *el, const char **names, int count,
		       const struct dw_pattern *pat, bool refused);
bool return_register_access(struct elaborator *el, struct dwarf_probe *p, struct node *n,
			    struct target_access *a, struct ctype *type, bool quiet);

/* family_dwarf_btf.c: kernel and module functions placed from the kernel's BTF */
bool place_from_btf(struct elaborator *el, struct dwarf_point *dp, struct dw_pattern *pat,
		    struct derived_probe *proto);
enum target_resolution resolve_from_btf(struct elaborator *el, struct derived_probe *dp,
					struct node *n, bool quiet);
char *variables_from_btf(struct btf_module *m, const struct btf_function *f, bool with_return);

#endif
