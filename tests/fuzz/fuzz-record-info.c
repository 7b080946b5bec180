/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the record.info reader (record/record-info.c): any file as a trace's
 * record.info gives a pid or none, never a crash, leak or undefined behaviour.
 * Run: tests/fuzz/run.sh SECONDS record-info.
 */
#include <stdint.h>
#include <stdio.h>

#include "fuzz-file.h"
#include "record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *trace = fuzz_tmp_dir();
	int64_t pid = 0;

	fuzz_write_file(trace, "record.info", data, size);
	if (dps_record_info_pid(trace, &pid) && pid <= 0) {
		fprintf(stderr, "record.info gave pid %lld\n", (long long)pid);
		__builtin_trap();
	}
	return 0;
}
