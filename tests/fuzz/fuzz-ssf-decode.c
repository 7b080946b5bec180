/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the SSF decoder (runtime/ssf-codec.h, ssf/print.c): any bytes read
 * as an SSF file decode, in both forms, or are refused with "offset N: expected ...", never a
 * crash, leak, undefined behaviour or read past the input. What decodes must decode again the
 * same way (the decoder keeps no state between files). Run: tests/fuzz/run.sh SECONDS
 * ssf-decode.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ssf-tool.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dps_diag diag = {{0}}, again = {{0}};
	FILE *null = fopen("/dev/null", "w");
	int ret, ret2;

	if (!null) {
		return 0;
	}
	ret = ssf_decode_bytes(data, size, "fuzz", SSF_DECODE_LISTING, null, &diag);
	ret2 = ssf_decode_bytes(data, size, "fuzz", SSF_DECODE_NAMED, null, &again);
	fclose(null);
	if (ret != ret2 || (ret && strcmp(diag.msg, again.msg))) {
		fprintf(stderr, "the two forms disagree: %d \"%s\" / %d \"%s\"\n", ret, diag.msg,
			ret2, again.msg);
		__builtin_trap();
	}
	if (ret && ret != DPS_ERR_NOMEM && !strstr(diag.msg, "offset ")) {
		fprintf(stderr, "an error without an offset: %s\n", diag.msg);
		__builtin_trap();
	}
	return 0;
}
