/* libustap.h - what libustap.so offers uprog (see libustap.c). */
#ifndef LIBUSTAP_H
#define LIBUSTAP_H

extern int lib_calls;
int lib_mul(int a, int b);
int lib_twice(int x);

#endif
