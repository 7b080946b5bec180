/* SPDX-License-Identifier: MIT */
/*
 * The SSF file format and the one engine over it (ssf-codec.c, format in doc/ssf.md): schemas
 * checked, written and read back; objects encoded from memory, decoded into memory or into
 * text events. libdps's ssf.c and the tools' decoder (ssf/print.c) share it, so recording,
 * restoring, checking and printing cannot disagree about a byte.
 *
 * Every reader checks bounds before it reads: a bad file gives DPS_ERR_INVAL and
 * "offset N: expected WHAT" in err, never a read past the buffer.
 */
#ifndef DPS_RUNTIME_SSF_CODEC_H
#define DPS_RUNTIME_SSF_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dps/ssf.h>

#define SSF_MAGIC "DPS-SSF\n"
#define SSF_MAGIC_LEN 8
#define SSF_VERSION 1
#define SSF_HEADER_LEN 16
#define SSF_BYTE_ORDER_LITTLE 1
#define SSF_RECORD_SCHEMA 'S'
#define SSF_RECORD_ENTRY 'E'
#define SSF_ADDINFO_NULL 0x01u
#define SSF_MAX_DEPTH 32

/* A growing byte buffer; failed is set (and kept) when an allocation fails. */
struct ssf_buf {
	uint8_t *data; /* owned */
	size_t len, cap;
	bool failed;
};

void ssf_buf_put(struct ssf_buf *b, const void *p, size_t n);
void ssf_buf_u8(struct ssf_buf *b, uint8_t v);
void ssf_buf_u16(struct ssf_buf *b, uint16_t v);
void ssf_buf_u32(struct ssf_buf *b, uint32_t v);
void ssf_buf_u64(struct ssf_buf *b, uint64_t v);
void ssf_buf_str(struct ssf_buf *b, const char *s); /* u32 size with the NUL, the bytes */
void ssf_buf_fini(struct ssf_buf *b);

/*
 * Checks a schema (from generated code or from a file): indices in range, sizes consistent,
 * names that are C identifiers or type spellings, no type containing itself by value, nesting
 * at most SSF_MAX_DEPTH. DPS_OK or DPS_ERR_INVAL with what is wrong in err.
 */
int ssf_schema_validate(const struct dps_ssf_schema *s, char *err, size_t errlen);
/* True when a and b describe the same types in the same order (names, sizes, offsets...). */
bool ssf_schema_equal(const struct dps_ssf_schema *a, const struct dps_ssf_schema *b);
/* The body of a schema record (after kind and number): name, types. */
void ssf_schema_write(struct ssf_buf *b, const struct dps_ssf_schema *s);

/*
 * Encodes the object of type at obj and everything it reaches (the data of an entry). DPS_OK,
 * DPS_ERR_NOMEM, or DPS_ERR_INVAL naming the member (a tag without a case, a negative length)
 * with root as the path's first name.
 */
int ssf_encode(const struct dps_ssf_schema *s, uint32_t type, const void *obj, const char *root,
	       struct ssf_buf *out, char *err, size_t errlen);

/* One record of kind 'E'. */
struct ssf_entry {
	size_t offset; /* of the record in the file */
	uint32_t run;
	const char *name; /* borrowed from the file's bytes, NUL-terminated */
	const char *type_name;
	uint32_t name_size, type_name_size; /* with the NUL, as in the file */
	uint8_t add_info;		    /* bit 0: NULL was saved */
	uint32_t schema;		    /* index in the file's schemas */
	uint32_t type;
	uint32_t size;	     /* of data */
	const uint8_t *data; /* borrowed */
	size_t data_offset;
	bool used; /* restore/check: consumed */
};

/* A whole file in memory. */
struct ssf_file {
	uint8_t *bytes; /* owned */
	size_t len;
	uint32_t n_schemas;
	struct dps_ssf_schema *schemas; /* owned, with everything they point to (arena) */
	size_t n_entries;
	struct ssf_entry *entries; /* owned */
	void *arena;		   /* owned: the schemas' memory */
};

/*
 * Parses len bytes (ownership of bytes, malloc'd, passes to f even on error). Checks the
 * header, every record's bounds and every schema; entry data is checked when decoded.
 * DPS_OK; DPS_ERR_INVAL with "offset N: expected ..." in err; DPS_ERR_NOMEM. f is always
 * safe to ssf_file_fini.
 */
int ssf_file_parse(uint8_t *bytes, size_t len, struct ssf_file *f, char *err, size_t errlen);
/* Reads path whole and parses it; DPS_ERR_NOENT/IO when it cannot be read. */
int ssf_file_load(const char *path, struct ssf_file *f, char *err, size_t errlen);
void ssf_file_fini(struct ssf_file *f);

/* What the decoder reports, in order, when decoding to text. */
enum ssf_event_kind {
	SSF_EV_OBJECT, /* an object begins: path is "#id", text its type and count */
	SSF_EV_ENTER,  /* a struct, union or array value begins; children are at depth + 1 */
	SSF_EV_LEAF,   /* a value: text is its printed form */
};

typedef void (*ssf_event_fn)(void *ctx, enum ssf_event_kind kind, unsigned depth, const char *path,
			     const struct dps_ssf_type *type, const char *text);

/*
 * Decodes data (an entry's) of root type under schema s. Each object is checked (bounds,
 * types of pointed objects, case numbers). With ev, reports every value (paths begin with
 * root). With restore, writes the objects into memory: *restore NULL gets a new object
 * (calloc), else the root is written into *restore; pointed objects and strings are always
 * new (malloc). Returns DPS_OK; DPS_ERR_INVAL with "offset N: expected ..." (base is the file
 * offset of data); DPS_ERR_NOMEM (nothing allocated is left behind).
 */
int ssf_decode(const struct dps_ssf_schema *s, uint32_t root, const uint8_t *data, size_t size,
	       size_t base, const char *root_name, ssf_event_fn ev, void *ctx, void **restore,
	       char *err, size_t errlen);

/* text-safe copies of a string value: "..." with \" \\ \n \t \xNN; a new string (free). */
char *ssf_quote(const char *s, size_t len);

/* Sets the calling thread's dps_ssf_last_error() and returns status (ssf.c; stub.c too). */
int ssf_fail(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Shared by ssf-codec.c and ssf-decode.c. */
/* The fewest bytes a value of type t encodes to; how many values decoding one visits. */
uint64_t ssf_min_encoded(const struct dps_ssf_schema *s, uint32_t t, unsigned depth);
uint64_t ssf_visits(const struct dps_ssf_schema *s, uint32_t t, unsigned depth);
void ssf_set_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
bool ssf_host_is_little(void);
void ssf_store_uint(void *p, unsigned n, uint64_t v);
int64_t ssf_sign_extend(uint64_t v, unsigned bits);
void ssf_store_bits(uint8_t *base, unsigned bit, unsigned n, uint64_t v);
bool ssf_is_ident(const char *s);

#endif /* DPS_RUNTIME_SSF_CODEC_H */
