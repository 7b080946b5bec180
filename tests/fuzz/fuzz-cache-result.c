/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the result file of dps cache capture -o (`dps-cache 1`,
 * cache/result-read.c), which dps cache apply reads: any file loads or is refused with a
 * message, never a crash, leak or undefined behaviour. What loads writes back (output.c) and
 * reads again with the same whole-program figures and as many functions with a data access.
 * Run: tests/fuzz/run.sh SECONDS cache-result.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <dps/dps-status.h>

#include "cache.h"
#include "diag.h"
#include "fuzz-file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The functions of p with a data access (what the writer writes without names). */
static unsigned with_access(const struct cache_profile *p)
{
	unsigned n = 0;

	for (guint i = 0; i < p->functions->len; i++) {
		const struct cache_function *f = g_ptr_array_index(p->functions, i);

		n += f->counts.loads || f->counts.stores;
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_write_file(fuzz_tmp_dir(), "result.cache", data, size);
	struct cache_profile *p = NULL, *q = NULL;
	struct dps_diag diag = {{0}};
	char again[PATH_MAX];
	FILE *f;

	if (cache_result_read(path, &p, &diag)) {
		if (p || !diag.msg[0]) {
			fprintf(stderr, "a refused file gave a profile or no message\n");
			__builtin_trap();
		}
		return 0;
	}
	snprintf(again, sizeof(again), "%s/again.cache", fuzz_tmp_dir());
	f = fopen(again, "w");
	if (!f || cache_result_write(f, p, NULL, NULL, 0) || fclose(f)) {
		fprintf(stderr, "cannot write %s\n", again);
		__builtin_trap();
	}
	if (cache_result_read(again, &q, &diag)) {
		fprintf(stderr, "what was read and written back is refused: %s\n", diag.msg);
		__builtin_trap();
	}
	if (memcmp(&p->total, &q->total, sizeof(p->total)) || q->functions->len != with_access(p)) {
		fprintf(stderr, "written back, the figures changed\n");
		__builtin_trap();
	}
	cache_profile_destroy(p);
	cache_profile_destroy(q);
	return 0;
}
