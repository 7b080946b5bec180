/* SPDX-License-Identifier: MIT */
/*
 * pingsleep: a ping-pong beside a lone sleeper, a workload of bench/fidelity.sh
 * (doc/fidelity.md). Two threads, ping and pong, take turns through one pthread condition
 * variable: each waits until the turn is its, hashes a slice of a shared buffer (FNV-1a, 8,000
 * to 40,000 bytes: 10 to 50 us of CPU on the bench machine), then gives the turn to the other
 * and signals it; 5,000 round trips at the defaults. Beside them a third thread, sleeper, a
 * housekeeper that shares nothing with the other two but a flag: it hashes 160,000 bytes
 * (200 us), then sleeps 1 ms (nanosleep), over and over until it sees the ping-pong is over
 * (or --naps times). The main thread starts the three, joins ping and pong, raises the flag
 * and joins the sleeper.
 *
 * Every slice's size and place come from a generator seeded by --seed, so every run does the
 * same work; only the timing differs from run to run, and with it how many naps the sleeper
 * takes unless --naps fixes their number.
 *
 * Usage: dps-fidelity-pingsleep [--rounds N] [--naps N] [--nap-us U] [--seed S] [--work X]
 *   --rounds N   round trips of the ping-pong (default 5000)
 *   --naps N     the sleeper's cycles of work and sleep (default 0: until the ping-pong ends)
 *   --nap-us U   the sleeper's sleep in microseconds (default 1000)
 *   --seed S     the generator's seed (default 1)
 *   --work X     multiplies every slice hashed, the sleeper's too (default 1)
 * Prints "pingsleep: rounds=N naps=M digest=D sleeper=S" (M the naps taken; D the ping-pong's,
 * S the sleeper's hash) and exits 0; 1 when a thread cannot start, 2 on bad usage. At the
 * defaults, about 0.5 s and 400 naps on an idle 2-core machine recorded with dps record.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BUFFER_BYTES (1u << 16)

enum side { PING, PONG };

struct config {
	unsigned long rounds;
	unsigned long naps;
	unsigned long nap_us;
	uint64_t seed;
	double work;
};

struct court {
	const struct config *cfg;
	const unsigned char *buf;
	pthread_mutex_t lock;
	pthread_cond_t turn_changed;
	enum side turn;
	atomic_bool over;   /* the ping-pong is over: the sleeper stops */
	unsigned long naps; /* the sleeper's naps */
	uint64_t digest[3]; /* ping's, pong's, the sleeper's */
};

/* splitmix64: the k-th value of the stream SEED, the same on every run. */
static uint64_t mix(uint64_t seed, uint64_t k)
{
	uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (k + 1);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * FNV-1a over N bytes of BUF from a pseudo-random place picked by R, going round the buffer
 * when N is longer: one multiply per byte in a dependent chain, so the time is proportional to
 * N and no compiler can vectorize it away.
 */
static uint64_t hash_slice(const unsigned char *buf, uint64_t r, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t at = (size_t)(r >> 32) % BUFFER_BYTES;

	while (n > 0) {
		size_t part = n < BUFFER_BYTES - at ? n : BUFFER_BYTES - at;

		for (size_t i = 0; i < part; i++) {
			h ^= buf[at + i];
			h *= 0x100000001b3ULL;
		}
		n -= part;
		at = 0;
	}
	return h;
}

static size_t scaled(const struct config *cfg, size_t bytes)
{
	return (size_t)((double)bytes * cfg->work);
}

static void play(struct court *c, enum side me)
{
	const struct config *cfg = c->cfg;
	uint64_t digest = 0;

	pthread_setname_np(pthread_self(), me == PING ? "ping" : "pong");
	for (unsigned long k = 0; k < cfg->rounds; k++) {
		uint64_t r = mix(cfg->seed, 2 * k + me);

		pthread_mutex_lock(&c->lock);
		while (c->turn != me) {
			pthread_cond_wait(&c->turn_changed, &c->lock);
		}
		pthread_mutex_unlock(&c->lock);
		digest ^= hash_slice(c->buf, r, scaled(cfg, 8000 + r % 32001));
		pthread_mutex_lock(&c->lock);
		c->turn = me == PING ? PONG : PING;
		pthread_mutex_unlock(&c->lock);
		pthread_cond_signal(&c->turn_changed);
	}
	c->digest[me] = digest;
}

static void *ping(void *arg)
{
	play(arg, PING);
	return NULL;
}

static void *pong(void *arg)
{
	play(arg, PONG);
	return NULL;
}

static void *sleeper(void *arg)
{
	struct court *c = arg;
	const struct config *cfg = c->cfg;
	struct timespec nap = {.tv_sec = (time_t)(cfg->nap_us / 1000000),
			       .tv_nsec = (long)(cfg->nap_us % 1000000) * 1000};
	uint64_t digest = 0;

	pthread_setname_np(pthread_self(), "sleeper");
	unsigned long k;

	for (k = 0; cfg->naps ? k < cfg->naps : !atomic_load(&c->over); k++) {
		uint64_t r = mix(cfg->seed ^ 0x51ee9, k);

		struct timespec left = nap;

		digest ^= hash_slice(c->buf, r, scaled(cfg, 160000));
		while (nanosleep(&left, &left) != 0 && errno == EINTR) {
		}
	}
	c->digest[2] = digest;
	c->naps = k;
	return NULL;
}

static int parse_count(const char *arg, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (*arg < '0' || *arg > '9') {
		return -1;
	}
	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || *end || v > max) {
		return -1;
	}
	*out = v;
	return 0;
}

static void usage(FILE *out, const char *prog)
{
	fprintf(out,
		"usage: %s [--rounds N] [--naps N] [--nap-us U] [--seed S] [--work X]\n"
		"  defaults: 5000 round trips (slices of 8000-40000 bytes each side); naps of\n"
		"  1000 us after 160000 bytes each until the ping-pong ends; seed 1, work 1\n",
		prog);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"rounds", required_argument, NULL, 'n'},
	    {"naps", required_argument, NULL, 'p'},
	    {"nap-us", required_argument, NULL, 'u'},
	    {"seed", required_argument, NULL, 's'},
	    {"work", required_argument, NULL, 'w'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct config cfg = {.rounds = 5000, .naps = 0, .nap_us = 1000, .seed = 1, .work = 1.0};
	static unsigned char buf[BUFFER_BYTES];
	struct court c = {.cfg = &cfg, .buf = buf, .turn = PING};
	void *(*bodies[3])(void *) = {ping, pong, sleeper};
	pthread_t threads[3];
	unsigned long seed;
	char *end;
	int opt;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		int bad = 0;

		switch (opt) {
		case 'n':
			bad = parse_count(optarg, 100000000, &cfg.rounds);
			break;
		case 'p':
			bad = parse_count(optarg, 100000000, &cfg.naps);
			break;
		case 'u':
			bad = parse_count(optarg, 10000000, &cfg.nap_us);
			break;
		case 's':
			bad = parse_count(optarg, ~0UL, &seed);
			cfg.seed = seed;
			break;
		case 'w':
			cfg.work = strtod(optarg, &end);
			bad = *end || !(cfg.work > 0 && cfg.work <= 1000);
			break;
		case 'h':
			usage(stdout, argv[0]);
			return 0;
		default:
			usage(stderr, argv[0]);
			return 2;
		}
		if (bad) {
			fprintf(stderr, "%s: bad value \"%s\" for an option\n", argv[0], optarg);
			usage(stderr, argv[0]);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr, argv[0]);
		return 2;
	}
	for (size_t i = 0; i < BUFFER_BYTES; i++) {
		buf[i] = (unsigned char)(mix(cfg.seed, i) >> 56);
	}
	pthread_mutex_init(&c.lock, NULL);
	pthread_cond_init(&c.turn_changed, NULL);
	for (int i = 0; i < 3; i++) {
		int err = pthread_create(&threads[i], NULL, bodies[i], &c);

		if (err) {
			/* ping and pong wait for each other: one alone would never end */
			fprintf(stderr, "%s: cannot start a thread: %s\n", argv[0], strerror(err));
			_Exit(1);
		}
	}
	pthread_join(threads[PING], NULL);
	pthread_join(threads[PONG], NULL);
	atomic_store(&c.over, true);
	pthread_join(threads[2], NULL);
	printf("pingsleep: rounds=%lu naps=%lu digest=%016llx sleeper=%016llx\n", cfg.rounds,
	       c.naps, (unsigned long long)(c.digest[PING] ^ c.digest[PONG]),
	       (unsigned long long)c.digest[2]);
	return 0;
}
