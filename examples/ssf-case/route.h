/* SPDX-License-Identifier: MIT */
/*
 * The case study's component (doc/ssf.md, "Case study"): a route planner on a grid map. One
 * call plans one request and returns a structured result the rest of the program prints:
 * nested structs, a fixed array, a linked list of legs, strings, and NULL when there is no
 * route. These are the types `dps ssf gen` reads from route.o's DWARF (route-ssf.h).
 */
#ifndef ROUTE_H
#define ROUTE_H

#include <stdint.h>

enum leg_mode {
	LEG_ROAD = 0,
	LEG_BRIDGE = 1,
	LEG_FERRY = 2,
};

struct point {
	int x;
	int y;
};

/* One straight stretch of the route in one mode; the legs form a list in travel order. */
struct leg {
	struct point from;
	struct point to;
	enum leg_mode mode;
	unsigned minutes;
	char heading[6];  /* "north", "east", "south", "west" */
	struct leg *next; /* owned: the next leg, NULL after the last */
};

struct summary {
	unsigned n_legs;
	unsigned steps;
	unsigned minutes;
	unsigned by_mode[3]; /* minutes per enum leg_mode */
	struct point box[2]; /* the route's bounding box: min, max */
};

struct result {
	unsigned request;
	char *label; /* owned: "R17 (3,4)->(20,11)" */
	struct summary summary;
	struct leg *legs; /* owned: the first leg (annotated `one`: a list, not an array) */
	char *note;	  /* owned: "crosses by ferry", "crosses a bridge", or NULL */
};

struct request {
	unsigned id;
	struct point from;
	struct point to;
};

/* The map: terrain and travel cost per cell, built from a seed (owned by the program). */
struct map {
	int width;
	int height;
	uint8_t *kind;	  /* owned: enum cell_kind per cell, row by row */
	uint8_t *minutes; /* owned: travel minutes into the cell */
};

/* Builds the map for seed; 0, or -1 when out of memory (nothing to free then). */
int map_build(struct map *map, unsigned seed);
void map_free(struct map *map);

/* The requests for seed: n of them, ids 0..n-1 (malloc; NULL when out of memory). */
struct request *requests_make(const struct map *map, unsigned n, unsigned seed);

/*
 * The component under study: plans req on map, with work_scale times the search effort (the
 * work knob: the search runs max(1, round(work_scale * ROUTE_PASSES)) passes over the map,
 * each finding the same route, so the result does not depend on it). Returns the route
 * (result_free), or NULL when the request has no route. Aborts when out of memory.
 */
struct result *plan_route(const struct map *map, const struct request *req, double work_scale);
/* Frees a result and what it owns (a planned one or one SSF restored); NULL is fine. */
void result_free(struct result *r);

#endif /* ROUTE_H */
