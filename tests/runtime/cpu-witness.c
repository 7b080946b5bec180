/* SPDX-License-Identifier: MIT */
/*
 * A witness preloaded into a stub (test-startup.c): the kernel's CPU clock of the stub's main
 * thread, which plays the root, read at three moments libdps does not report itself, and
 * written to $DPS_WITNESS_OUT when the stub leaves:
 *
 *   main_cpu_ns  when main is called (__libc_start_main's main, wrapped): the process's own
 *                start-up before it (exec, loading, constructors);
 *   play_cpu_ns  when the main thread first names itself after main: the player names the
 *                root after its recorded thread right before its first action;
 *   exit_cpu_ns  when it calls _exit (generated programs end with dps_exit).
 *
 * From them the test tells the CPU time the root's runs were played with (exit less play)
 * from dps's own set-up between main and the play (play less main), without asking dps. A
 * moment not seen is written as 0. Never sanitized: it is preloaded before the stub's own
 * libraries (an ASan stub is told not to check that its runtime comes first).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

typedef int (*main_fn)(int, char **, char **);
typedef int (*start_main_fn)(main_fn, int, char **, void (*)(void), void (*)(void), void (*)(void),
			     void *);

/* glibc's entry from _start; no header declares it */
int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void), void (*fini)(void),
		      void (*rtld_fini)(void), void *stack_end);

static main_fn real_main;
static uint64_t main_cpu_ns, play_cpu_ns;

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int on_main_thread(void)
{
	return syscall(SYS_gettid) == getpid();
}

/* The real functions are found with dlsym(RTLD_NEXT) and called through unions: ISO C has no
 * cast between object and function pointers. */

static int witness_main(int argc, char **argv, char **envp)
{
	main_cpu_ns = thread_cpu_ns();
	return real_main(argc, argv, envp);
}

int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void), void (*fini)(void),
		      void (*rtld_fini)(void), void *stack_end)
{
	union {
		void *p;
		start_main_fn f;
	} next = {.p = dlsym(RTLD_NEXT, "__libc_start_main")};

	real_main = main;
	return next.f(witness_main, argc, argv, init, fini, rtld_fini, stack_end);
}

int pthread_setname_np(pthread_t thread, const char *name)
{
	union {
		void *p;
		int (*f)(pthread_t, const char *);
	} next = {.p = dlsym(RTLD_NEXT, "pthread_setname_np")};

	if (main_cpu_ns && !play_cpu_ns && on_main_thread() &&
	    pthread_equal(thread, pthread_self())) {
		play_cpu_ns = thread_cpu_ns();
	}
	return next.f(thread, name);
}

void _exit(int code)
{
	uint64_t exit_cpu_ns = on_main_thread() ? thread_cpu_ns() : 0;
	const char *path = getenv("DPS_WITNESS_OUT");
	union {
		void *p;
		void (*f)(int);
	} next = {.p = dlsym(RTLD_NEXT, "_exit")};
	FILE *f = path ? fopen(path, "w") : NULL;

	if (f) {
		fprintf(f, "main_cpu_ns %llu\nplay_cpu_ns %llu\nexit_cpu_ns %llu\n",
			(unsigned long long)main_cpu_ns, (unsigned long long)play_cpu_ns,
			(unsigned long long)exit_cpu_ns);
		fclose(f);
	}
	if (next.f) {
		next.f(code);
	}
	syscall(SYS_exit_group, code);
	for (;;) {
		pause();
	}
}
