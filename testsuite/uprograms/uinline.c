/*
 * uinline.c - inlined functions whose pointer arguments the compiler (-O1) describes with
 * the operations of optimized code, for the DWARF tests:
 *   stack_first(p)  p is the caller's frame address of a struct kept on the stack
 *                   (DW_OP_fbreg: the frame base is the caller's, the inlined instance has
 *                   none of its own)
 *   rect_area(r)    r is a pointer optimized away (DW_OP_implicit_pointer) to a struct of
 *                   the caller's kept in registers: it has no value
 * Prints the address of use_stack's struct, and each function's result.
 */
#include <stdio.h>
#include <stdlib.h>

struct rect {
	int w, h;
};

struct big {
	int a[8];
};

__attribute__((noinline)) void fill(struct big *b)
{
	for (int i = 0; i < 8; i++)
		b->a[i] = i * 10;
	printf("big at %p\n", (void *)b);
	asm volatile("" ::: "memory");
}

static inline int stack_first(const struct big *p)
{
	int v = p->a[0] + p->a[7];

	asm volatile("" : : "r"(v));
	return v;
}

__attribute__((noinline)) int use_stack(int k)
{
	struct big b;

	fill(&b);
	b.a[0] += k;
	return stack_first(&b);
}

static inline long rect_area(const struct rect *r)
{
	long a = (long)r->w * r->h;

	asm volatile("" : : "r"(a));
	return a + r->w;
}

__attribute__((noinline)) long use_registers(int side)
{
	struct rect sq = { side, side + 1 };

	return rect_area(&sq);
}

int main(int argc, char **argv)
{
	int k = argc > 1 ? atoi(argv[1]) : 1;

	printf("use_stack %d\n", use_stack(k));
	printf("use_registers %ld\n", use_registers(k));
	return 0;
}
