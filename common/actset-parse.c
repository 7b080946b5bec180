/* SPDX-License-Identifier: MIT */
/*
 * Loading an action set: the lexer, the action files' grammar and the manifest's
 * (doc/action-format.md), and the directory walk. Every error names file:line:column and what
 * was expected.
 *
 * Over 1000 lines: the action files and the manifest share the lexer, the number, duration
 * and string parsers and their messages; the walk is what calls them in order.
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

#include "actset-internal.h"

/*
 * Lexer: one line at a time, tokens separated by blanks, '#' starts a comment.
 */
struct lexer {
	const char *name; /* file name for messages */
	const char *p;	  /* current position */
	const char *line_start;
	const char *end;
	unsigned line;
	struct dps_diag *diag;
};

struct token {
	const char *s;
	size_t len;
	unsigned col;
};

/* A '\r' is a blank only as the first half of a CRLF line end (check_line rejects any other). */
static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Files are text: lines of at most this many bytes (an action line is a few dozen). */
#define ACTSET_MAX_LINE_BYTES 4096
/* The deepest stack a thread of a set may reach (and so the largest single change): well
 * beyond any real thread's, and far from the sizes that wrap an address computation. */
#define ACTSET_MAX_STACK_BYTES (1LL << 30)

static unsigned lexer_col(const struct lexer *lx, const char *at)
{
	return (unsigned)(at - lx->line_start) + 1;
}

/* Next token on the current line; false at end of line or comment. Strings ("...") are one
 * token including the quotes. */
static bool lexer_next(struct lexer *lx, struct token *tok)
{
	const char *s;

	while (lx->p < lx->end && is_blank(*lx->p)) {
		lx->p++;
	}
	if (lx->p >= lx->end || *lx->p == '\n' || *lx->p == '#') {
		return false;
	}
	s = lx->p;
	if (*s == '"') {
		lx->p++;
		while (lx->p < lx->end && *lx->p != '"' && *lx->p != '\n') {
			if (*lx->p == '\\' && lx->p + 1 < lx->end && lx->p[1] != '\n') {
				lx->p++;
			}
			lx->p++;
		}
		if (lx->p < lx->end && *lx->p == '"') {
			lx->p++;
		}
	} else {
		while (lx->p < lx->end && !is_blank(*lx->p) && *lx->p != '\n' && *lx->p != '#') {
			lx->p++;
		}
	}
	tok->s = s;
	tok->len = (size_t)(lx->p - s);
	tok->col = lexer_col(lx, s);
	return true;
}

/* Skips to the start of the next line; false at end of input. */
static bool lexer_next_line(struct lexer *lx)
{
	while (lx->p < lx->end && *lx->p != '\n') {
		lx->p++;
	}
	if (lx->p >= lx->end) {
		return false;
	}
	lx->p++;
	lx->line++;
	lx->line_start = lx->p;
	return lx->p < lx->end;
}

/*
 * The current line is text a person could have typed: no NUL or other control character but
 * tab (a '\r' only right before the '\n': CRLF files are fine), and not longer than
 * ACTSET_MAX_LINE_BYTES. Checked once per line before any token is read, so no byte of
 * garbage reaches a message or the terminal raw.
 */
static int check_line(struct lexer *lx)
{
	const char *q = lx->line_start;

	for (; q < lx->end && *q != '\n'; q++) {
		unsigned char c = (unsigned char)*q;

		if ((size_t)(q - lx->line_start) >= ACTSET_MAX_LINE_BYTES) {
			dps_diag_set(lx->diag, lx->name, lx->line, ACTSET_MAX_LINE_BYTES + 1,
				     "line longer than %d bytes (is this an action set?)",
				     ACTSET_MAX_LINE_BYTES);
			return DPS_ERR_INVAL;
		}
		if (c == '\r' && (q + 1 == lx->end || q[1] == '\n')) {
			continue;
		}
		if ((c < 0x20 && c != '\t') || c == 0x7f) {
			dps_diag_set(
			    lx->diag, lx->name, lx->line, (unsigned)(q - lx->line_start) + 1,
			    "unexpected control character 0x%02x (is this a text file?)", c);
			return DPS_ERR_INVAL;
		}
	}
	return DPS_OK;
}

/* Column just after the last token, for "expected X" at end of line. */
static unsigned lexer_eol_col(const struct lexer *lx)
{
	const char *q = lx->p;

	while (q > lx->line_start && is_blank(q[-1])) {
		q--;
	}
	return lexer_col(lx, q) + 1;
}

static bool tok_is(const struct token *tok, const char *word)
{
	size_t n = strlen(word);

	return tok->len == n && !memcmp(tok->s, word, n);
}

static int lex_error(struct lexer *lx, unsigned col, const char *fmt, const struct token *tok)
{
	if (tok) {
		int n = tok->len > 40 ? 40 : (int)tok->len;

		dps_diag_set(lx->diag, lx->name, lx->line, col, "%s, got '%.*s'", fmt, n, tok->s);
	} else {
		dps_diag_set(lx->diag, lx->name, lx->line, col, "%s", fmt);
	}
	return DPS_ERR_INVAL;
}

/* Parses an unsigned decimal integer token. */
static int parse_u64(struct lexer *lx, const struct token *tok, const char *what, uint64_t *out)
{
	uint64_t v = 0;

	if (!tok->len) {
		return lex_error(lx, tok->col, what, tok);
	}
	for (size_t i = 0; i < tok->len; i++) {
		unsigned d;

		if (tok->s[i] < '0' || tok->s[i] > '9') {
			if (tok->s[i] == '-' && i == 0) {
				return lex_error(lx, tok->col, "expected a non-negative number",
						 tok);
			}
			return lex_error(lx, tok->col + (unsigned)i, what, tok);
		}
		d = (unsigned)(tok->s[i] - '0');
		if (v > (UINT64_MAX - d) / 10) {
			return lex_error(lx, tok->col, "number too large (at most 2^64-1)", tok);
		}
		v = v * 10 + d;
	}
	*out = v;
	return DPS_OK;
}

/*
 * Duration: digits ["." digits] [ns|us|ms|s], default unit µs. Stored in ns; more precision
 * than 1 ns, or more than 2^64-1 ns, is an error.
 */
static int parse_duration(struct lexer *lx, const struct token *tok, uint64_t *out_ns)
{
	static const char expected[] =
	    "expected a duration: digits with an optional fraction and unit (ns, us, ms, s)";
	const char *s = tok->s, *end = tok->s + tok->len;
	const char *unit;
	uint64_t whole = 0, frac = 0, scale, frac_div = 1, ns;
	unsigned frac_digits = 0;
	size_t unit_len;

	if (s < end && *s == '-') {
		return lex_error(lx, tok->col, "expected a non-negative duration", tok);
	}
	if (s >= end || *s < '0' || *s > '9') {
		return lex_error(lx, tok->col, expected, tok);
	}
	while (s < end && *s >= '0' && *s <= '9') {
		unsigned d = (unsigned)(*s - '0');

		if (whole > (UINT64_MAX - d) / 10) {
			return lex_error(lx, tok->col, "duration too large (at most 2^64-1 ns)",
					 tok);
		}
		whole = whole * 10 + d;
		s++;
	}
	if (s < end && *s == '.') {
		s++;
		if (s >= end || *s < '0' || *s > '9') {
			return lex_error(lx, tok->col + (unsigned)(s - tok->s), expected, tok);
		}
		while (s < end && *s >= '0' && *s <= '9') {
			if (frac_digits == 18) {
				return lex_error(lx, tok->col, "too many fraction digits", tok);
			}
			frac = frac * 10 + (uint64_t)(*s - '0');
			frac_div *= 10;
			frac_digits++;
			s++;
		}
	}
	unit = s;
	unit_len = (size_t)(end - s);
	if (unit_len == 0 || (unit_len == 2 && !memcmp(unit, "us", 2))) {
		scale = 1000;
	} else if (unit_len == 2 && !memcmp(unit, "ns", 2)) {
		scale = 1;
	} else if (unit_len == 2 && !memcmp(unit, "ms", 2)) {
		scale = 1000000;
	} else if (unit_len == 1 && *unit == 's') {
		scale = 1000000000;
	} else {
		return lex_error(lx, tok->col + (unsigned)(unit - tok->s),
				 "expected a unit: ns, us, ms or s", tok);
	}
	if (whole > UINT64_MAX / scale) {
		return lex_error(lx, tok->col, "duration too large (at most 2^64-1 ns)", tok);
	}
	ns = whole * scale;
	if (frac) {
		/* frac / frac_div * scale must be a whole number of ns. */
		unsigned __int128 f = (unsigned __int128)frac * scale;

		if (f % frac_div) {
			return lex_error(lx, tok->col, "duration finer than 1 ns", tok);
		}
		f /= frac_div;
		if (f > UINT64_MAX - ns) {
			return lex_error(lx, tok->col, "duration too large (at most 2^64-1 ns)",
					 tok);
		}
		ns += (uint64_t)f;
	}
	*out_ns = ns;
	return DPS_OK;
}

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
		return lex_error(lx, tok->col, "expected a byte count like +4096 or -4096", tok);
	}
	status = parse_u64(lx, &digits, "expected a byte count like +4096 or -4096", &v);
	if (status) {
		return status;
	}
	if (v > (uint64_t)INT64_MAX) {
		return lex_error(lx, tok->col, "byte count out of range (at most 2^63-1)", tok);
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

/* Whether a format version is one this dps reads. */
static bool is_known_version(uint64_t v)
{
	return v == DPS_ACTSET_FORMAT_V1 || v == DPS_ACTSET_FORMAT_VERSION;
}

/* Parses the member set "ID|ID|..." of a wait or join any into set->members; *first and *n
 * say where. */
static int parse_members(struct dps_actset *set, struct lexer *lx, const struct token *tok,
			 uint64_t *first, uint64_t *n)
{
	static const char what[] = "expected thread ids separated by '|' (like 4712|4713)";
	uint64_t ids[64];
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
			return lex_error(lx, part.col, what, tok);
		}
		if (count == sizeof(ids) / sizeof(ids[0])) {
			return lex_error(lx, part.col, "more than 64 threads in one set", NULL);
		}
		status = parse_u64(lx, &part, what, &ids[count]);
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

	if (*kind == DPS_ACT_JOIN && tok_is(arg, "any")) {
		if (!lexer_next(lx, arg)) {
			return lex_error(lx, lexer_eol_col(lx),
					 "expected thread ids after 'join any' (like 4712|4713)",
					 NULL);
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
	status = parse_u64(lx, arg, "expected a thread id (a decimal number)", &u);
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

		if (!lexer_next(lx, &more)) {
			return DPS_OK;
		}
		if (!tok_is(&more, "timeout")) {
			lx->p = save;
			return DPS_OK;
		}
		if (!lexer_next(lx, &more)) {
			return lex_error(lx, lexer_eol_col(lx),
					 "expected a duration after 'timeout' (like 300ms)", NULL);
		}
		status = parse_duration(lx, &more, aux);
		if (!status && *aux > (uint64_t)INT64_MAX) {
			status = lex_error(lx, more.col, "duration too large (at most 2^63-1 ns)",
					   &more);
		}
		*kind = DPS_ACT_WAIT_TIMEOUT;
	}
	return status;
}

static int parse_actions(struct dps_actset *set, size_t t, const char *name, const char *text,
			 size_t len, GArray *cols, struct dps_diag *diag)
{
	struct lexer lx = {
	    .name = name,
	    .p = text,
	    .line_start = text,
	    .end = text + len,
	    .line = 1,
	    .diag = diag,
	};
	bool first = true;
	uint64_t version = 0; /* this file's header; 0: none */
	int64_t stack_depth = 0;
	int status = DPS_OK;

	if (!len) {
		return DPS_OK;
	}
	do {
		struct token kw, arg, extra;
		enum dps_action_kind kind = 0;
		int64_t value = 0;
		uint64_t u, aux = 0;

		status = check_line(&lx);
		if (status) {
			return status;
		}
		if (!lexer_next(&lx, &kw)) {
			continue;
		}
		if (tok_is(&kw, "dps-actions")) {
			if (!first) {
				return lex_error(&lx, kw.col,
						 "'dps-actions' header must be the first statement",
						 NULL);
			}
			if (!lexer_next(&lx, &arg)) {
				return lex_error(&lx, lexer_eol_col(&lx),
						 "expected a format version after 'dps-actions'",
						 NULL);
			}
			status = parse_u64(&lx, &arg, "expected a format version number", &u);
			if (status) {
				return status;
			}
			if (!is_known_version(u)) {
				dps_diag_set(diag, name, lx.line, arg.col,
					     "unsupported action format version %" PRIu64
					     " (this dps reads versions %d and %d)",
					     u, DPS_ACTSET_FORMAT_V1, DPS_ACTSET_FORMAT_VERSION);
				return DPS_ERR_INVAL;
			}
			version = u;
			if ((int)u > set->format_version) {
				set->format_version = (int)u;
			}
			first = false;
			if (lexer_next(&lx, &extra)) {
				return lex_error(&lx, extra.col, "expected end of line", &extra);
			}
			continue;
		}
		first = false;
		for (uint32_t k = 1; k <= DPS_ACT_MAX; k++) {
			if (tok_is(&kw, dps_action_kind_name(k))) {
				kind = (enum dps_action_kind)k;
				break;
			}
		}
		if (!kind) {
			return lex_error(
			    &lx, kw.col,
			    "expected an action (run, sleep, create, join, wait, wake, "
			    "heap, stack, lock, unlock, put, take, arrive)",
			    &kw);
		}
		if (kind > DPS_ACT_MAX_V1 && version == DPS_ACTSET_FORMAT_V1) {
			return lex_error(&lx, kw.col,
					 "action of format version 2 in a file that says "
					 "'dps-actions 1': expected 'dps-actions 2'",
					 &kw);
		}
		if (!lexer_next(&lx, &arg)) {
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
			return lex_error(&lx, lexer_eol_col(&lx), what, NULL);
		}
		switch (kind) {
		case DPS_ACT_RUN:
		case DPS_ACT_SLEEP:
			status = parse_duration(&lx, &arg, &u);
			if (!status && u > (uint64_t)INT64_MAX) {
				status = lex_error(&lx, arg.col,
						   "duration too large (at most 2^63-1 ns)", &arg);
			}
			value = (int64_t)u;
			break;
		case DPS_ACT_HEAP:
			status = parse_delta(&lx, &arg, &value);
			break;
		case DPS_ACT_STACK:
			status = parse_delta(&lx, &arg, &value);
			if (!status &&
			    (value > ACTSET_MAX_STACK_BYTES || value < -ACTSET_MAX_STACK_BYTES ||
			     stack_depth + value > ACTSET_MAX_STACK_BYTES)) {
				dps_diag_set(diag, name, lx.line, arg.col,
					     "stack change beyond the limit: the depth may reach "
					     "at most %lld bytes (1 GiB), changes likewise",
					     ACTSET_MAX_STACK_BYTES);
				status = DPS_ERR_INVAL;
			}
			stack_depth += value;
			break;
		case DPS_ACT_LOCK:
		case DPS_ACT_UNLOCK:
		case DPS_ACT_PUT:
		case DPS_ACT_TAKE:
		case DPS_ACT_ARRIVE:
			status =
			    parse_u64(&lx, &arg, "expected an object id (a decimal number)", &u);
			value = (int64_t)u;
			break;
		case DPS_ACT_WAIT:
		case DPS_ACT_JOIN: {
			unsigned kw_col = kw.col;

			status = parse_wait_join(set, &lx, &arg, &kind, &value, &aux);
			if (!status && kind > DPS_ACT_MAX_V1 && version == DPS_ACTSET_FORMAT_V1) {
				status = lex_error(&lx, kw_col,
						   "action of format version 2 in a file that "
						   "says 'dps-actions 1': expected 'dps-actions 2'",
						   NULL);
			}
			break;
		}
		default:
			status =
			    parse_u64(&lx, &arg, "expected a thread id (a decimal number)", &u);
			value = (int64_t)u; /* the id: dps_actset_append stores it as such */
			break;
		}
		if (status == DPS_ERR_NOMEM) {
			dps_diag_set(diag, name, lx.line, 0, "out of memory");
		}
		if (status) {
			return status;
		}
		if (lexer_next(&lx, &extra)) {
			return lex_error(&lx, extra.col, "expected end of line", &extra);
		}
		status = dps_actset_append2(set, t, kind, value, aux, lx.line);
		if (status) {
			dps_diag_set(diag, name, lx.line, 0, "out of memory");
			return status;
		}
		record_col(cols, set->threads[t].n_actions - 1, arg.col);
	} while (lexer_next_line(&lx));
	return DPS_OK;
}

int dps_actset_parse_actions(struct dps_actset *set, size_t t, const char *name, const char *text,
			     size_t len, struct dps_diag *diag)
{
	return parse_actions(set, t, name, text, len, NULL, diag);
}

/*
 * Manifest
 */
static int parse_string(struct lexer *lx, const struct token *tok, char **out)
{
	char *buf, *w;

	if (tok->len < 2 || tok->s[0] != '"' || tok->s[tok->len - 1] != '"') {
		return lex_error(lx, tok->col, "expected a double-quoted string", tok);
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
				return lex_error(lx, tok->col, "unterminated string", NULL);
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
						return lex_error(
						    lx, tok->col + (unsigned)i,
						    "expected two hex digits after \\x", NULL);
					}
				}
				if (!v) {
					free(buf);
					return lex_error(lx, tok->col + (unsigned)i,
							 "\\x00 is not allowed in a string", NULL);
				}
				*w++ = (char)v;
				break;
			}
			default:
				free(buf);
				return lex_error(
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
	int status = parse_u64(lx, tok, what, &u);

	if (status) {
		return status;
	}
	if (u > (uint64_t)INT64_MAX) {
		return lex_error(lx, tok->col, "number out of range", tok);
	}
	*out = (int64_t)u;
	return DPS_OK;
}

static int expect_arg(struct lexer *lx, struct token *tok, const char *what)
{
	if (!lexer_next(lx, tok)) {
		return lex_error(lx, lexer_eol_col(lx), what, NULL);
	}
	return DPS_OK;
}

static int compare_ids(const void *a, const void *b)
{
	const struct dps_actset_thread *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static int parse_manifest_thread(struct dps_actset *set, struct lexer *lx)
{
	struct token tok, val;
	uint64_t id;
	size_t t;
	int status;

	status = expect_arg(lx, &tok, "expected a thread id after 'thread'");
	if (!status) {
		status = parse_u64(lx, &tok, "expected a thread id (a decimal number)", &id);
	}
	if (status) {
		return status;
	}
	/* load_dir sorted the threads by id before reading the manifest. */
	{
		struct dps_actset_thread key = {.id = id};
		const struct dps_actset_thread *hit =
		    set->n_threads
			? bsearch(&key, set->threads, set->n_threads, sizeof(key), compare_ids)
			: NULL;

		t = hit ? (size_t)(hit - set->threads) : DPS_ACTSET_NO_THREAD;
	}
	if (t == DPS_ACTSET_NO_THREAD) {
		dps_diag_set(lx->diag, lx->name, lx->line, tok.col,
			     "thread %" PRIu64 " has no action file %" PRIu64 ".act", id, id);
		return DPS_ERR_INVAL;
	}
	while (lexer_next(lx, &tok)) {
		struct dps_actset_thread *th = &set->threads[t];

		if (tok_is(&tok, "pre-existing")) {
			th->pre_existing = true;
			continue;
		}
		if (!tok_is(&tok, "tid") && !tok_is(&tok, "pid") && !tok_is(&tok, "comm") &&
		    !tok_is(&tok, "start") && !tok_is(&tok, "parent")) {
			return lex_error(lx, tok.col,
					 "expected a thread key (tid, pid, comm, start, parent, "
					 "pre-existing)",
					 &tok);
		}
		status = expect_arg(lx, &val, "expected a value after the key");
		if (status) {
			return status;
		}
		if (tok_is(&tok, "tid")) {
			status = parse_i64_tok(lx, &val, "expected a tid", &th->tid);
		} else if (tok_is(&tok, "pid")) {
			status = parse_i64_tok(lx, &val, "expected a pid", &th->pid);
		} else if (tok_is(&tok, "comm")) {
			char *s = NULL;

			status = parse_string(lx, &val, &s);
			if (!status) {
				free(th->comm);
				th->comm = s;
			}
		} else if (tok_is(&tok, "start")) {
			status = parse_duration(lx, &val, &th->start_offset_ns);
		} else {
			uint64_t parent;

			/* Informative: the real parent is derived from the create actions. */
			status = parse_u64(lx, &val, "expected a parent thread id", &parent);
		}
		if (status) {
			return status;
		}
	}
	return DPS_OK;
}

/* object ID mutex | object ID queue CAPACITY [INITIAL] | object ID barrier PARTIES */
static int parse_manifest_object(struct dps_actset *set, struct lexer *lx)
{
	struct token tok, val;
	uint64_t id, capacity = 0, initial = 0;
	uint32_t kind = 0;
	unsigned line = lx->line, col;
	int status;

	status = expect_arg(lx, &tok, "expected an object id after 'object'");
	if (!status) {
		status = parse_u64(lx, &tok, "expected an object id (a decimal number)", &id);
	}
	col = tok.col;
	if (!status) {
		status = expect_arg(lx, &tok, "expected an object kind (mutex, queue, barrier)");
	}
	if (status) {
		return status;
	}
	for (uint32_t k = 1; k <= DPS_OBJ_MAX; k++) {
		if (tok_is(&tok, dps_object_kind_name(k))) {
			kind = k;
		}
	}
	if (!kind) {
		return lex_error(lx, tok.col, "expected an object kind (mutex, queue, barrier)",
				 &tok);
	}
	if (kind == DPS_OBJ_QUEUE) {
		status = expect_arg(lx, &val, "expected the queue's capacity (0 = unbounded)");
		if (!status) {
			status = parse_u64(lx, &val, "expected a capacity (a decimal number)",
					   &capacity);
		}
		if (!status) {
			const char *save = lx->p;

			if (lexer_next(lx, &val)) {
				status = parse_u64(lx, &val,
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
			status = parse_u64(lx, &val, "expected a number of parties", &capacity);
		}
	}
	if (status) {
		return status;
	}
	if (kind == DPS_OBJ_BARRIER && !capacity) {
		return lex_error(lx, val.col, "a barrier of 0 parties: expected at least 1", NULL);
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
		status = parse_u64(lx, &tok, "expected an object id (a decimal number)", &id);
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

		if (!lexer_next(lx, &tok)) {
			lx->p = save;
			break;
		}
		status =
		    parse_u64(lx, &tok, "expected the id of the thread that took the item", &taker);
		if (!status) {
			g_array_append_val(ids, taker);
		}
	}
	if (!status && !ids->len) {
		status = lex_error(lx, lexer_eol_col(lx),
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

static int parse_manifest(struct dps_actset *set, const char *name, const char *text, size_t len,
			  int64_t *declared_root, unsigned *root_line, struct dps_diag *diag)
{
	struct lexer lx = {
	    .name = name,
	    .p = text,
	    .line_start = text,
	    .end = text + len,
	    .line = 1,
	    .diag = diag,
	};
	bool first = true;
	uint64_t manifest_version = 0;
	int status = DPS_OK;

	if (!len) {
		return DPS_OK;
	}
	do {
		struct token kw, arg;

		status = check_line(&lx);
		if (status) {
			return status;
		}
		if (!lexer_next(&lx, &kw)) {
			continue;
		}
		if (tok_is(&kw, "dps-manifest")) {
			uint64_t v;

			if (!first) {
				return lex_error(
				    &lx, kw.col,
				    "'dps-manifest' header must be the first statement", NULL);
			}
			status = expect_arg(&lx, &arg, "expected a format version");
			if (!status) {
				status =
				    parse_u64(&lx, &arg, "expected a format version number", &v);
			}
			if (status) {
				return status;
			}
			if (!is_known_version(v)) {
				dps_diag_set(diag, name, lx.line, arg.col,
					     "unsupported manifest version %" PRIu64
					     " (this dps reads versions %d and %d)",
					     v, DPS_ACTSET_FORMAT_V1, DPS_ACTSET_FORMAT_VERSION);
				return DPS_ERR_INVAL;
			}
			manifest_version = v;
			if ((int)v > set->format_version) {
				set->format_version = (int)v;
			}
		} else if (tok_is(&kw, "source") || tok_is(&kw, "options") ||
			   tok_is(&kw, "partial")) {
			char **member = tok_is(&kw, "source")	 ? &set->source_trace
					: tok_is(&kw, "options") ? &set->options
								 : &set->partial_reason;
			char *s = NULL;

			status = expect_arg(&lx, &arg, "expected a double-quoted string");
			if (!status) {
				status = parse_string(&lx, &arg, &s);
			}
			if (status) {
				return status;
			}
			free(*member);
			*member = s;
			if (member == &set->partial_reason) {
				set->partial = true;
			}
		} else if (tok_is(&kw, "root")) {
			int64_t root;

			status = expect_arg(&lx, &arg, "expected the root thread id");
			if (!status) {
				status = parse_i64_tok(&lx, &arg, "expected a thread id", &root);
			}
			if (status) {
				return status;
			}
			*declared_root = root;
			*root_line = lx.line;
		} else if (tok_is(&kw, "thread")) {
			status = parse_manifest_thread(set, &lx);
			if (status) {
				return status;
			}
		} else if (tok_is(&kw, "object")) {
			if (manifest_version == DPS_ACTSET_FORMAT_V1) {
				return lex_error(&lx, kw.col,
						 "'object' in a manifest that says 'dps-manifest "
						 "1': expected 'dps-manifest 2'",
						 NULL);
			}
			status = parse_manifest_object(set, &lx);
			if (status) {
				return status;
			}
		} else if (tok_is(&kw, "tasks")) {
			if (manifest_version == DPS_ACTSET_FORMAT_V1) {
				return lex_error(&lx, kw.col,
						 "'tasks' in a manifest that says 'dps-manifest "
						 "1': expected 'dps-manifest 2'",
						 NULL);
			}
			status = parse_manifest_tasks(set, &lx);
			if (status) {
				return status;
			}
		} else {
			return lex_error(&lx, kw.col,
					 "expected a manifest statement (dps-manifest, source, "
					 "options, partial, root, thread, object, tasks)",
					 &kw);
		}
		first = false;
		if (lexer_next(&lx, &arg)) {
			return lex_error(&lx, arg.col, "expected end of line", &arg);
		}
	} while (lexer_next_line(&lx));
	return DPS_OK;
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

/* "<digits>.act" -> id; false for any other name. */
static bool parse_act_name(const char *name, uint64_t *id)
{
	size_t len = strlen(name);
	uint64_t v = 0;

	if (len < 5 || strcmp(name + len - 4, ".act")) {
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

		if (!parse_act_name(de->d_name, &id)) {
			continue;
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
		qsort(set->threads, set->n_threads, sizeof(*set->threads), compare_ids);
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
		status = parse_manifest(set, path, text, len, &declared_root, &root_line, diag);
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

/*
 * Writing.
 */
