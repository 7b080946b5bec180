/* SPDX-License-Identifier: MIT */
/*
 * The SSF decoder and file reader (ssf-codec.h): every read is bounds-checked first, every
 * failure says the file offset and what was expected there. A first pass checks a whole entry
 * (object numbers, pointed-to types, case numbers, lengths), so the passes that then write
 * memory or print cannot fail on the data, only on memory.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ssf-codec.h"

#define SSF_MAX_ALLOC (1u << 30)  /* largest object a file may make us allocate */
#define SSF_MAX_EMPTY_COUNT 65536 /* objects of a type that encodes to no bytes */
#define SSF_MAX_VISITS (1u << 22) /* values decoded beyond 64 per byte of the entry */

/* ---- checked reading ---- */

struct rd {
	const uint8_t *d;
	size_t size, pos, base; /* base: file offset of d[0] */
	char *err;
	size_t errlen;
};

static int rd_fail(struct rd *r, const char *what)
{
	ssf_set_err(r->err, r->errlen, "offset %zu: expected %s", r->base + r->pos, what);
	return DPS_ERR_INVAL;
}

static int rd_bytes(struct rd *r, size_t n, const char *what, const uint8_t **out)
{
	if (r->size - r->pos < n) {
		char msg[160];

		snprintf(msg, sizeof(msg), "%s (%zu bytes), found %s", what, n,
			 r->pos == r->size ? "the end of the file" : "fewer bytes");
		return rd_fail(r, msg);
	}
	*out = r->d + r->pos;
	r->pos += n;
	return DPS_OK;
}

static int rd_le(struct rd *r, unsigned n, const char *what, uint64_t *v)
{
	const uint8_t *p;
	int ret = rd_bytes(r, n, what, &p);

	if (ret) {
		return ret;
	}
	*v = 0;
	for (unsigned i = 0; i < n; i++) {
		*v |= (uint64_t)p[i] << (8 * i);
	}
	return DPS_OK;
}

static int rd_u32(struct rd *r, const char *what, uint32_t *v)
{
	uint64_t x;
	int ret = rd_le(r, 4, what, &x);

	*v = (uint32_t)x;
	return ret;
}

/* A u32 size (with the NUL) and the bytes of a NUL-terminated string without inner NULs. */
static int rd_str(struct rd *r, const char *what, const char **s, uint32_t *size)
{
	const uint8_t *p;
	uint32_t n;
	int ret = rd_u32(r, what, &n);

	if (ret) {
		return ret;
	}
	if (!n) {
		r->pos -= 4;
		return rd_fail(r, "a string size of at least 1 (its NUL)");
	}
	ret = rd_bytes(r, n, what, &p);
	if (ret) {
		return ret;
	}
	if (memchr(p, 0, n) != p + n - 1) {
		r->pos -= n;
		return rd_fail(r, "a string ending with its only NUL byte");
	}
	*s = (const char *)p;
	if (size) {
		*size = n;
	}
	return DPS_OK;
}

/* ---- decoder ---- */

struct dec_obj {
	uint32_t type, count;
	size_t pos;
	uint8_t *mem; /* restore: where it goes */
	char *path;   /* owned: the path of its first reference */
};

struct dec_ref {
	uint32_t id, target;
	size_t offset;
};

struct dec {
	const struct dps_ssf_schema *s;
	struct rd r;
	struct dec_obj *objs; /* owned */
	uint32_t n_objs;
	struct dec_ref *refs; /* pass 1: pointers to check once every object is known */
	size_t n_refs, cap_refs;
	void **strs; /* restore: strings made, freed again on failure */
	size_t n_strs, cap_strs;
	bool writing;
	ssf_event_fn ev;
	void *ctx;
	const char *root_name;
	char path[1024];
};

/* Sets the path (truncated when too long: it is only for reading). */
static void path_set(struct dec *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void path_set(struct dec *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(d->path, sizeof(d->path), fmt, ap);
	va_end(ap);
}

static void dec_event(struct dec *d, enum ssf_event_kind k, unsigned depth,
		      const struct dps_ssf_type *t, const char *text)
{
	if (d->ev) {
		d->ev(d->ctx, k, depth, d->path, t, text);
	}
}

/* Appends to the path; returns the old length to restore. */
static size_t path_push(struct dec *d, const char *fmt, const char *name, uint32_t index)
{
	size_t len = strlen(d->path);

	if (d->ev && len < sizeof(d->path)) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		if (name) {
			snprintf(d->path + len, sizeof(d->path) - len, fmt, name);
		} else {
			snprintf(d->path + len, sizeof(d->path) - len, fmt, index);
		}
#pragma GCC diagnostic pop
	}
	return len;
}

static void path_pop(struct dec *d, size_t len)
{
	if (len < sizeof(d->path)) {
		d->path[len] = 0;
	}
}

/* The separator before a member name: none after "->". */
static const char *member_fmt(const struct dec *d)
{
	size_t n = strlen(d->path);

	return n >= 2 && !strcmp(d->path + n - 2, "->") ? "%s" : ".%s";
}

static int dec_value(struct dec *d, uint32_t type, uint8_t *mem, unsigned depth);

static void print_int(char *text, size_t len, const struct dps_ssf_type *t, uint64_t raw,
		      unsigned bits)
{
	int64_t v = ssf_sign_extend(raw, bits);

	if (t->kind == DPS_SSF_UINT) {
		snprintf(text, len, "%" PRIu64, raw);
		return;
	}
	for (uint32_t e = 0; e < t->n_enumerators; e++) {
		if (t->enumerators[e].value == v || (uint64_t)t->enumerators[e].value == raw) {
			snprintf(text, len, "%s", t->enumerators[e].name);
			return;
		}
	}
	snprintf(text, len, "%" PRId64, v);
}

static int dec_member(struct dec *d, const struct dps_ssf_type *st, const struct dps_ssf_member *m,
		      uint8_t *mem, unsigned depth)
{
	const struct dps_ssf_type *mt = &d->s->types[m->type];
	size_t old = path_push(d, member_fmt(d), m->name, 0);
	char text[64];
	int ret = DPS_OK;

	(void)st;
	if (m->bit_size) {
		uint64_t v;

		ret = rd_le(&d->r, mt->size, "a bit-field's value", &v);
		if (ret) {
			goto end;
		}
		if (m->bit_size < 64 && v >> m->bit_size) {
			d->r.pos -= mt->size;
			ret = rd_fail(&d->r, "a value that fits the bit-field");
			goto end;
		}
		if (mem) {
			ssf_store_bits(mem + m->offset, m->bit_offset, m->bit_size, v);
		}
		print_int(text, sizeof(text), mt, v, m->bit_size);
		dec_event(d, SSF_EV_LEAF, depth, mt, text);
	} else if (m->tag_member) {
		const struct dps_ssf_member *alt;
		uint32_t c;

		ret = rd_u32(&d->r, "a union's case number", &c);
		if (ret) {
			goto end;
		}
		if (c >= m->n_cases) {
			d->r.pos -= 4;
			ret = rd_fail(&d->r, "a case number of the union's annotation");
			goto end;
		}
		alt = &mt->members[m->cases[c].member];
		path_push(d, ".%s", alt->name, 0);
		ret = dec_value(d, alt->type, mem ? mem + m->offset + alt->offset : NULL, depth);
	} else {
		ret = dec_value(d, m->type, mem ? mem + m->offset : NULL, depth);
	}
end:
	path_pop(d, old);
	return ret;
}

static bool is_char(const struct dps_ssf_type *t)
{
	return t->size == 1 && (t->kind == DPS_SSF_INT || t->kind == DPS_SSF_UINT) &&
	       !strcmp(t->name, "char");
}

/* A char array: its bytes, printed as one string (trailing NULs left out: the array's size
 * implies them), so that names and buffers read as text and check names the array. */
static int dec_chars(struct dec *d, const struct dps_ssf_type *t, uint8_t *mem, unsigned depth)
{
	const uint8_t *p;
	size_t n = t->count;
	char *q;
	int ret = rd_bytes(&d->r, t->count, "the bytes of a char array", &p);

	if (ret) {
		return ret;
	}
	if (mem) {
		memcpy(mem, p, t->count);
	}
	if (d->ev) {
		while (n && !p[n - 1]) {
			n--;
		}
		q = ssf_quote((const char *)p, n);
		if (!q) {
			return DPS_ERR_NOMEM;
		}
		dec_event(d, SSF_EV_LEAF, depth, t, q);
		free(q);
	}
	return DPS_OK;
}

static int dec_value(struct dec *d, uint32_t type, uint8_t *mem, unsigned depth)
{
	const struct dps_ssf_type *t = &d->s->types[type];
	char text[96];
	uint64_t v = 0;
	int ret = DPS_OK;

	switch (t->kind) {
	case DPS_SSF_INT:
	case DPS_SSF_UINT:
	case DPS_SSF_ENUM:
		ret = rd_le(&d->r, t->size, "an integer", &v);
		if (ret) {
			return ret;
		}
		if (mem) {
			ssf_store_uint(mem, t->size, v);
		}
		print_int(text, sizeof(text), t, v, t->size * 8);
		dec_event(d, SSF_EV_LEAF, depth, t, text);
		break;
	case DPS_SSF_FLOAT: {
		const uint8_t *p;

		ret = rd_bytes(&d->r, t->size, "a floating-point value", &p);
		if (ret) {
			return ret;
		}
		if (mem) {
			for (uint32_t i = 0; i < t->size; i++) {
				mem[ssf_host_is_little() ? i : t->size - 1 - i] = p[i];
			}
		}
		if (d->ev) {
			float f;
			double x;
			long double l;

			if (t->size == sizeof(float)) {
				memcpy(&f, p, sizeof(f));
				snprintf(text, sizeof(text), "%.9g", (double)f);
			} else if (t->size == sizeof(double)) {
				memcpy(&x, p, sizeof(x));
				snprintf(text, sizeof(text), "%.17g", x);
			} else if (t->size == sizeof(long double)) {
				memcpy(&l, p, sizeof(l));
				snprintf(text, sizeof(text), "%.21Lg", l);
			} else {
				snprintf(text, sizeof(text), "(%" PRIu32 " bytes)", t->size);
			}
			dec_event(d, SSF_EV_LEAF, depth, t, text);
		}
		break;
	}
	case DPS_SSF_STRUCT:
		dec_event(d, SSF_EV_ENTER, depth, t, NULL);
		for (uint32_t i = 0; i < t->n_members && !ret; i++) {
			ret = dec_member(d, t, &t->members[i], mem, depth + 1);
		}
		break;
	case DPS_SSF_UNION:
		return rd_fail(&d->r, "no union outside a tagged member (the schema is wrong)");
	case DPS_SSF_ARRAY:
		if (is_char(&d->s->types[t->target])) {
			return dec_chars(d, t, mem, depth);
		}
		dec_event(d, SSF_EV_ENTER, depth, t, NULL);
		for (uint32_t i = 0; i < t->count && !ret; i++) {
			size_t old = path_push(d, "[%" PRIu32 "]", NULL, i);

			ret = dec_value(d, t->target,
					mem ? mem + (size_t)i * d->s->types[t->target].size : NULL,
					depth + 1);
			path_pop(d, old);
		}
		break;
	case DPS_SSF_POINTER: {
		uint32_t id;
		void *p = NULL;

		ret = rd_u32(&d->r, "an object number", &id);
		if (ret) {
			return ret;
		}
		if (id > d->n_objs) {
			d->r.pos -= 4;
			return rd_fail(&d->r, "an object number of this entry");
		}
		if (id && !d->writing && !d->ev) {
			if (d->n_refs == d->cap_refs) {
				size_t cap = d->cap_refs ? d->cap_refs * 2 : 16;
				struct dec_ref *refs = realloc(d->refs, cap * sizeof(*refs));

				if (!refs) {
					return DPS_ERR_NOMEM;
				}
				d->refs = refs;
				d->cap_refs = cap;
			}
			d->refs[d->n_refs++] =
			    (struct dec_ref){id, t->target, d->r.base + d->r.pos - 4};
		}
		if (id) {
			p = d->objs[id - 1].mem;
			if (d->ev && !d->objs[id - 1].path) {
				d->objs[id - 1].path = strdup(d->path);
			}
		}
		if (mem) {
			memcpy(mem, &p, sizeof(p));
		}
		if (id) {
			snprintf(text, sizeof(text), "#%" PRIu32, id);
		}
		dec_event(d, SSF_EV_LEAF, depth, t, id ? text : "NULL");
		break;
	}
	case DPS_SSF_STRING: {
		const char *s = NULL;
		char *copy = NULL, *q;
		uint32_t n;

		ret = rd_u32(&d->r, "a string size", &n);
		if (ret) {
			return ret;
		}
		if (n) {
			d->r.pos -= 4;
			ret = rd_str(&d->r, "a string", &s, NULL);
			if (ret) {
				return ret;
			}
		}
		if (mem && s) {
			if (d->n_strs == d->cap_strs) {
				size_t cap = d->cap_strs ? d->cap_strs * 2 : 16;
				void **strs = realloc(d->strs, cap * sizeof(*strs));

				if (!strs) {
					return DPS_ERR_NOMEM;
				}
				d->strs = strs;
				d->cap_strs = cap;
			}
			copy = strdup(s);
			if (!copy) {
				return DPS_ERR_NOMEM;
			}
			d->strs[d->n_strs++] = copy;
		}
		if (mem) {
			memcpy(mem, &copy, sizeof(copy));
		}
		if (d->ev) {
			q = s ? ssf_quote(s, n - 1) : NULL;
			if (s && !q) {
				return DPS_ERR_NOMEM;
			}
			dec_event(d, SSF_EV_LEAF, depth, t, s ? q : "NULL");
			free(q);
		}
		break;
	}
	case DPS_SSF_OPAQUE_NULL:
		if (mem) {
			memset(mem, 0, t->size);
		}
		dec_event(d, SSF_EV_LEAF, depth, t, "(not recorded: NULL)");
		break;
	default:
		dec_event(d, SSF_EV_LEAF, depth, t, "(not recorded)");
		break;
	}
	return ret;
}

/* One pass over every object: checks (pass 1), writes (restore) or reports (events). */
static int dec_objects(struct dec *d, bool first)
{
	uint64_t work = 0;

	for (uint32_t i = 0; i < d->n_objs; i++) {
		struct dec_obj *o = &d->objs[i];
		const struct dps_ssf_type *t;
		uint32_t size;
		int ret;

		if (first) {
			uint64_t min, left;

			ret = rd_u32(&d->r, "an object's type", &o->type);
			if (!ret && o->type >= d->s->n_types) {
				d->r.pos -= 4;
				ret = rd_fail(&d->r, "a type number of the schema");
			}
			if (!ret) {
				ret = rd_u32(&d->r, "an object's element count", &o->count);
			}
			if (ret) {
				return ret;
			}
			min = ssf_min_encoded(d->s, o->type, 0);
			left = d->r.size - d->r.pos;
			/* values that take no bytes (opaque ones) still take time: bounded too */
			work += (uint64_t)o->count * ssf_visits(d->s, o->type, 0);
			if (work > SSF_MAX_VISITS + 64 * (uint64_t)d->r.size) {
				d->r.pos -= 4;
				return rd_fail(&d->r, "fewer values for the size of the entry");
			}
			if ((min ? o->count > left / min : o->count > SSF_MAX_EMPTY_COUNT) ||
			    (uint64_t)o->count * d->s->types[o->type].size > SSF_MAX_ALLOC) {
				d->r.pos -= 4;
				return rd_fail(&d->r, "an element count that fits the entry");
			}
		} else {
			d->r.pos += 8;
		}
		o->pos = d->r.pos;
		t = &d->s->types[o->type];
		size = t->size;
		if (d->ev && i) {
			char text[300];

			path_set(d, "#%" PRIu32, i + 1);
			snprintf(text, sizeof(text), "%s[%" PRIu32 "]", t->name, o->count);
			dec_event(d, SSF_EV_OBJECT, 0, t, text);
			if (o->path) {
				path_set(d, "%s", o->path);
			}
		} else if (d->ev) {
			path_set(d, "%s", d->root_name);
		}
		for (uint32_t k = 0; k < o->count; k++) {
			char base[1024];

			if (d->ev && i) {
				memcpy(base, d->path, sizeof(base));
				if (o->count != 1) {
					path_set(d, "%s[%" PRIu32 "]", base, k);
				} else if (t->kind == DPS_SSF_STRUCT) {
					path_set(d, "%s->", base);
				} else {
					path_set(d, "*%s", base);
				}
			}
			ret = dec_value(d, o->type, o->mem ? o->mem + (size_t)k * size : NULL, 0);
			if (d->ev && i) {
				memcpy(d->path, base, sizeof(base));
			}
			if (ret) {
				return ret;
			}
		}
	}
	return DPS_OK;
}

int ssf_decode(const struct dps_ssf_schema *s, uint32_t root, const uint8_t *data, size_t size,
	       size_t base, const char *root_name, ssf_event_fn ev, void *ctx, void **restore,
	       char *err, size_t errlen)
{
	struct dec d = {.s = s, .r = {data, size, 0, base, err, errlen}};
	bool made_root = false;
	size_t start;
	int ret;

	ret = rd_u32(&d.r, "the number of objects", &d.n_objs);
	if (ret) {
		return ret;
	}
	if (!d.n_objs || d.n_objs > (size - 4) / 8) {
		d.r.pos = 0;
		return rd_fail(&d.r, "a number of objects that fits the entry (at least 1)");
	}
	start = d.r.pos;
	d.objs = calloc(d.n_objs, sizeof(*d.objs));
	if (!d.objs) {
		ret = DPS_ERR_NOMEM;
		goto free_objs;
	}
	/* Pass 1 checks everything, so that the passes that write or print cannot fail on the
	 * data (only on memory). */
	ret = dec_objects(&d, true);
	if (ret) {
		goto free_objs;
	}
	if (d.r.pos != d.r.size) {
		ret = rd_fail(&d.r, "the end of the entry's data");
		goto free_objs;
	}
	if (d.objs[0].type != root || d.objs[0].count != 1) {
		d.r.pos = start;
		ret = rd_fail(&d.r, "the entry's own type, one element, as the first object");
		goto free_objs;
	}
	for (size_t i = 0; i < d.n_refs; i++) {
		if (d.objs[d.refs[i].id - 1].type != d.refs[i].target) {
			ssf_set_err(err, errlen,
				    "offset %zu: expected an object of the pointed-to type",
				    d.refs[i].offset);
			ret = DPS_ERR_INVAL;
			goto free_objs;
		}
	}
	if (restore) {
		for (uint32_t i = 0; i < d.n_objs; i++) {
			size_t sz = s->types[d.objs[i].type].size;

			if (!i && *restore) {
				d.objs[i].mem = *restore;
				continue;
			}
			d.objs[i].mem = calloc(d.objs[i].count ? d.objs[i].count : 1, sz ? sz : 1);
			if (!d.objs[i].mem) {
				ret = DPS_ERR_NOMEM;
				goto free_mem;
			}
			made_root |= !i;
		}
		d.writing = true;
		d.r.pos = start;
		ret = dec_objects(&d, false);
		if (ret) {
			goto free_mem;
		}
		*restore = d.objs[0].mem;
		d.writing = false;
	}
	if (ev) {
		for (uint32_t i = 0; i < d.n_objs; i++) {
			d.objs[i].mem = NULL;
		}
		d.ev = ev;
		d.ctx = ctx;
		d.root_name = root_name;
		d.r.pos = start;
		ret = dec_objects(&d, false);
	}
	goto free_objs;

free_mem:
	for (size_t i = 0; i < d.n_strs; i++) {
		free(d.strs[i]);
	}
	for (uint32_t i = made_root ? 0 : 1; i < d.n_objs; i++) {
		free(d.objs[i].mem);
	}
free_objs:
	if (ret == DPS_ERR_NOMEM) {
		ssf_set_err(err, errlen, "out of memory");
	}
	if (d.objs) {
		for (uint32_t i = 0; i < d.n_objs; i++) {
			free(d.objs[i].path);
		}
	}
	free(d.objs);
	free(d.refs);
	free(d.strs);
	return ret;
}

/* ---- the file ---- */

/* The schemas' memory: every block on one list, freed together. */
struct arena_block {
	struct arena_block *next;
	max_align_t data[];
};

static void *arena_alloc(void **arena, size_t n)
{
	struct arena_block *b = calloc(1, sizeof(*b) + (n ? n : 1));

	if (!b) {
		return NULL;
	}
	b->next = *arena;
	*arena = b;
	return b->data;
}

static void arena_free(void *arena)
{
	while (arena) {
		struct arena_block *b = arena;

		arena = b->next;
		free(b);
	}
}

/* A count of items of at least min_size bytes each that the rest of the record can hold. */
static int rd_count(struct rd *r, const char *what, size_t min_size, uint32_t *n)
{
	int ret = rd_u32(r, what, n);

	if (!ret && *n > (r->size - r->pos) / min_size) {
		r->pos -= 4;
		return rd_fail(r, "a count that fits the record");
	}
	return ret;
}

static int read_member(struct rd *r, void **arena, struct dps_ssf_member *m)
{
	uint64_t v = 0;
	int ret;

	ret = rd_str(r, "a member name", &m->name, NULL);
	ret = ret ? ret : rd_u32(r, "a member's type", &m->type);
	ret = ret ? ret : rd_u32(r, "a member's offset", &m->offset);
	ret = ret ? ret : rd_le(r, 2, "a member's bit offset", &v);
	m->bit_offset = (uint16_t)v;
	ret = ret ? ret : rd_le(r, 2, "a member's bit size", &v);
	m->bit_size = (uint16_t)v;
	ret = ret ? ret : rd_u32(r, "a member's length member", &m->count_member);
	ret = ret ? ret : rd_u32(r, "a member's tag member", &m->tag_member);
	ret = ret ? ret : rd_count(r, "a member's number of cases", 12, &m->n_cases);
	if (ret) {
		return ret;
	}
	if (m->n_cases) {
		struct dps_ssf_case *c = arena_alloc(arena, m->n_cases * sizeof(*c));

		if (!c) {
			return DPS_ERR_NOMEM;
		}
		for (uint32_t i = 0; i < m->n_cases && !ret; i++) {
			ret = rd_le(r, 8, "a case value", &v);
			c[i].value = (int64_t)v;
			ret = ret ? ret : rd_u32(r, "a case's member", &c[i].member);
		}
		m->cases = c;
	}
	return ret;
}

static int read_type(struct rd *r, void **arena, struct dps_ssf_type *t)
{
	uint64_t v = 0;
	int ret;

	ret = rd_le(r, 1, "a type's kind", &v);
	t->kind = (uint8_t)v;
	ret = ret ? ret : rd_str(r, "a type name", &t->name, NULL);
	ret = ret ? ret : rd_u32(r, "a type's size", &t->size);
	ret = ret ? ret : rd_u32(r, "a type's target", &t->target);
	ret = ret ? ret : rd_u32(r, "a type's element count", &t->count);
	ret = ret ? ret : rd_count(r, "a type's number of members", 29, &t->n_members);
	if (ret) {
		return ret;
	}
	if (t->n_members) {
		struct dps_ssf_member *m = arena_alloc(arena, t->n_members * sizeof(*m));

		if (!m) {
			return DPS_ERR_NOMEM;
		}
		for (uint32_t i = 0; i < t->n_members && !ret; i++) {
			ret = read_member(r, arena, &m[i]);
		}
		t->members = m;
	}
	ret = ret ? ret : rd_count(r, "a type's number of enumerators", 13, &t->n_enumerators);
	if (!ret && t->n_enumerators) {
		struct dps_ssf_enumerator *e = arena_alloc(arena, t->n_enumerators * sizeof(*e));

		if (!e) {
			return DPS_ERR_NOMEM;
		}
		for (uint32_t i = 0; i < t->n_enumerators && !ret; i++) {
			ret = rd_str(r, "an enumerator name", &e[i].name, NULL);
			ret = ret ? ret : rd_le(r, 8, "an enumerator value", &v);
			e[i].value = (int64_t)v;
		}
		t->enumerators = e;
	}
	return ret;
}

static int read_schema(struct ssf_file *f, struct rd *r)
{
	struct dps_ssf_schema *s, *all;
	struct dps_ssf_type *types;
	size_t start = r->pos;
	char why[200];
	int ret;

	all = realloc(f->schemas, (f->n_schemas + 1) * sizeof(*all));
	if (!all) {
		return DPS_ERR_NOMEM;
	}
	f->schemas = all;
	s = &all[f->n_schemas];
	memset(s, 0, sizeof(*s));
	ret = rd_str(r, "the schema's name", &s->name, NULL);
	ret = ret ? ret : rd_count(r, "the schema's number of types", 25, &s->n_types);
	if (ret) {
		return ret;
	}
	types = arena_alloc(&f->arena, s->n_types * sizeof(*types));
	if (!types) {
		return DPS_ERR_NOMEM;
	}
	for (uint32_t t = 0; t < s->n_types && !ret; t++) {
		ret = read_type(r, &f->arena, &types[t]);
	}
	s->types = types;
	if (ret) {
		return ret;
	}
	ret = ssf_schema_validate(s, why, sizeof(why));
	if (ret) {
		ssf_set_err(r->err, r->errlen, "offset %zu: expected a consistent schema: %s",
			    r->base + start, why);
		return ret;
	}
	f->n_schemas++;
	return DPS_OK;
}

static int read_entry(struct ssf_file *f, struct rd *r, size_t offset)
{
	struct ssf_entry e = {.offset = offset}, *all;
	const uint8_t *p;
	uint64_t v = 0;
	int ret;

	ret = rd_u32(r, "the test run", &e.run);
	ret = ret ? ret : rd_str(r, "the object name", &e.name, &e.name_size);
	if (!ret && !ssf_is_ident(e.name)) {
		r->pos -= e.name_size;
		return rd_fail(r, "an object name that is a C identifier");
	}
	ret = ret ? ret : rd_str(r, "the object type name", &e.type_name, &e.type_name_size);
	ret = ret ? ret : rd_le(r, 1, "addInfo", &v);
	if (ret) {
		return ret;
	}
	e.add_info = (uint8_t)v;
	if (e.add_info & ~SSF_ADDINFO_NULL) {
		r->pos--;
		return rd_fail(r, "addInfo 0 or 1 (bit 0: NULL)");
	}
	ret = rd_u32(r, "the schema number", &e.schema);
	if (!ret && e.schema >= f->n_schemas) {
		r->pos -= 4;
		return rd_fail(r, "the number of a schema given earlier in the file");
	}
	ret = ret ? ret : rd_u32(r, "the type number", &e.type);
	if (ret) {
		return ret;
	}
	if (e.type >= f->schemas[e.schema].n_types ||
	    strcmp(f->schemas[e.schema].types[e.type].name, e.type_name)) {
		r->pos -= 4;
		return rd_fail(r, "the number of the type named by the entry");
	}
	if (!(e.add_info & SSF_ADDINFO_NULL)) {
		ret = rd_u32(r, "the size of the data", &e.size);
		e.data_offset = r->base + r->pos;
		ret = ret ? ret : rd_bytes(r, e.size, "the data", &p);
		if (ret) {
			return ret;
		}
		e.data = p;
	}
	all = realloc(f->entries, (f->n_entries + 1) * sizeof(*all));
	if (!all) {
		return DPS_ERR_NOMEM;
	}
	f->entries = all;
	f->entries[f->n_entries++] = e;
	return DPS_OK;
}

int ssf_file_parse(uint8_t *bytes, size_t len, struct ssf_file *f, char *err, size_t errlen)
{
	struct rd r = {bytes, len, 0, 0, err, errlen};
	const uint8_t *p;
	uint64_t v = 0;
	int ret;

	memset(f, 0, sizeof(*f));
	f->bytes = bytes;
	f->len = len;
	ret = rd_bytes(&r, SSF_MAGIC_LEN, "the magic \"DPS-SSF\\n\"", &p);
	if (!ret && memcmp(p, SSF_MAGIC, SSF_MAGIC_LEN)) {
		r.pos = 0;
		return rd_fail(&r, "the magic \"DPS-SSF\\n\" (not an SSF file)");
	}
	ret = ret ? ret : rd_le(&r, 2, "the version", &v);
	if (!ret && v != SSF_VERSION) {
		ssf_set_err(err, errlen, "offset 8: expected version %d, found %" PRIu64,
			    SSF_VERSION, v);
		return DPS_ERR_INVAL;
	}
	ret = ret ? ret : rd_le(&r, 1, "the byte order", &v);
	if (!ret && v != SSF_BYTE_ORDER_LITTLE) {
		r.pos--;
		return rd_fail(&r, "byte order 1 (little-endian)");
	}
	ret = ret ? ret : rd_le(&r, 1, "a reserved byte", &v);
	ret = ret ? ret : rd_le(&r, 4, "the flags", &v);
	if (!ret && v) {
		r.pos -= 4;
		return rd_fail(&r, "flags 0");
	}
	while (!ret && r.pos < r.size) {
		size_t offset = r.pos;
		uint32_t no, size;

		ret = rd_le(&r, 1, "a record kind", &v);
		if (ret) {
			break;
		}
		if (v == SSF_RECORD_SCHEMA) {
			struct rd body;

			ret = rd_u32(&r, "the schema number", &no);
			if (!ret && no != f->n_schemas) {
				r.pos -= 4;
				return rd_fail(&r, "schemas numbered in order from 0");
			}
			ret = ret ? ret : rd_u32(&r, "the schema record's size", &size);
			ret = ret ? ret : rd_bytes(&r, size, "the schema record", &p);
			if (ret) {
				break;
			}
			body = (struct rd){p, size, 0, r.pos - size, err, errlen};
			ret = read_schema(f, &body);
			if (!ret && body.pos != body.size) {
				ret = rd_fail(&body, "the end of the schema record");
			}
		} else if (v == SSF_RECORD_ENTRY) {
			ret = read_entry(f, &r, offset);
		} else {
			r.pos--;
			ret = rd_fail(&r, "a record kind 'S' or 'E'");
		}
	}
	if (ret == DPS_ERR_NOMEM) {
		ssf_set_err(err, errlen, "out of memory");
	}
	return ret;
}

int ssf_file_load(const char *path, struct ssf_file *f, char *err, size_t errlen)
{
	FILE *in = fopen(path, "rb");
	uint8_t *bytes = NULL;
	size_t len = 0, cap = 0;

	memset(f, 0, sizeof(*f));
	if (!in) {
		ssf_set_err(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return errno == ENOENT ? DPS_ERR_NOENT : DPS_ERR_IO;
	}
	for (;;) {
		size_t n;

		if (len == cap) {
			uint8_t *b = realloc(bytes, cap ? cap * 2 : 65536);

			if (!b) {
				free(bytes);
				fclose(in);
				ssf_set_err(err, errlen, "out of memory");
				return DPS_ERR_NOMEM;
			}
			bytes = b;
			cap = cap ? cap * 2 : 65536;
		}
		n = fread(bytes + len, 1, cap - len, in);
		len += n;
		if (n == 0) {
			break;
		}
	}
	if (ferror(in)) {
		free(bytes);
		fclose(in);
		ssf_set_err(err, errlen, "cannot read %s", path);
		return DPS_ERR_IO;
	}
	fclose(in);
	return ssf_file_parse(bytes, len, f, err, errlen);
}

void ssf_file_fini(struct ssf_file *f)
{
	if (!f) {
		return;
	}
	free(f->bytes);
	free(f->schemas);
	free(f->entries);
	arena_free(f->arena);
	memset(f, 0, sizeof(*f));
}
