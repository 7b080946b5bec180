/* SPDX-License-Identifier: MIT */
/*
 * The SSF corpus driver, built at -O0 and -O2 against the header `dps ssf gen` wrote from
 * corpus.o (tests/ssf/CMakeLists.txt):
 *   driver record FILE        run 1: one object of every corpus type; run 2: NULLs, and one
 *                             name saved twice (before and after)
 *   driver restore IN OUT     restores IN (into new objects: case 2; into existing ones:
 *                             case 1; NULLs: case 3), checks the values it can check by
 *                             itself, then records what it restored into OUT: the test
 *                             compares IN and OUT byte for byte
 *   driver check FILE         check mode against the corpus as filled: no difference
 * Exits 1 with a message on the first failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"

/* after the types it describes */
#include "corpus-ssf.h"

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "driver:%d: %s failed: %s\n", __LINE__, #cond,             \
				dps_ssf_last_error());                                             \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

struct root {
	const char *name;
	uint32_t type;
	size_t size;
	void (*fill)(void *);
	int has_ptr;
	void *restored; /* case 2 */
	void *existing; /* case 1 */
};

#define ROOT(t, p)                                                                                 \
	{#t,  corpus_ssf_TYPE_##t, sizeof(struct t), (void (*)(void *))corpus_fill_##t, p, NULL,   \
	 NULL},
static struct root roots[] = {CORPUS_TYPES(ROOT)};
#undef ROOT
#define N_ROOTS (sizeof(roots) / sizeof(roots[0]))

static void record_all(const char *path, int from_restored)
{
	struct s_int first = {1}, second = {2};

	CHECK(dps_ssf_open(DPS_SSF_RECORD, path) == DPS_OK);
	CHECK(dps_ssf_run_begin() == 1);
	for (size_t i = 0; i < N_ROOTS; i++) {
		void *obj = roots[i].restored;

		if (!from_restored) {
			obj = calloc(1, roots[i].size);
			roots[i].fill(obj);
		}
		CHECK(dps_ssf_save(&corpus_ssf_schema, roots[i].type, roots[i].name, obj) ==
		      DPS_OK);
		if (!from_restored) {
			free(obj);
		}
	}
	CHECK(dps_ssf_run_begin() == 2);
	CHECK(corpus_ssf_save_s_list("nothing", NULL) == DPS_OK);
	CHECK(corpus_ssf_save_s_int("twice", &first) == DPS_OK);
	CHECK(corpus_ssf_save_s_int("twice", &second) == DPS_OK);
	CHECK(dps_ssf_close() == DPS_OK);
}

/* What the restore can check without the engine: the values of the linked types. */
static void check_linked(void)
{
	for (size_t i = 0; i < N_ROOTS; i++) {
		const char *n = roots[i].name;
		void *r = roots[i].restored;

		if (!strcmp(n, "s_list")) {
			struct s_list *l = r;

			CHECK(l->v == 1 && l->next->v == 2 && l->next->next->v == 3 &&
			      !l->next->next->next);
		} else if (!strcmp(n, "s_cycle")) {
			struct s_cycle *c = r;

			CHECK(c->v == 10 && c->next->v == 20 && c->next->next == c);
		} else if (!strcmp(n, "s_self")) {
			struct s_self *s = r;

			CHECK(s->me == s && s->v == 99);
		} else if (!strcmp(n, "s_shared")) {
			struct s_shared *s = r;

			CHECK(s->a == s->b && s->a->a == 5);
		} else if (!strcmp(n, "s_strings")) {
			struct s_strings *s = r;

			CHECK(!strcmp(s->a, "semi;colon \"quoted\"\n\t\x01") &&
			      !strcmp(s->b, "b") && !s->null_s && !strcmp(s->empty, ""));
		} else if (!strcmp(n, "s_buf")) {
			struct s_buf *b = r;

			CHECK(b->len == 5 && !memcmp(b->data, "a\0b\xff", 5));
		} else if (!strcmp(n, "s_opaque")) {
			struct s_opaque *o = r;

			CHECK(!o->fn && !o->ctx && !o->f && o->keep == 12);
		} else if (!strcmp(n, "s_ptr_ptr")) {
			struct s_ptr_ptr *p = r;

			CHECK(p->argc == 3 && !strcmp(p->argv[0], "prog") && !p->argv[1] &&
			      !strcmp(p->argv[2], "--x"));
		} else if (!strcmp(n, "s_mixed")) {
			struct s_mixed *m = r;

			CHECK(m->peer->peer == m && m->peer->l == m->l && m->l->v == 4 &&
			      !strcmp(m->u.u.s, "mixed") && m->peer->u.u.i == -3 &&
			      m->pl.vals[1] == 2);
		} else if (!strcmp(n, "s_tree")) {
			struct s_tree *t = r;

			CHECK(t->key == 4 && t->left->key == 1 && t->right->left->key == 5 &&
			      !t->right->right && !t->left->left);
		}
	}
}

static void restore_all(const char *in, const char *out)
{
	struct s_int *twice = NULL;
	struct s_list *nothing = NULL;

	/* case 2: new objects */
	CHECK(dps_ssf_open(DPS_SSF_RESTORE, in) == DPS_OK);
	CHECK(dps_ssf_run_begin() == 1);
	for (size_t i = 0; i < N_ROOTS; i++) {
		void *want = calloc(1, roots[i].size);

		CHECK(dps_ssf_load(&corpus_ssf_schema, roots[i].type, roots[i].name,
				   &roots[i].restored) == DPS_OK);
		CHECK(roots[i].restored != NULL);
		roots[i].fill(want);
		if (!roots[i].has_ptr && memcmp(want, roots[i].restored, roots[i].size)) {
			fprintf(stderr, "driver: %s: restored bytes differ\n", roots[i].name);
			exit(1);
		}
		free(want);
	}
	CHECK(dps_ssf_run_begin() == 2);
	CHECK(corpus_ssf_load_s_list("nothing", &nothing) == DPS_OK && !nothing); /* case 3 */
	CHECK(corpus_ssf_load_s_int("twice", &twice) == DPS_OK && twice->a == 1);
	free(twice);
	twice = NULL;
	CHECK(corpus_ssf_load_s_int("twice", &twice) == DPS_OK && twice->a == 2);
	free(twice);
	CHECK(corpus_ssf_load_s_int("twice", &twice) == DPS_ERR_NOENT); /* no third save */
	check_linked();

	/* case 1: into existing objects, same bytes where there are no pointers */
	CHECK(dps_ssf_open(DPS_SSF_RESTORE, in) == DPS_OK);
	dps_ssf_run_begin();
	for (size_t i = 0; i < N_ROOTS; i++) {
		void *dst = roots[i].existing = calloc(1, roots[i].size);

		CHECK(dps_ssf_load(&corpus_ssf_schema, roots[i].type, roots[i].name, &dst) ==
		      DPS_OK);
		CHECK(dst == roots[i].existing);
		if (!roots[i].has_ptr && memcmp(dst, roots[i].restored, roots[i].size)) {
			fprintf(stderr, "driver: %s: case 1 differs from case 2\n", roots[i].name);
			exit(1);
		}
	}
	record_all(out, 1);
}

static void check_all(const char *path)
{
	CHECK(dps_ssf_open(DPS_SSF_CHECK, path) == DPS_OK);
	dps_ssf_run_begin();
	for (size_t i = 0; i < N_ROOTS; i++) {
		void *obj = calloc(1, roots[i].size);

		roots[i].fill(obj);
		CHECK(dps_ssf_check(&corpus_ssf_schema, roots[i].type, roots[i].name, obj) ==
		      DPS_OK);
		free(obj);
	}
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "record")) {
		record_all(argv[2], 0);
	} else if (argc == 4 && !strcmp(argv[1], "restore")) {
		restore_all(argv[2], argv[3]);
	} else if (argc == 3 && !strcmp(argv[1], "check")) {
		check_all(argv[2]);
	} else {
		fprintf(stderr, "usage: driver record FILE | restore IN OUT | check FILE\n");
		return 2;
	}
	return 0;
}
