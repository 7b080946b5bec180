/* SPDX-License-Identifier: MIT */
/*
 * The SSF engine (ssf-codec.h): schemas and the encoder; the checked decoder and the file
 * reader are ssf-decode.c's. All integers in the file are little-endian whatever the machine (the
 * header's byte order field says so), so a file decodes anywhere; scalars in memory are converted
 * on the way in and out.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ssf-codec.h"

#define SSF_MAX_SIZE (1u << 26) /* largest type: 64 MiB */

void ssf_set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen) {
		return;
	}
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* ---- buffer ---- */

void ssf_buf_put(struct ssf_buf *b, const void *p, size_t n)
{
	if (b->failed || !n) {
		return;
	}
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		uint8_t *d;

		while (cap < b->len + n) {
			cap *= 2;
		}
		d = realloc(b->data, cap);
		if (!d) {
			b->failed = true;
			return;
		}
		b->data = d;
		b->cap = cap;
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

/* v's low n bytes, least significant first. */
static void put_le(struct ssf_buf *b, uint64_t v, unsigned n)
{
	uint8_t tmp[8];

	for (unsigned i = 0; i < n; i++) {
		tmp[i] = (uint8_t)(v >> (8 * i));
	}
	ssf_buf_put(b, tmp, n);
}

void ssf_buf_u8(struct ssf_buf *b, uint8_t v)
{
	put_le(b, v, 1);
}

void ssf_buf_u16(struct ssf_buf *b, uint16_t v)
{
	put_le(b, v, 2);
}

void ssf_buf_u32(struct ssf_buf *b, uint32_t v)
{
	put_le(b, v, 4);
}

void ssf_buf_u64(struct ssf_buf *b, uint64_t v)
{
	put_le(b, v, 8);
}

void ssf_buf_str(struct ssf_buf *b, const char *s)
{
	size_t n = strlen(s) + 1;

	ssf_buf_u32(b, (uint32_t)n);
	ssf_buf_put(b, s, n);
}

void ssf_buf_fini(struct ssf_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

/* ---- memory <-> integers ---- */

bool ssf_host_is_little(void)
{
	const uint16_t one = 1;

	return *(const uint8_t *)&one == 1;
}

/* The n-byte integer at p (host order), zero-extended. */
static uint64_t load_uint(const void *p, unsigned n)
{
	uint8_t v8;
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;

	switch (n) {
	case 1:
		memcpy(&v8, p, 1);
		return v8;
	case 2:
		memcpy(&v16, p, 2);
		return v16;
	case 4:
		memcpy(&v32, p, 4);
		return v32;
	default:
		memcpy(&v64, p, 8);
		return v64;
	}
}

void ssf_store_uint(void *p, unsigned n, uint64_t v)
{
	uint8_t v8 = (uint8_t)v;
	uint16_t v16 = (uint16_t)v;
	uint32_t v32 = (uint32_t)v;

	switch (n) {
	case 1:
		memcpy(p, &v8, 1);
		break;
	case 2:
		memcpy(p, &v16, 2);
		break;
	case 4:
		memcpy(p, &v32, 4);
		break;
	default:
		memcpy(p, &v, 8);
		break;
	}
}

int64_t ssf_sign_extend(uint64_t v, unsigned bits)
{
	if (bits >= 64) {
		return (int64_t)v;
	}
	if (v & (1ull << (bits - 1))) {
		v |= ~0ull << bits;
	}
	return (int64_t)v;
}

/* Bits [bit, bit + n) of the bytes at base, bit 0 = least significant bit of byte 0 (the
 * little-endian bit-field layout; the generator refuses bit-fields on big-endian targets). */
static uint64_t load_bits(const uint8_t *base, unsigned bit, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++) {
		unsigned k = bit + i;

		v |= (uint64_t)((base[k / 8] >> (k % 8)) & 1u) << i;
	}
	return v;
}

void ssf_store_bits(uint8_t *base, unsigned bit, unsigned n, uint64_t v)
{
	for (unsigned i = 0; i < n; i++) {
		unsigned k = bit + i;
		uint8_t mask = (uint8_t)(1u << (k % 8));

		if ((v >> i) & 1u) {
			base[k / 8] |= mask;
		} else {
			base[k / 8] &= (uint8_t)~mask;
		}
	}
}

static bool is_scalar(uint8_t kind)
{
	return kind == DPS_SSF_INT || kind == DPS_SSF_UINT || kind == DPS_SSF_ENUM;
}

/* The value of an integer member of the struct at obj, sign-extended when signed. */
static int64_t member_int(const struct dps_ssf_schema *s, const struct dps_ssf_member *m,
			  const uint8_t *obj)
{
	const struct dps_ssf_type *t = &s->types[m->type];
	uint64_t v;
	unsigned bits;

	if (m->bit_size) {
		v = load_bits(obj + m->offset, m->bit_offset, m->bit_size);
		bits = m->bit_size;
	} else {
		v = load_uint(obj + m->offset, t->size);
		bits = t->size * 8;
	}
	return t->kind == DPS_SSF_UINT ? (int64_t)v : ssf_sign_extend(v, bits);
}

/* ---- schema checks ---- */

bool ssf_is_ident(const char *s)
{
	if (!s || !*s || strlen(s) > 255 || (*s >= '0' && *s <= '9')) {
		return false;
	}
	for (; *s; s++) {
		char c = *s;

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_')) {
			return false;
		}
	}
	return true;
}

/* A C type spelling: identifiers, spaces, '*', '[', ']', digits, '(', ')', ','. */
static bool is_type_name(const char *s)
{
	if (!s || !*s || strlen(s) > 255) {
		return false;
	}
	for (; *s; s++) {
		char c = *s;

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      strchr("_ *[](),", c))) {
			return false;
		}
	}
	return true;
}

/* Nesting by value: 0 unvisited, 1 on the path, 2 done; depth[] the deepest below each. */
static int check_nesting(const struct dps_ssf_schema *s, uint32_t t, uint8_t *state, uint8_t *depth,
			 char *err, size_t errlen)
{
	const struct dps_ssf_type *ty = &s->types[t];
	unsigned deepest = 0;

	if (state[t] == 2) {
		return DPS_OK;
	}
	if (state[t] == 1) {
		ssf_set_err(err, errlen, "type %" PRIu32 " (%s) contains itself by value", t,
			    ty->name);
		return DPS_ERR_INVAL;
	}
	state[t] = 1;
	if (ty->kind == DPS_SSF_ARRAY) {
		int ret = check_nesting(s, ty->target, state, depth, err, errlen);

		if (ret) {
			return ret;
		}
		deepest = depth[ty->target];
	} else if (ty->kind == DPS_SSF_STRUCT || ty->kind == DPS_SSF_UNION) {
		for (uint32_t i = 0; i < ty->n_members; i++) {
			uint32_t mt = ty->members[i].type;
			int ret = check_nesting(s, mt, state, depth, err, errlen);

			if (ret) {
				return ret;
			}
			if (depth[mt] > deepest) {
				deepest = depth[mt];
			}
		}
	}
	if (deepest + 1 > SSF_MAX_DEPTH) {
		ssf_set_err(err, errlen, "type %" PRIu32 " (%s) nests deeper than %d levels", t,
			    ty->name, SSF_MAX_DEPTH);
		return DPS_ERR_INVAL;
	}
	depth[t] = (uint8_t)(deepest + 1);
	state[t] = 2;
	return DPS_OK;
}

static int validate_member(const struct dps_ssf_schema *s, const struct dps_ssf_type *ty,
			   const struct dps_ssf_member *m, char *err, size_t errlen)
{
	const struct dps_ssf_type *mt;

	if (!ssf_is_ident(m->name)) {
		ssf_set_err(err, errlen, "%s: a member name is not a C identifier", ty->name);
		return DPS_ERR_INVAL;
	}
	if (m->type >= s->n_types) {
		ssf_set_err(err, errlen, "%s.%s: type %" PRIu32 " out of range", ty->name, m->name,
			    m->type);
		return DPS_ERR_INVAL;
	}
	mt = &s->types[m->type];
	if (m->bit_size) {
		if (!is_scalar(mt->kind) || m->bit_size > mt->size * 8 ||
		    (uint64_t)m->offset * 8 + m->bit_offset + m->bit_size >
			(uint64_t)ty->size * 8) {
			ssf_set_err(err, errlen, "%s.%s: bad bit-field", ty->name, m->name);
			return DPS_ERR_INVAL;
		}
	} else if (m->bit_offset || (uint64_t)m->offset + mt->size > ty->size) {
		ssf_set_err(err, errlen, "%s.%s: offset %" PRIu32 " out of the %" PRIu32 " bytes",
			    ty->name, m->name, m->offset, ty->size);
		return DPS_ERR_INVAL;
	}
	if (m->count_member) {
		if (m->count_member > ty->n_members || mt->kind != DPS_SSF_POINTER ||
		    ty->members[m->count_member - 1].type >= s->n_types ||
		    !is_scalar(s->types[ty->members[m->count_member - 1].type].kind)) {
			ssf_set_err(err, errlen, "%s.%s: bad length member", ty->name, m->name);
			return DPS_ERR_INVAL;
		}
	}
	if (m->tag_member) {
		if (m->tag_member > ty->n_members || mt->kind != DPS_SSF_UNION ||
		    ty->members[m->tag_member - 1].type >= s->n_types ||
		    !is_scalar(s->types[ty->members[m->tag_member - 1].type].kind) ||
		    (m->n_cases && !m->cases)) {
			ssf_set_err(err, errlen, "%s.%s: bad tag member", ty->name, m->name);
			return DPS_ERR_INVAL;
		}
		for (uint32_t c = 0; c < m->n_cases; c++) {
			if (m->cases[c].member >= mt->n_members) {
				ssf_set_err(err, errlen, "%s.%s: case %" PRIu32 " out of range",
					    ty->name, m->name, c);
				return DPS_ERR_INVAL;
			}
		}
	} else if (m->n_cases) {
		ssf_set_err(err, errlen, "%s.%s: cases without a tag", ty->name, m->name);
		return DPS_ERR_INVAL;
	}
	return DPS_OK;
}

static int validate_type(const struct dps_ssf_schema *s, uint32_t t, char *err, size_t errlen)
{
	const struct dps_ssf_type *ty = &s->types[t];

	if (!is_type_name(ty->name)) {
		ssf_set_err(err, errlen, "type %" PRIu32 ": its name is not a C type spelling", t);
		return DPS_ERR_INVAL;
	}
	if (ty->size > SSF_MAX_SIZE) {
		ssf_set_err(err, errlen, "%s: size %" PRIu32 " too large", ty->name, ty->size);
		return DPS_ERR_INVAL;
	}
	switch (ty->kind) {
	case DPS_SSF_INT:
	case DPS_SSF_UINT:
	case DPS_SSF_ENUM:
		if (ty->size != 1 && ty->size != 2 && ty->size != 4 && ty->size != 8) {
			ssf_set_err(err, errlen, "%s: an integer of %" PRIu32 " bytes", ty->name,
				    ty->size);
			return DPS_ERR_INVAL;
		}
		break;
	case DPS_SSF_FLOAT:
		if (!ty->size || ty->size > 16) {
			ssf_set_err(err, errlen, "%s: a float of %" PRIu32 " bytes", ty->name,
				    ty->size);
			return DPS_ERR_INVAL;
		}
		break;
	case DPS_SSF_ARRAY:
		/* elements of no size would let a small file loop for long */
		if (ty->target >= s->n_types || ty->count > SSF_MAX_SIZE ||
		    !s->types[ty->target].size ||
		    (uint64_t)s->types[ty->target].size * ty->count != ty->size) {
			ssf_set_err(err, errlen, "%s: bad array", ty->name);
			return DPS_ERR_INVAL;
		}
		break;
	case DPS_SSF_POINTER:
		if (ty->target >= s->n_types || (ty->size != 4 && ty->size != 8)) {
			ssf_set_err(err, errlen, "%s: bad pointer", ty->name);
			return DPS_ERR_INVAL;
		}
		break;
	case DPS_SSF_STRING:
		if (ty->size != 4 && ty->size != 8) {
			ssf_set_err(err, errlen, "%s: bad string pointer", ty->name);
			return DPS_ERR_INVAL;
		}
		break;
	case DPS_SSF_STRUCT:
	case DPS_SSF_UNION:
		if (ty->n_members && !ty->members) {
			ssf_set_err(err, errlen, "%s: members missing", ty->name);
			return DPS_ERR_INVAL;
		}
		for (uint32_t i = 0; i < ty->n_members; i++) {
			int ret = validate_member(s, ty, &ty->members[i], err, errlen);

			if (ret) {
				return ret;
			}
		}
		break;
	case DPS_SSF_OPAQUE_NULL:
	case DPS_SSF_OPAQUE_SKIP:
		break;
	default:
		ssf_set_err(err, errlen, "%s: unknown kind %u", ty->name, ty->kind);
		return DPS_ERR_INVAL;
	}
	if (ty->n_enumerators && !ty->enumerators) {
		ssf_set_err(err, errlen, "%s: enumerators missing", ty->name);
		return DPS_ERR_INVAL;
	}
	for (uint32_t e = 0; e < ty->n_enumerators; e++) {
		if (!ssf_is_ident(ty->enumerators[e].name)) {
			ssf_set_err(err, errlen, "%s: an enumerator is not a C identifier",
				    ty->name);
			return DPS_ERR_INVAL;
		}
	}
	return DPS_OK;
}

int ssf_schema_validate(const struct dps_ssf_schema *s, char *err, size_t errlen)
{
	uint8_t *state, *depth;
	int ret = DPS_OK;

	if (!s || !s->n_types || !s->types || !ssf_is_ident(s->name)) {
		ssf_set_err(err, errlen, "a schema needs a name and at least one type");
		return DPS_ERR_INVAL;
	}
	for (uint32_t t = 0; t < s->n_types; t++) {
		ret = validate_type(s, t, err, errlen);
		if (ret) {
			return ret;
		}
	}
	state = calloc(s->n_types, 2);
	if (!state) {
		ssf_set_err(err, errlen, "out of memory");
		return DPS_ERR_NOMEM;
	}
	depth = state + s->n_types;
	for (uint32_t t = 0; t < s->n_types && !ret; t++) {
		ret = check_nesting(s, t, state, depth, err, errlen);
	}
	free(state);
	return ret;
}

static bool str_equal(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

bool ssf_schema_equal(const struct dps_ssf_schema *a, const struct dps_ssf_schema *b)
{
	if (!str_equal(a->name, b->name) || a->n_types != b->n_types) {
		return false;
	}
	for (uint32_t t = 0; t < a->n_types; t++) {
		const struct dps_ssf_type *x = &a->types[t], *y = &b->types[t];

		if (x->kind != y->kind || !str_equal(x->name, y->name) || x->size != y->size ||
		    x->target != y->target || x->count != y->count ||
		    x->n_members != y->n_members || x->n_enumerators != y->n_enumerators) {
			return false;
		}
		for (uint32_t i = 0; i < x->n_members; i++) {
			const struct dps_ssf_member *m = &x->members[i], *n = &y->members[i];

			if (!str_equal(m->name, n->name) || m->type != n->type ||
			    m->offset != n->offset || m->bit_offset != n->bit_offset ||
			    m->bit_size != n->bit_size || m->count_member != n->count_member ||
			    m->tag_member != n->tag_member || m->n_cases != n->n_cases) {
				return false;
			}
			for (uint32_t c = 0; c < m->n_cases; c++) {
				if (m->cases[c].value != n->cases[c].value ||
				    m->cases[c].member != n->cases[c].member) {
					return false;
				}
			}
		}
		for (uint32_t e = 0; e < x->n_enumerators; e++) {
			if (!str_equal(x->enumerators[e].name, y->enumerators[e].name) ||
			    x->enumerators[e].value != y->enumerators[e].value) {
				return false;
			}
		}
	}
	return true;
}

void ssf_schema_write(struct ssf_buf *b, const struct dps_ssf_schema *s)
{
	ssf_buf_str(b, s->name);
	ssf_buf_u32(b, s->n_types);
	for (uint32_t t = 0; t < s->n_types; t++) {
		const struct dps_ssf_type *ty = &s->types[t];

		ssf_buf_u8(b, ty->kind);
		ssf_buf_str(b, ty->name);
		ssf_buf_u32(b, ty->size);
		ssf_buf_u32(b, ty->target);
		ssf_buf_u32(b, ty->count);
		ssf_buf_u32(b, ty->n_members);
		for (uint32_t i = 0; i < ty->n_members; i++) {
			const struct dps_ssf_member *m = &ty->members[i];

			ssf_buf_str(b, m->name);
			ssf_buf_u32(b, m->type);
			ssf_buf_u32(b, m->offset);
			ssf_buf_u16(b, m->bit_offset);
			ssf_buf_u16(b, m->bit_size);
			ssf_buf_u32(b, m->count_member);
			ssf_buf_u32(b, m->tag_member);
			ssf_buf_u32(b, m->n_cases);
			for (uint32_t c = 0; c < m->n_cases; c++) {
				ssf_buf_u64(b, (uint64_t)m->cases[c].value);
				ssf_buf_u32(b, m->cases[c].member);
			}
		}
		ssf_buf_u32(b, ty->n_enumerators);
		for (uint32_t e = 0; e < ty->n_enumerators; e++) {
			ssf_buf_str(b, ty->enumerators[e].name);
			ssf_buf_u64(b, (uint64_t)ty->enumerators[e].value);
		}
	}
}

char *ssf_quote(const char *s, size_t len)
{
	char *out = malloc(len * 4 + 3), *o = out;

	if (!out) {
		return NULL;
	}
	*o++ = '"';
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\') {
			*o++ = '\\';
			*o++ = (char)c;
		} else if (c == '\n') {
			*o++ = '\\';
			*o++ = 'n';
		} else if (c == '\t') {
			*o++ = '\\';
			*o++ = 't';
		} else if (c < 0x20 || c >= 0x7f) {
			o += sprintf(o, "\\x%02x", c);
		} else {
			*o++ = (char)c;
		}
	}
	*o++ = '"';
	*o = 0;
	return out;
}

/* The smallest number of bytes a value of type t encodes to. */
uint64_t ssf_min_encoded(const struct dps_ssf_schema *s, uint32_t t, unsigned depth)
{
	const struct dps_ssf_type *ty = &s->types[t];
	uint64_t n = 0;

	if (depth > SSF_MAX_DEPTH) {
		return 0;
	}
	switch (ty->kind) {
	case DPS_SSF_INT:
	case DPS_SSF_UINT:
	case DPS_SSF_ENUM:
	case DPS_SSF_FLOAT:
		return ty->size;
	case DPS_SSF_POINTER:
	case DPS_SSF_STRING:
		return 4;
	case DPS_SSF_ARRAY:
		return ty->count * ssf_min_encoded(s, ty->target, depth + 1);
	case DPS_SSF_STRUCT:
		for (uint32_t i = 0; i < ty->n_members; i++) {
			const struct dps_ssf_member *m = &ty->members[i];

			n += m->bit_size     ? s->types[m->type].size
			     : m->tag_member ? 4
					     : ssf_min_encoded(s, m->type, depth + 1);
		}
		return n;
	default:
		return 0;
	}
}

/* How many values decoding one value of type t visits (the work, whatever its bytes). */
uint64_t ssf_visits(const struct dps_ssf_schema *s, uint32_t t, unsigned depth)
{
	const struct dps_ssf_type *ty = &s->types[t];
	uint64_t n = 1;

	if (depth > SSF_MAX_DEPTH) {
		return 1;
	}
	if (ty->kind == DPS_SSF_ARRAY) {
		return 1 + ty->count * ssf_visits(s, ty->target, depth + 1);
	}
	if (ty->kind != DPS_SSF_STRUCT) {
		return 1;
	}
	for (uint32_t i = 0; i < ty->n_members; i++) {
		const struct dps_ssf_member *m = &ty->members[i];
		uint64_t most = 1;

		if (m->bit_size) {
			n++;
			continue;
		}
		if (!m->tag_member) {
			n += ssf_visits(s, m->type, depth + 1);
			continue;
		}
		for (uint32_t c = 0; c < m->n_cases; c++) {
			const struct dps_ssf_type *u = &s->types[m->type];
			uint64_t v = ssf_visits(s, u->members[m->cases[c].member].type, depth + 1);

			most = v > most ? v : most;
		}
		n += 1 + most;
	}
	return n;
}

/* ---- encoder ---- */

struct enc_obj {
	const void *addr;
	uint32_t type, count;
};

struct enc {
	const struct dps_ssf_schema *s;
	struct ssf_buf *out;
	struct enc_obj *objs; /* owned; objs[0] is object #1 */
	size_t n_objs, cap_objs;
	uint32_t *slots; /* owned: open addressing, 1 + index in objs, 0 = empty */
	size_t n_slots;
	const char *path[SSF_MAX_DEPTH * 2 + 2]; /* member names, for errors */
	unsigned depth;
	char *err;
	size_t errlen;
};

static size_t hash_addr(const void *p, size_t n_slots)
{
	uint64_t h = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 17) & (n_slots - 1);
}

static int enc_grow_slots(struct enc *e)
{
	size_t n = e->n_slots ? e->n_slots * 2 : 64;
	uint32_t *slots = calloc(n, sizeof(*slots));

	if (!slots) {
		return DPS_ERR_NOMEM;
	}
	for (size_t i = 0; i < e->n_objs; i++) {
		size_t h = hash_addr(e->objs[i].addr, n);

		while (slots[h]) {
			h = (h + 1) & (n - 1);
		}
		slots[h] = (uint32_t)(i + 1);
	}
	free(e->slots);
	e->slots = slots;
	e->n_slots = n;
	return DPS_OK;
}

/* The id (1-based) of the object (addr, type, count), added when new. 0 on no memory. */
static uint32_t enc_intern(struct enc *e, const void *addr, uint32_t type, uint32_t count)
{
	size_t h;

	if ((e->n_objs + 1) * 2 > e->n_slots && enc_grow_slots(e)) {
		return 0;
	}
	h = hash_addr(addr, e->n_slots);
	while (e->slots[h]) {
		const struct enc_obj *o = &e->objs[e->slots[h] - 1];

		if (o->addr == addr && o->type == type && o->count == count) {
			return e->slots[h];
		}
		h = (h + 1) & (e->n_slots - 1);
	}
	if (e->n_objs == e->cap_objs) {
		size_t cap = e->cap_objs ? e->cap_objs * 2 : 16;
		struct enc_obj *objs = realloc(e->objs, cap * sizeof(*objs));

		if (!objs) {
			return 0;
		}
		e->objs = objs;
		e->cap_objs = cap;
	}
	e->objs[e->n_objs] = (struct enc_obj){addr, type, count};
	e->slots[h] = (uint32_t)++e->n_objs;
	return e->slots[h];
}

/* "conn.items.u" from the path stack, for messages. */
static void enc_path(const struct enc *e, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = 0;
	for (unsigned i = 0; i < e->depth && at < len; i++) {
		at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? "." : "", e->path[i]);
	}
}

/* fmt has "%s" (the path) and, optionally, a PRId64 for v. */
static int enc_fail(struct enc *e, const char *fmt, int64_t v)
{
	char path[512];

	enc_path(e, path, sizeof(path));
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-extra-args"
	if (e->err && e->errlen) {
		snprintf(e->err, e->errlen, fmt, path, v);
	}
#pragma GCC diagnostic pop
	return DPS_ERR_INVAL;
}

static int enc_value(struct enc *e, uint32_t type, const uint8_t *p, uint32_t count);

static int enc_member(struct enc *e, const struct dps_ssf_type *st, const struct dps_ssf_member *m,
		      const uint8_t *obj)
{
	const struct dps_ssf_type *mt = &e->s->types[m->type];
	int ret;

	e->path[e->depth++] = m->name;
	if (m->bit_size) {
		put_le(e->out, load_bits(obj + m->offset, m->bit_offset, m->bit_size), mt->size);
		ret = DPS_OK;
	} else if (m->tag_member) {
		int64_t tag = member_int(e->s, &st->members[m->tag_member - 1], obj);
		uint32_t c = 0;

		while (c < m->n_cases && m->cases[c].value != tag) {
			c++;
		}
		if (c == m->n_cases) {
			ret = enc_fail(e,
				       "%s: the tag holds %" PRId64
				       ", which has no case (annotation `case`, doc/ssf.md)",
				       tag);
			goto end;
		}
		ssf_buf_u32(e->out, c);
		e->path[e->depth++] = mt->members[m->cases[c].member].name;
		ret = enc_value(e, mt->members[m->cases[c].member].type,
				obj + m->offset + mt->members[m->cases[c].member].offset, 1);
		e->depth--;
	} else if (m->count_member) {
		int64_t n = member_int(e->s, &st->members[m->count_member - 1], obj);

		if (n < 0 || n > SSF_MAX_SIZE) {
			ret = enc_fail(e, "%s: its length member holds %" PRId64, n);
			goto end;
		}
		ret = enc_value(e, m->type, obj + m->offset, (uint32_t)n);
	} else {
		ret = enc_value(e, m->type, obj + m->offset, 1);
	}
end:
	e->depth--;
	return ret;
}

/* The value of type at p; count is the number of objects a pointer leads to. */
static int enc_value(struct enc *e, uint32_t type, const uint8_t *p, uint32_t count)
{
	const struct dps_ssf_type *t = &e->s->types[type];
	const void *ptr;
	int ret = DPS_OK;

	switch (t->kind) {
	case DPS_SSF_INT:
	case DPS_SSF_UINT:
	case DPS_SSF_ENUM:
		put_le(e->out, load_uint(p, t->size), t->size);
		break;
	case DPS_SSF_FLOAT:
		if (ssf_host_is_little()) {
			ssf_buf_put(e->out, p, t->size);
		} else {
			for (uint32_t i = t->size; i-- > 0;) {
				ssf_buf_put(e->out, p + i, 1);
			}
		}
		break;
	case DPS_SSF_STRUCT:
		for (uint32_t i = 0; i < t->n_members && !ret; i++) {
			ret = enc_member(e, t, &t->members[i], p);
		}
		break;
	case DPS_SSF_UNION:
		return enc_fail(e, "%s: a union without a tag (annotation `tag`, doc/ssf.md)", 0);
	case DPS_SSF_ARRAY:
		for (uint32_t i = 0; i < t->count && !ret; i++) {
			ret =
			    enc_value(e, t->target, p + (size_t)i * e->s->types[t->target].size, 1);
		}
		break;
	case DPS_SSF_POINTER:
		memcpy(&ptr, p, sizeof(ptr));
		if (!ptr) {
			ssf_buf_u32(e->out, 0);
		} else {
			uint32_t id = enc_intern(e, ptr, t->target, count);

			if (!id) {
				return DPS_ERR_NOMEM;
			}
			ssf_buf_u32(e->out, id);
		}
		break;
	case DPS_SSF_STRING:
		memcpy(&ptr, p, sizeof(ptr));
		if (!ptr) {
			ssf_buf_u32(e->out, 0);
		} else {
			ssf_buf_str(e->out, ptr);
		}
		break;
	default: /* opaque: nothing recorded */
		break;
	}
	return ret;
}

int ssf_encode(const struct dps_ssf_schema *s, uint32_t type, const void *obj, const char *root,
	       struct ssf_buf *out, char *err, size_t errlen)
{
	struct enc e = {.s = s, .out = out, .err = err, .errlen = errlen};
	size_t count_at;
	int ret = DPS_OK;

	count_at = out->len;
	ssf_buf_u32(out, 0); /* number of objects, filled in at the end */
	if (!enc_intern(&e, obj, type, 1)) {
		ret = DPS_ERR_NOMEM;
		goto free_objs;
	}
	/* Objects found while encoding one are appended: breadth first, deterministic. */
	for (size_t i = 0; i < e.n_objs && !ret; i++) {
		struct enc_obj o = e.objs[i];
		uint32_t size = s->types[o.type].size;

		ssf_buf_u32(out, o.type);
		ssf_buf_u32(out, o.count);
		e.depth = 0;
		e.path[e.depth++] = i ? "*" : root;
		for (uint32_t k = 0; k < o.count && !ret; k++) {
			ret = enc_value(&e, o.type, (const uint8_t *)o.addr + (size_t)k * size, 1);
		}
	}
	if (!ret && out->failed) {
		ret = DPS_ERR_NOMEM;
	}
	if (ret == DPS_ERR_NOMEM) {
		ssf_set_err(err, errlen, "out of memory");
	}
	if (!ret) {
		uint32_t n = (uint32_t)e.n_objs;

		for (unsigned i = 0; i < 4; i++) {
			out->data[count_at + i] = (uint8_t)(n >> (8 * i));
		}
	}
free_objs:
	free(e.objs);
	free(e.slots);
	return ret;
}
