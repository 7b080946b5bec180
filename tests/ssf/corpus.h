/* SPDX-License-Identifier: MIT */
/*
 * The SSF test corpus: C types of every shape `dps ssf gen` handles (scalars, enums, nested
 * structs, arrays, bit-fields, strings, NULL, lists, cycles, shared objects, pointer + length
 * and tagged unions through annotations, typedefs, opaque members). corpus.c fills one of each
 * deterministically; driver.c records, restores and records again (tests/ssf/CMakeLists.txt).
 */
#ifndef DPS_TESTS_SSF_CORPUS_H
#define DPS_TESTS_SSF_CORPUS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum color { RED, GREEN = 7, BLUE };
enum big { BIG_NEG = -5, BIG_POS = 1000000 };

struct s_int {
	int a;
};
struct s_scalars {
	char c;
	signed char sc;
	unsigned char uc;
	short s;
	unsigned short us;
	int i;
	unsigned u;
	long l;
	unsigned long ul;
	long long ll;
	unsigned long long ull;
	_Bool b;
};
struct s_float {
	float f;
	double d;
	long double ld;
};
struct s_enum {
	enum color c;
	enum big b;
};
struct s_nested {
	struct s_int in;
	struct s_scalars sc;
};
struct s_deep {
	struct s_nested n;
	struct {
		int z;
		short w;
	} inner;
};
struct s_array {
	int a[5];
};
struct s_matrix {
	double m[3][4];
};
struct s_struct_array {
	struct s_int arr[3];
};
struct s_chars {
	char buf[12];
};
struct s_bits {
	unsigned a : 1, b : 3, c : 12;
	int d : 7;
	unsigned long long e : 40;
	unsigned f : 2;
};
struct s_bits_mixed {
	char x;
	unsigned flag : 1;
	short y;
	int neg : 4;
};
struct s_string {
	char *s;
};
struct s_strings {
	char *a;
	const char *b;
	char *null_s;
	char *empty;
};
struct s_ptr_null {
	struct s_int *p;
};
struct s_ptr {
	struct s_int *p;
};
struct s_list {
	int v;
	struct s_list *next;
};
struct s_cycle {
	int v;
	struct s_cycle *next;
};
struct s_self {
	struct s_self *me;
	int v;
};
struct s_shared {
	struct s_int *a;
	struct s_int *b;
};
struct s_tree {
	int key;
	struct s_tree *left, *right;
};
struct s_plen {
	int *vals;
	unsigned n;
};
struct s_plen_struct {
	struct s_int *items;
	size_t count;
};
struct s_plen_zero {
	int *vals;
	int n;
};
struct s_buf {
	char *data;
	int len;
};
struct s_union {
	int kind;
	union {
		int i;
		double d;
		char *s;
	} u;
};
struct s_union_enum {
	enum color tag;
	union uu {
		struct s_int si;
		float f;
	} u;
};
struct s_union_str {
	int kind;
	union {
		int i;
		char *s;
	} u;
};
typedef struct {
	int x;
	int y;
} t_point;
struct s_typedef {
	t_point p;
	t_point ps[2];
};
struct s_opaque {
	void (*fn)(void);
	void *ctx;
	FILE *f;
	int keep;
};
struct s_ptr_ptr {
	char **argv;
	int argc;
};
struct s_mixed {
	struct s_list *l;
	struct s_plen pl;
	struct s_union u;
	char name[8];
	struct s_mixed *peer;
};
struct s_enum_bits {
	enum color c : 4;
	unsigned rest : 4;
};
struct s_ptr_arr {
	struct s_int *arr[3];
};
struct s_stdint {
	_Bool b[3];
	uint8_t u8;
	int16_t i16;
	uint64_t u64;
	int32_t i32;
};
typedef struct s_list list_t;
struct s_typedef_ptr {
	list_t *head;
	const volatile int cv;
};

/* X(type, has pointers): every root of the corpus. */
#define CORPUS_TYPES(X)                                                                            \
	X(s_int, 0)                                                                                \
	X(s_scalars, 0)                                                                            \
	X(s_float, 0)                                                                              \
	X(s_enum, 0)                                                                               \
	X(s_nested, 0)                                                                             \
	X(s_deep, 0)                                                                               \
	X(s_array, 0)                                                                              \
	X(s_matrix, 0)                                                                             \
	X(s_struct_array, 0)                                                                       \
	X(s_chars, 0)                                                                              \
	X(s_bits, 0)                                                                               \
	X(s_bits_mixed, 0)                                                                         \
	X(s_string, 1)                                                                             \
	X(s_strings, 1)                                                                            \
	X(s_ptr_null, 0)                                                                           \
	X(s_ptr, 1)                                                                                \
	X(s_list, 1)                                                                               \
	X(s_cycle, 1)                                                                              \
	X(s_self, 1)                                                                               \
	X(s_shared, 1)                                                                             \
	X(s_tree, 1)                                                                               \
	X(s_plen, 1)                                                                               \
	X(s_plen_struct, 1)                                                                        \
	X(s_plen_zero, 1)                                                                          \
	X(s_buf, 1)                                                                                \
	X(s_union, 0)                                                                              \
	X(s_union_enum, 0)                                                                         \
	X(s_union_str, 1)                                                                          \
	X(s_typedef, 0)                                                                            \
	X(s_opaque, 1)                                                                             \
	X(s_ptr_ptr, 1)                                                                            \
	X(s_mixed, 1)                                                                              \
	X(s_enum_bits, 0)                                                                          \
	X(s_ptr_arr, 1)                                                                            \
	X(s_stdint, 0)                                                                             \
	X(s_typedef_ptr, 1)

#define CORPUS_FILL_DECL(t, p) void corpus_fill_##t(struct t *o);
CORPUS_TYPES(CORPUS_FILL_DECL)
#undef CORPUS_FILL_DECL

#endif /* DPS_TESTS_SSF_CORPUS_H */
