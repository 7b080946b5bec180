/* SPDX-License-Identifier: MIT */
/*
 * What the parser's files share (doc/action-format.md): the lexer and the token parsers both
 * grammars use (actset-lex.c), the manifest's grammar (actset-manifest.c), called by the
 * directory walk (actset-parse.c) once the action files are read and sorted by thread id.
 * Not part of actset.h's API.
 */
#ifndef DPS_COMMON_ACTSET_PARSE_H
#define DPS_COMMON_ACTSET_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* Starts lx at the first line of text (len bytes, named name in diag's messages). */
void dps_actset__lex_start(struct lexer *lx, const char *name, const char *text, size_t len,
			   struct dps_diag *diag);
/* Next token on the current line into *tok; false at end of line or comment. Strings ("...")
 * are one token including the quotes. */
bool dps_actset__lex_next(struct lexer *lx, struct token *tok);
/* Skips to the start of the next line; false at end of input. */
bool dps_actset__lex_next_line(struct lexer *lx);
/* Checks the current line is text (no control character, not too long) before any token of
 * it is read. Returns DPS_OK or DPS_ERR_INVAL (diag set). */
int dps_actset__lex_check_line(struct lexer *lx);
/* Column just after the last token, for "expected X" at end of line. */
unsigned dps_actset__lex_eol_col(const struct lexer *lx);
bool dps_actset__tok_is(const struct token *tok, const char *word);
/* Sets diag to "fmt, got 'tok'" (tok may be NULL) at column col. Returns DPS_ERR_INVAL. */
int dps_actset__lex_error(struct lexer *lx, unsigned col, const char *fmt, const struct token *tok);
/* The token as an unsigned decimal integer; what is the message when it is not one. Returns
 * DPS_OK or DPS_ERR_INVAL (diag set). */
int dps_actset__parse_u64(struct lexer *lx, const struct token *tok, const char *what,
			  uint64_t *out);
/* The token as a duration (digits ["." digits] [ns|us|ms|s], default unit us) in ns, at most
 * DPS_ACTION_MAX_NS. Returns DPS_OK or DPS_ERR_INVAL (diag set). */
int dps_actset__parse_duration(struct lexer *lx, const struct token *tok, uint64_t *out_ns);
/* The token as the format version of a file's header line (what: the file's kind for the
 * message, "manifest" or "action format"): one this dps reads, and set->format_version raised
 * to it. Returns DPS_OK or DPS_ERR_INVAL (diag set). */
int dps_actset__parse_version(struct lexer *lx, struct dps_actset *set, const struct token *tok,
			      const char *what, uint64_t *out);

/* qsort/bsearch order of struct dps_actset_thread: by id. */
int dps_actset__compare_thread_ids(const void *a, const void *b);

/*
 * Parses the manifest text (len bytes, named name) into set, whose threads are read and sorted
 * by id already; *declared_root and *root_line get its `root` statement's id and line (left as
 * they are without one). Returns DPS_OK, DPS_ERR_INVAL (diag: file:line:column) or
 * DPS_ERR_NOMEM.
 */
int dps_actset__parse_manifest(struct dps_actset *set, const char *name, const char *text,
			       size_t len, int64_t *declared_root, unsigned *root_line,
			       struct dps_diag *diag);

#endif /* DPS_COMMON_ACTSET_PARSE_H */
