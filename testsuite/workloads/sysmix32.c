/* sysmix32 - sysmix.c as a 32-bit program: its system calls enter through the ia32
 * (compat) entry points. */
#include "sysmix.c"
