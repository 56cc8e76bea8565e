/*
 * ualways.c - a function always inlined, built -O0: its parameter and local live in its
 * caller's frame (DW_OP_fbreg of the caller's frame base, the inlined instance having no
 * frame of its own), for the tests of a statement probe inside the inlined body.
 * Prints "scaled I K" for I = 1 and 2.
 */
#include <stdio.h>

static inline __attribute__((always_inline)) int scaled(int i)
{
	int k = i * 3;

	printf("scaled %d %d\n", i, k);
	return k;
}

int main(int argc, char **argv)
{
	(void)argv;
	return scaled(argc) + scaled(argc * 2) == 9 ? 0 : 1;
}
