/*
 * sdt.c - the markers of <sys/sdt.h> in an ELF object, and their arguments as C.
 *
 * Each STAP_PROBEn() leaves an ELF note, as sdt.h and the SystemTap wiki
 * (UserSpaceProbeImplementation) document it: owner "stapsdt", type 3, its description
 * three addresses of the object's word size (the nop, .stapsdt.base where the linker
 * put it, the semaphore or 0), then the provider, the name and the argument string,
 * each NUL-terminated.  The argument string is the operands separated by spaces, each
 * "[-]SIZE[f]@OPERAND": SIZE bytes, signed if negative, 'f' for floating point, and the
 * assembler operand the compiler chose for it.  Only x86-64 AT&T operands are compiled.
 */
#include "sdt.h"

#include <ctype.h>
#include <inttypes.h>
#include <string.h>

#define SDT_NOTE_OWNER	"stapsdt"
#define SDT_NOTE_TYPE	3

/* ---- the notes ---- */

struct notes {
	int word;		/* 4 or 8: the size of a note's addresses */
	bool msb;
	bool have_base;
	uint64_t base;		/* where .stapsdt.base is now */
	struct sdt_marker *markers;
	int count;
};

static uint64_t read_word(const struct notes *n, const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 0; i < n->word; i++)
		v = v << 8 | p[n->msb ? i : n->word - 1 - i];
	return v;
}

/* Where .stapsdt.base is now.  Prelink moves the text and the section headers with
 * it, but not the notes (they are not allocated): a note's addresses move by what its
 * recorded .stapsdt.base differs from this.  (In an ET_REL object it is not placed.) */
static bool stapsdt_base(Elf *elf, uint64_t *addr)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;
	size_t strndx;

	if (elf_getshdrstrndx(elf, &strndx) != 0)
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &shdr))
			continue;
		name = elf_strptr(elf, strndx, shdr.sh_name);
		if (name && strcmp(name, ".stapsdt.base") == 0) {
			*addr = shdr.sh_addr;
			return shdr.sh_addr != 0;
		}
	}
	return false;
}

/* One note's description into a marker; false if it is malformed. */
static bool decode_note(struct notes *n, const unsigned char *desc, size_t len)
{
	const char *s = (const char *)desc + 3 * n->word, *end = (const char *)desc + len;
	const char *text[3] = { NULL, NULL, "" };	/* no argument string: none */
	struct sdt_marker *m;
	uint64_t moved;

	if (len < (size_t)(3 * n->word))
		return false;
	for (int i = 0; i < 3 && s < end; i++) {
		const char *nul = memchr(s, '\0', end - s);

		if (!nul)
			return false;
		text[i] = s;
		s = nul + 1;
	}
	if (!text[1])
		return false;
	moved = n->have_base ? n->base - read_word(n, desc + n->word) : 0;
	n->markers = xrealloc(n->markers, (n->count + 1) * sizeof(*n->markers));
	m = &n->markers[n->count++];
	m->provider = xstrdup(text[0]);
	m->name = xstrdup(text[1]);
	m->args = xstrdup(text[2]);
	m->pc = read_word(n, desc) + moved;
	m->semaphore = read_word(n, desc + 2 * n->word);
	if (m->semaphore)
		m->semaphore += moved;
	return true;
}

/* The stapsdt notes of one SHT_NOTE section (others' notes are skipped). */
static bool read_notes(struct notes *n, Elf_Data *data)
{
	size_t offset = 0, name_at, desc_at;
	GElf_Nhdr nhdr;

	while ((offset = gelf_getnote(data, offset, &nhdr, &name_at, &desc_at)) > 0)
		if (nhdr.n_type == SDT_NOTE_TYPE && nhdr.n_namesz == sizeof(SDT_NOTE_OWNER) &&
		    memcmp((char *)data->d_buf + name_at, SDT_NOTE_OWNER, nhdr.n_namesz) == 0 &&
		    !decode_note(n, (unsigned char *)data->d_buf + desc_at, nhdr.n_descsz))
			return false;
	return true;
}

int sdt_read_markers(Elf *elf, struct sdt_marker **out, char **error)
{
	struct notes n = { 0 };
	const char *ident = elf_getident(elf, NULL);
	Elf_Scn *scn = NULL;
	Elf_Data *data;
	GElf_Shdr shdr;

	*out = NULL;
	*error = NULL;
	if (!ident || (ident[EI_CLASS] != ELFCLASS32 && ident[EI_CLASS] != ELFCLASS64)) {
		*error = xstrdup("not an ELF object");
		return -1;
	}
	n.word = ident[EI_CLASS] == ELFCLASS32 ? 4 : 8;
	n.msb = ident[EI_DATA] == ELFDATA2MSB;
	n.have_base = stapsdt_base(elf, &n.base);
	while ((scn = elf_nextscn(elf, scn)))
		for (data = NULL; gelf_getshdr(scn, &shdr) && shdr.sh_type == SHT_NOTE &&
				  (data = elf_getdata(scn, data));)
			if (!read_notes(&n, data)) {
				*error = xasprintf("malformed stapsdt note (after %d good ones)",
						   n.count);
				sdt_free_markers(n.markers, n.count);
				return -1;
			}
	*out = n.markers;
	return n.count;
}

void sdt_free_markers(struct sdt_marker *m, int n)
{
	for (int i = 0; i < n; i++) {
		free(m[i].provider);
		free(m[i].name);
		free(m[i].args);
	}
	free(m);
}

bool elf_vaddr_to_offset(Elf *elf, uint64_t addr, uint64_t *offset)
{
	size_t n;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n) != 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD &&
		    addr >= ph.p_vaddr && addr - ph.p_vaddr < ph.p_filesz) {
			*offset = addr - ph.p_vaddr + ph.p_offset;
			return true;
		}
	return false;
}

/* ---- the arguments: x86-64 AT&T operands ---- */

/* The general registers by DWARF number (x86-64 psABI): their 64-, 32-, 16- and 8-bit
 * names.  %ah, %dh, %ch and %bh are bits 8-15 of the first four. */
static const char *const register_names[17][4] = {
	{ "rax", "eax", "ax", "al" }, { "rdx", "edx", "dx", "dl" },
	{ "rcx", "ecx", "cx", "cl" }, { "rbx", "ebx", "bx", "bl" },
	{ "rsi", "esi", "si", "sil" }, { "rdi", "edi", "di", "dil" },
	{ "rbp", "ebp", "bp", "bpl" }, { "rsp", "esp", "sp", "spl" },
	{ "r8", "r8d", "r8w", "r8b" }, { "r9", "r9d", "r9w", "r9b" },
	{ "r10", "r10d", "r10w", "r10b" }, { "r11", "r11d", "r11w", "r11b" },
	{ "r12", "r12d", "r12w", "r12b" }, { "r13", "r13d", "r13w", "r13b" },
	{ "r14", "r14d", "r14w", "r14b" }, { "r15", "r15d", "r15w", "r15b" },
	{ "rip", "eip" },
};
static const char high_bytes[] = "adcb";

struct x86_reg {
	int regno;		/* DWARF; -1: none */
	int width;		/* the bytes its name covers */
	int shift;		/* 8 for %ah */
};

static bool x86_register(const char *name, struct x86_reg *r)
{
	for (int i = 0; i < 17; i++)
		for (int w = 0; w < 4; w++)
			if (register_names[i][w] && strcmp(name, register_names[i][w]) == 0) {
				*r = (struct x86_reg){ i, 8 >> w, 0 };
				return true;
			}
	if (name[0] && strchr(high_bytes, name[0]) && strcmp(name + 1, "h") == 0) {
		*r = (struct x86_reg){ (int)(strchr(high_bytes, name[0]) - high_bytes), 1, 8 };
		return true;
	}
	return false;
}

/* One operand being parsed; WHY says what is wrong with it (NULL: it does not parse). */
struct operand {
	const char *p;
	sdt_symbol_lookup *lookup;
	void *lookup_arg;
	char *why;
	bool unsupported;	/* valid, but not something we read */
};

/* Says why O is refused (the first reason found stays); false. */
static bool refuse(struct operand *o, bool unsupported, char *why)
{
	if (o->why) {
		free(why);
	} else {
		o->why = why;
		o->unsupported = unsupported;
	}
	return false;
}

static char *refused(struct operand *o, const char *why)
{
	refuse(o, false, xstrdup(why));
	return NULL;
}

/* "%name": a general register.  The others and segment prefixes are refused plainly. */
static bool parse_register(struct operand *o, struct x86_reg *r)
{
	char name[8];
	size_t len = 0;

	while (isalnum((unsigned char)o->p[1 + len]))
		len++;
	if (*o->p != '%' || len == 0 || len >= sizeof(name))
		return refuse(o, false, xasprintf("unknown register '%.*s'", (int)len + 1, o->p));
	memcpy(name, o->p + 1, len);
	name[len] = '\0';
	o->p += 1 + len;
	if (*o->p == ':')
		return refuse(o, true, xasprintf("a segment-relative operand (%%%s:) is not "
						  "supported", name));
	if (x86_register(name, r))
		return true;
	if (strstr(name, "mm") || starts_with(name, "st"))
		return refuse(o, true, xasprintf("floating point or vector register '%%%s' is "
						  "not supported", name));
	return refuse(o, false, xasprintf("unknown register '%%%s'", name));
}

/* A number as the assembler writes it: decimal, 0x hex, 0 octal; wraps to 64 bits. */
static bool operand_number(struct operand *o, uint64_t *v)
{
	char *end;

	if (!isdigit((unsigned char)*o->p))
		return false;
	*v = strtoull(o->p, &end, 0);
	o->p = end;
	return true;
}

static bool symbol_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '$';
}

/* The link-time address of the symbol at O->p ("counter", "buf.0"). */
static bool parse_symbol(struct operand *o, uint64_t *addr)
{
	size_t len = 0;
	char *name;
	bool found;

	while (symbol_char(o->p[len]))
		len++;
	name = xstrndup(o->p, len);
	o->p += len;
	found = o->lookup && o->lookup(o->lookup_arg, name, addr);
	if (!found)
		refuse(o, false, xasprintf("no symbol '%s' in the object", name));
	free(name);
	return found;
}

/* An address: symbol and displacement, base, index and scale. */
struct address {
	uint64_t disp;		/* the symbol's link-time address and the numbers */
	bool relocated;		/* a symbol: moves with the object */
	struct x86_reg base, index;
	uint64_t scale;
};

/* "sym+8", "-16", "sym-4", "-3+sym": numbers and at most one symbol, added. */
static bool parse_displacement(struct operand *o, struct address *a)
{
	for (bool first = true; *o->p && *o->p != '('; first = false) {
		bool minus = *o->p == '-';
		uint64_t v;

		if (*o->p == '+' || *o->p == '-')
			o->p++;
		else if (!first)
			return false;
		if (operand_number(o, &v)) {
			a->disp += minus ? -v : v;
		} else if (!minus && !a->relocated && symbol_char(*o->p) && *o->p != '$') {
			if (!parse_symbol(o, &v))
				return false;
			a->disp += v;
			a->relocated = true;
		} else {
			return false;
		}
	}
	return true;
}

/* "(%base,%index,scale)", each part optional. */
static bool parse_registers(struct operand *o, struct address *a)
{
	if (*o->p++ != '(' || (*o->p == '%' && !parse_register(o, &a->base)))
		return false;
	if (*o->p == ',') {
		o->p++;
		if (*o->p == '%' && !parse_register(o, &a->index))
			return false;
		if (*o->p == ',') {
			o->p++;
			if (!operand_number(o, &a->scale) || a->scale == 0 || a->scale > 8 ||
			    (a->scale & (a->scale - 1)))
				return false;
		}
	}
	return *o->p++ == ')';
}

/* The C (u64) of address A. */
static char *address_c(const struct address *a)
{
	struct strbuf sb = { 0 };
	const char *plus = "";

	if (a->relocated) {
		sb_printf(&sb, "stp_user_address(c, %#" PRIx64 "ULL)", a->disp);
		plus = " + ";
	}
	if (a->base.regno >= 0) {
		sb_printf(&sb, "%sstp_dwarf_register(c, %d)", plus, a->base.regno);
		plus = " + ";
	}
	if (a->index.regno >= 0) {
		sb_printf(&sb, "%sstp_dwarf_register(c, %d)", plus, a->index.regno);
		if (a->scale != 1)
			sb_printf(&sb, " * %" PRIu64, a->scale);
		plus = " + ";
	}
	if (!*plus)
		sb_printf(&sb, "%#" PRIx64 "ULL", a->disp);	/* an absolute address */
	else if (!a->relocated && a->disp)
		sb_printf(&sb, " + (u64)%" PRId64 "LL", (int64_t)a->disp);
	return sb_steal(&sb);
}

/* A memory operand's address: "disp(base,index,scale)", "sym(%rip)", "sym". */
static char *memory_address(struct operand *o)
{
	struct address a = { .base.regno = -1, .index.regno = -1, .scale = 1 };

	if (!parse_displacement(o, &a) || (*o->p && !parse_registers(o, &a)) || *o->p)
		return NULL;
	if ((a.base.regno >= 0 && a.base.width != 8) ||
	    (a.index.regno >= 0 && a.index.width != 8) || a.index.regno == 16 ||
	    (a.base.regno == 16 && a.index.regno >= 0))
		return refused(o, "not a 64-bit address");
	/* gas reads sym(%rip) as sym's address, encoded relative to the next instruction;
	 * a number there would be relative to an instruction the note never became */
	if (a.base.regno == 16 && !a.relocated)
		return refused(o, "%rip-relative without a symbol");
	if (a.base.regno == 16)
		a.base.regno = -1;
	return address_c(&a);
}

/* "$5", "$-1", "$sym+8".  A number is truncated to SIZE bytes and extended now, as
 * stp_target_number() would at run time. */
static char *immediate_c(struct operand *o, int size, bool is_signed)
{
	struct address a = { .base.regno = -1, .index.regno = -1 };
	int bits = size * 8;
	uint64_t v;

	o->p++;
	if (!parse_displacement(o, &a) || *o->p)
		return NULL;
	if (a.relocated)
		return xasprintf("stp_target_number(stp_user_address(c, %#" PRIx64 "ULL), %d, %d, "
				 "0, 0)", a.disp, size, is_signed);
	v = bits == 64 ? a.disp : a.disp & ((1ULL << bits) - 1);
	if (is_signed && bits < 64 && v >> (bits - 1))
		v |= ~0ULL << bits;
	if (v == 1ULL << 63)	/* no decimal literal of it is an s64 */
		return xstrdup("((s64)0x8000000000000000ULL)");
	return xasprintf("((s64)%" PRId64 "LL)", (int64_t)v);
}

/* The C (s64) of the value of operand O, SIZE bytes. */
static char *operand_c(struct operand *o, int size, bool is_signed)
{
	struct x86_reg r;
	char *inner, *c;

	if (*o->p == '$')
		return immediate_c(o, size, is_signed);
	if (*o->p == '%') {
		if (!parse_register(o, &r) || *o->p)
			return NULL;
		if (r.regno == 16)
			return refused(o, "%rip is not a value");
		/* sdt.h: the size before the '@' governs, the name only says which
		 * register (gcc has named a narrower alias of a wider value) */
		inner = r.shift ? xasprintf("(stp_dwarf_register(c, %d) >> %d)", r.regno, r.shift)
				: xasprintf("stp_dwarf_register(c, %d)", r.regno);
	} else {
		char *addr = *o->p ? memory_address(o) : NULL;

		if (!addr)
			return NULL;
		inner = xasprintf("stp_user_deref(c, %s, %d)", addr, size);
		free(addr);
	}
	c = xasprintf("stp_target_number(%s, %d, %d, 0, 0)", inner, size, is_signed);
	free(inner);
	return c;
}

/* "[-]SIZE[f]@".  A note without it is from an sdt.h before sizes were written down,
 * whose arguments were all longs. */
static bool parse_size(struct operand *o, struct sdt_arg *arg)
{
	const char *p = o->p + (*o->p == '-');
	char *end;
	long size;

	*arg = (struct sdt_arg){ .size = 8, .is_signed = true };
	if (!isdigit((unsigned char)*p))
		return true;
	size = strtol(p, &end, 10);
	if (*end != '@' && !(end[0] == 'f' && end[1] == '@'))
		return true;	/* "-16(%rbp)" */
	if (*end == 'f')
		return refuse(o, true, xstrdup("floating point SDT arguments are not supported"));
	if (size != 1 && size != 2 && size != 4 && size != 8)
		return refuse(o, true, xasprintf("an argument of %ld bytes is not supported",
						  size));
	arg->size = (int)size;
	arg->is_signed = *o->p == '-';
	o->p = end + 1;
	return true;
}

/* One argument, of the LEN characters at TEXT; false with *ERROR set. */
static bool parse_arg(const char *text, size_t len, int number, sdt_symbol_lookup *lookup,
		      void *lookup_arg, struct sdt_arg *arg, char **error)
{
	char *copy = xstrndup(text, len);
	struct operand o = { .p = copy, .lookup = lookup, .lookup_arg = lookup_arg };

	if (parse_size(&o, arg))
		arg->c = operand_c(&o, arg->size, arg->is_signed);
	if (!arg->c)
		*error = o.why ? xasprintf("%s SDT argument %d '%s': %s",
					   o.unsupported ? "unsupported" : "cannot parse",
					   number, copy, o.why)
			       : xasprintf("cannot parse SDT argument %d '%s'", number, copy);
	free(o.why);
	free(copy);
	return arg->c != NULL;
}

int sdt_parse_args(const char *args, sdt_symbol_lookup *lookup, void *lookup_arg,
		   struct sdt_arg **out, char **error)
{
	struct sdt_arg *a = NULL;
	int n = 0;

	*out = NULL;
	*error = NULL;
	for (const char *p = args; *(p += strspn(p, " \t\n"));) {
		size_t len = strcspn(p, " \t\n");

		a = xrealloc(a, (n + 1) * sizeof(*a));
		if (!parse_arg(p, len, n + 1, lookup, lookup_arg, &a[n], error)) {
			sdt_free_args(a, n);
			return -1;
		}
		n++;
		p += len;
	}
	*out = a;
	return n;
}

void sdt_free_args(struct sdt_arg *a, int n)
{
	for (int i = 0; i < n; i++)
		free(a[i].c);
	free(a);
}
