/* SPDX-License-Identifier: MIT */
/*
 * dps ssf decode (doc/ssf.md): an SSF file as text, from the type descriptions the file
 * carries (no program needed). Two forms: the paper's Listing 3 (semicolon-separated, one
 * line for the entry's fields, one for its data) and a named one after its Listing 9 (the
 * entry's fields named, then "conn.fd = 3" per value, nested values indented). Values go
 * through libdps's decoder, the one restore uses, so what is printed is what would be
 * restored. Names in the file were checked to be C identifiers or type spellings when it was
 * parsed, and strings are escaped: nothing from the file reaches the terminal raw.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ssf-codec.h"
#include "ssf-tool.h"

struct printer {
	FILE *out;
	enum ssf_decode_form form;
	int extra; /* indentation of the values of objects after the entry's own */
};

static void print_event(void *ctx, enum ssf_event_kind kind, unsigned depth, const char *path,
			const struct dps_ssf_type *type, const char *text)
{
	struct printer *p = ctx;

	(void)type;
	if (p->form == SSF_DECODE_LISTING) {
		if (kind == SSF_EV_LEAF) {
			fprintf(p->out, "%s;", text);
		}
		return;
	}
	switch (kind) {
	case SSF_EV_OBJECT:
		fprintf(p->out, "  %s = %s:\n", path, text);
		p->extra = 2;
		break;
	case SSF_EV_ENTER:
		/* the entry's or object's own line already names the outermost value */
		if (depth) {
			fprintf(p->out, "%*s%s:\n", p->extra + 2 * (int)depth, "", path);
		}
		break;
	case SSF_EV_LEAF:
		fprintf(p->out, "%*s%s = %s\n", p->extra + 2 * (int)(depth ? depth : 1), "", path,
			text);
		break;
	}
}

static int decode_parsed(struct ssf_file *f, const char *label, enum ssf_decode_form form,
			 FILE *out, struct dps_diag *diag)
{
	struct printer p = {out, form, 0};
	char err[400];
	int ret;

	for (size_t i = 0; i < f->n_entries; i++) {
		const struct ssf_entry *e = &f->entries[i];
		const struct dps_ssf_schema *s = &f->schemas[e->schema];
		bool null = e->add_info & SSF_ADDINFO_NULL;

		if (form == SSF_DECODE_LISTING) {
			fprintf(out, "%" PRIu32 ";%" PRIu32 ";%s;%" PRIu32 ";%s;%u;\n", e->run,
				e->name_size, e->name, e->type_name_size, e->type_name,
				e->add_info);
			if (!null) {
				fprintf(out, "%" PRIu32 ";", e->size);
			}
		} else {
			fprintf(out,
				"testrun:%" PRIu32 "; sizeObjectName:%" PRIu32
				"; objectName:%s; sizeObjectType:%" PRIu32
				"; objectType:%s; addInfo:%u;\n",
				e->run, e->name_size, e->name, e->type_name_size, e->type_name,
				e->add_info);
			if (!null) {
				fprintf(out, "  sizeOfData:%" PRIu32 ";\n", e->size);
			}
		}
		if (null) {
			continue;
		}
		p.extra = 0;
		ret = ssf_decode(s, e->type, e->data, e->size, e->data_offset, e->name, print_event,
				 &p, NULL, err, sizeof(err));
		if (form == SSF_DECODE_LISTING) {
			fputc('\n', out);
		}
		if (ret) {
			dps_diag_setf(diag, "%s: %s (entry %zu: %s, run %" PRIu32 ")", label, err,
				      i + 1, e->name, e->run);
			return ret;
		}
	}
	return DPS_OK;
}

int ssf_decode_bytes(const void *bytes, size_t len, const char *label, enum ssf_decode_form form,
		     FILE *out, struct dps_diag *diag)
{
	struct ssf_file f;
	uint8_t *copy = malloc(len ? len : 1);
	char err[400];
	int ret;

	if (!copy) {
		dps_diag_setf(diag, "out of memory");
		return DPS_ERR_NOMEM;
	}
	if (len) {
		memcpy(copy, bytes, len);
	}
	ret = ssf_file_parse(copy, len, &f, err, sizeof(err));
	if (ret) {
		dps_diag_setf(diag, "%s: %s", label, err);
	} else {
		ret = decode_parsed(&f, label, form, out, diag);
	}
	ssf_file_fini(&f);
	return ret;
}

int ssf_decode_file(const char *path, enum ssf_decode_form form, FILE *out, struct dps_diag *diag)
{
	struct ssf_file f;
	char err[400];
	int ret;

	ret = ssf_file_load(path, &f, err, sizeof(err));
	if (ret) {
		dps_diag_setf(diag, "%s%s%s", ret == DPS_ERR_INVAL ? path : "",
			      ret == DPS_ERR_INVAL ? ": " : "", err);
	} else {
		ret = decode_parsed(&f, path, form, out, diag);
	}
	ssf_file_fini(&f);
	return ret;
}
