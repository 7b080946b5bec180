/* SPDX-License-Identifier: MIT */
/* The bench programs' shared work loop, options and annotated queue (common.h). */
#include "common.h"

#include "annot.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* About 1.3 ms of one core of the bench machine (1.3 ns per iteration). */
#define SB_DEFAULT_UNIT 1000000UL

/* Where the loop's result goes, so the compiler cannot drop the loop. */
static volatile unsigned long sb_sink;

void sb_common_init(struct sb_common *c, const char *argv0)
{
	const char *slash = strrchr(argv0, '/');

	c->prog = slash ? slash + 1 : argv0;
	for (int i = 0; i < SB_MAX_IDS; i++) {
		c->scale[i] = 1.0;
	}
	c->unit = SB_DEFAULT_UNIT;
}

int sb_parse_double(const char *arg, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(v) || v < 0) {
		return -1;
	}
	*out = v;
	return 0;
}

int sb_parse_count(const char *arg, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (*arg < '0' || *arg > '9') {
		return -1;
	}
	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || *end || v == 0 || v > max) {
		return -1;
	}
	*out = v;
	return 0;
}

int sb_parse_list(const char *arg, double *out, int max)
{
	const char *p = arg;
	int n = 0;

	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char tok[64];

		if (n == max || len == 0 || len >= sizeof(tok)) {
			return -1;
		}
		memcpy(tok, p, len);
		tok[len] = '\0';
		if (sb_parse_double(tok, &out[n])) {
			return -1;
		}
		n++;
		if (!comma) {
			return n;
		}
		p = comma + 1;
	}
}

uint64_t sb_mix(uint64_t a, uint64_t b, uint64_t round)
{
	uint64_t z = a + 0x9e3779b97f4a7c15ULL * (b ^ (round + 1));

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

double sb_fraction(uint64_t v)
{
	return (double)(v >> 11) / 9007199254740992.0;
}

double sb_golden(unsigned long i)
{
	double x = (double)i * 0.6180339887498949;

	return x - (double)(unsigned long)x;
}

int sb_common_option(struct sb_common *c, int opt, const char *arg)
{
	const char *eq;
	char id_text[16];
	unsigned long id;
	double s;

	if (opt == 'u') {
		if (sb_parse_count(arg, ULONG_MAX / 1000, &c->unit)) {
			fprintf(stderr, "%s: --unit wants a positive loop count, not \"%s\"\n",
				c->prog, arg);
			return -1;
		}
		return 0;
	}
	/* --scale ID=S: the id is small, so a copy of it fits the parser's NUL-ended API. */
	eq = strchr(arg, '=');
	if (!eq || (size_t)(eq - arg) >= sizeof(id_text)) {
		goto bad_scale;
	}
	memcpy(id_text, arg, (size_t)(eq - arg));
	id_text[eq - arg] = '\0';
	if (!strcmp(id_text, "0")) {
		id = 0;
	} else if (sb_parse_count(id_text, SB_MAX_IDS - 1, &id)) {
		goto bad_scale;
	}
	if (sb_parse_double(eq + 1, &s)) {
		goto bad_scale;
	}
	c->scale[id] = s;
	return 0;

bad_scale:
	fprintf(stderr, "%s: --scale wants ID=S (ID 0-%d, S >= 0), not \"%s\"\n", c->prog,
		SB_MAX_IDS - 1, arg);
	return -1;
}

/*
 * Aligned to a cache line so that its loop sits at the same place in every program and
 * variant: where the linker put it, the loop could cross a 64-byte boundary in one variant
 * and not in the other, and run at another speed (AMD's instruction fetch): the two variants
 * would not be the same program. Check: `perf stat -e task-clock` of both variants.
 */
__attribute__((aligned(64))) void sb_work(const struct sb_common *c, double units)
{
	unsigned long n = (unsigned long)(units * (double)c->unit + 0.5);
	unsigned long x = 0x9e3779b97f4a7c15UL;

	/*
	 * A dependent chain of multiply-adds, the register made opaque each turn: the compiler can
	 * neither drop the loop nor fold it into a closed form, at any optimization level.
	 */
	for (unsigned long i = 0; i < n; i++) {
		x = x * 6364136223846793005UL + 1442695040888963407UL;
		__asm__ volatile("" : "+r"(x));
	}
	sb_sink = x;
}

int sb_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n < 0) {
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int sb_read_record(int fd, void *buf, size_t len)
{
	char *p = buf;
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, p + got, len - got);

		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n < 0) {
			return -1;
		}
		if (n == 0) {
			return got == 0 ? 0 : -1;
		}
		got += (size_t)n;
	}
	return 1;
}

void sb_name_thread(const char *name)
{
	/* Names longer than the kernel's 15 characters fail: the bench's are short. */
	(void)pthread_setname_np(pthread_self(), name);
}

int sb_queue_init(struct sb_queue *q, unsigned capacity)
{
	q->items = calloc(capacity, sizeof(*q->items));
	if (!q->items) {
		return -1;
	}
	pthread_mutex_init(&q->mutex, NULL);
	pthread_cond_init(&q->not_full, NULL);
	pthread_cond_init(&q->not_empty, NULL);
	q->capacity = capacity;
	q->head = 0;
	q->count = 0;
	dps_queue_init(q, capacity);
	return 0;
}

void sb_queue_destroy(struct sb_queue *q)
{
	pthread_cond_destroy(&q->not_empty);
	pthread_cond_destroy(&q->not_full);
	pthread_mutex_destroy(&q->mutex);
	free(q->items);
	q->items = NULL;
}

void sb_queue_put(struct sb_queue *q, long item)
{
	pthread_mutex_lock(&q->mutex);
	while (q->count == q->capacity) {
		pthread_cond_wait(&q->not_full, &q->mutex);
	}
	q->items[(q->head + q->count) % q->capacity] = item;
	q->count++;
	dps_produce(q);
	pthread_cond_signal(&q->not_empty);
	pthread_mutex_unlock(&q->mutex);
}

long sb_queue_take(struct sb_queue *q)
{
	long item;

	pthread_mutex_lock(&q->mutex);
	while (q->count == 0) {
		pthread_cond_wait(&q->not_empty, &q->mutex);
	}
	item = q->items[q->head];
	q->head = (q->head + 1) % q->capacity;
	q->count--;
	dps_consume(q);
	pthread_cond_signal(&q->not_full);
	pthread_mutex_unlock(&q->mutex);
	return item;
}
