/*
 * sdt.h - user-space static markers (<sys/sdt.h>): process("PATH").mark("NAME").
 *
 * A program built with <sys/sdt.h> has, for each STAP_PROBEn() in its source, a nop in
 * its code and an ELF note (.note.stapsdt, owner "stapsdt", type 3) saying where the
 * nop is, the address of the marker's semaphore (if it has one) and its arguments as
 * the compiler's assembler operands ("-4@%eax 8@-16(%rbp)").  sdt.c reads the notes and
 * turns each operand into C over the runtime (runtime/target_vars.c):
 *
 *   stp_dwarf_register(c, N)          DWARF register N at the marker
 *   stp_user_deref(c, A, S)           S bytes of user memory at A, zero-extended
 *   stp_user_address(c, A)            link-time address A of the probed object, where
 *                                     the process has it loaded (PIE, libraries)
 *   stp_target_number(R, S, SG, 0, 0) R truncated to S bytes, sign-extended if SG
 *
 * Addresses are link-time addresses of the object; elf_vaddr_to_offset() gives the file
 * offsets uprobes are registered at.
 */
#ifndef SDT_H
#define SDT_H

#include "stap.h"

#include <gelf.h>

struct sdt_marker {
	char *provider, *name;
	uint64_t pc;		/* link-time address of its nop */
	uint64_t semaphore;	/* link-time address of its unsigned short semaphore; 0: none */
	char *args;		/* the operands, as the note has them: "-4@%eax 8@-16(%rbp)" */
};

/* The markers of ELF, in note order: both pc and semaphore are moved by what prelink
 * moved .stapsdt.base by (the notes are not allocated, so prelink leaves them alone).
 * Returns how many (0: none, *OUT NULL), or -1 with *ERROR set on a malformed note.
 * 32- and 64-bit ELF of either byte order. */
int sdt_read_markers(Elf *elf, struct sdt_marker **out, char **error);
void sdt_free_markers(struct sdt_marker *m, int n);

/* The file offset of link-time address ADDR, from the PT_LOAD program headers (uprobes
 * go at file offsets; uprobe_register_refctr() wants the semaphore's too).  False if no
 * segment has it in the file (a semaphore in .bss cannot be counted through the file's
 * mapping). */
bool elf_vaddr_to_offset(Elf *elf, uint64_t addr, uint64_t *offset);

struct sdt_arg {
	int size;		/* bytes: 1, 2, 4, 8 */
	bool is_signed;		/* the note gave a negative size */
	char *c;		/* C (s64) of its value at the marker */
};

/* Resolves a symbol named in an operand ("counter" of counter+8(%rip)) to its link-time
 * address; false if there is none. */
typedef bool sdt_symbol_lookup(void *arg, const char *name, uint64_t *addr);

/* The arguments of a marker of an x86-64 object: ARGS is its note's operand string.
 * Returns how many, or -1 with *ERROR ("cannot parse SDT argument 2 '...': ..."). */
int sdt_parse_args(const char *args, sdt_symbol_lookup *lookup, void *lookup_arg,
		   struct sdt_arg **out, char **error);
void sdt_free_args(struct sdt_arg *a, int n);

#endif
