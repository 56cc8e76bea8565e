/*
 * ubits.c - bitfields of a global and of a local struct, built twice: with the compiler's
 * DWARF 5 (DW_AT_data_bit_offset) and with -gdwarf-4 (DW_AT_bit_offset, counted from the
 * storage unit's most significant bit), for the tests that read them.  Prints the fields.
 */
#include <stdio.h>

struct bits {
	unsigned a : 4;
	unsigned b : 8;
	char pad[10];
	int d : 3;
	signed char e : 2;
};

struct bits g = { .a = 3, .b = 200, .d = -2, .e = 1 };

__attribute__((noinline)) int show(struct bits *p)
{
	return printf("%u %u %d %d\n", p->a, p->b, p->d, p->e);
}

int main(void)
{
	struct bits l = { .a = 15, .b = 7, .d = 3, .e = -2 };

	show(&g);
	return show(&l) > 0 ? 0 : 1;
}
