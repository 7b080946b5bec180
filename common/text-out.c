/* SPDX-License-Identifier: MIT */
/* The escapers of text-out.h: one UTF-8 validator, one step for multi-byte sequences. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "text-out.h"

/* Length of a valid UTF-8 sequence at s, 0 if invalid. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n;
	uint32_t cp;

	if (s[0] < 0x80) {
		return 1;
	} else if ((s[0] & 0xe0) == 0xc0) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80) {
			return 0;
		}
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates and beyond U+10FFFF are invalid */
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) {
		return 0;
	}
	return n;
}

/*
 * One step of the escapers below for what is not plain ASCII: a valid UTF-8 sequence is copied
 * as it is, an invalid byte becomes `replacement` (U+FFFD in the output's syntax). Returns
 * false, without moving, on an ASCII byte, which the caller escapes its own way.
 */
static bool copy_multibyte(FILE *out, const unsigned char **p, const char *replacement)
{
	size_t n = utf8_len(*p);

	if (n == 0) {
		fputs(replacement, out);
		(*p)++;
		return true;
	}
	if (n > 1) {
		fwrite(*p, 1, n, out);
		*p += n;
		return true;
	}
	return false;
}

void dps_json_string(FILE *out, const char *s, bool html_safe)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	fputc('"', out);
	while (*p) {
		if (copy_multibyte(out, &p, "\\ufffd")) {
			continue;
		}
		if (*p == '"' || *p == '\\') {
			fprintf(out, "\\%c", *p);
		} else if (*p < 0x20 || *p == 0x7f ||
			   (html_safe && (*p == '<' || *p == '>' || *p == '&'))) {
			fprintf(out, "\\u%04x", *p);
		} else {
			fputc(*p, out);
		}
		p++;
	}
	fputc('"', out);
}

void dps_html_escape(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	while (*p) {
		if (copy_multibyte(out, &p, "&#xfffd;")) {
			continue;
		}
		switch (*p) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&#39;", out);
			break;
		default:
			fputc(*p < 0x20 ? '?' : *p, out);
			break;
		}
		p++;
	}
}

/* A finite double for JSON (NaN/inf have no JSON form: null). */
void dps_json_double(FILE *out, double v)
{
	if (isfinite(v)) {
		fprintf(out, "%.6g", v);
	} else {
		fputs("null", out);
	}
}

void dps_text_sanitize(const char *in, char *out, size_t len)
{
	const unsigned char *p = (const unsigned char *)in;
	size_t i = 0;

	while (*p) {
		size_t n = utf8_len(p);

		if (n == 0 || n == 1) {
			if (i + 2 > len) {
				break;
			}
			out[i++] = (n == 0 || *p < 0x20 || *p == 0x7f) ? '?' : (char)*p;
			p++;
			continue;
		}
		if (i + n + 1 > len) {
			break;
		}
		memcpy(out + i, p, n);
		i += n;
		p += n;
	}
	out[i] = '\0';
}
