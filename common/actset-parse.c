/* SPDX-License-Identifier: MIT */
/*
 * Loading an action set: the action files' grammar (doc/action-format.md) and the directory
 * walk that reads them, then the manifest (actset-manifest.c), then resolves the set. The
 * lexer both grammars share is actset-lex.c's. Every error names file:line:column and what
 * was expected.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "actset-parse.h"
#include "text-out.h"

static int parse_delta(struct lexer *lx, const struct token *tok, int64_t *out)
{
	struct token digits = *tok;
	bool neg = false;
	uint64_t v;
	int status;

	if (digits.len && (digits.s[0] == '+' || digits.s[0] == '-')) {
		neg = digits.s[0] == '-';
		digits.s++;
		digits.len--;
		digits.col++;
	}
	if (!digits.len) {
		return dps_actset__lex_error(lx, tok->col,
					     "expected a byte count like +4096 or -4096", tok);
	}
	status =
	    dps_actset__parse_u64(lx, &digits, "expected a byte count like +4096 or -4096", &v);
	if (status) {
		return status;
	}
	if (v > (uint64_t)DPS_ACTION_MAX_BYTES) {
		return dps_actset__lex_error(
		    lx, tok->col, "byte count out of range (at most " DPS_ACTION_MAX_BYTES_TEXT ")",
		    tok);
	}
	*out = neg ? -(int64_t)v : (int64_t)v;
	return DPS_OK;
}

/* Keeps the column of action idx's argument (cols: NULL when nobody asks). */
static void record_col(GArray *cols, size_t idx, unsigned col)
{
	if (!cols) {
		return;
	}
	if (idx >= cols->len) {
		g_array_set_size(cols, (guint)idx + 1);
	}
	g_array_index(cols, uint32_t, idx) = col;
}

/* Parses the member set "ID|ID|..." of a wait or join any into set->members; *first and *n
 * say where. */
static int parse_members(struct dps_actset *set, struct lexer *lx, const struct token *tok,
			 uint64_t *first, uint64_t *n)
{
	static const char what[] = "expected thread ids separated by '|' (like 4712|4713)";
	uint64_t ids[DPS_ACTION_MAX_MEMBERS];
	size_t count = 0, start = 0;
	size_t at;

	for (size_t i = 0; i <= tok->len; i++) {
		struct token part;
		int status;

		if (i < tok->len && tok->s[i] != '|') {
			continue;
		}
		part = (struct token){
		    .s = tok->s + start, .len = i - start, .col = tok->col + (unsigned)start};
		if (!part.len) {
			return dps_actset__lex_error(lx, part.col, what, tok);
		}
		if (count == sizeof(ids) / sizeof(ids[0])) {
			dps_diag_set(lx->diag, lx->name, lx->line, part.col,
				     "more than %d threads in one set", DPS_ACTION_MAX_MEMBERS);
			return DPS_ERR_INVAL;
		}
		status = dps_actset__parse_u64(lx, &part, what, &ids[count]);
		if (status) {
			return status;
		}
		count++;
		start = i + 1;
	}
	at = dps_actset_add_members(set, ids, count);
	if (at == SIZE_MAX) {
		return DPS_ERR_NOMEM;
	}
	*first = at;
	*n = count;
	return DPS_OK;
}

/* The optional item count after a put's or take's object id (version 3): *n 0 when there is
 * none. A count of 1 is the same as none. */
static int parse_count(struct lexer *lx, uint64_t version, uint64_t *n)
{
	struct token tok;
	int status;

	*n = 0;
	if (!dps_actset__lex_next(lx, &tok)) {
		return DPS_OK;
	}
	status = dps_actset__parse_u64(lx, &tok, "expected an item count (a decimal number)", n);
	if (status) {
		return status;
	}
	if (!*n) {
		return dps_actset__lex_error(
		    lx, tok.col, "a count of 0 items: expected 1 or more (or none)", &tok);
	}
	if (*n > (uint64_t)DPS_ACTION_MAX_ITEMS) {
		return dps_actset__lex_error(
		    lx, tok.col, "item count too large (at most " DPS_ACTION_MAX_ITEMS_TEXT ")",
		    &tok);
	}
	if (*n > 1 && version && version < DPS_ACTSET_FORMAT_V3) {
		return dps_actset__lex_error(lx, tok.col,
					     "a count of items in a file that says an older "
					     "version: expected 'dps-actions 3'",
					     &tok);
	}
	if (*n == 1) {
		*n = 0; /* one item, as written without a count */
	}
	return DPS_OK;
}

/* Whether the line's next token is word (into *kw, the lexer past it); else the lexer is
 * left where it was: not ours, the caller's "expected end of line" names it. */
static bool optional_keyword(struct lexer *lx, const char *word, struct token *kw)
{
	const char *save = lx->p;

	if (dps_actset__lex_next(lx, kw) && dps_actset__tok_is(kw, word)) {
		return true;
	}
	lx->p = save;
	return false;
}

/* The optional footprint after a run's cache figures (version 5): `footprint BYTES`, above 0;
 * *bytes 0 when there is none. */
static int parse_footprint(struct lexer *lx, uint64_t version, uint64_t *bytes)
{
	struct token kw, tok;
	int status;

	*bytes = 0;
	if (!optional_keyword(lx, "footprint", &kw)) {
		return DPS_OK;
	}
	if (version && version < DPS_ACTSET_FORMAT_V5) {
		return dps_actset__lex_error(lx, kw.col,
					     "a footprint in a file that says an older version: "
					     "expected 'dps-actions 5'",
					     NULL);
	}
	if (!dps_actset__lex_next(lx, &tok)) {
		return dps_actset__lex_error(lx, dps_actset__lex_eol_col(lx),
					     "expected the footprint in bytes after 'footprint' "
					     "(like footprint 1048576)",
					     NULL);
	}
	status = dps_actset__parse_u64(lx, &tok,
				       "expected the component's working set in bytes (a decimal "
				       "number)",
				       bytes);
	if (!status && !*bytes) {
		return dps_actset__lex_error(lx, tok.col,
					     "a footprint of 0 bytes: expected 1 or more (leave it "
					     "out when it is not known)",
					     NULL);
	}
	return status;
}

/*
 * The optional cache figures after a run's duration (version 4): `cache ACCESSES STORES
 * D1_MISSES LL_MISSES`, then version 5's `footprint BYTES`, kept in set->caches; *aux 1 + their
 * index, 0 when the run has none.
 * Figures the cache stub would refuse are refused here, at the figure that breaks the rule.
 */
static int parse_cache(struct dps_actset *set, struct lexer *lx, uint64_t version, uint64_t *aux)
{
	static const char *const what[4] = {
	    "expected the run's data accesses (loads + stores, a decimal number)",
	    "expected the stores among its accesses (a decimal number)",
	    "expected its accesses that missed L1D (a decimal number)",
	    "expected its L1D misses that missed the last level too (a decimal number)"};
	struct dps_action_cache c;
	uint64_t v[4];
	struct token kw, tok[4];
	const char *problem;
	size_t at;
	int status;

	*aux = 0;
	if (!optional_keyword(lx, "cache", &kw)) {
		return DPS_OK;
	}
	if (version && version < DPS_ACTSET_FORMAT_V4) {
		return dps_actset__lex_error(lx, kw.col,
					     "cache figures in a file that says an older "
					     "version: expected 'dps-actions 4'",
					     NULL);
	}
	for (int i = 0; i < 4; i++) {
		if (!dps_actset__lex_next(lx, &tok[i])) {
			return dps_actset__lex_error(
			    lx, dps_actset__lex_eol_col(lx),
			    "expected 4 cache figures after 'cache': ACCESSES STORES D1_MISSES "
			    "LL_MISSES (like cache 2000000 600000 40000 4000)",
			    NULL);
		}
		status = dps_actset__parse_u64(lx, &tok[i], what[i], &v[i]);
		if (status) {
			return status;
		}
	}
	c = (struct dps_action_cache){
	    .accesses = v[0], .stores = v[1], .d1_misses = v[2], .ll_misses = v[3]};
	problem = dps_action_cache_problem(&c);
	if (problem) {
		/* the figure the rule is about: accesses, stores, D1 or LL misses */
		int i = !c.accesses		   ? 0
			: c.stores > c.accesses	   ? 1
			: c.d1_misses > c.accesses ? 2
						   : 3;

		return dps_actset__lex_error(lx, tok[i].col, problem, NULL);
	}
	status = parse_footprint(lx, version, &c.footprint_bytes);
	if (status) {
		return status;
	}
	at = dps_actset_add_cache(set, &c);
	if (at == SIZE_MAX) {
		return DPS_ERR_NOMEM;
	}
	*aux = (uint64_t)at + 1;
	return DPS_OK;
}

/*
 * The arguments of a wait (ID, ID timeout D, ID|ID|...) or a join (ID, any ID|ID|...) from
 * arg on: the kind they make, its value (the id or the first member) and aux.
 */
static int parse_wait_join(struct dps_actset *set, struct lexer *lx, struct token *arg,
			   enum dps_action_kind *kind, int64_t *value, uint64_t *aux)
{
	struct token more;
	uint64_t u;
	int status;

	if (*kind == DPS_ACT_JOIN && dps_actset__tok_is(arg, "any")) {
		if (!dps_actset__lex_next(lx, arg)) {
			return dps_actset__lex_error(
			    lx, dps_actset__lex_eol_col(lx),
			    "expected thread ids after 'join any' (like 4712|4713)", NULL);
		}
		*kind = DPS_ACT_JOIN_ANY;
		status = parse_members(set, lx, arg, &u, aux);
		*value = (int64_t)u;
		return status;
	}
	if (*kind == DPS_ACT_WAIT && memchr(arg->s, '|', arg->len)) {
		*kind = DPS_ACT_WAIT_ANY;
		status = parse_members(set, lx, arg, &u, aux);
		*value = (int64_t)u;
		return status;
	}
	status = dps_actset__parse_u64(lx, arg, "expected a thread id (a decimal number)", &u);
	if (status) {
		return status;
	}
	*value = (int64_t)u;
	if (*kind != DPS_ACT_WAIT) {
		return DPS_OK;
	}
	/* wait ID timeout D: peek at what follows without consuming the end of the line */
	{
		const char *save = lx->p;

		if (!dps_actset__lex_next(lx, &more)) {
			return DPS_OK;
		}
		if (!dps_actset__tok_is(&more, "timeout")) {
			lx->p = save;
			return DPS_OK;
		}
		if (!dps_actset__lex_next(lx, &more)) {
			return dps_actset__lex_error(
			    lx, dps_actset__lex_eol_col(lx),
			    "expected a duration after 'timeout' (like 300ms)", NULL);
		}
		status = dps_actset__parse_duration(lx, &more, aux);
		*kind = DPS_ACT_WAIT_TIMEOUT;
	}
	return status;
}

static int parse_actions(struct dps_actset *set, size_t t, const char *name, const char *text,
			 size_t len, GArray *cols, struct dps_diag *diag)
{
	struct lexer lx;
	bool first = true;
	uint64_t version = 0; /* this file's header; 0: none */
	int64_t stack_depth = 0;
	int status = DPS_OK;

	dps_actset__lex_start(&lx, name, text, len, diag);
	if (!len) {
		return DPS_OK;
	}
	do {
		struct token kw, arg, extra;
		enum dps_action_kind kind = 0;
		int64_t value = 0;
		uint64_t u, aux = 0;

		status = dps_actset__lex_check_line(&lx);
		if (status) {
			return status;
		}
		if (!dps_actset__lex_next(&lx, &kw)) {
			continue;
		}
		if (dps_actset__tok_is(&kw, "dps-actions")) {
			if (!first) {
				return dps_actset__lex_error(
				    &lx, kw.col, "'dps-actions' header must be the first statement",
				    NULL);
			}
			if (!dps_actset__lex_next(&lx, &arg)) {
				return dps_actset__lex_error(
				    &lx, dps_actset__lex_eol_col(&lx),
				    "expected a format version after 'dps-actions'", NULL);
			}
			status = dps_actset__parse_version(&lx, set, &arg, "action format", &u);
			if (status) {
				return status;
			}
			version = u;
			first = false;
			if (dps_actset__lex_next(&lx, &extra)) {
				return dps_actset__lex_error(&lx, extra.col, "expected end of line",
							     &extra);
			}
			continue;
		}
		first = false;
		for (uint32_t k = 1; k <= DPS_ACT_MAX; k++) {
			if (dps_actset__tok_is(&kw, dps_action_kind_name(k))) {
				kind = (enum dps_action_kind)k;
				break;
			}
		}
		if (!kind) {
			return dps_actset__lex_error(
			    &lx, kw.col,
			    "expected an action (run, sleep, create, join, wait, wake, "
			    "heap, stack, lock, rdlock, unlock, put, take, arrive)",
			    &kw);
		}
		if (kind > DPS_ACT_MAX_V1 && version == DPS_ACTSET_FORMAT_V1) {
			return dps_actset__lex_error(
			    &lx, kw.col,
			    "action of format version 2 in a file that says "
			    "'dps-actions 1': expected 'dps-actions 2'",
			    &kw);
		}
		if (kind > DPS_ACT_MAX_V2 && version && version < DPS_ACTSET_FORMAT_V3) {
			return dps_actset__lex_error(
			    &lx, kw.col,
			    "action of format version 3 in a file that "
			    "says an older version: expected 'dps-actions 3'",
			    &kw);
		}
		if (!dps_actset__lex_next(&lx, &arg)) {
			const char *what;

			switch (kind) {
			case DPS_ACT_RUN:
			case DPS_ACT_SLEEP:
				what = "expected a duration (microseconds, or with a unit)";
				break;
			case DPS_ACT_HEAP:
			case DPS_ACT_STACK:
				what = "expected a byte count like +4096 or -4096";
				break;
			case DPS_ACT_LOCK:
			case DPS_ACT_RDLOCK:
			case DPS_ACT_UNLOCK:
			case DPS_ACT_PUT:
			case DPS_ACT_TAKE:
			case DPS_ACT_ARRIVE:
				what = "expected an object id (declared in the manifest)";
				break;
			default:
				what = "expected a thread id";
				break;
			}
			return dps_actset__lex_error(&lx, dps_actset__lex_eol_col(&lx), what, NULL);
		}
		switch (kind) {
		case DPS_ACT_RUN:
		case DPS_ACT_SLEEP:
			status = dps_actset__parse_duration(&lx, &arg, &u);
			value = (int64_t)u;
			if (!status && kind == DPS_ACT_RUN) {
				status = parse_cache(set, &lx, version, &aux);
			}
			break;
		case DPS_ACT_HEAP:
			status = parse_delta(&lx, &arg, &value);
			break;
		case DPS_ACT_STACK:
			status = parse_delta(&lx, &arg, &value);
			if (!status && (value > DPS_ACTION_MAX_STACK_BYTES ||
					value < -DPS_ACTION_MAX_STACK_BYTES ||
					stack_depth + value > DPS_ACTION_MAX_STACK_BYTES)) {
				dps_diag_set(diag, name, lx.line, arg.col,
					     "stack change beyond the limit: the depth may reach "
					     "at most %" PRId64 " bytes (" DPS_ACTION_MAX_STACK_TEXT
					     "), changes likewise",
					     (int64_t)DPS_ACTION_MAX_STACK_BYTES);
				status = DPS_ERR_INVAL;
			}
			if (!status) {
				stack_depth += value;
			}
			break;
		case DPS_ACT_LOCK:
		case DPS_ACT_RDLOCK:
		case DPS_ACT_UNLOCK:
		case DPS_ACT_PUT:
		case DPS_ACT_TAKE:
		case DPS_ACT_ARRIVE:
			status = dps_actset__parse_u64(
			    &lx, &arg, "expected an object id (a decimal number)", &u);
			value = (int64_t)u;
			if (!status && (kind == DPS_ACT_PUT || kind == DPS_ACT_TAKE)) {
				status = parse_count(&lx, version, &aux);
			}
			break;
		case DPS_ACT_WAIT:
		case DPS_ACT_JOIN: {
			unsigned kw_col = kw.col;

			status = parse_wait_join(set, &lx, &arg, &kind, &value, &aux);
			if (!status && kind > DPS_ACT_MAX_V1 && version == DPS_ACTSET_FORMAT_V1) {
				status = dps_actset__lex_error(
				    &lx, kw_col,
				    "action of format version 2 in a file that "
				    "says 'dps-actions 1': expected 'dps-actions 2'",
				    NULL);
			}
			break;
		}
		default:
			status = dps_actset__parse_u64(
			    &lx, &arg, "expected a thread id (a decimal number)", &u);
			value = (int64_t)u; /* the id: dps_actset_append stores it as such */
			break;
		}
		if (status == DPS_ERR_NOMEM) {
			dps_diag_set(diag, name, lx.line, 0, "out of memory");
		}
		if (status) {
			return status;
		}
		if (dps_actset__lex_next(&lx, &extra)) {
			return dps_actset__lex_error(&lx, extra.col, "expected end of line",
						     &extra);
		}
		status = dps_actset_append2(set, t, kind, value, aux, lx.line);
		if (status) {
			dps_diag_set(diag, name, lx.line, 0, "out of memory");
			return status;
		}
		record_col(cols, set->threads[t].n_actions - 1, arg.col);
	} while (dps_actset__lex_next_line(&lx));
	return DPS_OK;
}

int dps_actset_parse_actions(struct dps_actset *set, size_t t, const char *name, const char *text,
			     size_t len, struct dps_diag *diag)
{
	return parse_actions(set, t, name, text, len, NULL, diag);
}

int dps_actset__compare_thread_ids(const void *a, const void *b)
{
	const struct dps_actset_thread *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * Loading a directory.
 */
/* The largest file of a set: a thread with ~50 million actions. More is not an action file. */
#define ACTSET_MAX_FILE_BYTES (1LL << 30)

/*
 * Reads a whole file of the set. Only regular files: a FIFO or a device (a symlink to
 * /dev/zero) would block or never end, so the file is opened without blocking and checked
 * before a byte is read. A directory or an oversized file is bad input (DPS_ERR_INVAL), an
 * unreadable one too (DPS_ERR_INVAL: the set is what is wrong), a failing read DPS_ERR_IO.
 */
static int read_file(const char *path, char **text, size_t *len, struct dps_diag *diag)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	char *buf = NULL;
	size_t n = 0;
	int status = DPS_OK;

	if (fd < 0) {
		dps_diag_set(diag, path, 0, 0, "cannot open: %s", strerror(errno));
		return errno == EIO || errno == ENOMEM ? DPS_ERR_IO
		       : errno == ENOENT	       ? DPS_ERR_NOENT
						       : DPS_ERR_INVAL;
	}
	if (fstat(fd, &st)) {
		dps_diag_set(diag, path, 0, 0, "cannot stat: %s", strerror(errno));
		status = DPS_ERR_IO;
		goto end;
	}
	if (!S_ISREG(st.st_mode)) {
		dps_diag_set(diag, path, 0, 0, "not a regular file (%s): expected a text file",
			     S_ISDIR(st.st_mode)			  ? "a directory"
			     : S_ISFIFO(st.st_mode)			  ? "a FIFO"
			     : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
									  : "a special file");
		status = DPS_ERR_INVAL;
		goto end;
	}
	if (st.st_size > ACTSET_MAX_FILE_BYTES) {
		dps_diag_set(diag, path, 0, 0,
			     "file of %lld bytes, larger than the %lld bytes an action-set file "
			     "may have",
			     (long long)st.st_size, ACTSET_MAX_FILE_BYTES);
		status = DPS_ERR_INVAL;
		goto end;
	}
	/* A file that grows while it is read is read up to its size at open: never without end. */
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		dps_diag_set(diag, path, 0, 0, "out of memory reading the file");
		status = DPS_ERR_NOMEM;
		goto end;
	}
	while (n < (size_t)st.st_size) {
		ssize_t got = read(fd, buf + n, (size_t)st.st_size - n);

		if (got < 0 && errno == EINTR) {
			continue;
		}
		if (got < 0) {
			dps_diag_set(diag, path, 0, 0, "read error at offset %zu: %s", n,
				     strerror(errno));
			status = DPS_ERR_IO;
			goto end;
		}
		if (got == 0) {
			break; /* truncated meanwhile: what is there */
		}
		n += (size_t)got;
	}
	buf[n] = '\0';
	*text = buf;
	*len = n;
	buf = NULL;
end:
	free(buf);
	close(fd);
	return status;
}

/* Whether a directory entry claims to be an action file: a name ending in ".act" that is not
 * hidden (an editor's or a tool's own, ".1.act.swp" or "._1.act", is not the set's). */
static bool is_act_name(const char *name)
{
	size_t len = strlen(name);

	return name[0] != '.' && len > 4 && !strcmp(name + len - 4, ".act");
}

/* "<digits>.act" -> id; false for any other name, or an id beyond 2^64-1. */
static bool parse_act_name(const char *name, uint64_t *id)
{
	size_t len = strlen(name);
	uint64_t v = 0;

	if (!is_act_name(name)) {
		return false;
	}
	for (size_t i = 0; i < len - 4; i++) {
		unsigned d;

		if (name[i] < '0' || name[i] > '9') {
			return false;
		}
		d = (unsigned)(name[i] - '0');
		if (v > (UINT64_MAX - d) / 10) {
			return false;
		}
		v = v * 10 + d;
	}
	*id = v;
	return true;
}

int dps_actset_load_dir(const char *dir, struct dps_actset **out, struct dps_diag *diag)
{
	struct dps_actset *set = NULL;
	GArray **cols = NULL; /* per thread: the columns of its actions' arguments */
	size_t n_cols = 0;
	DIR *d = NULL;
	struct dirent *de;
	char *text = NULL, *path = NULL;
	size_t len;
	int64_t declared_root = -1;
	unsigned root_line = 0;
	int status;

	*out = NULL;
	d = opendir(dir);
	if (!d) {
		dps_diag_set(diag, dir, 0, 0, "cannot open action-set directory: %s",
			     strerror(errno));
		return errno == ENOENT ? DPS_ERR_NOENT : DPS_ERR_IO;
	}
	set = dps_actset_create();
	if (!set || dps_actset_set_str(&set->dir, dir)) {
		status = DPS_ERR_NOMEM;
		goto nomem;
	}
	while ((de = readdir(d))) {
		uint64_t id;
		size_t t;

		if (!is_act_name(de->d_name)) {
			continue; /* not the set's: a README, the manifest, a hidden file */
		}
		if (!parse_act_name(de->d_name, &id)) {
			/* a file that says it is an action file but names no thread: refused, not
			 * skipped, or its actions would silently not play */
			char shown[256], *stray = dps_actset__path_join(dir, de->d_name);

			if (!stray) {
				status = DPS_ERR_NOMEM;
				goto nomem;
			}
			dps_text_sanitize(stray, shown, sizeof(shown));
			free(stray);
			dps_diag_set(diag, shown, 0, 0,
				     "an action file's name is its thread's id: expected <id>.act, "
				     "the id a decimal number of 0 to 2^64-1 (rename the file, or "
				     "give it another extension if it is not one)");
			status = DPS_ERR_INVAL;
			goto error;
		}
		t = dps_actset_add_thread(set, id);
		if (t == DPS_ACTSET_NO_THREAD) {
			status = DPS_ERR_NOMEM;
			goto nomem;
		}
		set->threads[t].path = dps_actset__path_join(dir, de->d_name);
		if (!set->threads[t].path) {
			status = DPS_ERR_NOMEM;
			goto nomem;
		}
	}
	/* Deterministic order whatever readdir gives: by id. (An empty directory has no array,
	 * and qsort must not get NULL; resolve() reports it.) */
	if (set->n_threads) {
		qsort(set->threads, set->n_threads, sizeof(*set->threads),
		      dps_actset__compare_thread_ids);
	}
	for (size_t t = 1; t < set->n_threads; t++) {
		if (set->threads[t].id == set->threads[t - 1].id) {
			dps_diag_set(diag, set->threads[t].path, 0, 0,
				     "two files name thread %" PRIu64 " (leading zeros?): expected "
				     "one file per thread",
				     set->threads[t].id);
			status = DPS_ERR_INVAL;
			goto error;
		}
	}
	cols = g_new0(GArray *, set->n_threads ? set->n_threads : 1);
	n_cols = set->n_threads;
	for (size_t t = 0; t < set->n_threads; t++) {
		status = read_file(set->threads[t].path, &text, &len, diag);
		if (status) {
			goto error;
		}
		cols[t] = g_array_new(FALSE, TRUE, sizeof(uint32_t));
		status = parse_actions(set, t, set->threads[t].path, text, len, cols[t], diag);
		free(text);
		text = NULL;
		if (status) {
			goto error;
		}
	}
	path = dps_actset__path_join(dir, DPS_ACTSET_MANIFEST_NAME);
	if (!path) {
		status = DPS_ERR_NOMEM;
		goto nomem;
	}
	if (access(path, F_OK) == 0) {
		status = read_file(path, &text, &len, diag);
		if (status) {
			goto error;
		}
		status = dps_actset__parse_manifest(set, path, text, len, &declared_root,
						    &root_line, diag);
		if (status) {
			goto error;
		}
	}
	status = dps_actset__resolve(set, cols, diag);
	if (status) {
		goto error;
	}
	if (declared_root >= 0 && set->threads[set->root].id != (uint64_t)declared_root) {
		dps_diag_set(diag, path, root_line, 0,
			     "manifest names root %" PRId64 " but the root (the thread no file "
			     "creates) is %" PRIu64,
			     declared_root, set->threads[set->root].id);
		status = DPS_ERR_INVAL;
		goto error;
	}
	*out = set;
	set = NULL;
	status = DPS_OK;
	goto end;
nomem:
	dps_diag_set(diag, dir, 0, 0, "out of memory loading the action set");
error:
	dps_actset_destroy(set);
	set = NULL;
end:
	for (size_t t = 0; t < n_cols; t++) {
		if (cols[t]) {
			g_array_free(cols[t], TRUE);
		}
	}
	g_free(cols);
	free(text);
	free(path);
	if (d) {
		closedir(d);
	}
	return status;
}
