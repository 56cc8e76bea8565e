/*
 * dwarf_loc.c - DWARF location expressions compiled into C.
 *
 * A variable's DW_AT_location at the probe's address (a location list is narrowed to
 * the entry covering it) is a small stack program.  Each operation is evaluated here,
 * at translation time, over C expressions instead of numbers: what is known only at run
 * time (registers, memory) becomes a call into the runtime (runtime/target_vars.c):
 *
 *   stp_dwarf_register(c, N)     DWARF register N of the probe's pt_regs
 *   stp_target_deref(c, A, S)    S bytes at kernel address A (a fault is a soft error)
 *   stp_kernel_address(c, A)     a kernel link-time address, moved as KASLR moved it
 *   stp_module_address(c, I, O)  O bytes from module symbol I (found at run time)
 *   stp_user_deref(c, A, S)      in a user-space program (uprobes): its memory, and
 *   stp_user_address(c, A)       a link-time address where the process loaded the file
 *
 * The result is the C of the variable's address (it lives in memory) or of its value
 * (DW_OP_regN, DW_OP_stack_value, DW_OP_implicit_value).  What cannot be done is said
 * plainly: an operation we do not compile, a value at an earlier call (DW_OP_entry_value)
 * away from the function's entry, a variable in several pieces.
 */
#include "dw.h"

#include <dwarf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define MAX_STACK 64

struct compile {
	struct dw_module *m;
	Dwarf_Die *scope;		/* the function (or inlined instance) holding the pc */
	uint64_t pc;			/* DWARF address */
	bool at_entry;			/* the pc is the function's entry: registers are its args */
	char *stack[MAX_STACK];
	int depth;
	char *error;
	const char *module_symbol;	/* the module symbol a static address is placed from */
};

static void push(struct compile *k, char *c);
static void fail(struct compile *k, char *error);

/* Whose memory a DW_OP_deref reads: the kernel's, or the probed process's. */
static const char *deref_kind(struct compile *k)
{
	return k->m->is_user ? "user" : "target";
}

/* A static variable's link-time address: the kernel's is moved as KASLR moved it; a
 * module's is found from a symbol of the module when the module is loaded. */
static void static_address(struct compile *k, uint64_t addr)
{
	const struct dw_symbol *s;

	if (k->m->is_kernel) {
		push(k, xasprintf("stp_kernel_address(c, %#" PRIx64 "ULL)", addr));
		return;
	}
	if (k->m->is_user) {	/* where the process has the file: the probe's hit tells */
		push(k, xasprintf("stp_user_address(c, %#" PRIx64 "ULL)", addr));
		return;
	}
	s = dw_object_symbol(k->m, addr);
	if (!s || (k->module_symbol && strcmp(k->module_symbol, s->name) != 0)) {
		fail(k, xstrdup("a static variable of a module without a symbol of its own"));
		push(k, xstrdup("0"));
		return;
	}
	k->module_symbol = s->name;
	push(k, xasprintf("stp_module_address(c, STP_MODULE_SYMBOL, %#" PRIx64 "ULL)",
			  addr - s->addr));
}

static void fail(struct compile *k, char *error)
{
	if (!k->error)
		k->error = error;
	else
		free(error);
}

static void push(struct compile *k, char *c)
{
	if (k->depth == MAX_STACK) {
		fail(k, xstrdup("at a location too deep to compute"));
		free(c);
		return;
	}
	k->stack[k->depth++] = c;
}

static char *pop(struct compile *k)
{
	if (k->depth == 0) {
		fail(k, xstrdup("at a location that pops an empty stack"));
		return xstrdup("0");
	}
	return k->stack[--k->depth];
}

static void binary(struct compile *k, const char *op, bool is_signed)
{
	char *b = pop(k), *a = pop(k);

	push(k, is_signed ? xasprintf("((u64)((s64)(%s) %s (s64)(%s)))", a, op, b) :
			    xasprintf("((u64)(%s) %s (u64)(%s))", a, op, b));
	free(a);
	free(b);
}

/* The operations that only move the stack's entries. */
static void shuffle(struct compile *k, unsigned int atom)
{
	char *a, *b, *c;

	switch (atom) {
	case DW_OP_dup:
		a = pop(k);
		push(k, xstrdup(a));
		push(k, a);
		break;
	case DW_OP_drop:
		free(pop(k));
		break;
	case DW_OP_over:
		if (k->depth < 2) {
			fail(k, xstrdup("at a location with DW_OP_over on a short stack"));
			break;
		}
		push(k, xstrdup(k->stack[k->depth - 2]));
		break;
	case DW_OP_swap:
		b = pop(k);
		a = pop(k);
		push(k, b);
		push(k, a);
		break;
	case DW_OP_rot:
		c = pop(k);
		b = pop(k);
		a = pop(k);
		push(k, c);
		push(k, a);
		push(k, b);
		break;
	}
}

static bool compile_ops(struct compile *k, Dwarf_Attribute *attr, const Dwarf_Op *ops,
			size_t n, bool *is_value);

struct pc_function {
	Dwarf_Addr pc;
	Dwarf_Die *out;
	bool found;
};

static int function_with_pc(Dwarf_Die *die, void *arg)
{
	struct pc_function *f = arg;

	if (dwarf_haspc(die, f->pc) <= 0)
		return DWARF_CB_OK;
	*f->out = *die;
	f->found = true;
	return DWARF_CB_ABORT;
}

/*
 * The frame the pc runs in: the scope itself when it is a function, else (an inlined
 * instance, whose frame is its caller's) the function of the compilation unit whose code
 * holds the pc.  dwarf_getscopes() will not tell: past an inlined instance it goes on
 * with the scopes of the instance's abstract definition, not of its caller.  False when
 * none is found.
 */
static bool frame_function(struct compile *k, Dwarf_Die *out)
{
	struct pc_function f = { .pc = k->pc, .out = out };
	Dwarf_Die cu;

	if (dwarf_tag(k->scope) == DW_TAG_subprogram) {
		*out = *k->scope;
		return true;
	}
	if (!dwarf_diecu(k->scope, &cu, NULL, NULL))
		return false;
	dwarf_getfuncs(&cu, function_with_pc, &f, 0);
	return f.found;
}

/* The frame base of the function: its DW_AT_frame_base at the pc, usually the CFA. */
static void frame_base(struct compile *k)
{
	Dwarf_Attribute attr;
	Dwarf_Die function;
	Dwarf_Op *ops;
	size_t n;
	bool is_value = false;
	struct compile inner = { .m = k->m, .scope = k->scope, .pc = k->pc,
				 .at_entry = k->at_entry };

	if (!frame_function(k, &function) ||
	    !dwarf_attr_integrate(&function, DW_AT_frame_base, &attr) ||
	    dwarf_getlocation_addr(&attr, k->pc, &ops, &n, 1) <= 0) {
		fail(k, xstrdup("in a function without a frame base here"));
		push(k, xstrdup("0"));
		return;
	}
	if (!compile_ops(&inner, &attr, ops, n, &is_value) || inner.depth == 0) {
		fail(k, inner.error ? inner.error : xstrdup("in a frame whose base cannot be computed"));
		push(k, xstrdup("0"));
		return;
	}
	/* DW_OP_bregN is an address already; a register's value is the base itself */
	push(k, inner.stack[inner.depth - 1]);
	for (int i = 0; i < inner.depth - 1; i++)
		free(inner.stack[i]);
}

/* The canonical frame address at the pc, from the call frame information. */
static void call_frame_cfa(struct compile *k)
{
	Dwarf_Addr bias;
	Dwarf_CFI *cfi = dwfl_module_dwarf_cfi(k->m->dwfl_module, &bias);
	Dwarf_Frame *frame = NULL;
	Dwarf_Op *ops;
	size_t n;
	bool is_value;
	struct compile inner = { .m = k->m, .scope = k->scope, .pc = k->pc,
				 .at_entry = k->at_entry };

	if (!cfi)	/* a program's call frame information is in its .eh_frame */
		cfi = dwfl_module_eh_cfi(k->m->dwfl_module, &bias);
	if (!cfi || dwarf_cfi_addrframe(cfi, k->pc + k->m->bias - bias, &frame) != 0 ||
	    dwarf_frame_cfa(frame, &ops, &n) != 0 || n == 0 ||
	    !compile_ops(&inner, NULL, ops, n, &is_value) || inner.depth == 0) {
		fail(k, inner.error ? inner.error :
				      xstrdup("without call frame information at this address"));
		push(k, xstrdup("0"));
		free(frame);
		return;
	}
	push(k, inner.stack[inner.depth - 1]);
	for (int i = 0; i < inner.depth - 1; i++)
		free(inner.stack[i]);
	free(frame);
}

/* Where the frame keeps the caller's register REGNO, as a dw_bp_rule. */
static enum dw_bp_rule saved_register(Dwarf_Frame *frame, int regno, int64_t *offset)
{
	Dwarf_Op mem[3], *ops;
	size_t n;

	if (dwarf_frame_register(frame, regno, mem, &ops, &n) != 0)
		return DW_BP_LOST;
	if (n == 0)	/* same_value (no ops) or undefined (ops_mem) */
		return ops ? DW_BP_LOST : DW_BP_SAME;
	if (ops[0].atom != DW_OP_call_frame_cfa)
		return DW_BP_LOST;
	if (n == 1) {
		*offset = 0;
		return DW_BP_SAVED;
	}
	if (n == 2 && ops[1].atom == DW_OP_plus_uconst) {
		*offset = (int64_t)ops[1].number;	/* libdw folds a negative offset so */
		return DW_BP_SAVED;
	}
	if (n == 3 && ops[1].atom == DW_OP_consts && ops[2].atom == DW_OP_plus) {
		*offset = (int64_t)ops[1].number;
		return DW_BP_SAVED;
	}
	return DW_BP_LOST;
}

bool dw_frame_rule(struct dw_module *m, uint64_t addr, struct dw_frame_rule *rule)
{
	Dwarf_Addr bias;
	Dwarf_CFI *cfi = dwfl_module_dwarf_cfi(m->dwfl_module, &bias);
	Dwarf_Frame *frame = NULL;
	Dwarf_Op *ops;
	size_t n;
	bool ok;

	if (!cfi)
		cfi = dwfl_module_eh_cfi(m->dwfl_module, &bias);
	ok = cfi && dwarf_cfi_addrframe(cfi, addr - bias, &frame) == 0 &&
	     dwarf_frame_cfa(frame, &ops, &n) == 0 && n == 1 &&
	     ((ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) ||
	      ops[0].atom == DW_OP_bregx);	/* libdw gives a DW_CFA_def_cfa rule so */
	if (ok && ops[0].atom == DW_OP_bregx) {
		rule->cfa_regno = (int)ops[0].number;
		rule->cfa_offset = (int64_t)ops[0].number2;
	} else if (ok) {
		rule->cfa_regno = ops[0].atom - DW_OP_breg0;
		rule->cfa_offset = (int64_t)ops[0].number;
	}
	if (ok) {
		rule->bp_offset = 0;
		rule->bp = saved_register(frame, 6, &rule->bp_offset);
	}
	free(frame);
	return ok;
}

bool dw_cfa_rule(struct dw_module *m, uint64_t addr, int *regno, int64_t *offset)
{
	struct dw_frame_rule rule;

	if (!dw_frame_rule(m, addr, &rule))
		return false;
	*regno = rule.cfa_regno;
	*offset = rule.cfa_offset;
	return true;
}

static const char *op_name(unsigned int atom)
{
	static char buf[32];

	snprintf(buf, sizeof(buf), "DW_OP 0x%x", atom);
	return buf;
}

/* DW_OP_entry_value(DW_OP_regN): only at the entry, where the register still holds it. */
static bool entry_value(struct compile *k, Dwarf_Attribute *attr, const Dwarf_Op *op)
{
	Dwarf_Attribute block;
	Dwarf_Op *ops;
	size_t n;

	if (!attr || dwarf_getlocation_attr(attr, op, &block) != 0 ||
	    dwarf_getlocation(&block, &ops, &n) != 0 || n != 1 ||
	    !(ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31)) {
		fail(k, xstrdup("an entry value of more than a register (DW_OP_entry_value)"));
		return false;
	}
	if (!k->at_entry) {
		fail(k, xstrdup("the value it had at the function's entry (DW_OP_entry_value) "
				"is not known here"));
		return false;
	}
	push(k, xasprintf("stp_dwarf_register(c, %u)", ops[0].atom - DW_OP_reg0));
	return true;
}

/* DW_OP_implicit_pointer: a pointer the compiler optimized away, whose target is another
 * variable (OP's DIE) at a byte offset.  Its value is that variable's address plus the
 * offset, where the variable lives in memory (a local of the caller it was inlined into,
 * say); where it lives in a register or is only a value, the pointer has no value. */
static void implicit_pointer(struct compile *k, Dwarf_Attribute *attr, const Dwarf_Op *op)
{
	Dwarf_Die target;
	Dwarf_Attribute tattr;
	Dwarf_Op *ops;
	size_t n;
	bool is_value = false;
	const char *name, *why = NULL;
	struct compile inner = { .m = k->m, .scope = k->scope, .pc = k->pc,
				 .at_entry = k->at_entry, .module_symbol = k->module_symbol };

	if (!attr || dwarf_getlocation_die(attr, op, &target) != 0) {
		fail(k, xstrdup("an optimized-away pointer (DW_OP_implicit_pointer) "
				"whose target is not found"));
		return;
	}
	name = dwarf_diename(&target) ? dwarf_diename(&target) : "a nameless object";
	if (!dwarf_attr_integrate(&target, DW_AT_location, &tattr))
		why = "which was optimized away";
	else if (dwarf_getlocation_addr(&tattr, k->pc, &ops, &n, 1) <= 0 || n == 0)
		why = "which is not accessible at this address";
	else if (!compile_ops(&inner, &tattr, ops, n, &is_value) || inner.depth == 0)
		why = inner.error ? inner.error : "whose location is empty";
	else if (is_value)
		why = "which is not in memory (only its value is known)";
	if (why) {
		fail(k, xasprintf("an optimized-away pointer (DW_OP_implicit_pointer) to %s, %s",
				  name, why));
		for (int i = 0; i < inner.depth; i++)
			free(inner.stack[i]);
		free(inner.error);
		return;
	}
	for (int i = 0; i < inner.depth - 1; i++)
		free(inner.stack[i]);
	k->module_symbol = inner.module_symbol;
	push(k, xasprintf("((u64)(%s) + (u64)%" PRId64 "LL)", inner.stack[inner.depth - 1],
			  (int64_t)op->number2));
	free(inner.stack[inner.depth - 1]);
}

static bool compile_ops(struct compile *k, Dwarf_Attribute *attr, const Dwarf_Op *ops,
			size_t n, bool *is_value)
{
	*is_value = false;
	for (size_t i = 0; i < n && !k->error; i++) {
		const Dwarf_Op *op = &ops[i];
		unsigned int atom = op->atom;
		char *a;

		if (atom >= DW_OP_lit0 && atom <= DW_OP_lit31) {
			push(k, xasprintf("%uULL", atom - DW_OP_lit0));
		} else if (atom >= DW_OP_reg0 && atom <= DW_OP_reg31) {
			push(k, xasprintf("stp_dwarf_register(c, %u)", atom - DW_OP_reg0));
			*is_value = true;
		} else if (atom >= DW_OP_breg0 && atom <= DW_OP_breg31) {
			push(k, xasprintf("(stp_dwarf_register(c, %u) + (u64)%" PRId64 "LL)",
					  atom - DW_OP_breg0, (int64_t)op->number));
		} else {
			switch (atom) {
			case DW_OP_regx:
				push(k, xasprintf("stp_dwarf_register(c, %" PRIu64 ")", op->number));
				*is_value = true;
				break;
			case DW_OP_bregx:
				push(k, xasprintf("(stp_dwarf_register(c, %" PRIu64 ") + (u64)%" PRId64
						  "LL)", op->number, (int64_t)op->number2));
				break;
			case DW_OP_addr:
				static_address(k, op->number + k->m->bias);
				break;
			case DW_OP_const1u: case DW_OP_const2u: case DW_OP_const4u:
			case DW_OP_const8u: case DW_OP_constu:
				push(k, xasprintf("%#" PRIx64 "ULL", op->number));
				break;
			case DW_OP_const1s: case DW_OP_const2s: case DW_OP_const4s:
			case DW_OP_const8s: case DW_OP_consts:
				push(k, xasprintf("(u64)%" PRId64 "LL", (int64_t)op->number));
				break;
			case DW_OP_fbreg:
				frame_base(k);
				a = pop(k);
				push(k, xasprintf("(%s + (u64)%" PRId64 "LL)", a, (int64_t)op->number));
				free(a);
				break;
			case DW_OP_call_frame_cfa:
				call_frame_cfa(k);
				break;
			case DW_OP_plus_uconst:
				a = pop(k);
				push(k, xasprintf("(%s + %#" PRIx64 "ULL)", a, op->number));
				free(a);
				break;
			case DW_OP_plus: binary(k, "+", false); break;
			case DW_OP_minus: binary(k, "-", false); break;
			case DW_OP_mul: binary(k, "*", false); break;
			case DW_OP_and: binary(k, "&", false); break;
			case DW_OP_or: binary(k, "|", false); break;
			case DW_OP_xor: binary(k, "^", false); break;
			case DW_OP_shl: binary(k, "<<", false); break;
			case DW_OP_shr: binary(k, ">>", false); break;
			case DW_OP_shra: binary(k, ">>", true); break;
			case DW_OP_eq: binary(k, "==", true); break;
			case DW_OP_ne: binary(k, "!=", true); break;
			case DW_OP_lt: binary(k, "<", true); break;
			case DW_OP_gt: binary(k, ">", true); break;
			case DW_OP_le: binary(k, "<=", true); break;
			case DW_OP_ge: binary(k, ">=", true); break;
			case DW_OP_neg:
				a = pop(k);
				push(k, xasprintf("(0ULL - (u64)(%s))", a));
				free(a);
				break;
			case DW_OP_not:
				a = pop(k);
				push(k, xasprintf("(~(u64)(%s))", a));
				free(a);
				break;
			case DW_OP_dup: case DW_OP_drop: case DW_OP_over: case DW_OP_swap:
			case DW_OP_rot:
				shuffle(k, atom);
				break;
			case DW_OP_deref:
				a = pop(k);
				push(k, xasprintf("stp_%s_deref(c, %s, 8)", deref_kind(k), a));
				free(a);
				break;
			case DW_OP_deref_size:
				a = pop(k);
				push(k, xasprintf("stp_%s_deref(c, %s, %" PRIu64 ")", deref_kind(k), a,
						  op->number));
				free(a);
				break;
			case DW_OP_stack_value:
				*is_value = true;
				return !k->error;	/* the end of the description */
			case DW_OP_implicit_value: {
				Dwarf_Block block;
				uint64_t v = 0;

				if (!attr || dwarf_getlocation_implicit_value(attr, op, &block) != 0 ||
				    block.length > 8) {
					fail(k, xstrdup("an implicit value of more than 8 bytes"));
					break;
				}
				memcpy(&v, block.data, block.length);
				push(k, xasprintf("%#" PRIx64 "ULL", v));
				*is_value = true;
				return !k->error;
			}
			case DW_OP_entry_value:
			case DW_OP_GNU_entry_value:
				entry_value(k, attr, op);
				break;
			case DW_OP_implicit_pointer:
			case DW_OP_GNU_implicit_pointer:
				implicit_pointer(k, attr, op);
				*is_value = true;
				return !k->error;	/* the end of the description */
			case DW_OP_piece:
				/* a whole variable in one piece is that piece */
				if (i + 1 == n && i == 1)
					return !k->error;
				fail(k, xstrdup("a variable in several pieces (DW_OP_piece)"));
				break;
			case DW_OP_nop:
				break;
			default:
				fail(k, xasprintf("%s is not supported", op_name(atom)));
				break;
			}
		}
	}
	return !k->error;
}

bool dw_compile_location(struct dw_module *m, Dwarf_Die *var, Dwarf_Die *scope,
			 uint64_t addr, bool at_entry, struct dw_location *out)
{
	struct compile k = { .m = m, .scope = scope, .pc = addr - m->bias, .at_entry = at_entry };
	Dwarf_Attribute attr;
	Dwarf_Op *ops;
	size_t n;
	bool is_value;

	memset(out, 0, sizeof(*out));
	out->regno = -1;
	if (dwarf_attr_integrate(var, DW_AT_const_value, &attr)) {
		Dwarf_Sword sv;
		Dwarf_Word uv;

		if (dwarf_formsdata(&attr, &sv) == 0)
			out->c = xasprintf("(u64)%" PRId64 "LL", (int64_t)sv);
		else if (dwarf_formudata(&attr, &uv) == 0)
			out->c = xasprintf("%#" PRIx64 "ULL", (uint64_t)uv);
		else {
			out->error = xstrdup("a constant of more than 8 bytes");
			return false;
		}
		out->is_value = true;
		return true;
	}
	if (!dwarf_attr(var, DW_AT_location, &attr) ||
	    dwarf_getlocation_addr(&attr, k.pc, &ops, &n, 1) <= 0 || n == 0) {
		out->error = xstrdup("not accessible at this address");
		return false;
	}
	if (!compile_ops(&k, &attr, ops, n, &is_value) || k.depth == 0) {
		out->error = k.error ? k.error : xstrdup("an empty location expression");
		for (int i = 0; i < k.depth; i++)
			free(k.stack[i]);
		return false;
	}
	out->c = k.stack[k.depth - 1];
	out->is_value = is_value;
	out->module_symbol = k.module_symbol;
	if (n == 1 && ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31)
		out->regno = ops[0].atom - DW_OP_reg0;
	else if (n == 1 && ops[0].atom == DW_OP_regx)
		out->regno = (int)ops[0].number;
	for (int i = 0; i < k.depth - 1; i++)
		free(k.stack[i]);
	return true;
}
