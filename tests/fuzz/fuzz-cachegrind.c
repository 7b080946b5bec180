/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for cachegrind's output file (cache/cg-parse.c): any file read as one
 * loads or is refused with "file:line:column: what was expected", never a crash, leak or
 * undefined behaviour. What loads must be consistent: the whole program's figures are the
 * summary's, and no function has more than the whole program (their sum is the summary's).
 * Run: tests/fuzz/run.sh SECONDS cachegrind.
 */
#include <stdint.h>
#include <stdio.h>

#include <dps/dps-status.h>

#include "cache.h"
#include "diag.h"
#include "fuzz-file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_write_file(fuzz_tmp_dir(), "cachegrind.out", data, size);
	struct cache_profile *p = NULL;
	struct dps_diag diag = {{0}};
	uint64_t loads = 0;
	bool wrapped = false;

	if (cache_profile_read(path, &p, &diag)) {
		if (p || !diag.msg[0]) {
			fprintf(stderr, "a refused file gave a profile or no message\n");
			__builtin_trap();
		}
		return 0;
	}
	for (guint i = 0; i < p->functions->len; i++) {
		const struct cache_function *f = g_ptr_array_index(p->functions, i);

		wrapped |= loads + f->counts.loads < loads;
		loads += f->counts.loads;
	}
	if (!wrapped && loads != p->total.loads) {
		fprintf(stderr, "the functions' loads (%llu) are not the summary's (%llu)\n",
			(unsigned long long)loads, (unsigned long long)p->total.loads);
		__builtin_trap();
	}
	cache_profile_destroy(p);
	return 0;
}
