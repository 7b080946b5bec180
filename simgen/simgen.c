/* SPDX-License-Identifier: MIT */
/*
 * The generator: action set → table-driven C program (doc/simgen.md describes the output).
 *
 * Speed matters here as much as readability: a million actions must compile in seconds, and
 * GCC spends its time lexing, so each action is three plain integers ("{arg, kind, line}")
 * with a comment that repeats it in the action-file syntax (comments cost the lexer almost
 * nothing). Spelling the kinds as enum names compiles slower: bench/simgen.sh measures both.
 * Every thread's rows are in one table (struct layout below), so that the compiler's cost
 * follows the actions, not the threads: bench/scale.sh builds 20,000 and 100,000 threads.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic-out.h"
#include "simgen.h"

#define SIMGEN_TEXT_MAX 200

/* No '"', '\\', '*', '/', '?', '%': nothing that can end a string or a comment, start an
 * escape or a trigraph, or be read as a format by whoever prints the name. */
static bool is_name_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr(" _.,:+=@()[]-", c) != NULL);
}

/* Copies in into buf (max bytes + NUL), replacing bytes outside the safe set with '_' (one per
 * UTF-8 sequence). allow_slash admits '/' (for paths in comments). Returns the length the
 * sanitized input would have had, so callers can tell it was cut. */
static size_t copy_sanitized(const char *in, char *buf, size_t max, bool allow_slash)
{
	const unsigned char *p = (const unsigned char *)in;
	size_t n = 0;

	for (; *p; p++) {
		unsigned char c = *p;
		char out;

		if (c >= 0xc0) {
			/* A UTF-8 lead byte: the whole sequence becomes one '_'. */
			while (p[1] >= 0x80 && p[1] < 0xc0) {
				p++;
			}
			out = '_';
		} else if (is_name_char(c) || (allow_slash && c == '/')) {
			out = (char)c;
		} else {
			out = '_';
		}
		if (n < max) {
			buf[n] = out;
		}
		n++;
	}
	buf[n < max ? n : max] = '\0';
	return n;
}

char *simgen_sanitize_name(const char *in, char *buf, size_t max)
{
	copy_sanitized(in ? in : "", buf, max, false);
	return buf;
}

char *simgen_sanitize_text(const char *in, char *buf, size_t max)
{
	size_t n = copy_sanitized(in ? in : "", buf, max, true);

	if (n > max && max >= 3) {
		memcpy(buf + max - 3, "...", 3);
	}
	return buf;
}

void simgen_program_name(const struct dps_actset *set, const struct simgen_options *opts, char *buf,
			 size_t max)
{
	const char *src = opts ? opts->program_name : NULL;
	char *dir = NULL;

	if (!src && set->dir) {
		size_t len = strlen(set->dir);

		dir = strdup(set->dir);
		if (dir) {
			while (len > 1 && dir[len - 1] == '/') {
				dir[--len] = '\0';
			}
			src = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
		}
	}
	simgen_sanitize_name(src, buf, max);
	if (!buf[0] || !strcmp(buf, "/")) {
		snprintf(buf, max + 1, "dps-sim");
	}
	free(dir);
}

static size_t count_actions(const struct dps_actset *set)
{
	size_t n = 0;

	for (size_t t = 0; t < set->n_threads; t++) {
		n += set->threads[t].n_actions;
	}
	return n;
}

/* Checks what the generated code relies on, so a bug upstream gives a diagnostic here instead
 * of a program that fails at run time. Returns SIMGEN_OK or SIMGEN_ERR_INVAL. */
static int check_set(const struct dps_actset *set, struct dps_diag *diag)
{
	int ret = SIMGEN_ERR_INVAL;

	if (!set->resolved || set->n_threads == 0 || set->root >= set->n_threads) {
		dps_diag_setf(diag, "simgen: the action set is not resolved or has no root thread");
		goto end;
	}
	for (size_t t = 0; t < set->n_threads; t++) {
		const struct dps_actset_thread *th = &set->threads[t];

		for (size_t i = 0; i < th->n_actions; i++) {
			const struct dps_actset_action *a = &th->actions[i];
			bool ok;

			switch (a->kind) {
			case DPS_ACT_RUN:
				ok = a->value >= 0 && a->aux <= set->n_caches &&
				     (!a->aux ||
				      !dps_action_cache_problem(&set->caches[a->aux - 1]));
				break;
			case DPS_ACT_SLEEP:
				ok = a->value >= 0;
				break;
			case DPS_ACT_CREATE:
			case DPS_ACT_JOIN:
			case DPS_ACT_WAIT:
			case DPS_ACT_WAKE:
				ok = dps_actset_target(set, a) < set->n_threads;
				break;
			case DPS_ACT_HEAP:
			case DPS_ACT_STACK:
				ok = true;
				break;
			case DPS_ACT_WAIT_TIMEOUT:
				ok = dps_actset_target(set, a) < set->n_threads &&
				     a->aux <= (uint64_t)INT64_MAX;
				break;
			case DPS_ACT_LOCK:
			case DPS_ACT_RDLOCK:
			case DPS_ACT_UNLOCK:
			case DPS_ACT_PUT:
			case DPS_ACT_TAKE:
			case DPS_ACT_ARRIVE:
				ok = dps_actset_find_object(set, a->id) < set->n_objects &&
				     a->aux <= (uint64_t)INT64_MAX;
				break;
			case DPS_ACT_WAIT_ANY:
			case DPS_ACT_JOIN_ANY:
				ok = a->aux && a->first + a->aux <= set->n_members;
				for (uint64_t k = 0; ok && k < a->aux; k++) {
					ok = dps_actset_member_target(set, a->first + k) <
					     set->n_threads;
				}
				break;
			default:
				ok = false;
				break;
			}
			if (!ok) {
				dps_diag_set(diag, th->path, a->line, 0,
					     "simgen: action %zu of thread %" PRIu64
					     " (kind %" PRIu32 ", value %" PRId64
					     ", thread %" PRIu64 ") is out of range",
					     i, th->id, a->kind, a->value, a->id);
				goto end;
			}
		}
	}
	ret = SIMGEN_OK;
end:
	return ret;
}

/* Whether the set uses anything of format version 2 (objects, member sets, the actions after
 * version 1's); a run's cache figures, of version 4, are not that. */
static bool uses_v2(const struct dps_actset *set)
{
	if (set->n_objects || set->n_members) {
		return true;
	}
	for (size_t t = 0; t < set->n_threads; t++) {
		for (size_t i = 0; i < set->threads[t].n_actions; i++) {
			if (set->threads[t].actions[i].kind > DPS_ACT_MAX_V1) {
				return true;
			}
		}
	}
	return false;
}

static void write_header(const struct dps_actset *set, const struct simgen_options *opts, FILE *out)
{
	char text[SIMGEN_TEXT_MAX + 1];
	const char *label = opts && opts->source_label ? opts->source_label : set->dir;

	fprintf(out,
		"/*\n"
		" * Generated by dps gen (simgen %d) from an action set. Do not edit: edit the\n"
		" * set's .act files and generate again.\n"
		" *\n",
		SIMGEN_VERSION);
	fprintf(out, " * source set:    %s\n",
		label ? simgen_sanitize_text(label, text, SIMGEN_TEXT_MAX) : "(built in memory)");
	if (set->format_version) {
		fprintf(out, " * format:        dps-actions %d\n", set->format_version);
	} else {
		fprintf(out, " * format:        dps-actions %d (no header: paper's minimal form)\n",
			DPS_ACTSET_FORMAT_V1);
	}
	if (set->source_trace) {
		fprintf(out, " * source trace:  %s\n",
			simgen_sanitize_text(set->source_trace, text, SIMGEN_TEXT_MAX));
	}
	if (set->options) {
		fprintf(out, " * analysis:      %s\n",
			simgen_sanitize_text(set->options, text, SIMGEN_TEXT_MAX));
	}
	if (set->partial) {
		fprintf(out, " * partial:       %s\n",
			set->partial_reason
			    ? simgen_sanitize_text(set->partial_reason, text, SIMGEN_TEXT_MAX)
			    : "yes");
	}
	fprintf(out, " * threads:       %zu (root: %" PRIu64 ")\n", set->n_threads,
		set->threads[set->root].id);
	fprintf(out, " * actions:       %zu\n", count_actions(set));
	fputs(" *\n"
	      " * The actions are rows {arg, kind, line} of one table, each thread's from the\n"
	      " * row its entry in threads[] names, played in order by libdps: kind 1 run and\n"
	      " * 2 sleep (arg in ns), 3 create, 4 join, 5 wait and 6 wake (arg = index in\n"
	      " * threads[]), 7 heap and 8 stack (arg = signed bytes); line is the line in the\n"
	      " * thread's .act file.",
	      out);
	/* a version-1 set's program stays what it was */
	if (uses_v2(set)) {
		fputs(
		    " Format version 2 adds 9 lock,\n"
		    " * 10 unlock, 11 put, 12 take, 13 arrive (arg = index in objects[]), 14 wait\n"
		    " * with a timeout (a 4th number: the timeout in ns), 15 wait any and 16 join\n"
		    " * any (arg = first index in members[], the 4th number how many).\n"
		    " *",
		    out);
	}
	if (set->n_caches) {
		fputs(" A run with cache figures (format version\n"
		      " * 4) has a 4th number: 1 + the index of its figures in caches[].\n"
		      " *",
		      out);
	}
	fputs(" Options: ./PROGRAM --help.\n"
	      " * Build: cc -O2 THIS_FILE $(pkg-config --cflags --libs dps), or dps build.\n"
	      " */\n"
	      "#include <dps/dps.h>\n",
	      out);
}

/* A thread's comment, inside the table above its rows (a thread without actions has its comment
 * and no rows). Two lines, so that even 20-digit ids and a full comm stay near 100 columns. */
static void write_thread_comment(const struct dps_actset *set, size_t t, FILE *out)
{
	const struct dps_actset_thread *th = &set->threads[t];
	char name[SIMGEN_THREAD_NAME_MAX + 1];
	const char *sep = "";
	char us[32];

	fprintf(out, "\t/*\n\t * threads[%zu]: %" PRIu64 ".act, %zu action%s, ", t, th->id,
		th->n_actions, th->n_actions == 1 ? "" : "s");
	if (th->parent < set->n_threads) {
		fprintf(out, "created by %" PRIu64 "\n", set->threads[th->parent].id);
	} else {
		fprintf(out, "the root\n");
	}
	if (th->tid < 0 && th->pid < 0 && !th->comm && !th->start_offset_ns && !th->pre_existing) {
		/* Nothing recorded about it (no manifest entry): the paper's minimal form. */
		fprintf(out, "\t */\n");
		return;
	}
	fprintf(out, "\t * recorded as:");
	if (th->tid >= 0) {
		fprintf(out, " tid %" PRId64, th->tid);
		sep = ",";
	}
	if (th->pid >= 0) {
		fprintf(out, "%s pid %" PRId64, sep, th->pid);
		sep = ",";
	}
	if (th->comm) {
		fprintf(out, "%s comm \"%s\"", sep,
			simgen_sanitize_name(th->comm, name, SIMGEN_THREAD_NAME_MAX));
		sep = ",";
	}
	fprintf(out, "%s start %s us", sep,
		dps_actset_format_us(th->start_offset_ns, us, sizeof(us)));
	if (th->pre_existing) {
		fprintf(out, ", pre-existing (parent guessed)");
	}
	fprintf(out, "\n\t */\n");
}

/* The action-file keyword of a kind (check_set() has validated it). */
static const char *get_keyword(uint32_t kind)
{
	const char *kw = dps_action_kind_name(kind);

	return kw ? kw : "?";
}

/* Appends the decimal digits of v at p; returns the new end. The writers below replace
 * fprintf on the per-action path, where formatting was most of the generation time. */
static char *put_u64(char *p, uint64_t v)
{
	char digits[20];
	int n = 0;

	do {
		digits[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n) {
		*p++ = digits[--n];
	}
	return p;
}

/* Signed decimal; plus adds '+' to non-negative values. INT64_MIN is the caller's business. */
static char *put_i64(char *p, int64_t v, bool plus)
{
	if (v < 0) {
		*p++ = '-';
		v = -v;
	} else if (plus) {
		*p++ = '+';
	}
	return put_u64(p, (uint64_t)v);
}

static char *put_str(char *p, const char *s)
{
	while (*s) {
		*p++ = *s++;
	}
	return p;
}

/* ns as the action files write it (dps_actset_format_us): integer us, or a fraction with
 * trailing zeros dropped. */
static char *put_us(char *p, uint64_t ns)
{
	unsigned frac = (unsigned)(ns % 1000);

	p = put_u64(p, ns / 1000);
	if (frac) {
		*p++ = '.';
		*p++ = (char)('0' + frac / 100);
		if (frac % 100) {
			*p++ = (char)('0' + frac / 10 % 10);
			if (frac % 10) {
				*p++ = (char)('0' + frac % 10);
			}
		}
	}
	return p;
}

/* One table row: the initializer, padded so the comments line up (the table reads like the
 * .act file beside it), and the action in .act syntax. */
static void write_action(const struct dps_actset *set, const struct dps_actset_action *a, FILE *out)
{
	/* the played action: the other thread's or the object's index, or the value (ns,
	 * bytes); arg2 only where a kind has one (version-1 rows stay three numbers) */
	struct dps_action played = dps_actset_played_action(set, a);
	int64_t arg = played.arg;
	char line[200];
	char *p = line, *start;

	*p++ = '\t';
	start = p;
	*p++ = '{';
	/* -9223372036854775808 would be the negation of a constant too big for int64. */
	p = arg == INT64_MIN ? put_str(p, "INT64_MIN") : put_i64(p, arg, false);
	p = put_str(p, ", ");
	p = put_u64(p, a->kind);
	p = put_str(p, ", ");
	p = put_u64(p, a->line);
	if (played.arg2) {
		p = put_str(p, ", ");
		p = put_i64(p, played.arg2, false);
	}
	p = put_str(p, "},");
	do {
		*p++ = ' ';
	} while (p - start < 24);
	p = put_str(p, "/* ");
	p = put_str(p, get_keyword(a->kind));
	*p++ = ' ';
	switch (a->kind) {
	case DPS_ACT_RUN:
	case DPS_ACT_SLEEP:
		p = put_us(p, (uint64_t)a->value);
		if (a->kind == DPS_ACT_RUN && a->aux) {
			p = put_str(p, " cache: caches[");
			p = put_u64(p, a->aux - 1);
			p = put_str(p, "]");
		}
		break;
	case DPS_ACT_HEAP:
	case DPS_ACT_STACK:
		p = a->value == INT64_MIN ? put_str(p, "-9223372036854775808")
					  : put_i64(p, a->value, true);
		break;
	case DPS_ACT_WAIT_TIMEOUT:
		p = put_u64(p, a->id);
		p = put_str(p, " timeout ");
		p = put_us(p, a->aux);
		break;
	case DPS_ACT_WAIT_ANY:
	case DPS_ACT_JOIN_ANY:
		if (a->kind == DPS_ACT_JOIN_ANY) {
			p = put_str(p, "any ");
		}
		/* at most four ids in the comment: the row has the members' place */
		for (uint64_t k = 0; k < a->aux && k < 4; k++) {
			p = put_str(p, k ? "|" : "");
			p = put_u64(p, set->members[a->first + k]);
		}
		if (a->aux > 4) {
			p = put_str(p, "|...");
		}
		break;
	default:
		p = put_u64(p, a->id);
		break;
	}
	p = put_str(p, " */\n");
	fwrite(line, 1, (size_t)(p - line), out);
}

/*
 * Where the threads' rows are. Every thread's actions are rows of one table, the thread's from
 * its offset on: the single file's `actions`, or in a split build the table of the thread's
 * part, `actions_part<K>`. One table, not one per thread: GCC's identical-code folding (-O2)
 * compares every pair of equal tables, and a recording of 20,000 threads doing the same thing
 * has 20,000 equal tables (47 s to compile, against 1 s as one table); the cost stays in
 * proportion to the actions.
 */
struct layout {
	size_t *part;	/* owned: the part of each thread (split build); NULL: one table */
	size_t *offset; /* owned: the row of the thread's first action in its table */
};

static void layout_fini(struct layout *l)
{
	free(l->part);
	free(l->offset);
}

/* The offsets of a layout whose parts are set (or NULL: one table). Returns SIMGEN_OK or
 * SIMGEN_ERR_NOMEM. */
static int layout_offsets(const struct dps_actset *set, size_t n_parts, struct layout *l)
{
	size_t *next = calloc(n_parts ? n_parts : 1, sizeof(*next));

	l->offset = calloc(set->n_threads ? set->n_threads : 1, sizeof(*l->offset));
	if (!next || !l->offset) {
		free(next);
		return SIMGEN_ERR_NOMEM;
	}
	for (size_t t = 0; t < set->n_threads; t++) {
		size_t k = l->part ? l->part[t] : 0;

		l->offset[t] = next[k];
		next[k] += set->threads[t].n_actions;
	}
	free(next);
	return SIMGEN_OK;
}

/* The table's name of part which (< 0: the single file's). */
static void table_name(long which, char *buf, size_t len)
{
	if (which < 0) {
		snprintf(buf, len, "actions");
	} else {
		snprintf(buf, len, "actions_part%ld", which);
	}
}

/* Whether part which (< 0: every thread) has an action: an empty table is no valid C. */
static bool part_has_actions(const struct dps_actset *set, const struct layout *l, long which)
{
	for (size_t t = 0; t < set->n_threads; t++) {
		if (set->threads[t].n_actions && (which < 0 || l->part[t] == (size_t)which)) {
			return true;
		}
	}
	return false;
}

/* The table of part which (< 0: the single file's, static, every thread): each thread's
 * comment and rows, in the set's thread order. */
static void write_actions_table(const struct dps_actset *set, const struct layout *l, long which,
				FILE *out)
{
	char name[32];

	if (!part_has_actions(set, l, which)) {
		return;
	}
	table_name(which, name, sizeof(name));
	fprintf(out, "\n%sconst struct dps_action %s[] = {\n", which < 0 ? "static " : "", name);
	for (size_t t = 0; t < set->n_threads; t++) {
		const struct dps_actset_thread *th = &set->threads[t];

		if (which >= 0 && l->part[t] != (size_t)which) {
			continue;
		}
		write_thread_comment(set, t, out);
		for (size_t i = 0; i < th->n_actions; i++) {
			write_action(set, &th->actions[i], out);
		}
	}
	fprintf(out, "};\n");
}

static void write_thread_descs(const struct dps_actset *set, const struct layout *l, FILE *out)
{
	char name[SIMGEN_THREAD_NAME_MAX + 1];
	char table[32];

	fprintf(out, "\n/* {id, name, actions, n_actions}; NULL name = \"dps-<id>\" */\n"
		     "static const struct dps_thread_desc threads[] = {\n");
	for (size_t t = 0; t < set->n_threads; t++) {
		const struct dps_actset_thread *th = &set->threads[t];

		simgen_sanitize_name(th->comm, name, SIMGEN_THREAD_NAME_MAX);
		/* Ids above INT64_MAX need the suffix, or the constant is "so large that it
		 * is unsigned" (a warning). */
		fprintf(out, "\t{%" PRIu64 "%s, ", th->id, th->id > INT64_MAX ? "u" : "");
		if (name[0]) {
			fprintf(out, "\"%s\", ", name);
		} else {
			fprintf(out, "NULL, ");
		}
		if (th->n_actions) {
			table_name(l->part ? (long)l->part[t] : -1, table, sizeof(table));
			fprintf(out, "%s + %zu, %zu},\n", table, l->offset[t], th->n_actions);
		} else {
			fprintf(out, "NULL, 0},\n");
		}
	}
	fprintf(out, "};\n");
}

/* Format version 2's tables: the objects and the member sets (thread indexes), then the task
 * queues' takers (thread indexes) in the same table. */
static void write_sync_tables(const struct dps_actset *set, FILE *out)
{
	size_t k = set->n_members;
	bool any_order = false;

	for (size_t i = 0; i < set->n_objects; i++) {
		any_order |= set->objects[i].order != NULL;
	}

	if (set->n_members || any_order) {
		size_t n = 0;

		fprintf(
		    out,
		    "\n/* the sets of wait A|B and join any A|B, then the task queues' takers, as "
		    "indexes in\n * threads[] */\n"
		    "static const uint32_t members[] = {");
		for (size_t i = 0; i < set->n_members; i++, n++) {
			fprintf(out, "%s%zu", n % 16 ? ", " : (n ? ",\n\t" : "\n\t"),
				dps_actset_member_target(set, i));
		}
		for (size_t i = 0; i < set->n_objects; i++) {
			const struct dps_actset_object *o = &set->objects[i];

			for (size_t j = 0; o->order && j < o->n_order; j++, n++) {
				fprintf(out, "%s%zu", n % 16 ? ", " : (n ? ",\n\t" : "\n\t"),
					dps_actset_find(set, o->order[j]));
			}
		}
		fprintf(out, "\n};\n");
	}
	if (set->n_objects) {
		fprintf(out,
			"\n/* {id, kind, line, capacity, initial[, takers, n]}: kind 1 mutex, 2 "
			"queue (capacity 0 =\n * unbounded; a task queue's takers in members[]), "
			"3 barrier (capacity = parties) */\n"
			"static const struct dps_object objects[] = {\n");
		for (size_t i = 0; i < set->n_objects; i++) {
			const struct dps_actset_object *o = &set->objects[i];

			fprintf(out,
				"\t{%" PRIu64 "u, %" PRIu32 ", %" PRIu32 ", %" PRIu64 "u, %" PRIu64
				"u",
				o->id, o->kind, o->line, o->capacity, o->initial);
			if (o->order) {
				fprintf(out, ", members + %zu, %zuu", k, o->n_order);
				k += o->n_order;
			}
			fprintf(out, "}, /* %s */\n", dps_object_kind_name(o->kind));
		}
		fprintf(out, "};\n");
	}
}

/* Format version 4's table: the runs' cache figures (and version 5's footprints), numbers the
 * parser validated. */
static void write_cache_table(const struct dps_actset *set, FILE *out)
{
	if (!set->n_caches) {
		return;
	}
	fprintf(out,
		"\n/* the runs' cache figures {accesses, stores, d1_misses, ll_misses, "
		"footprint_bytes}: a\n * run's 4th number is 1 + the index of its own here */\n"
		"static const struct dps_action_cache caches[] = {\n");
	for (size_t i = 0; i < set->n_caches; i++) {
		const struct dps_action_cache *c = &set->caches[i];

		fprintf(out,
			"\t{%" PRIu64 "u, %" PRIu64 "u, %" PRIu64 "u, %" PRIu64 "u, %" PRIu64
			"u},\n",
			c->accesses, c->stores, c->d1_misses, c->ll_misses, c->footprint_bytes);
	}
	fprintf(out, "};\n");
}

static void write_program(const struct dps_actset *set, const struct simgen_options *opts,
			  FILE *out)
{
	char name[SIMGEN_PROGRAM_NAME_MAX + 1];

	simgen_program_name(set, opts, name, SIMGEN_PROGRAM_NAME_MAX);
	write_sync_tables(set, out);
	write_cache_table(set, out);
	fprintf(out,
		"\nstatic const struct dps_program program = {\n"
		"\t.name = \"%s\",\n"
		"\t.threads = threads,\n"
		"\t.n_threads = %zu,\n"
		"\t.root = %zu,\n",
		name, set->n_threads, set->root);
	if (set->n_objects) {
		fprintf(out, "\t.objects = objects,\n\t.n_objects = %zu,\n", set->n_objects);
	}
	if (set->n_members) {
		fprintf(out, "\t.members = members,\n\t.n_members = %zu,\n", set->n_members);
	}
	if (set->n_caches) {
		fprintf(out, "\t.caches = caches,\n\t.n_caches = %zu,\n", set->n_caches);
	}
	fprintf(out, "};\n"
		     "\nint main(int argc, char **argv)\n"
		     "{\n"
		     "\tdps_exit(dps_main(argc, argv, &program));\n"
		     "}\n");
}

int simgen_write(const struct dps_actset *set, const struct simgen_options *opts, FILE *out,
		 struct dps_diag *diag)
{
	struct layout l = {0};
	int ret;

	ret = check_set(set, diag);
	if (ret) {
		goto end;
	}
	ret = layout_offsets(set, 0, &l);
	if (ret) {
		dps_diag_setf(diag, "simgen: out of memory");
		goto end;
	}
	write_header(set, opts, out);
	write_actions_table(set, &l, -1, out);
	write_thread_descs(set, &l, out);
	write_program(set, opts, out);
	if (ferror(out)) {
		dps_diag_setf(diag, "simgen: cannot write the program: %s", strerror(errno));
		ret = SIMGEN_ERR_IO;
	}
end:
	layout_fini(&l);
	return ret;
}

int simgen_write_file(const struct dps_actset *set, const struct simgen_options *opts,
		      const char *path, struct dps_diag *diag)
{
	struct dps_out_file out;
	int ret;

	ret = check_set(set, diag);
	if (ret) {
		return ret;
	}
	/* A temporary renamed into place (common/atomic-out.h); a device or a FIFO (/dev/null,
	 * /dev/stdout) is written through. */
	ret = dps_out_file_open(&out, path, diag);
	if (ret) {
		return ret == DPS_ERR_INVAL ? SIMGEN_ERR_INVAL : SIMGEN_ERR_IO;
	}
	/* A big buffer: a million-action program is tens of MB of small writes. */
	setvbuf(out.f, NULL, _IOFBF, 1 << 20);
	ret = simgen_write(set, opts, out.f, diag);
	if (ret) {
		dps_out_file_abort(&out);
		return ret;
	}
	return dps_out_file_commit(&out, diag) ? SIMGEN_ERR_IO : SIMGEN_OK;
}

/* Largest table first; among equal ones, the set's order (so the split is deterministic). */
static int compare_by_size(const void *a, const void *b, void *ctx)
{
	const struct dps_actset *set = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	size_t nx = set->threads[x].n_actions, ny = set->threads[y].n_actions;

	if (nx != ny) {
		return nx > ny ? -1 : 1;
	}
	return (x > y) - (x < y);
}

/* Spreads the threads over n_parts so the action counts are even: largest first, each to the
 * least loaded part (lowest index on ties, so the split is deterministic). part[t] receives the
 * part of thread t. Returns SIMGEN_OK or SIMGEN_ERR_NOMEM. */
static int assign_parts(const struct dps_actset *set, size_t n_parts, size_t *part)
{
	size_t *order = malloc((set->n_threads ? set->n_threads : 1) * sizeof(*order));
	size_t *load = calloc(n_parts, sizeof(*load));
	int ret = SIMGEN_ERR_NOMEM;

	if (!order || !load) {
		goto end;
	}
	for (size_t t = 0; t < set->n_threads; t++) {
		order[t] = t;
	}
	/* a sort, not an insertion: a set may have 100,000 threads */
	qsort_r(order, set->n_threads, sizeof(*order), compare_by_size, (void *)set);
	for (size_t i = 0; i < set->n_threads; i++) {
		size_t best = 0;

		for (size_t k = 1; k < n_parts; k++) {
			if (load[k] < load[best]) {
				best = k;
			}
		}
		part[order[i]] = best;
		load[best] += set->threads[order[i]].n_actions;
	}
	ret = SIMGEN_OK;
end:
	free(order);
	free(load);
	return ret;
}

/* Writes one file of a split program; which < 0 is the main file. */
static int write_split_file(const struct dps_actset *set, const struct simgen_options *opts,
			    const struct layout *l, size_t n_parts, long which, const char *path,
			    struct dps_diag *diag)
{
	FILE *out = fopen(path, "w");
	int ret = SIMGEN_OK;
	char name[32];
	bool failed;

	if (!out) {
		dps_diag_setf(diag, "Cannot create a program part: path=\"%s\", errno=%d (%s)",
			      path, errno, strerror(errno));
		ret = SIMGEN_ERR_IO;
		goto end;
	}
	setvbuf(out, NULL, _IOFBF, 1 << 20);
	if (which < 0) {
		write_header(set, opts, out);
		fprintf(out, "\n/* The tables are in the part files, compiled in parallel. */\n");
		for (size_t k = 0; k < n_parts; k++) {
			if (part_has_actions(set, l, (long)k)) {
				table_name((long)k, name, sizeof(name));
				fprintf(out, "extern const struct dps_action %s[];\n", name);
			}
		}
		write_thread_descs(set, l, out);
		write_program(set, opts, out);
	} else {
		fprintf(out,
			"/* Part %ld of a program generated by dps gen (simgen %d). */\n"
			"#include <dps/dps.h>\n",
			which, SIMGEN_VERSION);
		if (part_has_actions(set, l, which)) {
			/* Declared first, as for any non-static definition. */
			table_name(which, name, sizeof(name));
			fprintf(out, "\nextern const struct dps_action %s[];\n", name);
		}
		write_actions_table(set, l, which, out);
	}
	failed = ferror(out);
	if (fclose(out) != 0 || failed) {
		dps_diag_setf(diag, "Cannot write a program part: path=\"%s\", errno=%d (%s)", path,
			      errno, strerror(errno));
		ret = SIMGEN_ERR_IO;
	}
end:
	return ret;
}

int simgen_write_split(const struct dps_actset *set, const struct simgen_options *opts,
		       const char *dir, size_t n_parts, struct dps_diag *diag)
{
	struct layout l = {0};
	char *path = NULL;
	int ret;

	ret = check_set(set, diag);
	if (ret) {
		goto end;
	}
	l.part = calloc(set->n_threads ? set->n_threads : 1, sizeof(*l.part));
	ret = l.part && n_parts ? assign_parts(set, n_parts, l.part) : SIMGEN_ERR_NOMEM;
	if (!ret) {
		ret = layout_offsets(set, n_parts, &l);
	}
	for (long k = -1; !ret && k < (long)n_parts; k++) {
		int n = k < 0 ? asprintf(&path, "%s/program.c", dir)
			      : asprintf(&path, "%s/part-%ld.c", dir, k);

		if (n < 0) {
			path = NULL;
			ret = SIMGEN_ERR_NOMEM;
			break;
		}
		ret = write_split_file(set, opts, &l, n_parts, k, path, diag);
		free(path);
		path = NULL;
	}
	if (ret == SIMGEN_ERR_NOMEM) {
		dps_diag_setf(diag, "simgen: out of memory");
	}
end:
	layout_fini(&l);
	return ret;
}
