/*
 * libustap.so - the shared library of the user-space probe tests, in the sysroot as
 * /usr/lib/stapler/libustap.so (built -g -O0 -fPIC by ./build).  uprog calls lib_mul N
 * times (from inner) and lib_twice N times (from main), so probes on a library's
 * functions (process("/usr/lib/stapler/libustap.so").function(...)) have known counts.
 */

int lib_calls; /* how many times either function was called */

/* lib_mul's own count: the library's static, where lib_calls, which uprog reads, is
 * uprog's copy (a copy relocation: the library's own lib_calls is never used) */
static int mul_calls;

int lib_mul(int a, int b)
{
	mul_calls++;
	lib_calls++;
	return a * b;
}

int lib_twice(int x)
{
	lib_calls++;
	return 2 * x;
}
