/* SPDX-License-Identifier: MIT */
/*
 * make's pattern for the live test of `join any` (issue 13): a parent forks three children
 * that spin different amounts of CPU (argv[1] ms for the first, twice and three times that for
 * the others) and reaps them with wait(NULL), a wait for any child, until none is left.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void spin_ms(long ms)
{
	struct timespec a, b;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	do {
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000L + (b.tv_nsec - a.tv_nsec) / 1000000L < ms);
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 50;

	for (int i = 1; i <= 3; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			return 1;
		}
		if (pid == 0) {
			spin_ms(ms * i);
			_exit(0);
		}
	}
	while (wait(NULL) > 0 || errno == EINTR) {
	}
	return 0;
}
