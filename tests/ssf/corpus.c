/* SPDX-License-Identifier: MIT */
/* Deterministic values for every type of the SSF corpus (corpus.h). Pointed-to objects are
 * static: the recording follows them, the restore makes new ones. */
#include <string.h>

#include "corpus.h"

static void noop(void)
{
}

void corpus_fill_s_int(struct s_int *o)
{
	memset(o, 0, sizeof(*o));
	o->a = -42;
}

void corpus_fill_s_scalars(struct s_scalars *o)
{
	memset(o, 0, sizeof(*o));
	o->c = 'x';
	o->sc = -100;
	o->uc = 200;
	o->s = -30000;
	o->us = 60000;
	o->i = -2000000000;
	o->u = 4000000000u;
	o->l = -9000000000000000000l;
	o->ul = 18000000000000000000ul;
	o->ll = -1;
	o->ull = 0x0123456789abcdefull;
	o->b = 1;
}

void corpus_fill_s_float(struct s_float *o)
{
	memset(o, 0, sizeof(*o));
	o->f = 1.5f;
	o->d = -0.1;
	o->ld = 3.25L;
}

void corpus_fill_s_enum(struct s_enum *o)
{
	memset(o, 0, sizeof(*o));
	o->c = BLUE;
	o->b = BIG_NEG;
}

void corpus_fill_s_nested(struct s_nested *o)
{
	memset(o, 0, sizeof(*o));
	corpus_fill_s_int(&o->in);
	corpus_fill_s_scalars(&o->sc);
}

void corpus_fill_s_deep(struct s_deep *o)
{
	memset(o, 0, sizeof(*o));
	corpus_fill_s_nested(&o->n);
	o->inner.z = 5;
	o->inner.w = -6;
}

void corpus_fill_s_array(struct s_array *o)
{
	memset(o, 0, sizeof(*o));
	for (int i = 0; i < 5; i++) {
		o->a[i] = i * 11 - 20;
	}
}

void corpus_fill_s_matrix(struct s_matrix *o)
{
	memset(o, 0, sizeof(*o));
	for (int i = 0; i < 12; i++) {
		o->m[i / 4][i % 4] = i * 0.5;
	}
}

void corpus_fill_s_struct_array(struct s_struct_array *o)
{
	memset(o, 0, sizeof(*o));
	for (int i = 0; i < 3; i++) {
		o->arr[i].a = i + 1;
	}
}

void corpus_fill_s_chars(struct s_chars *o)
{
	memset(o, 0, sizeof(*o));
	memcpy(o->buf, "ab\0cd;\"\n", 8);
}

void corpus_fill_s_bits(struct s_bits *o)
{
	memset(o, 0, sizeof(*o));
	o->a = 1;
	o->b = 5;
	o->c = 4000;
	o->d = -60;
	o->e = 0xfedcba9876ull;
	o->f = 2;
}

void corpus_fill_s_bits_mixed(struct s_bits_mixed *o)
{
	memset(o, 0, sizeof(*o));
	o->x = 'q';
	o->flag = 1;
	o->y = -7;
	o->neg = -8;
}

void corpus_fill_s_string(struct s_string *o)
{
	static char text[] = "hello, ssf";

	memset(o, 0, sizeof(*o));
	o->s = text;
}

void corpus_fill_s_strings(struct s_strings *o)
{
	static char a[] = "semi;colon \"quoted\"\n\t\x01", empty[] = "";

	memset(o, 0, sizeof(*o));
	o->a = a;
	o->b = "b";
	o->empty = empty;
}

void corpus_fill_s_ptr_null(struct s_ptr_null *o)
{
	memset(o, 0, sizeof(*o));
}

void corpus_fill_s_ptr(struct s_ptr *o)
{
	static struct s_int target = {77};

	memset(o, 0, sizeof(*o));
	o->p = &target;
}

void corpus_fill_s_list(struct s_list *o)
{
	static struct s_list n3 = {3, NULL}, n2 = {2, &n3};

	memset(o, 0, sizeof(*o));
	o->v = 1;
	o->next = &n2;
}

void corpus_fill_s_cycle(struct s_cycle *o)
{
	static struct s_cycle other;

	memset(o, 0, sizeof(*o));
	o->v = 10;
	o->next = &other;
	other.v = 20;
	other.next = o;
}

void corpus_fill_s_self(struct s_self *o)
{
	memset(o, 0, sizeof(*o));
	o->me = o;
	o->v = 99;
}

void corpus_fill_s_shared(struct s_shared *o)
{
	static struct s_int one = {5};

	memset(o, 0, sizeof(*o));
	o->a = &one;
	o->b = &one;
}

void corpus_fill_s_tree(struct s_tree *o)
{
	static struct s_tree l = {1, NULL, NULL}, rl = {5, NULL, NULL}, r = {8, &rl, NULL};

	memset(o, 0, sizeof(*o));
	o->key = 4;
	o->left = &l;
	o->right = &r;
}

void corpus_fill_s_plen(struct s_plen *o)
{
	static int vals[4] = {9, 8, 7, 6};

	memset(o, 0, sizeof(*o));
	o->vals = vals;
	o->n = 4;
}

void corpus_fill_s_plen_struct(struct s_plen_struct *o)
{
	static struct s_int items[2] = {{-1}, {-2}};

	memset(o, 0, sizeof(*o));
	o->items = items;
	o->count = 2;
}

void corpus_fill_s_plen_zero(struct s_plen_zero *o)
{
	memset(o, 0, sizeof(*o));
	o->vals = NULL;
	o->n = 0;
}

void corpus_fill_s_buf(struct s_buf *o)
{
	static char data[5] = {'a', 0, 'b', (char)0xff, 0};

	memset(o, 0, sizeof(*o));
	o->data = data;
	o->len = 5;
}

void corpus_fill_s_union(struct s_union *o)
{
	memset(o, 0, sizeof(*o));
	o->kind = 2;
	o->u.d = 2.5;
}

void corpus_fill_s_union_enum(struct s_union_enum *o)
{
	memset(o, 0, sizeof(*o));
	o->tag = GREEN;
	o->u.f = -0.75f;
}

void corpus_fill_s_union_str(struct s_union_str *o)
{
	static char text[] = "in a union";

	memset(o, 0, sizeof(*o));
	o->kind = 1;
	o->u.s = text;
}

void corpus_fill_s_typedef(struct s_typedef *o)
{
	memset(o, 0, sizeof(*o));
	o->p.x = 1;
	o->p.y = 2;
	o->ps[1].x = 3;
	o->ps[1].y = 4;
}

void corpus_fill_s_opaque(struct s_opaque *o)
{
	memset(o, 0, sizeof(*o));
	o->fn = noop;
	o->ctx = o;
	o->f = stderr;
	o->keep = 12;
}

void corpus_fill_s_ptr_ptr(struct s_ptr_ptr *o)
{
	static char prog[] = "prog", x[] = "--x";
	static char *argv[3] = {prog, NULL, x};

	memset(o, 0, sizeof(*o));
	o->argv = argv;
	o->argc = 3;
}

void corpus_fill_s_mixed(struct s_mixed *o)
{
	static struct s_mixed peer;
	static struct s_list l = {4, NULL};
	static int vals[2] = {1, 2};
	static char mixed[] = "mixed";

	memset(o, 0, sizeof(*o));
	o->l = &l;
	o->pl.vals = vals;
	o->pl.n = 2;
	o->u.kind = 3;
	o->u.u.s = mixed;
	memcpy(o->name, "mix", 4);
	o->peer = &peer;
	memset(&peer, 0, sizeof(peer));
	peer.u.kind = 1;
	peer.u.u.i = -3;
	peer.peer = o;
	peer.l = &l;
}

void corpus_fill_s_enum_bits(struct s_enum_bits *o)
{
	memset(o, 0, sizeof(*o));
	o->c = BLUE;
	o->rest = 9;
}

void corpus_fill_s_ptr_arr(struct s_ptr_arr *o)
{
	static struct s_int a = {1}, b = {2};

	memset(o, 0, sizeof(*o));
	o->arr[0] = &a;
	o->arr[2] = &b;
}

void corpus_fill_s_stdint(struct s_stdint *o)
{
	memset(o, 0, sizeof(*o));
	o->b[1] = 1;
	o->u8 = 250;
	o->i16 = -12345;
	o->u64 = UINT64_MAX;
	o->i32 = INT32_MIN;
}

void corpus_fill_s_typedef_ptr(struct s_typedef_ptr *o)
{
	static struct s_list n = {8, NULL};
	struct s_typedef_ptr v = {&n, 3};

	memcpy(o, &v, sizeof(v));
}
