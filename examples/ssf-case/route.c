/* SPDX-License-Identifier: MIT */
/*
 * The route planner (route.h): a grid map with land, a river crossed by bridges and ferries,
 * ponds and an island no road reaches; one request is planned by Dijkstra's search over the
 * grid (travel minutes per cell), and the path is cut into legs of one heading and one mode.
 *
 * The work knob repeats the search: every pass computes the same distances, and the last
 * pass's are used, so the result does not depend on the knob while the CPU time is
 * proportional to it (the case study makes the real function faster or slower with it).
 * The passes are compared with each other, which also keeps a compiler from dropping them.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "route.h"

/* Search passes at work scale 1: about 10 ms of CPU per request on a 2020s x86 core. */
#define ROUTE_PASSES 200

#define MAP_SIZE 48

enum cell_kind {
	CELL_LAND = 0,
	CELL_WATER = 1,
	CELL_BRIDGE = 2,
	CELL_FERRY = 3,
};

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15u;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
	return x ^ (x >> 31);
}

static uint64_t cell_hash(int x, int y, unsigned seed)
{
	return mix(((uint64_t)seed << 40) ^ ((uint64_t)(unsigned)y << 20) ^ (uint64_t)(unsigned)x);
}

/* The island: land ringed by water with no crossing, so no route leads in or out. */
static int on_island_ring(int x, int y)
{
	int in_box = x >= 32 && x <= 41 && y >= 6 && y <= 15;

	return in_box && (x == 32 || x == 41 || y == 6 || y == 15);
}

int map_build(struct map *map, unsigned seed)
{
	int n = MAP_SIZE * MAP_SIZE;

	map->width = MAP_SIZE;
	map->height = MAP_SIZE;
	map->kind = calloc((size_t)n, 1);
	map->minutes = calloc((size_t)n, 1);
	if (!map->kind || !map->minutes) {
		goto free_arrays;
	}
	for (int y = 0; y < MAP_SIZE; y++) {
		int river = 20 + (y / 6) % 3; /* a river three cells wide, meandering */

		for (int x = 0; x < MAP_SIZE; x++) {
			uint64_t h = cell_hash(x, y, seed);
			int i = y * MAP_SIZE + x;
			uint8_t kind = CELL_LAND, minutes = (uint8_t)(1 + h % 4);

			if (x >= river && x < river + 3) {
				kind = y % 24 == 4    ? CELL_BRIDGE
				       : y % 12 == 10 ? CELL_FERRY
						      : CELL_WATER;
				minutes = kind == CELL_BRIDGE ? 2 : 5;
			} else if (on_island_ring(x, y) || (h >> 32) % 29 == 0) {
				kind = CELL_WATER;
			}
			map->kind[i] = kind;
			map->minutes[i] = minutes;
		}
	}
	return 0;
free_arrays:
	free(map->kind);
	free(map->minutes);
	return -1;
}

void map_free(struct map *map)
{
	free(map->kind);
	free(map->minutes);
}

struct request *requests_make(const struct map *map, unsigned n, unsigned seed)
{
	struct request *reqs = calloc(n ? n : 1, sizeof(*reqs));

	if (!reqs) {
		return NULL;
	}
	for (unsigned i = 0; i < n; i++) {
		uint64_t h = mix(((uint64_t)seed << 32) ^ i);

		reqs[i].id = i;
		reqs[i].from = (struct point){(int)(h % (unsigned)map->width),
					      (int)((h >> 16) % (unsigned)map->height)};
		reqs[i].to = (struct point){(int)((h >> 32) % (unsigned)map->width),
					    (int)((h >> 48) % (unsigned)map->height)};
	}
	return reqs;
}

/* A binary min-heap of (distance, cell) with lazy deletion: a cell may be in it several
 * times, the stale entries skipped when popped. */
struct heap {
	size_t len;
	uint64_t *items; /* owned: distance << 32 | cell */
};

static void heap_push(struct heap *h, uint64_t item)
{
	size_t i = h->len++;

	while (i && h->items[(i - 1) / 2] > item) {
		h->items[i] = h->items[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->items[i] = item;
}

static uint64_t heap_pop(struct heap *h)
{
	uint64_t top = h->items[0], last = h->items[--h->len];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= h->len) {
			break;
		}
		if (c + 1 < h->len && h->items[c + 1] < h->items[c]) {
			c++;
		}
		if (h->items[c] >= last) {
			break;
		}
		h->items[i] = h->items[c];
		i = c;
	}
	h->items[i] = last;
	return top;
}

static const int step_dx[4] = {0, 1, 0, -1};
static const int step_dy[4] = {-1, 0, 1, 0};
static const char *const step_heading[4] = {"north", "east", "south", "west"};

/* One pass of the search from src; dist and prev filled for every cell. Returns the distance
 * to dst, UINT_MAX when unreachable. Not inlined: each pass is the work the knob repeats. */
static __attribute__((noinline)) unsigned search(const struct map *m, int src, int dst,
						 unsigned *dist, int *prev, struct heap *heap)
{
	int n = m->width * m->height;

	for (int i = 0; i < n; i++) {
		dist[i] = UINT_MAX;
		prev[i] = -1;
	}
	dist[src] = 0;
	heap->len = 0;
	heap_push(heap, (uint64_t)src);
	while (heap->len) {
		uint64_t top = heap_pop(heap);
		int cell = (int)(top & 0xffffffffu);
		unsigned d = (unsigned)(top >> 32);
		int x = cell % m->width, y = cell / m->width;

		if (d > dist[cell]) {
			continue;
		}
		for (int k = 0; k < 4; k++) {
			int nx = x + step_dx[k], ny = y + step_dy[k], next;
			unsigned nd;

			if (nx < 0 || ny < 0 || nx >= m->width || ny >= m->height) {
				continue;
			}
			next = ny * m->width + nx;
			if (m->kind[next] == CELL_WATER) {
				continue;
			}
			nd = d + m->minutes[next];
			if (nd < dist[next]) {
				dist[next] = nd;
				prev[next] = cell;
				heap_push(heap, (uint64_t)nd << 32 | (uint64_t)next);
			}
		}
	}
	return dist[dst];
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p) {
		fprintf(stderr, "route-planner: out of memory\n");
		abort();
	}
	return p;
}

static char *xstrdup(const char *text)
{
	size_t len = strlen(text) + 1;

	return memcpy(xcalloc(len, 1), text, len);
}

static enum leg_mode cell_mode(uint8_t kind)
{
	return kind == CELL_BRIDGE ? LEG_BRIDGE : kind == CELL_FERRY ? LEG_FERRY : LEG_ROAD;
}

/* Cuts the path src..dst (prev links) into legs of one heading and one mode. */
static void make_legs(const struct map *m, const int *prev, int src, int dst, struct result *r)
{
	int steps = 0, *path;
	struct leg **tail = &r->legs, *leg = NULL;

	for (int c = dst; c != src; c = prev[c]) {
		steps++;
	}
	path = xcalloc((size_t)steps + 1, sizeof(*path));
	for (int c = dst, i = steps; i >= 0; c = i ? prev[c] : c, i--) {
		path[i] = c;
	}
	r->summary.box[0] = (struct point){m->width, m->height};
	r->summary.box[1] = (struct point){-1, -1};
	for (int i = 0; i <= steps; i++) {
		struct point p = {path[i] % m->width, path[i] / m->width};

		r->summary.box[0].x = p.x < r->summary.box[0].x ? p.x : r->summary.box[0].x;
		r->summary.box[0].y = p.y < r->summary.box[0].y ? p.y : r->summary.box[0].y;
		r->summary.box[1].x = p.x > r->summary.box[1].x ? p.x : r->summary.box[1].x;
		r->summary.box[1].y = p.y > r->summary.box[1].y ? p.y : r->summary.box[1].y;
	}
	for (int i = 1; i <= steps; i++) {
		int dx = path[i] % m->width - path[i - 1] % m->width;
		int dy = path[i] / m->width - path[i - 1] / m->width;
		int dir = dy < 0 ? 0 : dx > 0 ? 1 : dy > 0 ? 2 : 3;
		enum leg_mode mode = cell_mode(m->kind[path[i]]);
		unsigned minutes = m->minutes[path[i]];

		if (!leg || mode != leg->mode || strcmp(leg->heading, step_heading[dir])) {
			leg = xcalloc(1, sizeof(*leg));
			leg->from = (struct point){path[i - 1] % m->width, path[i - 1] / m->width};
			leg->mode = mode;
			snprintf(leg->heading, sizeof(leg->heading), "%s", step_heading[dir]);
			*tail = leg;
			tail = &leg->next;
			r->summary.n_legs++;
		}
		leg->to = (struct point){path[i] % m->width, path[i] / m->width};
		leg->minutes += minutes;
		r->summary.by_mode[mode] += minutes;
		r->summary.minutes += minutes;
	}
	r->summary.steps = (unsigned)steps;
	free(path);
}

struct result *plan_route(const struct map *map, const struct request *req, double work_scale)
{
	int n = map->width * map->height;
	int src = req->from.y * map->width + req->from.x;
	int dst = req->to.y * map->width + req->to.x;
	long passes = lround(work_scale * ROUTE_PASSES);
	unsigned *dist = xcalloc((size_t)n, sizeof(*dist));
	int *prev = xcalloc((size_t)n, sizeof(*prev));
	struct heap heap = {0, xcalloc(4 * (size_t)n + 1, sizeof(*heap.items))};
	struct result *r = NULL;
	unsigned d = UINT_MAX;
	char label[64];

	if (map->kind[src] == CELL_WATER || map->kind[dst] == CELL_WATER) {
		goto free_search; /* no route from or to the water */
	}
	for (long p = 0; p < (passes < 1 ? 1 : passes); p++) {
		unsigned again = search(map, src, dst, dist, prev, &heap);

		if (p && again != d) {
			fprintf(stderr, "route-planner: pass %ld found %u, not %u\n", p, again, d);
			abort();
		}
		d = again;
	}
	if (d == UINT_MAX) {
		goto free_search; /* the island: no road in or out */
	}
	r = xcalloc(1, sizeof(*r));
	r->request = req->id;
	snprintf(label, sizeof(label), "R%u (%d,%d)->(%d,%d)", req->id, req->from.x, req->from.y,
		 req->to.x, req->to.y);
	r->label = xstrdup(label);
	make_legs(map, prev, src, dst, r);
	if (r->summary.by_mode[LEG_FERRY] || r->summary.by_mode[LEG_BRIDGE]) {
		r->note = xstrdup(r->summary.by_mode[LEG_FERRY] ? "crosses by ferry"
								: "crosses a bridge");
	}
free_search:
	free(heap.items);
	free(prev);
	free(dist);
	return r;
}

void result_free(struct result *r)
{
	if (!r) {
		return;
	}
	for (struct leg *l = r->legs, *next; l; l = next) {
		next = l->next;
		free(l);
	}
	free(r->label);
	free(r->note);
	free(r);
}
