/* SPDX-License-Identifier: MIT */
/*
 * Text out of dps's hands: names and paths from traces and action sets are outside input, so
 * every JSON document, HTML report and terminal table writes them through these, once.
 * Invalid UTF-8 never reaches the output: it becomes U+FFFD (JSON, HTML) or '?' (terminal).
 */
#ifndef DPS_COMMON_TEXT_OUT_H
#define DPS_COMMON_TEXT_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Writes s (NULL: "") as a JSON string, quotes included. Control characters become \u00XX;
 * with html_safe, '<', '>' and '&' do too, so the text can sit inside a <script> element. */
void dps_json_string(FILE *out, const char *s, bool html_safe);
/* Writes a finite double as a JSON number (%.6g); NaN and infinities, which JSON cannot
 * represent, as null. */
void dps_json_double(FILE *out, double v);
/* Writes s (NULL: "") with &, <, >, " and ' as HTML entities; control characters as '?'. */
void dps_html_escape(FILE *out, const char *s);
/* Copies in into out (len bytes, len >= 1) for a terminal: control characters (escape
 * sequences) and invalid UTF-8 become '?', and a name cut to fit is cut between characters. */
void dps_text_sanitize(const char *in, char *out, size_t len);

#endif /* DPS_COMMON_TEXT_OUT_H */
