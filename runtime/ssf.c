/* SPDX-License-Identifier: MIT */
/*
 * libdps's SSF (dps/ssf.h, doc/ssf.md): one file per process, recorded, restored or checked.
 * One lock guards everything: saves and loads are rare next to the work they stand for, and
 * the entries of a run must keep the order of the calls.
 *
 * Recording appends a schema record the first time a schema is used, then one entry per save,
 * flushed at once (a program that dies keeps what it saved). Restoring and checking read the
 * whole file at open (the paper's choice: fast restores), and match each program schema with
 * an identical one of the file, so a header regenerated since the recording is an error, not
 * a wrong restore.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ssf-codec.h"

#define SSF_MAX_SCHEMAS 64

static pthread_mutex_t ssf_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	bool inited;
	enum dps_ssf_mode mode;
	char init_error[600]; /* why the environment's settings were refused */
	FILE *out;	      /* owned: RECORD */
	struct ssf_file file; /* owned: RESTORE, CHECK */
	uint32_t run;
	size_t run_start; /* first entry of the current run in file */
	/* RECORD: schemas written, their number is their index; RESTORE/CHECK: the file's
	 * schema index each program schema matches. */
	const struct dps_ssf_schema *schemas[SSF_MAX_SCHEMAS]; /* borrowed */
	uint32_t schema_no[SSF_MAX_SCHEMAS];
	uint32_t n_schemas;
} ssf;

static __thread char last_error[512];

int ssf_fail(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	return status;
}

const char *dps_ssf_last_error(void)
{
	return last_error;
}

static void close_locked(void)
{
	if (ssf.out) {
		fclose(ssf.out);
		ssf.out = NULL;
	}
	ssf_file_fini(&ssf.file);
	ssf.n_schemas = 0;
	ssf.run = 0;
	ssf.run_start = 0;
	ssf.mode = DPS_SSF_OFF;
}

static int open_locked(enum dps_ssf_mode mode, const char *path)
{
	char err[400];
	int ret;

	close_locked();
	ssf.inited = true;
	ssf.init_error[0] = 0;
	if (mode == DPS_SSF_OFF) {
		return DPS_OK;
	}
	if (mode == DPS_SSF_RECORD) {
		uint8_t header[SSF_HEADER_LEN] = SSF_MAGIC;

		header[8] = SSF_VERSION;
		header[10] = SSF_BYTE_ORDER_LITTLE;
		ssf.out = fopen(path, "wb");
		if (!ssf.out) {
			return ssf_fail(errno == ENOENT ? DPS_ERR_NOENT : DPS_ERR_IO,
					"Cannot create the SSF file: path=\"%s\", errno=%d", path,
					errno);
		}
		if (fwrite(header, sizeof(header), 1, ssf.out) != 1 || fflush(ssf.out)) {
			fclose(ssf.out);
			ssf.out = NULL;
			return ssf_fail(DPS_ERR_IO, "Cannot write the SSF file: path=\"%s\"", path);
		}
	} else if (mode == DPS_SSF_RESTORE || mode == DPS_SSF_CHECK) {
		ret = ssf_file_load(path, &ssf.file, err, sizeof(err));
		if (ret) {
			ssf_file_fini(&ssf.file);
			return ssf_fail(ret, "%s: %s", path, err);
		}
	} else {
		return ssf_fail(DPS_ERR_INVAL, "unknown SSF mode %d", (int)mode);
	}
	ssf.mode = mode;
	return DPS_OK;
}

static void close_at_exit(void)
{
	pthread_mutex_lock(&ssf_lock);
	close_locked();
	pthread_mutex_unlock(&ssf_lock);
}

/* The environment, read once. */
static void init_locked(void)
{
	static bool registered;
	const char *mode, *path;
	enum dps_ssf_mode m = DPS_SSF_OFF;

	if (!registered) {
		atexit(close_at_exit);
		registered = true;
	}
	if (ssf.inited) {
		return;
	}
	ssf.inited = true;
	mode = getenv("DPS_SSF_MODE");
	path = getenv("DPS_SSF_FILE");
	if (!path || !*path) {
		path = "dps.ssf";
	}
	if (!mode || !*mode || !strcmp(mode, "off")) {
		return;
	}
	if (!strcmp(mode, "record")) {
		m = DPS_SSF_RECORD;
	} else if (!strcmp(mode, "restore")) {
		m = DPS_SSF_RESTORE;
	} else if (!strcmp(mode, "check")) {
		m = DPS_SSF_CHECK;
	} else {
		snprintf(ssf.init_error, sizeof(ssf.init_error),
			 "DPS_SSF_MODE: expected record, restore, check or off");
		return;
	}
	if (open_locked(m, path)) {
		snprintf(ssf.init_error, sizeof(ssf.init_error), "%s", last_error);
	}
}

int dps_ssf_open(enum dps_ssf_mode mode, const char *path)
{
	int ret;

	pthread_mutex_lock(&ssf_lock);
	init_locked();
	ret = open_locked(mode, path ? path : "dps.ssf");
	pthread_mutex_unlock(&ssf_lock);
	return ret;
}

enum dps_ssf_mode dps_ssf_mode(void)
{
	enum dps_ssf_mode m;

	pthread_mutex_lock(&ssf_lock);
	init_locked();
	m = ssf.mode;
	pthread_mutex_unlock(&ssf_lock);
	return m;
}

int dps_ssf_close(void)
{
	int ret = DPS_OK;

	pthread_mutex_lock(&ssf_lock);
	if (ssf.out && fflush(ssf.out)) {
		ret = ssf_fail(DPS_ERR_IO, "Cannot write the SSF file");
	}
	close_locked();
	pthread_mutex_unlock(&ssf_lock);
	return ret;
}

uint32_t dps_ssf_run_begin(void)
{
	uint32_t run;

	pthread_mutex_lock(&ssf_lock);
	init_locked();
	run = ++ssf.run;
	while (ssf.run_start < ssf.file.n_entries && ssf.file.entries[ssf.run_start].run < run) {
		ssf.run_start++;
	}
	pthread_mutex_unlock(&ssf_lock);
	return run;
}

uint32_t dps_ssf_run(void)
{
	uint32_t run;

	pthread_mutex_lock(&ssf_lock);
	run = ssf.run;
	pthread_mutex_unlock(&ssf_lock);
	return run;
}

/* Checks the call's common arguments in mode want; DPS_OK or the error. */
static int check_call_locked(enum dps_ssf_mode want, const struct dps_ssf_schema *schema,
			     uint32_t type, const char *name)
{
	static const char *const names[] = {"off", "record", "restore", "check"};

	init_locked();
	if (ssf.init_error[0]) {
		return ssf_fail(DPS_ERR_INVAL, "%s", ssf.init_error);
	}
	if (ssf.mode != want) {
		return ssf_fail(DPS_ERROR, "%s: SSF is in mode %s, not %s", name ? name : "(null)",
				names[ssf.mode], names[want]);
	}
	if (!schema || !name || type >= schema->n_types) {
		return ssf_fail(DPS_ERR_INVAL, "%s: no schema, name or type",
				name ? name : "(null)");
	}
	return DPS_OK;
}

/* The number of schema in the file (RECORD: written now when new). */
static int schema_no_locked(const struct dps_ssf_schema *schema, uint32_t *no)
{
	char err[300];
	int ret;

	for (uint32_t i = 0; i < ssf.n_schemas; i++) {
		if (ssf.schemas[i] == schema) {
			*no = ssf.schema_no[i];
			return DPS_OK;
		}
	}
	if (ssf.n_schemas == SSF_MAX_SCHEMAS) {
		return ssf_fail(DPS_ERR_RANGE, "more than %d SSF schemas", SSF_MAX_SCHEMAS);
	}
	ret = ssf_schema_validate(schema, err, sizeof(err));
	if (ret) {
		return ssf_fail(ret, "schema %s: %s", schema->name ? schema->name : "(null)", err);
	}
	if (ssf.mode == DPS_SSF_RECORD) {
		struct ssf_buf b = {0};

		*no = ssf.n_schemas;
		ssf_buf_u8(&b, SSF_RECORD_SCHEMA);
		ssf_buf_u32(&b, *no);
		ssf_buf_u32(&b, 0);
		ssf_schema_write(&b, schema);
		if (b.failed) {
			ssf_buf_fini(&b);
			return ssf_fail(DPS_ERR_NOMEM, "out of memory");
		}
		for (unsigned i = 0; i < 4; i++) {
			b.data[5 + i] = (uint8_t)((b.len - 9) >> (8 * i));
		}
		ret = fwrite(b.data, b.len, 1, ssf.out) == 1 ? DPS_OK : DPS_ERR_IO;
		ssf_buf_fini(&b);
		if (ret) {
			return ssf_fail(ret, "Cannot write the SSF file");
		}
	} else {
		uint32_t i = 0;

		while (i < ssf.file.n_schemas && !ssf_schema_equal(schema, &ssf.file.schemas[i])) {
			i++;
		}
		if (i == ssf.file.n_schemas) {
			return ssf_fail(DPS_ERR_INVAL,
					"the SSF file has no schema equal to %s (was the header "
					"generated again since the recording?)",
					schema->name);
		}
		*no = i;
	}
	ssf.schemas[ssf.n_schemas] = schema;
	ssf.schema_no[ssf.n_schemas++] = *no;
	return DPS_OK;
}

int dps_ssf_save(const struct dps_ssf_schema *schema, uint32_t type, const char *name,
		 const void *obj)
{
	struct ssf_buf b = {0};
	char err[400];
	uint32_t no;
	int ret;

	pthread_mutex_lock(&ssf_lock);
	ret = check_call_locked(DPS_SSF_RECORD, schema, type, name);
	if (!ret && strlen(name) > 255) {
		ret = ssf_fail(DPS_ERR_INVAL, "an object name of more than 255 bytes");
	}
	for (const char *c = name; !ret && *c; c++) {
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || *c == '_' ||
		      (c != name && *c >= '0' && *c <= '9'))) {
			ret = ssf_fail(DPS_ERR_INVAL, "object name \"%s\": expected a C identifier",
				       name);
		}
	}
	ret = ret ? ret : schema_no_locked(schema, &no);
	if (ret) {
		goto unlock;
	}
	ssf_buf_u8(&b, SSF_RECORD_ENTRY);
	ssf_buf_u32(&b, ssf.run);
	ssf_buf_str(&b, name);
	ssf_buf_str(&b, schema->types[type].name);
	ssf_buf_u8(&b, obj ? 0 : SSF_ADDINFO_NULL);
	ssf_buf_u32(&b, no);
	ssf_buf_u32(&b, type);
	if (obj) {
		size_t at = b.len;

		ssf_buf_u32(&b, 0);
		ret = ssf_encode(schema, type, obj, name, &b, err, sizeof(err));
		if (ret) {
			ret = ssf_fail(ret, "%s (run %" PRIu32 "): %s", name, ssf.run, err);
			goto free_buf;
		}
		for (unsigned i = 0; i < 4; i++) {
			b.data[at + i] = (uint8_t)((b.len - at - 4) >> (8 * i));
		}
	}
	if (b.failed) {
		ret = ssf_fail(DPS_ERR_NOMEM, "out of memory");
		goto free_buf;
	}
	if (fwrite(b.data, b.len, 1, ssf.out) != 1 || fflush(ssf.out)) {
		ret = ssf_fail(DPS_ERR_IO, "Cannot write the SSF file: errno=%d", errno);
	}
free_buf:
	ssf_buf_fini(&b);
unlock:
	if (!ret) {
		last_error[0] = 0;
	}
	pthread_mutex_unlock(&ssf_lock);
	return ret;
}

/* The next unused entry of name in the current run, marked used; its schema and type must be
 * the caller's. */
static int next_entry_locked(const struct dps_ssf_schema *schema, uint32_t type, const char *name,
			     struct ssf_entry **out)
{
	uint32_t no;
	int ret = schema_no_locked(schema, &no);

	if (ret) {
		return ret;
	}
	for (size_t i = ssf.run_start; i < ssf.file.n_entries; i++) {
		struct ssf_entry *e = &ssf.file.entries[i];

		if (e->run != ssf.run || e->used || strcmp(e->name, name)) {
			continue;
		}
		if (e->schema != no || e->type != type) {
			return ssf_fail(DPS_ERR_INVAL,
					"%s (run %" PRIu32 "): recorded as %s, asked for as %s",
					name, ssf.run, e->type_name, schema->types[type].name);
		}
		e->used = true;
		*out = e;
		return DPS_OK;
	}
	return ssf_fail(DPS_ERR_NOENT, "%s (run %" PRIu32 "): no data recorded (no save left)",
			name, ssf.run);
}

int dps_ssf_load(const struct dps_ssf_schema *schema, uint32_t type, const char *name, void **dst)
{
	struct ssf_entry *e;
	char err[400];
	int ret;

	pthread_mutex_lock(&ssf_lock);
	ret = check_call_locked(DPS_SSF_RESTORE, schema, type, name);
	if (!ret && !dst) {
		ret = ssf_fail(DPS_ERR_INVAL, "%s: dst is NULL (pass the address of the pointer)",
			       name);
	}
	ret = ret ? ret : next_entry_locked(schema, type, name, &e);
	if (ret) {
		goto unlock;
	}
	if (e->add_info & SSF_ADDINFO_NULL) {
		/* Case 4: overwriting the caller's pointer with NULL would leak its object, and
		 * freeing it could free it twice; the caller decides. */
		if (*dst) {
			ret = ssf_fail(DPS_ERR_INVAL,
				       "%s (run %" PRIu32
				       "): NULL was recorded but an existing object "
				       "was passed (case 4: free it and pass NULL)",
				       name, ssf.run);
		}
		goto unlock; /* case 3 */
	}
	ret = ssf_decode(schema, type, e->data, e->size, e->data_offset, name, NULL, NULL, dst, err,
			 sizeof(err));
	if (ret) {
		ret = ssf_fail(ret, "%s (run %" PRIu32 "): %s", name, ssf.run, err);
	}
unlock:
	if (!ret) {
		last_error[0] = 0;
	}
	pthread_mutex_unlock(&ssf_lock);
	return ret;
}

/* The decoder's values as lines "path = text". */
static void collect(void *ctx, enum ssf_event_kind kind, unsigned depth, const char *path,
		    const struct dps_ssf_type *type, const char *text)
{
	struct ssf_buf *b = ctx;

	(void)depth;
	(void)type;
	if (kind == SSF_EV_LEAF) {
		ssf_buf_put(b, path, strlen(path));
		ssf_buf_put(b, " = ", 3);
		ssf_buf_put(b, text, strlen(text));
		ssf_buf_put(b, "\n", 1);
	}
}

/* The first line where a and b differ, reported as "path: recorded X, got Y". */
static int report_difference(const char *name, const char *a, const char *b)
{
	while (*a || *b) {
		const char *ea = strchr(a, '\n'), *eb = strchr(b, '\n');
		size_t la = ea ? (size_t)(ea - a) : strlen(a),
		       lb = eb ? (size_t)(eb - b) : strlen(b);

		if (la != lb || memcmp(a, b, la)) {
			const char *va = memchr(a, '=', la), *vb = memchr(b, '=', lb);

			if (!la || !lb || !va || !vb) {
				return ssf_fail(DPS_ERR_RANGE,
						"%s (run %" PRIu32
						"): the object has %s values than the "
						"recording",
						name, ssf.run, la ? "fewer" : "more");
			}
			return ssf_fail(DPS_ERR_RANGE, "%.*s: recorded %.*s, got %.*s",
					(int)(va - a - 1), a, (int)(la - (size_t)(va - a) - 2),
					va + 2, (int)(lb - (size_t)(vb - b) - 2), vb + 2);
		}
		a += la + (ea ? 1 : 0);
		b += lb + (eb ? 1 : 0);
	}
	return DPS_OK;
}

int dps_ssf_check(const struct dps_ssf_schema *schema, uint32_t type, const char *name,
		  const void *obj)
{
	struct ssf_buf live = {0}, want = {0}, got = {0};
	struct ssf_entry *e;
	char err[400];
	int ret;

	pthread_mutex_lock(&ssf_lock);
	ret = check_call_locked(DPS_SSF_CHECK, schema, type, name);
	ret = ret ? ret : next_entry_locked(schema, type, name, &e);
	if (ret) {
		goto unlock;
	}
	if ((e->add_info & SSF_ADDINFO_NULL) || !obj) {
		bool recorded_null = e->add_info & SSF_ADDINFO_NULL;

		if (recorded_null != !obj) {
			ret = ssf_fail(DPS_ERR_RANGE, "%s (run %" PRIu32 "): recorded %s, got %s",
				       name, ssf.run, recorded_null ? "NULL" : "an object",
				       obj ? "an object" : "NULL");
		}
		goto unlock;
	}
	ret = ssf_encode(schema, type, obj, name, &live, err, sizeof(err));
	ret = ret ? ret
		  : ssf_decode(schema, type, e->data, e->size, e->data_offset, name, collect, &want,
			       NULL, err, sizeof(err));
	ret = ret ? ret
		  : ssf_decode(schema, type, live.data, live.len, 0, name, collect, &got, NULL, err,
			       sizeof(err));
	if (!ret && (want.failed || got.failed)) {
		ret = DPS_ERR_NOMEM;
		snprintf(err, sizeof(err), "out of memory");
	}
	if (ret) {
		ret = ssf_fail(ret, "%s (run %" PRIu32 "): %s", name, ssf.run, err);
		goto free_bufs;
	}
	ssf_buf_put(&want, "", 1);
	ssf_buf_put(&got, "", 1);
	ret = want.failed || got.failed
		  ? ssf_fail(DPS_ERR_NOMEM, "out of memory")
		  : report_difference(name, (const char *)want.data, (const char *)got.data);
free_bufs:
	ssf_buf_fini(&live);
	ssf_buf_fini(&want);
	ssf_buf_fini(&got);
unlock:
	if (!ret) {
		last_error[0] = 0;
	}
	pthread_mutex_unlock(&ssf_lock);
	return ret;
}
