/* SPDX-License-Identifier: MIT */
/*
 * dps ssf gen (doc/ssf.md): the serialization specification of the paper's ssfheadgen, read
 * from the program's own DWARF (elfutils libdw) instead of GCC-XML. The named types and every
 * type they reach become static tables (struct dps_ssf_schema) that libdps's one engine walks,
 * plus typed save/load/check wrappers and compile-time checks that the layout the tables
 * describe is the one the including program sees.
 *
 * What DWARF cannot say (how many elements a pointer leads to, which member of a union is
 * live) comes from the user's annotation file (annot.h); where one is needed and missing, gen
 * lists every such member with the line to add and writes nothing: it never guesses. The one
 * default is a pointer to the struct's own type (next, parent, peer): one object, a link, said
 * so in a comment at the member; so is an array of pointers to structs (one each: an element
 * cannot be annotated).
 *
 * Deterministic: types are numbered breadth first from the named types in the order given,
 * members in declaration order. Only validated names reach the output: C identifiers, and
 * type spellings built from them.
 */
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include <dps/ssf.h>

#include "annot.h"
#include "gen-internal.h"
#include "ssf-tool.h"

bool ssf_tool_is_ident(const char *s)
{
	if (!s || !*s || strlen(s) > 255 || g_ascii_isdigit(*s)) {
		return false;
	}
	for (; *s; s++) {
		if (!g_ascii_isalnum(*s) && *s != '_') {
			return false;
		}
	}
	return true;
}

/* A base type's DWARF name: words of identifier characters ("long unsigned int"). */
static bool is_base_name(const char *s)
{
	if (!s || !*s || strlen(s) > 64) {
		return false;
	}
	for (; *s; s++) {
		if (!g_ascii_isalnum(*s) && *s != '_' && *s != ' ') {
			return false;
		}
	}
	return true;
}

static void free_type(gpointer p)
{
	struct gtype *t = p;

	if (t->members) {
		for (guint i = 0; i < t->members->len; i++) {
			struct gmember *m = &g_array_index(t->members, struct gmember, i);

			g_free(m->name);
			g_free(m->note);
			if (m->cases) {
				g_array_free(m->cases, TRUE);
			}
		}
		g_array_free(t->members, TRUE);
	}
	if (t->enumerators) {
		for (guint i = 0; i < t->enumerators->len; i++) {
			g_free((char *)g_array_index(t->enumerators, struct dps_ssf_enumerator, i)
				   .name);
		}
		g_array_free(t->enumerators, TRUE);
	}
	g_free(t->name);
	g_free(t->c_name);
	g_free(t->key);
	g_free(t);
}

static int fail(struct gen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct gen *g, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(g->diag->msg, sizeof(g->diag->msg), fmt, ap);
	va_end(ap);
	return DPS_ERR_INVAL;
}

/* A type DIE's DW_AT_type; false for void. */
static bool die_type(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(die, DW_AT_type, &a) && dwarf_formref_die(&a, out);
}

static bool die_udata(Dwarf_Die *die, unsigned name, Dwarf_Word *v)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(die, name, &a) && dwarf_formudata(&a, v) == 0;
}

/*
 * Strips const, volatile, restrict, _Atomic and typedefs. *first_typedef gets the first
 * typedef's name on the way (NULL when none), which names anonymous structs and FILE.
 */
static void peel(Dwarf_Die *die, const char **first_typedef)
{
	*first_typedef = NULL;
	for (;;) {
		int tag = dwarf_tag(die);
		Dwarf_Die next;

		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type &&
		    tag != DW_TAG_volatile_type && tag != DW_TAG_restrict_type &&
		    tag != DW_TAG_atomic_type) {
			return;
		}
		if (tag == DW_TAG_typedef && !*first_typedef) {
			*first_typedef = dwarf_diename(die);
		}
		if (!die_type(die, &next)) {
			return; /* a qualified void: left as the qualifier, seen as void below */
		}
		*die = next;
	}
}

/* The index of the type with key, creating it with make when new. */
static struct gtype *new_type(struct gen *g, const char *key, uint32_t *idx)
{
	struct gtype *t = g_new0(struct gtype, 1);

	t->key = g_strdup(key);
	*idx = g->types->len;
	g_ptr_array_add(g->types, t);
	g_hash_table_insert(g->index, t->key, GUINT_TO_POINTER(*idx + 1));
	return t;
}

static bool find_type(struct gen *g, const char *key, uint32_t *idx)
{
	gpointer v = g_hash_table_lookup(g->index, key);

	if (v) {
		*idx = GPOINTER_TO_UINT(v) - 1;
	}
	return v != NULL;
}

static int type_of(struct gen *g, Dwarf_Die *die, bool void_ok, const char *where, uint32_t *out);

/* An opaque stand-in of size bytes named name. */
static uint32_t opaque_type(struct gen *g, const char *name, uint64_t size, enum ssf_gen_opaque how)
{
	g_autofree char *key = g_strdup_printf("opaque:%s:%" PRIu64 ":%d", name, size, how);
	struct gtype *t;
	uint32_t idx;

	if (find_type(g, key, &idx)) {
		return idx;
	}
	t = new_type(g, key, &idx);
	t->kind = how == SSF_GEN_OPAQUE_SKIP ? DPS_SSF_OPAQUE_SKIP : DPS_SSF_OPAQUE_NULL;
	t->name = g_strdup(name);
	t->size = size;
	return idx;
}

static int base_type(struct gen *g, Dwarf_Die *die, const char *where, uint32_t *out)
{
	const char *name = dwarf_diename(die);
	Dwarf_Word enc = 0;
	int size = dwarf_bytesize(die);
	enum dps_ssf_kind kind;
	g_autofree char *key = NULL;
	struct gtype *t;

	if (!is_base_name(name) || size <= 0 || !die_udata(die, DW_AT_encoding, &enc)) {
		return fail(g, "%s: a base type without a usable name, size or encoding", where);
	}
	switch (enc) {
	case DW_ATE_signed:
	case DW_ATE_signed_char:
		kind = DPS_SSF_INT;
		break;
	case DW_ATE_unsigned:
	case DW_ATE_unsigned_char:
	case DW_ATE_boolean:
		kind = DPS_SSF_UINT;
		break;
	case DW_ATE_float:
		kind = DPS_SSF_FLOAT;
		break;
	default:
		return fail(g, "%s: base type %s (DWARF encoding %u) is not supported", where, name,
			    (unsigned)enc);
	}
	if (kind != DPS_SSF_FLOAT && size != 1 && size != 2 && size != 4 && size != 8) {
		return fail(g, "%s: %s has %d bytes; integers of 1, 2, 4 or 8 are supported", where,
			    name, size);
	}
	key = g_strdup_printf("base:%s:%d:%u", name, size, (unsigned)enc);
	if (find_type(g, key, out)) {
		return DPS_OK;
	}
	t = new_type(g, key, out);
	t->kind = kind;
	t->name = g_strdup(name);
	t->c_name = g_strdup(name);
	t->size = (uint64_t)size;
	t->die = *die;
	t->done = true;
	return DPS_OK;
}

/* struct, union or enum: "struct NAME", the typedef's name, or "struct (anonymous)". */
static int aggregate_type(struct gen *g, Dwarf_Die *die, const char *tdef, const char *where,
			  uint32_t *out)
{
	int tag = dwarf_tag(die);
	const char *word = tag == DW_TAG_structure_type ? "struct"
			   : tag == DW_TAG_union_type	? "union"
							: "enum";
	const char *name = dwarf_diename(die);
	g_autofree char *key = NULL;
	struct gtype *t;
	int size = dwarf_bytesize(die);

	if (name && !ssf_tool_is_ident(name)) {
		return fail(g, "%s: a %s name that is not a C identifier", where, word);
	}
	if (tdef && !ssf_tool_is_ident(tdef)) {
		tdef = NULL;
	}
	if (dwarf_hasattr(die, DW_AT_declaration) || size < 0) {
		return fail(g, "%s: %s %s is only declared (no definition in this file's DWARF)",
			    where, word, name ? name : "(anonymous)");
	}
	key = name ? g_strdup_printf("%s %s", word, name)
		   : g_strdup_printf("@%" PRIu64, (uint64_t)dwarf_dieoffset(die));
	if (find_type(g, key, out)) {
		return DPS_OK;
	}
	t = new_type(g, key, out);
	t->kind = tag == DW_TAG_structure_type ? DPS_SSF_STRUCT
		  : tag == DW_TAG_union_type   ? DPS_SSF_UNION
					       : DPS_SSF_ENUM;
	t->name = name	 ? g_strdup(key)
		  : tdef ? g_strdup(tdef)
			 : g_strdup_printf("%s (anonymous)", word);
	t->c_name = name ? g_strdup(key) : tdef ? g_strdup(tdef) : NULL;
	t->size = (uint64_t)size;
	t->die = *die;
	if (t->kind == DPS_SSF_ENUM) {
		Dwarf_Die child;

		if (size != 1 && size != 2 && size != 4 && size != 8) {
			return fail(g, "%s: an enum of %d bytes", where, size);
		}
		t->enumerators = g_array_new(FALSE, TRUE, sizeof(struct dps_ssf_enumerator));
		if (dwarf_child(die, &child) == 0) {
			do {
				struct dps_ssf_enumerator e = {0};
				Dwarf_Attribute a;
				Dwarf_Sword v;

				if (dwarf_tag(&child) != DW_TAG_enumerator) {
					continue;
				}
				if (!ssf_tool_is_ident(dwarf_diename(&child)) ||
				    !dwarf_attr(&child, DW_AT_const_value, &a) ||
				    dwarf_formsdata(&a, &v)) {
					return fail(g,
						    "%s: an enumerator of %s without a name or "
						    "value",
						    where, t->name);
				}
				e.name = g_strdup(dwarf_diename(&child));
				e.value = v;
				g_array_append_val(t->enumerators, e);
			} while (dwarf_siblingof(&child, &child) == 0);
		}
		t->done = true;
	}
	return DPS_OK;
}

static int pointer_type(struct gen *g, Dwarf_Die *die, const char *where, uint32_t *out)
{
	int size = dwarf_bytesize(die) > 0 ? dwarf_bytesize(die) : (int)sizeof(void *);
	enum ssf_gen_opaque how = g->o->opaque;
	const char *tdef;
	g_autofree char *key = NULL;
	Dwarf_Die to;
	struct gtype *t, *tt;
	uint32_t target;
	int tag, ret;

	if (!die_type(die, &to)) {
		*out = opaque_type(g, "void *", (uint64_t)size, how);
		return DPS_OK;
	}
	peel(&to, &tdef);
	tag = dwarf_tag(&to);
	if (tag == DW_TAG_subroutine_type) {
		*out = opaque_type(g, "(function pointer)", (uint64_t)size, how);
		return DPS_OK;
	}
	if (tag != DW_TAG_base_type && tag != DW_TAG_structure_type && tag != DW_TAG_union_type &&
	    tag != DW_TAG_enumeration_type && tag != DW_TAG_pointer_type &&
	    tag != DW_TAG_array_type) {
		*out = opaque_type(g, "void *", (uint64_t)size, how);
		return DPS_OK;
	}
	if ((tdef && !strcmp(tdef, "FILE")) ||
	    ((tag == DW_TAG_structure_type || tag == DW_TAG_union_type) &&
	     (dwarf_hasattr(&to, DW_AT_declaration) ||
	      (dwarf_diename(&to) && !strcmp(dwarf_diename(&to), "_IO_FILE"))))) {
		g_autofree char *name = NULL;

		if (tdef && ssf_tool_is_ident(tdef)) {
			name = g_strdup_printf("%s *", tdef);
		} else if (ssf_tool_is_ident(dwarf_diename(&to))) {
			name = g_strdup_printf("%s %s *",
					       tag == DW_TAG_structure_type ? "struct" : "union",
					       dwarf_diename(&to));
		} else {
			name = g_strdup("void *");
		}
		*out = opaque_type(g, name, (uint64_t)size, how);
		return DPS_OK;
	}
	ret = type_of(g, &to, false, where, &target);
	if (ret) {
		return ret;
	}
	tt = type_at(g, target);
	if ((tt->kind == DPS_SSF_INT || tt->kind == DPS_SSF_UINT) && tt->size == 1 &&
	    !strcmp(tt->name, "char")) {
		/* char *: a string; a `length` annotation makes it a buffer (member_of). */
		key = g_strdup_printf("string:%d", size);
		if (find_type(g, key, out)) {
			return DPS_OK;
		}
		t = new_type(g, key, out);
		t->kind = DPS_SSF_STRING;
		t->name = g_strdup("char *");
		t->size = (uint64_t)size;
		t->target = target;
		t->done = true;
		return DPS_OK;
	}
	key = g_strdup_printf("ptr:%" PRIu32 ":%d", target, size);
	if (find_type(g, key, out)) {
		return DPS_OK;
	}
	t = new_type(g, key, out);
	t->kind = DPS_SSF_POINTER;
	t->name = g_strdup_printf("%s *", tt->name);
	t->size = (uint64_t)size;
	t->target = target;
	t->done = true;
	return DPS_OK;
}

/* A pointer type to target's char with the same size as the string type s: a buffer. */
static uint32_t char_buffer_type(struct gen *g, uint32_t s)
{
	struct gtype *st = type_at(g, s), *t;
	g_autofree char *key = g_strdup_printf("ptr:%" PRIu32 ":%" PRIu64, st->target, st->size);
	uint32_t idx;

	if (find_type(g, key, &idx)) {
		return idx;
	}
	t = new_type(g, key, &idx);
	t->kind = DPS_SSF_POINTER;
	t->name = g_strdup("char *");
	t->size = st->size;
	t->target = st->target;
	t->done = true;
	return idx;
}

static int array_type(struct gen *g, Dwarf_Die *die, const char *where, uint32_t *out)
{
	Dwarf_Word dims[8];
	unsigned n = 0;
	Dwarf_Die child, elem;
	uint32_t cur;
	int ret;

	if (dwarf_child(die, &child) == 0) {
		do {
			Dwarf_Word v;

			if (dwarf_tag(&child) != DW_TAG_subrange_type) {
				continue;
			}
			if (n == G_N_ELEMENTS(dims)) {
				return fail(g, "%s: an array of more than 8 dimensions", where);
			}
			if (die_udata(&child, DW_AT_count, &v)) {
				dims[n++] = v;
			} else if (die_udata(&child, DW_AT_upper_bound, &v)) {
				dims[n++] = v + 1;
			} else {
				return fail(
				    g, "%s: a flexible or variable-length array is not supported",
				    where);
			}
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	if (!n || !die_type(die, &elem)) {
		return fail(g, "%s: an array without dimensions or element type", where);
	}
	ret = type_of(g, &elem, false, where, &cur);
	if (ret) {
		return ret;
	}
	if (type_at(g, cur)->kind == DPS_SSF_POINTER &&
	    type_at(g, type_at(g, cur)->target)->kind != DPS_SSF_STRUCT &&
	    type_at(g, type_at(g, cur)->target)->kind != DPS_SSF_UNION) {
		return fail(g,
			    "%s: an array of pointers to %s: how many each leads to cannot be "
			    "annotated in an array; mark the member `opaque` (doc/ssf.md)",
			    where, type_at(g, type_at(g, cur)->target)->name);
	}
	if (type_at(g, cur)->kind == DPS_SSF_UNION) {
		return fail(g,
			    "%s: an array of unions: which member is live cannot be annotated; "
			    "mark the member `opaque` (doc/ssf.md)",
			    where);
	}
	for (unsigned d = n; d-- > 0;) {
		struct gtype *et = type_at(g, cur), *t;
		g_autofree char *key =
		    g_strdup_printf("arr:%" PRIu32 ":%" PRIu64, cur, (uint64_t)dims[d]);
		const char *bracket = strchr(et->name, '[');
		uint32_t idx;

		if (dims[d] > (1u << 26) || et->size * dims[d] > (1u << 26)) {
			return fail(g, "%s: an array larger than 64 MiB", where);
		}
		if (!find_type(g, key, &idx)) {
			t = new_type(g, key, &idx);
			t->kind = DPS_SSF_ARRAY;
			/* "int [2][3]": this dimension before the element's own */
			if (bracket) {
				t->name = g_strdup_printf("%.*s[%" PRIu64 "]%s",
							  (int)(bracket - et->name), et->name,
							  (uint64_t)dims[d], bracket);
			} else {
				t->name = g_strdup_printf("%s [%" PRIu64 "]", et->name,
							  (uint64_t)dims[d]);
			}
			t->size = et->size * dims[d];
			t->target = cur;
			t->count = (uint32_t)dims[d];
			t->done = true;
		}
		cur = idx;
	}
	*out = cur;
	return DPS_OK;
}

static int type_of(struct gen *g, Dwarf_Die *die_in, bool void_ok, const char *where, uint32_t *out)
{
	Dwarf_Die die = *die_in;
	const char *tdef;

	(void)void_ok;
	peel(&die, &tdef);
	switch (dwarf_tag(&die)) {
	case DW_TAG_base_type:
		return base_type(g, &die, where, out);
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
		return aggregate_type(g, &die, tdef, where, out);
	case DW_TAG_pointer_type:
		return pointer_type(g, &die, where, out);
	case DW_TAG_array_type:
		return array_type(g, &die, where, out);
	default:
		return fail(g, "%s: DWARF tag 0x%x is not a supported type", where,
			    dwarf_tag(&die));
	}
}

static void need_annotation(struct gen *g, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void need_annotation(struct gen *g, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	g_string_append(g->missing, "dps ssf gen: ");
	g_string_append_vprintf(g->missing, fmt, ap);
	va_end(ap);
	g_string_append_c(g->missing, '\n');
	g->n_missing++;
}

/* The index of the member named name among t's members (read so far: all of them). */
static int sibling(const struct gtype *t, const char *name)
{
	for (guint i = 0; i < t->members->len; i++) {
		if (!strcmp(g_array_index(t->members, struct gmember, i).name, name)) {
			return (int)i;
		}
	}
	return -1;
}

static bool is_integer_kind(enum dps_ssf_kind k)
{
	return k == DPS_SSF_INT || k == DPS_SSF_UINT || k == DPS_SSF_ENUM;
}

/* Resolves the annotations of member m of the struct or union t (index ti). */
static int annotate_member(struct gen *g, uint32_t ti, struct gmember *m, const char *where)
{
	struct gtype *t = type_at(g, ti), *mt = type_at(g, m->type);
	struct ssf_annot *a;

	if (mt->kind == DPS_SSF_UNION) {
		a = ssf_annot_find(g->annots, SSF_ANNOT_TAG, t->name, m->name);
		if (!a) {
			need_annotation(g,
					"%s: a union: add `tag %s.%s = MEMBER` and one `case "
					"%s.%s VALUE = ALTERNATIVE` per live member",
					where, t->name, m->name, t->name, m->name);
			return DPS_OK;
		}
		int s = sibling(t, a->arg);

		if (s < 0 ||
		    !is_integer_kind(
			type_at(g, g_array_index(t->members, struct gmember, s).type)->kind)) {
			return fail(g, "%s:%u: %s has no integer member %s to hold the tag",
				    g->o->annotations, a->line, t->name, a->arg);
		}
		m->tag_member = (uint32_t)s + 1;
		m->cases = g_array_new(FALSE, TRUE, sizeof(struct gcase));
		m->note = g_strdup_printf("tagged by %s (annotation line %u)", a->arg, a->line);
		for (guint i = 0; i < g->annots->len; i++) {
			struct ssf_annot *c = g_ptr_array_index(g->annots, i);
			struct gtype *tagt =
			    type_at(g, g_array_index(t->members, struct gmember, s).type);
			struct gcase gc = {0};
			bool found = false;
			char *end;

			if (c->kind != SSF_ANNOT_CASE || strcmp(c->type, t->name) ||
			    strcmp(c->member, m->name)) {
				continue;
			}
			c->used = true;
			for (guint e = 0; tagt->enumerators && e < tagt->enumerators->len; e++) {
				const struct dps_ssf_enumerator *en =
				    &g_array_index(tagt->enumerators, struct dps_ssf_enumerator, e);

				if (!strcmp(en->name, c->value)) {
					gc.value = en->value;
					found = true;
				}
			}
			if (!found) {
				gc.value = g_ascii_strtoll(c->value, &end, 0);
				if (*end) {
					return fail(g,
						    "%s:%u: %s is neither a number nor an "
						    "enumerator of %s",
						    g->o->annotations, c->line, c->value,
						    tagt->name);
				}
			}
			found = false;
			for (guint k = 0; k < mt->members->len; k++) {
				if (!strcmp(g_array_index(mt->members, struct gmember, k).name,
					    c->arg)) {
					gc.member = k;
					found = true;
				}
			}
			if (!found) {
				return fail(g, "%s:%u: %s has no member %s", g->o->annotations,
					    c->line, mt->name, c->arg);
			}
			g_array_append_val(m->cases, gc);
		}
		return DPS_OK;
	}
	if (mt->kind != DPS_SSF_POINTER && mt->kind != DPS_SSF_STRING) {
		return DPS_OK;
	}
	a = ssf_annot_find(g->annots, SSF_ANNOT_LENGTH, t->name, m->name);
	if (a) {
		int s = sibling(t, a->arg);

		if (s < 0 ||
		    !is_integer_kind(
			type_at(g, g_array_index(t->members, struct gmember, s).type)->kind)) {
			return fail(g, "%s:%u: %s has no integer member %s to hold the length",
				    g->o->annotations, a->line, t->name, a->arg);
		}
		if (mt->kind == DPS_SSF_STRING) {
			m->type = char_buffer_type(g, m->type);
		}
		m->count_member = (uint32_t)s + 1;
		m->note = g_strdup_printf("%s elements (annotation line %u)", a->arg, a->line);
		return DPS_OK;
	}
	if (mt->kind == DPS_SSF_STRING) {
		m->note = g_strdup("a NUL-terminated string (annotate `length` for a buffer)");
		return DPS_OK;
	}
	a = ssf_annot_find(g->annots, SSF_ANNOT_ONE, t->name, m->name);
	if (a) {
		m->note = g_strdup_printf("one element (annotation line %u)", a->line);
		return DPS_OK;
	}
	if (mt->target == ti) {
		/* a link to its own type (next, parent, peer): one object by convention */
		m->note = g_strdup_printf("one %s, a link (the default for a pointer to its own "
					  "type; annotate `length` for an array)",
					  type_at(g, mt->target)->name);
		return DPS_OK;
	}
	need_annotation(g,
			"%s: %s may lead to one element or to an array: add `length %s.%s = "
			"MEMBER` or `one %s.%s`",
			where, mt->name, t->name, m->name, t->name, m->name);
	return DPS_OK;
}

/* Reads the members of struct or union ti. */
static int read_members(struct gen *g, uint32_t ti)
{
	struct gtype *t = type_at(g, ti);
	Dwarf_Die child, die = t->die;
	int ret;

	t->done = true;
	t->members = g_array_new(FALSE, TRUE, sizeof(struct gmember));
	if (dwarf_child(&die, &child) != 0) {
		return DPS_OK;
	}
	do {
		struct gmember m = {0};
		g_autofree char *where = NULL;
		Dwarf_Word loc = 0, v;
		Dwarf_Die mtd;
		struct ssf_annot *a;

		if (dwarf_tag(&child) != DW_TAG_member) {
			continue;
		}
		if (!ssf_tool_is_ident(dwarf_diename(&child))) {
			return fail(g,
				    "%s: an anonymous member (an unnamed struct or union inside "
				    "it) is not supported: give it a name",
				    t->name);
		}
		m.name = g_strdup(dwarf_diename(&child));
		m.die = child;
		where = g_strdup_printf("%s.%s", t->name, m.name);
		if (!die_type(&child, &mtd)) {
			g_free(m.name);
			return fail(g, "%s: a member without a type", where);
		}
		if (dwarf_hasattr(&child, DW_AT_data_member_location) &&
		    !die_udata(&child, DW_AT_data_member_location, &loc)) {
			g_free(m.name);
			return fail(g, "%s: a member location that is not a constant", where);
		}
		/* bit-fields before anything else: their type is an integer */
		if (die_udata(&child, DW_AT_bit_size, &v)) {
			Dwarf_Word bit;

			m.bit_size = (unsigned)v;
			if (die_udata(&child, DW_AT_data_bit_offset, &bit)) {
				bit += loc * 8;
			} else if (die_udata(&child, DW_AT_bit_offset, &bit)) {
				Dwarf_Word unit = 0;

				if (!die_udata(&child, DW_AT_byte_size, &unit)) {
					unit = (Dwarf_Word)dwarf_bytesize(&mtd);
				}
				bit = loc * 8 + unit * 8 - bit - v;
			} else {
				bit = loc * 8;
			}
			m.offset = bit / 8;
			m.bit_offset = (unsigned)(bit % 8);
			g->any_bitfield = true;
		} else {
			m.offset = loc;
		}
		a = ssf_annot_find(g->annots, SSF_ANNOT_OPAQUE, t->name, m.name);
		if (a) {
			Dwarf_Word size = 0;
			Dwarf_Die peeled = mtd;
			const char *tdef;

			peel(&peeled, &tdef);
			if (m.bit_size || dwarf_aggregate_size(&peeled, &size)) {
				g_free(m.name);
				return fail(g,
					    "%s:%u: %s cannot be opaque (a bit-field or no size)",
					    g->o->annotations, a->line, where);
			}
			m.type = opaque_type(g, "(opaque)", size,
					     strcmp(a->arg, "skip") ? SSF_GEN_OPAQUE_NULL
								    : SSF_GEN_OPAQUE_SKIP);
			m.note =
			    g_strdup_printf("opaque, %s (annotation line %u)", a->arg, a->line);
			g_array_append_val(type_at(g, ti)->members, m);
			continue;
		}
		ret = type_of(g, &mtd, false, where, &m.type);
		t = type_at(g, ti);
		if (ret) {
			g_free(m.name);
			return ret;
		}
		if (m.bit_size && !is_integer_kind(type_at(g, m.type)->kind)) {
			g_free(m.name);
			return fail(g, "%s: a bit-field that is not an integer", where);
		}
		g_array_append_val(t->members, m);
	} while (dwarf_siblingof(&child, &child) == 0);
	return DPS_OK;
}

/* Resolves the annotations of the members of struct or union ti, and reports its opaque
 * members; once every type is read (a tag's cases name the union's members). */
static int annotate_members(struct gen *g, uint32_t ti)
{
	struct gtype *t = type_at(g, ti);
	int ret;

	for (guint i = 0; i < t->members->len; i++) {
		struct gmember *m = &g_array_index(t->members, struct gmember, i);
		g_autofree char *where = g_strdup_printf("%s.%s", t->name, m->name);
		struct gtype *mt = type_at(g, m->type);

		if ((mt->kind == DPS_SSF_OPAQUE_NULL || mt->kind == DPS_SSF_OPAQUE_SKIP) &&
		    !m->note) {
			m->note = g_strdup_printf(
			    "%s: not recorded, restored %s (--opaque)", mt->name,
			    mt->kind == DPS_SSF_OPAQUE_NULL ? "as NULL" : "unchanged");
			if (g->o->report) {
				fprintf(g->o->report, "dps ssf gen: %s: %s\n", where, m->note);
			}
		}
		ret = annotate_member(g, ti, m, where);
		if (ret) {
			return ret;
		}
	}
	return DPS_OK;
}

/* Finds the definition of the type spec ("struct conn", "conn_t", "int") in any CU. */
static int find_root(struct gen *g, const char *spec, Dwarf_Die *out)
{
	int want = DW_TAG_typedef;
	const char *name = spec;
	Dwarf_Off off = 0, next;
	size_t hsize;
	bool base_ok = true;

	if (g_str_has_prefix(spec, "struct ")) {
		want = DW_TAG_structure_type;
		name = spec + 7;
	} else if (g_str_has_prefix(spec, "union ")) {
		want = DW_TAG_union_type;
		name = spec + 6;
	} else if (g_str_has_prefix(spec, "enum ")) {
		want = DW_TAG_enumeration_type;
		name = spec + 5;
	}
	if (want != DW_TAG_typedef ? !ssf_tool_is_ident(name) : !is_base_name(name)) {
		return fail(g,
			    "--type '%s': expected \"struct NAME\", \"union NAME\", \"enum NAME\", "
			    "a typedef or a base type name",
			    spec);
	}
	base_ok = want == DW_TAG_typedef;
	while (dwarf_nextcu(g->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, child;

		if (dwarf_offdie(g->dw, off + hsize, &cu) && dwarf_child(&cu, &child) == 0) {
			do {
				int tag = dwarf_tag(&child);

				if ((tag == want || (base_ok && tag == DW_TAG_base_type)) &&
				    dwarf_diename(&child) && !strcmp(dwarf_diename(&child), name) &&
				    !dwarf_hasattr(&child, DW_AT_declaration)) {
					*out = child;
					return DPS_OK;
				}
			} while (dwarf_siblingof(&child, &child) == 0);
		}
		off = next;
	}
	return fail(g,
		    "--type '%s': no definition in the DWARF (compiled with -g? declared in "
		    "a file linked in?)",
		    spec);
}

static int check_unused_annotations(struct gen *g)
{
	for (guint i = 0; g->annots && i < g->annots->len; i++) {
		struct ssf_annot *a = g_ptr_array_index(g->annots, i);

		bool generated = false;

		for (guint t = 0; t < g->types->len; t++) {
			generated |= !strcmp(type_at(g, t)->name, a->type);
		}
		/* one annotation file may serve several headers: other types' lines are theirs */
		if (!a->used && generated) {
			return fail(g,
				    "%s:%u: %s.%s is not a member that needs this annotation "
				    "among the types generated",
				    g->o->annotations, a->line, a->type, a->member);
		}
	}
	return DPS_OK;
}

int ssf_gen(const char *path, const struct ssf_gen_options *o, FILE *out, struct dps_diag *diag)
{
	static const Dwfl_Callbacks callbacks = {
	    .find_debuginfo = dwfl_standard_find_debuginfo,
	    .section_address = dwfl_offline_section_address,
	};
	struct gen g = {.o = o, .diag = diag};
	g_autofree uint32_t *roots = NULL;
	Dwfl *dwfl = NULL;
	Dwfl_Module *mod;
	Dwarf_Addr bias;
	int fd, ret;

	if (!o->n_types || !ssf_tool_is_ident(o->prefix)) {
		dps_diag_setf(diag,
			      "expected at least one --type and a prefix that is a C identifier");
		return DPS_ERR_INVAL;
	}
	if (o->annotations) {
		ret = ssf_annot_load(o->annotations, &g.annots, diag);
		if (ret) {
			return ret;
		}
	}
	/* libdwfl, not dwarf_begin: it applies an object file's relocations (.o files hold
	 * their DWARF strings and references as relocations until linked). */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		dps_diag_setf(diag, "Cannot open %s: %s", path, g_strerror(errno));
		ret = errno == ENOENT ? DPS_ERR_NOENT : DPS_ERR_IO;
		goto free_annots;
	}
	dwfl = dwfl_begin(&callbacks);
	mod = dwfl ? dwfl_report_offline(dwfl, "ssf", path, fd) : NULL;
	if (!mod) {
		dps_diag_setf(diag, "%s: not an ELF object or binary (%s)", path, dwfl_errmsg(-1));
		ret = DPS_ERR_INVAL;
		close(fd);
		goto end_dwfl;
	}
	dwfl_report_end(dwfl, NULL, NULL);
	g.dw = dwfl_module_getdwarf(mod, &bias);
	if (!g.dw) {
		dps_diag_setf(diag, "%s: no DWARF debug information (%s): compile with -g", path,
			      dwfl_errmsg(-1));
		ret = DPS_ERR_INVAL;
		goto end_dwfl;
	}
	g.types = g_ptr_array_new_with_free_func(free_type);
	g.index = g_hash_table_new(g_str_hash, g_str_equal);
	g.missing = g_string_new(NULL);
	roots = g_new0(uint32_t, o->n_types);
	for (size_t r = 0; r < o->n_types; r++) {
		Dwarf_Die die;

		ret = find_root(&g, o->types[r], &die);
		ret = ret ? ret : type_of(&g, &die, false, o->types[r], &roots[r]);
		if (ret) {
			goto free_gen;
		}
		if (type_at(&g, roots[r])->kind == DPS_SSF_UNION) {
			ret = fail(&g,
				   "--type '%s': a union alone cannot say which member is live; "
				   "name the struct holding it and its tag",
				   o->types[r]);
			goto free_gen;
		}
		if (!type_at(&g, roots[r])->c_name) {
			ret = fail(&g, "--type '%s': an anonymous type; name it by its typedef",
				   o->types[r]);
			goto free_gen;
		}
	}
	/* Breadth first: members may add types at the end, read in turn. */
	for (guint i = 0; i < g.types->len; i++) {
		struct gtype *t = type_at(&g, i);

		if (!t->done && (t->kind == DPS_SSF_STRUCT || t->kind == DPS_SSF_UNION)) {
			ret = read_members(&g, i);
			if (ret) {
				goto free_gen;
			}
		}
	}
	for (guint i = 0; i < g.types->len; i++) {
		if (type_at(&g, i)->members) {
			ret = annotate_members(&g, i);
			if (ret) {
				goto free_gen;
			}
		}
	}
	if (g.n_missing) {
		if (o->report) {
			fputs(g.missing->str, o->report);
		}
		dps_diag_setf(diag,
			      "%u member%s need%s an annotation (listed above): add the lines to "
			      "the annotation file (-a FILE, doc/ssf.md)",
			      g.n_missing, g.n_missing == 1 ? "" : "s",
			      g.n_missing == 1 ? "s" : "");
		ret = DPS_ERR_INVAL;
		goto free_gen;
	}
	ret = check_unused_annotations(&g);
	if (ret) {
		goto free_gen;
	}
	ssf_gen_emit(&g, out, roots);
free_gen:
	g_string_free(g.missing, TRUE);
	g_hash_table_destroy(g.index);
	g_ptr_array_free(g.types, TRUE);
end_dwfl:
	dwfl_end(dwfl); /* closes fd, owns the Dwarf */
free_annots:
	if (g.annots) {
		g_ptr_array_free(g.annots, TRUE);
	}
	return ret;
}
