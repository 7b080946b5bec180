/* SPDX-License-Identifier: MIT */
/*
 * The manifest of an action set (doc/action-format.md, "The manifest"): the `dps-manifest`
 * header, `source`, `options`, `partial`, `root`, and the `thread`, `object` and `tasks`
 * statements. Read by the directory walk (actset-parse.c) after the action files, so a
 * `thread` line finds its thread by id. Every error names file:line:column and what was
 * expected.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "actset-parse.h"

static int parse_string(struct lexer *lx, const struct token *tok, char **out)
{
	char *buf, *w;

	if (tok->len < 2 || tok->s[0] != '"' || tok->s[tok->len - 1] != '"') {
		return dps_actset__lex_error(lx, tok->col, "expected a double-quoted string", tok);
	}
	buf = malloc(tok->len);
	if (!buf) {
		return DPS_ERR_NOMEM;
	}
	w = buf;
	for (size_t i = 1; i + 1 < tok->len; i++) {
		char c = tok->s[i];

		if (c == '\\') {
			char e;

			if (i + 1 >= tok->len - 1) {
				free(buf);
				return dps_actset__lex_error(lx, tok->col, "unterminated string",
							     NULL);
			}
			e = tok->s[++i];

			switch (e) {
			case 'n':
				*w++ = '\n';
				break;
			case 't':
				*w++ = '\t';
				break;
			case '\\':
				*w++ = '\\';
				break;
			case '"':
				*w++ = '"';
				break;
			case 'x': {
				unsigned v = 0;

				for (int k = 0; k < 2; k++) {
					char h = i + 1 < tok->len - 1 ? tok->s[++i] : 0;

					if (h >= '0' && h <= '9') {
						v = v * 16 + (unsigned)(h - '0');
					} else if (h >= 'a' && h <= 'f') {
						v = v * 16 + (unsigned)(h - 'a' + 10);
					} else if (h >= 'A' && h <= 'F') {
						v = v * 16 + (unsigned)(h - 'A' + 10);
					} else {
						free(buf);
						return dps_actset__lex_error(
						    lx, tok->col + (unsigned)i,
						    "expected two hex digits after \\x", NULL);
					}
				}
				if (!v) {
					free(buf);
					return dps_actset__lex_error(
					    lx, tok->col + (unsigned)i,
					    "\\x00 is not allowed in a string", NULL);
				}
				*w++ = (char)v;
				break;
			}
			default:
				free(buf);
				return dps_actset__lex_error(
				    lx, tok->col + (unsigned)i,
				    "expected an escape: \\n, \\t, \\\\, \\\" or \\xHH", NULL);
			}
		} else {
			*w++ = c;
		}
	}
	*w = '\0';
	*out = buf;
	return DPS_OK;
}

static int parse_i64_tok(struct lexer *lx, const struct token *tok, const char *what, int64_t *out)
{
	uint64_t u;
	int status = dps_actset__parse_u64(lx, tok, what, &u);

	if (status) {
		return status;
	}
	if (u > (uint64_t)INT64_MAX) {
		return dps_actset__lex_error(lx, tok->col, "number out of range (at most 2^63-1)",
					     tok);
	}
	*out = (int64_t)u;
	return DPS_OK;
}

static int expect_arg(struct lexer *lx, struct token *tok, const char *what)
{
	if (!dps_actset__lex_next(lx, tok)) {
		return dps_actset__lex_error(lx, dps_actset__lex_eol_col(lx), what, NULL);
	}
	return DPS_OK;
}

/* A `thread` line. seen (per thread index) holds the line of the thread's `thread` line, 0
 * while it has none: a second one is an error (which of the two would the reader believe?). */
static int parse_manifest_thread(struct dps_actset *set, struct lexer *lx, unsigned *seen)
{
	struct token tok, val;
	uint64_t id;
	size_t t;
	int status;

	status = expect_arg(lx, &tok, "expected a thread id after 'thread'");
	if (!status) {
		status =
		    dps_actset__parse_u64(lx, &tok, "expected a thread id (a decimal number)", &id);
	}
	if (status) {
		return status;
	}
	/* load_dir sorted the threads by id before reading the manifest. */
	{
		struct dps_actset_thread key = {.id = id};
		const struct dps_actset_thread *hit =
		    set->n_threads ? bsearch(&key, set->threads, set->n_threads, sizeof(key),
					     dps_actset__compare_thread_ids)
				   : NULL;

		t = hit ? (size_t)(hit - set->threads) : DPS_ACTSET_NO_THREAD;
	}
	if (t == DPS_ACTSET_NO_THREAD) {
		dps_diag_set(lx->diag, lx->name, lx->line, tok.col,
			     "thread %" PRIu64 " has no action file %" PRIu64 ".act", id, id);
		return DPS_ERR_INVAL;
	}
	if (seen[t]) {
		dps_diag_set(lx->diag, lx->name, lx->line, tok.col,
			     "thread %" PRIu64 " described twice (first on line %u): expected one "
			     "'thread' line per thread",
			     id, seen[t]);
		return DPS_ERR_INVAL;
	}
	seen[t] = lx->line;
	while (dps_actset__lex_next(lx, &tok)) {
		struct dps_actset_thread *th = &set->threads[t];

		if (dps_actset__tok_is(&tok, "pre-existing")) {
			th->pre_existing = true;
			continue;
		}
		if (!dps_actset__tok_is(&tok, "tid") && !dps_actset__tok_is(&tok, "pid") &&
		    !dps_actset__tok_is(&tok, "comm") && !dps_actset__tok_is(&tok, "start") &&
		    !dps_actset__tok_is(&tok, "parent")) {
			return dps_actset__lex_error(
			    lx, tok.col,
			    "expected a thread key (tid, pid, comm, start, parent, "
			    "pre-existing)",
			    &tok);
		}
		status = expect_arg(lx, &val, "expected a value after the key");
		if (status) {
			return status;
		}
		if (dps_actset__tok_is(&tok, "tid")) {
			status = parse_i64_tok(lx, &val, "expected a tid", &th->tid);
		} else if (dps_actset__tok_is(&tok, "pid")) {
			status = parse_i64_tok(lx, &val, "expected a pid", &th->pid);
		} else if (dps_actset__tok_is(&tok, "comm")) {
			char *s = NULL;

			status = parse_string(lx, &val, &s);
			if (!status) {
				free(th->comm);
				th->comm = s;
			}
		} else if (dps_actset__tok_is(&tok, "start")) {
			status = dps_actset__parse_duration(lx, &val, &th->start_offset_ns);
		} else {
			uint64_t parent;

			/* Informative: the real parent is derived from the create actions. */
			status =
			    dps_actset__parse_u64(lx, &val, "expected a parent thread id", &parent);
		}
		if (status) {
			return status;
		}
	}
	return DPS_OK;
}

/* object ID mutex | object ID queue CAPACITY [INITIAL] | object ID barrier PARTIES |
 * object ID rwlock (version 3) */
static int parse_manifest_object(struct dps_actset *set, struct lexer *lx, uint64_t version)
{
	struct token tok, val;
	uint64_t id, capacity = 0, initial = 0;
	uint32_t kind = 0;
	unsigned line = lx->line, col;
	int status;

	status = expect_arg(lx, &tok, "expected an object id after 'object'");
	if (!status) {
		status = dps_actset__parse_u64(lx, &tok, "expected an object id (a decimal number)",
					       &id);
	}
	col = tok.col;
	if (!status) {
		status =
		    expect_arg(lx, &tok, "expected an object kind (mutex, queue, barrier, rwlock)");
	}
	if (status) {
		return status;
	}
	for (uint32_t k = 1; k <= DPS_OBJ_MAX; k++) {
		if (dps_actset__tok_is(&tok, dps_object_kind_name(k))) {
			kind = k;
		}
	}
	if (!kind) {
		return dps_actset__lex_error(
		    lx, tok.col, "expected an object kind (mutex, queue, barrier, rwlock)", &tok);
	}
	if (kind > DPS_OBJ_MAX_V2 && version && version < DPS_ACTSET_FORMAT_V3) {
		return dps_actset__lex_error(lx, tok.col,
					     "an object of format version 3 in a manifest that "
					     "says an older version: expected 'dps-manifest 3'",
					     &tok);
	}
	if (kind == DPS_OBJ_QUEUE) {
		status = expect_arg(lx, &val, "expected the queue's capacity (0 = unbounded)");
		if (!status) {
			status = dps_actset__parse_u64(
			    lx, &val, "expected a capacity (a decimal number)", &capacity);
		}
		if (!status) {
			const char *save = lx->p;

			if (dps_actset__lex_next(lx, &val)) {
				status = dps_actset__parse_u64(
				    lx, &val,
				    "expected the items at the start (a decimal "
				    "number)",
				    &initial);
			} else {
				lx->p = save;
			}
		}
	} else if (kind == DPS_OBJ_BARRIER) {
		status = expect_arg(lx, &val, "expected the barrier's number of parties");
		if (!status) {
			status = dps_actset__parse_u64(lx, &val, "expected a number of parties",
						       &capacity);
		}
	}
	if (status) {
		return status;
	}
	if (kind == DPS_OBJ_BARRIER && !capacity) {
		return dps_actset__lex_error(lx, val.col,
					     "a barrier of 0 parties: expected at least 1", NULL);
	}
	if (kind == DPS_OBJ_QUEUE && capacity && initial > capacity) {
		dps_diag_set(lx->diag, lx->name, lx->line, val.col,
			     "queue %" PRIu64 " starts with %" PRIu64
			     " items but holds at most %" PRIu64,
			     id, initial, capacity);
		return DPS_ERR_INVAL;
	}
	if (dps_actset_add_object(set, id, kind, capacity, initial, line)) {
		return DPS_ERR_NOMEM;
	}
	set->objects[set->n_objects - 1].col = col;
	return DPS_OK;
}

/* tasks OBJ TAKER...: the queue OBJ (declared above) is a task queue, and TAKER is the thread
 * id that took each of its items, in take order (doc/action-format.md). */
static int parse_manifest_tasks(struct dps_actset *set, struct lexer *lx)
{
	struct dps_actset_object *o = NULL;
	struct token tok;
	GArray *ids = g_array_new(FALSE, FALSE, sizeof(uint64_t));
	uint64_t id;
	unsigned line = lx->line;
	int status;

	status = expect_arg(lx, &tok, "expected a queue's object id after 'tasks'");
	if (!status) {
		status = dps_actset__parse_u64(lx, &tok, "expected an object id (a decimal number)",
					       &id);
	}
	for (size_t i = set->n_objects; !status && i-- > 0 && !o;) {
		if (set->objects[i].id == id) {
			o = &set->objects[i];
		}
	}
	if (!status && (!o || o->kind != DPS_OBJ_QUEUE)) {
		dps_diag_set(lx->diag, lx->name, lx->line, tok.col,
			     "'tasks %" PRIu64
			     "': expected a queue declared above with 'object %" PRIu64
			     " queue ...'",
			     id, id);
		status = DPS_ERR_INVAL;
	}
	if (!status && o->order) {
		dps_diag_set(lx->diag, lx->name, lx->line, tok.col,
			     "queue %" PRIu64 " has a 'tasks' statement already (line %u)", id,
			     o->order_line);
		status = DPS_ERR_INVAL;
	}
	while (!status) {
		const char *save = lx->p;
		uint64_t taker;

		if (!dps_actset__lex_next(lx, &tok)) {
			lx->p = save;
			break;
		}
		status = dps_actset__parse_u64(
		    lx, &tok, "expected the id of the thread that took the item", &taker);
		if (!status) {
			g_array_append_val(ids, taker);
		}
	}
	if (!status && !ids->len) {
		status = dps_actset__lex_error(
		    lx, dps_actset__lex_eol_col(lx),
		    "expected the ids of the threads that took the items", NULL);
	}
	if (!status) {
		o->n_order = ids->len;
		o->order = (uint64_t *)(void *)g_array_free(ids, FALSE);
		o->order_line = line;
		ids = NULL;
	}
	if (ids) {
		g_array_free(ids, TRUE);
	}
	return status;
}

/* The manifest's statements, one per line, from lx's start (see dps_actset__parse_manifest);
 * seen as parse_manifest_thread's. */
static int parse_statements(struct dps_actset *set, struct lexer *lx, int64_t *declared_root,
			    unsigned *root_line, unsigned *seen)
{
	bool first = true;
	uint64_t manifest_version = 0;
	unsigned root_at = 0; /* the line of the `root` statement, 0: none yet */
	int status = DPS_OK;

	do {
		struct token kw, arg;

		status = dps_actset__lex_check_line(lx);
		if (status) {
			return status;
		}
		if (!dps_actset__lex_next(lx, &kw)) {
			continue;
		}
		if (dps_actset__tok_is(&kw, "dps-manifest")) {
			uint64_t v;

			if (!first) {
				return dps_actset__lex_error(
				    lx, kw.col, "'dps-manifest' header must be the first statement",
				    NULL);
			}
			status = expect_arg(lx, &arg, "expected a format version");
			if (!status) {
				status = dps_actset__parse_version(lx, set, &arg, "manifest", &v);
			}
			if (status) {
				return status;
			}
			manifest_version = v;
		} else if (dps_actset__tok_is(&kw, "source") ||
			   dps_actset__tok_is(&kw, "options") ||
			   dps_actset__tok_is(&kw, "partial")) {
			char **member = dps_actset__tok_is(&kw, "source")    ? &set->source_trace
					: dps_actset__tok_is(&kw, "options") ? &set->options
									     : &set->partial_reason;
			char *s = NULL;

			status = expect_arg(lx, &arg, "expected a double-quoted string");
			if (!status) {
				status = parse_string(lx, &arg, &s);
			}
			if (status) {
				return status;
			}
			free(*member);
			*member = s;
			if (member == &set->partial_reason) {
				set->partial = true;
			}
		} else if (dps_actset__tok_is(&kw, "root")) {
			int64_t root;

			if (root_at) {
				dps_diag_set(lx->diag, lx->name, lx->line, kw.col,
					     "a second 'root' (first on line %u): expected one",
					     root_at);
				return DPS_ERR_INVAL;
			}
			status = expect_arg(lx, &arg, "expected the root thread id");
			if (!status) {
				status = parse_i64_tok(lx, &arg, "expected a thread id", &root);
			}
			if (status) {
				return status;
			}
			*declared_root = root;
			*root_line = lx->line;
			root_at = lx->line;
		} else if (dps_actset__tok_is(&kw, "thread")) {
			status = parse_manifest_thread(set, lx, seen);
			if (status) {
				return status;
			}
		} else if (dps_actset__tok_is(&kw, "object")) {
			if (manifest_version == DPS_ACTSET_FORMAT_V1) {
				return dps_actset__lex_error(
				    lx, kw.col,
				    "'object' in a manifest that says 'dps-manifest "
				    "1': expected 'dps-manifest 2'",
				    NULL);
			}
			status = parse_manifest_object(set, lx, manifest_version);
			if (status) {
				return status;
			}
		} else if (dps_actset__tok_is(&kw, "tasks")) {
			if (manifest_version == DPS_ACTSET_FORMAT_V1) {
				return dps_actset__lex_error(
				    lx, kw.col,
				    "'tasks' in a manifest that says 'dps-manifest "
				    "1': expected 'dps-manifest 2'",
				    NULL);
			}
			status = parse_manifest_tasks(set, lx);
			if (status) {
				return status;
			}
		} else {
			return dps_actset__lex_error(
			    lx, kw.col,
			    "expected a manifest statement (dps-manifest, source, "
			    "options, partial, root, thread, object, tasks)",
			    &kw);
		}
		first = false;
		if (dps_actset__lex_next(lx, &arg)) {
			return dps_actset__lex_error(lx, arg.col, "expected end of line", &arg);
		}
	} while (dps_actset__lex_next_line(lx));
	return DPS_OK;
}

int dps_actset__parse_manifest(struct dps_actset *set, const char *name, const char *text,
			       size_t len, int64_t *declared_root, unsigned *root_line,
			       struct dps_diag *diag)
{
	struct lexer lx;
	unsigned *seen; /* per thread: the line of its `thread` line, 0: none yet */
	int status;

	dps_actset__lex_start(&lx, name, text, len, diag);
	if (!len) {
		return DPS_OK;
	}
	seen = calloc(set->n_threads ? set->n_threads : 1, sizeof(*seen));
	if (!seen) {
		dps_diag_set(diag, name, 0, 0, "out of memory reading the manifest");
		return DPS_ERR_NOMEM;
	}
	status = parse_statements(set, &lx, declared_root, root_line, seen);
	free(seen);
	return status;
}
