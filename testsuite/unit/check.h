/*
 * check.h - what the unit tests share: CHECK(name, condition) prints a PASS: or FAIL: line
 * for testsuite/unit.sh and counts the failures.
 */
#ifndef UNIT_CHECK_H
#define UNIT_CHECK_H

static int failures;

#define CHECK(name, cond)                                                           \
	do {                                                                        \
		if (cond) {                                                         \
			printf("PASS: unit: %s\n", name);                           \
		} else {                                                            \
			printf("FAIL: unit: %s\n    %s:%d: %s\n", name, __FILE__,  \
			       __LINE__, #cond);                                    \
			failures++;                                                 \
		}                                                                   \
	} while (0)

#endif
