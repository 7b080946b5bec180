/* SPDX-License-Identifier: MIT */
/*
 * The lexer of an action set's files (actset-parse.h): one line at a time, tokens separated
 * by blanks, '#' starts a comment; and the number and duration parsers the action files and
 * the manifest share, with their messages. Every error names file:line:column and what was
 * expected.
 */
#include <inttypes.h>
#include <string.h>

#include "actset-parse.h"

/* A '\r' is a blank only as the first half of a CRLF line end (the line check rejects any
 * other). */
static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Files are text: lines of at most this many bytes (an action line is a few dozen). */
#define ACTSET_MAX_LINE_BYTES 4096

static unsigned lexer_col(const struct lexer *lx, const char *at)
{
	return (unsigned)(at - lx->line_start) + 1;
}

void dps_actset__lex_start(struct lexer *lx, const char *name, const char *text, size_t len,
			   struct dps_diag *diag)
{
	*lx = (struct lexer){
	    .name = name,
	    .p = text,
	    .line_start = text,
	    .end = text + len,
	    .line = 1,
	    .diag = diag,
	};
}

/* Next token on the current line; false at end of line or comment. Strings ("...") are one
 * token including the quotes. */
bool dps_actset__lex_next(struct lexer *lx, struct token *tok)
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
bool dps_actset__lex_next_line(struct lexer *lx)
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
int dps_actset__lex_check_line(struct lexer *lx)
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
unsigned dps_actset__lex_eol_col(const struct lexer *lx)
{
	const char *q = lx->p;

	while (q > lx->line_start && is_blank(q[-1])) {
		q--;
	}
	return lexer_col(lx, q) + 1;
}

bool dps_actset__tok_is(const struct token *tok, const char *word)
{
	size_t n = strlen(word);

	return tok->len == n && !memcmp(tok->s, word, n);
}

int dps_actset__lex_error(struct lexer *lx, unsigned col, const char *fmt, const struct token *tok)
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
int dps_actset__parse_u64(struct lexer *lx, const struct token *tok, const char *what,
			  uint64_t *out)
{
	uint64_t v = 0;

	if (!tok->len) {
		return dps_actset__lex_error(lx, tok->col, what, tok);
	}
	for (size_t i = 0; i < tok->len; i++) {
		unsigned d;

		if (tok->s[i] < '0' || tok->s[i] > '9') {
			if (tok->s[i] == '-' && i == 0) {
				return dps_actset__lex_error(lx, tok->col,
							     "expected a non-negative number", tok);
			}
			return dps_actset__lex_error(lx, tok->col + (unsigned)i, what, tok);
		}
		d = (unsigned)(tok->s[i] - '0');
		if (v > (UINT64_MAX - d) / 10) {
			return dps_actset__lex_error(lx, tok->col,
						     "number too large (at most 2^64-1)", tok);
		}
		v = v * 10 + d;
	}
	*out = v;
	return DPS_OK;
}

/*
 * Duration: digits ["." digits] [ns|us|ms|s], default unit µs. Stored in ns; more precision
 * than 1 ns, or more than DPS_ACTION_MAX_NS (what a played action holds, the one limit of
 * every duration of a set: runs, sleeps, timeouts, start offsets), is an error.
 */
#define DURATION_TOO_LARGE "duration too large (at most " DPS_ACTION_MAX_NS_TEXT ")"

int dps_actset__parse_duration(struct lexer *lx, const struct token *tok, uint64_t *out_ns)
{
	static const char expected[] =
	    "expected a duration: digits with an optional fraction and unit (ns, us, ms, s)";
	const char *s = tok->s, *end = tok->s + tok->len;
	const char *unit;
	uint64_t whole = 0, frac = 0, scale, frac_div = 1, ns;
	unsigned frac_digits = 0;
	size_t unit_len;

	if (s < end && *s == '-') {
		return dps_actset__lex_error(lx, tok->col, "expected a non-negative duration", tok);
	}
	if (s >= end || *s < '0' || *s > '9') {
		return dps_actset__lex_error(lx, tok->col, expected, tok);
	}
	while (s < end && *s >= '0' && *s <= '9') {
		unsigned d = (unsigned)(*s - '0');

		if (whole > (UINT64_MAX - d) / 10) {
			return dps_actset__lex_error(lx, tok->col, DURATION_TOO_LARGE, tok);
		}
		whole = whole * 10 + d;
		s++;
	}
	if (s < end && *s == '.') {
		s++;
		if (s >= end || *s < '0' || *s > '9') {
			return dps_actset__lex_error(lx, tok->col + (unsigned)(s - tok->s),
						     expected, tok);
		}
		while (s < end && *s >= '0' && *s <= '9') {
			if (frac_digits == 18) {
				return dps_actset__lex_error(lx, tok->col,
							     "too many fraction digits", tok);
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
		return dps_actset__lex_error(lx, tok->col + (unsigned)(unit - tok->s),
					     "expected a unit: ns, us, ms or s", tok);
	}
	if (whole > UINT64_MAX / scale) {
		return dps_actset__lex_error(lx, tok->col, DURATION_TOO_LARGE, tok);
	}
	ns = whole * scale;
	if (frac) {
		/* frac / frac_div * scale must be a whole number of ns. */
		unsigned __int128 f = (unsigned __int128)frac * scale;

		if (f % frac_div) {
			return dps_actset__lex_error(lx, tok->col, "duration finer than 1 ns", tok);
		}
		f /= frac_div;
		if (f > UINT64_MAX - ns) {
			return dps_actset__lex_error(lx, tok->col, DURATION_TOO_LARGE, tok);
		}
		ns += (uint64_t)f;
	}
	if (ns > (uint64_t)DPS_ACTION_MAX_NS) {
		return dps_actset__lex_error(lx, tok->col, DURATION_TOO_LARGE, tok);
	}
	*out_ns = ns;
	return DPS_OK;
}

int dps_actset__parse_version(struct lexer *lx, struct dps_actset *set, const struct token *tok,
			      const char *what, uint64_t *out)
{
	uint64_t v;
	int status = dps_actset__parse_u64(lx, tok, "expected a format version number", &v);

	if (status) {
		return status;
	}
	if (v < DPS_ACTSET_FORMAT_V1 || v > DPS_ACTSET_FORMAT_VERSION) {
		dps_diag_set(lx->diag, lx->name, lx->line, tok->col,
			     "unsupported %s version %" PRIu64
			     " (this dps reads versions %d to %d)",
			     what, v, DPS_ACTSET_FORMAT_V1, DPS_ACTSET_FORMAT_VERSION);
		return DPS_ERR_INVAL;
	}
	if ((int)v > set->format_version) {
		set->format_version = (int)v;
	}
	*out = v;
	return DPS_OK;
}
