/* futexops32 - futexops built as a 32-bit program (futexops32.cflags) */
#include "futexops.c"
