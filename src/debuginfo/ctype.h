/*
 * ctype.h - the C type model: what the target's debuginfo says a variable's type is.
 *
 * One model for every reader: ctype_dwarf.c builds it from DWARF type DIEs, ctype_btf.c
 * the same from BTF ids; ctype.c holds what does not depend on the reader.  A type is
 * made once per origin and shared; a struct's members are read the first time they are
 * asked for.  ctype_name() spells a type as stap's -L does: "struct file*",
 * "char const*", "long int", "size_t", "char const[] const",
 * "int (*) (struct inode*, void*)".
 */
#ifndef CTYPE_H
#define CTYPE_H

#include "stap.h"

enum ctype_kind {
	CT_VOID,
	CT_BASE,		/* int, char, _Bool, ... (name, size, signedness) */
	CT_ENUM,
	CT_POINTER,		/* to target (NULL: void) */
	CT_ARRAY,		/* of target, count elements (-1: unknown) */
	CT_STRUCT,
	CT_UNION,
	CT_TYPEDEF,		/* name for target */
	CT_CONST,		/* qualified target */
	CT_VOLATILE,
	CT_RESTRICT,
	CT_FUNCTION,		/* returning target (NULL: void), taking params */
};

struct ctype;
struct ctype_reader;

struct ctype_member {
	const char *name;		/* NULL for an anonymous struct or union member */
	struct ctype *type;
	uint64_t offset;		/* bytes from the start */
	int bit_offset, bit_size;	/* a bitfield's bits (bit_size 0: not a bitfield) */
};

struct ctype {
	enum ctype_kind kind;
	const char *name;		/* base, typedef, struct/union/enum tag; NULL if none */
	uint64_t size;			/* in bytes; 0 when unknown or incomplete */
	bool is_signed;			/* base and enum */
	bool is_float;			/* base */
	bool incomplete;		/* a declared struct/union without members here */
	bool declared_here;		/* was incomplete (the members may be its definition's) */
	struct ctype *target;
	int64_t count;			/* CT_ARRAY */
	/* CT_FUNCTION: the parameters' types; "..." after them; "(void)" if none */
	struct ctype **params;
	int nparams;
	bool varargs;
	/* CT_STRUCT, CT_UNION: members, read on first use through the reader */
	struct ctype_member *members;
	int nmembers;
	bool members_read;
	const struct ctype_reader *reader;
	void *origin;			/* the reader's handle for this type */
	struct ctype *pointer;		/* a pointer to this type, once one was made */
};

/* What a reader provides for the parts of a type read lazily. */
struct ctype_reader {
	void (*read_members)(struct ctype *t);
	const char *(*declared_at)(struct ctype *t, int *line);	/* may be NULL */
	/* the debuginfo file it was read from (types of two files are not the same, as in
	 * stap: a struct of a @cast header and the kernel's); may be NULL */
	const void *(*source)(const struct ctype *t);
};

/* The type with typedefs and qualifiers taken off. */
struct ctype *ctype_resolve(struct ctype *t);
/* stap's spelling of a type: "struct task_struct*", "char const*", "unsigned int[]" */
char *ctype_name(const struct ctype *t);
/* The file and line where T was declared ("include/linux/path.h", 8), or NULL. */
const char *ctype_declared_at(struct ctype *t, int *line);

/* A pointer to T (made once per T). */
struct ctype *ctype_pointer_to(struct ctype *t);

/* Whether A and B are the same type, as stap spells them. */
bool ctype_same(const struct ctype *a, const struct ctype *b);

/* The members of a struct or union (read now if not yet). */
int ctype_members(struct ctype *t, struct ctype_member **members);

/* ctype_dwarf.c: the type of a DWARF DIE (a variable's DW_AT_type); NULL: void */
#include <elfutils/libdw.h>
struct ctype *ctype_of_die(Dwarf_Die *type_die);
/* The type a variable or parameter DIE has (through its abstract origin). */
struct ctype *ctype_of_variable(Dwarf_Die *var);
/* Frees the types read from DW: before dwarf_end() (or dwfl_end()) of it. */
void ctype_forget(Dwarf *dw);
/*
 * How a struct or union only declared where it was met ("struct files_struct;") finds its
 * definition: FIND looks NAME up among the types of the Dwarf DW came from (the function
 * index's tables) and gives the DIE that defines it.  Set by debuginfo.c.
 */
void ctype_find_definitions_with(bool (*find)(Dwarf *dw, const char *name, Dwarf_Die *def));

#endif
