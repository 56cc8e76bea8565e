/*
 * uexec.c - a program that execs itself once ("uexec" runs "uexec again"), for the tests
 * of process("PATH").begin and .end at an exec: prints "uexec" and "uexec again".
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "again") == 0) {
		printf("uexec again\n");
		return 0;
	}
	printf("uexec\n");
	fflush(stdout);
	execl("/proc/self/exe", argv[0], "again", (char *)NULL);
	perror("execl");
	return 1;
}
