/* SPDX-License-Identifier: MIT */
/*
 * What every wrapper of libdps-syncprobe must keep: the real call's result and errno, on
 * success and on failure. Run by test-syncprobe-calls with the probe preloaded and no session
 * (the wrappers' plain path), and recorded by test-syncprobe-live (their traced path, where
 * the events are computed between the program's calls). With argv[1] "preloaded" it first
 * checks that the calls resolve to the probe, so the test cannot pass without it.
 *
 * Failures: an invalid barrier count, an overflowing semaphore value and post, a failed
 * sem_trywait, a timed-out sem_timedwait, an invalid deadline, a clock that cannot be waited
 * on; a tryrdlock and trywrlock on a write-locked rwlock, a timedwrlock that times out; a
 * timed condition wait that times out; reads and writes on a bad descriptor, an empty
 * non-blocking pipe, a pipe without a reader. Successes leave errno alone. Prints one line per
 * failed check and exits 1 if there is one.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

ssize_t __read_chk(int fd, void *buf, size_t nbytes, size_t buflen);

static int failures;

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "calls-prog: line %d: %s (errno %d)\n", __LINE__, #cond,   \
				errno);                                                            \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

/* errno is left as it was by a call that succeeds: SUCCEEDS(call == 0) */
#define SUCCEEDS(cond)                                                                             \
	do {                                                                                       \
		errno = 4321;                                                                      \
		CHECK((cond) && errno == 4321);                                                    \
	} while (0)

/* a call that fails with err: FAILS(call == -1, EAGAIN) */
#define FAILS(cond, err)                                                                           \
	do {                                                                                       \
		errno = 0;                                                                         \
		CHECK((cond) && errno == (err));                                                   \
	} while (0)

static struct timespec in_ms(clockid_t clk, long ms)
{
	struct timespec t;

	clock_gettime(clk, &t);
	t.tv_nsec += ms * 1000000L;
	t.tv_sec += t.tv_nsec / 1000000000L;
	t.tv_nsec %= 1000000000L;
	return t;
}

static void check_preloaded(void)
{
	static const char *const names[] = {"pthread_cond_timedwait",
					    "pthread_barrier_wait",
					    "sem_wait",
					    "sem_trywait",
					    "sem_timedwait",
					    "pthread_rwlock_tryrdlock",
					    "read",
					    "__read_chk",
					    "write",
					    "close",
					    "pipe2",
					    "fclose"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		void *f = dlsym(RTLD_DEFAULT, names[i]);
		Dl_info info;

		if (!f || !dladdr(f, &info) || !info.dli_fname ||
		    !strstr(info.dli_fname, "libdps-syncprobe")) {
			fprintf(stderr, "calls-prog: %s is not the probe's (%s)\n", names[i],
				f && dladdr(f, &info) ? info.dli_fname : "not found");
			failures++;
		}
	}
}

static void barriers(void)
{
	pthread_barrier_t b;

	CHECK(pthread_barrier_init(&b, NULL, 0) == EINVAL);
	SUCCEEDS(pthread_barrier_init(&b, NULL, 1) == 0);
	SUCCEEDS(pthread_barrier_wait(&b) == PTHREAD_BARRIER_SERIAL_THREAD);
	pthread_barrier_destroy(&b);
}

static void semaphores(void)
{
	struct timespec until;
	sem_t s;

	FAILS(sem_init(&s, 0, (unsigned)SEM_VALUE_MAX + 1u) == -1, EINVAL);
	SUCCEEDS(sem_init(&s, 0, 0) == 0);
	FAILS(sem_trywait(&s) == -1, EAGAIN);
	until = in_ms(CLOCK_REALTIME, 10);
	FAILS(sem_timedwait(&s, &until) == -1, ETIMEDOUT);
	until.tv_nsec = 2000000000L;
	FAILS(sem_timedwait(&s, &until) == -1, EINVAL);
	until = in_ms(CLOCK_MONOTONIC, 10);
	FAILS(sem_clockwait(&s, CLOCK_MONOTONIC, &until) == -1, ETIMEDOUT);
	FAILS(sem_clockwait(&s, CLOCK_PROCESS_CPUTIME_ID, &until) == -1, EINVAL);
	SUCCEEDS(sem_post(&s) == 0);
	SUCCEEDS(sem_wait(&s) == 0);
	SUCCEEDS(sem_post(&s) == 0);
	SUCCEEDS(sem_trywait(&s) == 0);
	sem_destroy(&s);

	SUCCEEDS(sem_init(&s, 0, SEM_VALUE_MAX) == 0);
	FAILS(sem_post(&s) == -1, EOVERFLOW);
	sem_destroy(&s);
}

static pthread_rwlock_t rwlock = PTHREAD_RWLOCK_INITIALIZER;

static void *timed_writer(void *arg)
{
	struct timespec until = in_ms(CLOCK_REALTIME, 10);

	(void)arg;
	CHECK(pthread_rwlock_timedwrlock(&rwlock, &until) == ETIMEDOUT);
	until.tv_nsec = -1;
	CHECK(pthread_rwlock_timedrdlock(&rwlock, &until) == EINVAL);
	return NULL;
}

static void rwlocks(void)
{
	pthread_t t;

	SUCCEEDS(pthread_rwlock_wrlock(&rwlock) == 0);
	CHECK(pthread_rwlock_tryrdlock(&rwlock) == EBUSY);
	CHECK(pthread_rwlock_trywrlock(&rwlock) == EBUSY);
	CHECK(pthread_rwlock_rdlock(&rwlock) == EDEADLK);
	pthread_create(&t, NULL, timed_writer, NULL);
	pthread_join(t, NULL);
	SUCCEEDS(pthread_rwlock_unlock(&rwlock) == 0);
	SUCCEEDS(pthread_rwlock_rdlock(&rwlock) == 0);
	SUCCEEDS(pthread_rwlock_tryrdlock(&rwlock) == 0);
	SUCCEEDS(pthread_rwlock_unlock(&rwlock) == 0);
	SUCCEEDS(pthread_rwlock_unlock(&rwlock) == 0);
}

static void conds(void)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t c = PTHREAD_COND_INITIALIZER;
	struct timespec until = in_ms(CLOCK_REALTIME, 10);

	pthread_mutex_lock(&m);
	CHECK(pthread_cond_timedwait(&c, &m, &until) == ETIMEDOUT);
	CHECK(pthread_mutex_trylock(&m) == EBUSY); /* held again */
	until = in_ms(CLOCK_MONOTONIC, 10);
	CHECK(pthread_cond_clockwait(&c, &m, CLOCK_MONOTONIC, &until) == ETIMEDOUT);
	CHECK(pthread_cond_clockwait(&c, &m, CLOCK_PROCESS_CPUTIME_ID, &until) == EINVAL);
	pthread_mutex_unlock(&m);
	SUCCEEDS(pthread_cond_signal(&c) == 0);
	SUCCEEDS(pthread_cond_broadcast(&c) == 0);
}

static void pipes(void)
{
	char buf[16];
	int p[2];
	FILE *f;

	FAILS(read(-1, buf, 1) == -1, EBADF);
	FAILS(write(-1, "x", 1) == -1, EBADF);
	FAILS(pipe2(p, -1) == -1, EINVAL);
	SUCCEEDS(pipe2(p, O_NONBLOCK) == 0);
	FAILS(read(p[0], buf, sizeof(buf)) == -1, EAGAIN);
	SUCCEEDS(write(p[1], "hello", 5) == 5);
	SUCCEEDS(__read_chk(p[0], buf, 3, sizeof(buf)) == 3 && !memcmp(buf, "hel", 3));
	SUCCEEDS(read(p[0], buf, sizeof(buf)) == 2 && !memcmp(buf, "lo", 2));
	FAILS(dup2(p[0], -1) == -1, EBADF);
	SUCCEEDS(close(p[0]) == 0);
	FAILS(close(p[0]) == -1, EBADF);
	FAILS(read(p[0], buf, 1) == -1, EBADF);
	/* no reader left: EPIPE (SIGPIPE ignored) */
	signal(SIGPIPE, SIG_IGN);
	FAILS(write(p[1], "x", 1) == -1, EPIPE);
	SUCCEEDS(close(p[1]) == 0);

	SUCCEEDS(pipe(p) == 0);
	f = fdopen(p[1], "w");
	CHECK(f != NULL);
	SUCCEEDS(f && fclose(f) == 0);
	SUCCEEDS(read(p[0], buf, sizeof(buf)) == 0); /* end of file: the writer is gone */
	SUCCEEDS(close(p[0]) == 0);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "preloaded")) {
		check_preloaded();
	}
	barriers();
	semaphores();
	rwlocks();
	conds();
	pipes();
	if (failures) {
		fprintf(stderr, "calls-prog: %d failed checks\n", failures);
		return 1;
	}
	printf("calls-prog: all checks passed\n");
	return 0;
}
