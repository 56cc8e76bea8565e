/*
 * fold.c - constant folding, in one place: the value of an expression of literals.
 *
 * The resolver uses it to drop the branches that @defined() decides, the optimizer to
 * fold constants (with -u too).  Arithmetic wraps at 64 bits as it does at run time; a
 * division by zero is left alone, to fail at run time.
 */
#include "elaborate.h"

#include <string.h>

static bool fold_binary(const char *op, int64_t a, int64_t b, int64_t *out)
{
	uint64_t ua = a, ub = b;

	/* shifts as at run time (the count's low 6 bits), but for stap's folding of a
	 * negative constant count, which leaves the value as it is */
	if ((op[0] == '<' || op[0] == '>') && b < 0) {
		*out = a;
		return true;
	}
	if (strcmp(op, ">>>") == 0) {
		*out = (int64_t)(ua >> (b & 63));
		return true;
	}
	switch (op[0]) {
	case '+': *out = (int64_t)(ua + ub); return true;
	case '-': *out = (int64_t)(ua - ub); return true;
	case '*': *out = (int64_t)(ua * ub); return true;
	case '/': if (b == 0) return false; *out = b == -1 ? (int64_t)(0 - ua) : a / b; return true;
	case '%': if (b == 0) return false; *out = b == -1 ? 0 : a % b; return true;
	case '&': *out = a & b; return true;
	case '|': *out = a | b; return true;
	case '^': *out = a ^ b; return true;
	case '<': *out = (int64_t)(ua << (b & 63)); return true;
	case '>': *out = a >> (b & 63); return true;
	}
	return false;
}

static int64_t fold_compare(const char *op, int64_t a, int64_t b)
{
	if (!strcmp(op, "==")) return a == b;
	if (!strcmp(op, "!=")) return a != b;
	if (!strcmp(op, "<")) return a < b;
	if (!strcmp(op, "<=")) return a <= b;
	if (!strcmp(op, ">")) return a > b;
	return a >= b;
}

bool constant_value(struct node *n, int64_t *value)
{
	int64_t a, b;

	switch (n->kind) {
	case ND_NUMBER:
		*value = n->number;
		return true;
	case ND_UNARY:
		if (!constant_value(n->lhs, &a))
			return false;
		*value = n->op[0] == '!' ? !a : n->op[0] == '-' ? (int64_t)(0 - (uint64_t)a) :
			 n->op[0] == '~' ? ~a : a;
		return n->op[0] != '&';
	case ND_LOGICAL:
		if (!constant_value(n->lhs, &a) || !constant_value(n->rhs, &b))
			return false;
		*value = n->op[0] == '&' ? (a && b) : (a || b);
		return true;
	case ND_BINARY:
		return constant_value(n->lhs, &a) && constant_value(n->rhs, &b) &&
		       fold_binary(n->op, a, b, value);
	case ND_COMPARE:
		if (!constant_value(n->lhs, &a) || !constant_value(n->rhs, &b))
			return false;
		*value = fold_compare(n->op, a, b);
		return true;
	default:
		return false;
	}
}
