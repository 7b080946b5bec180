/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the calibration file (runtime/calfile.c): any file read as a
 * calibration loads or is refused with "file:line: what was expected", never a crash, leak or
 * undefined behaviour. What loads must survive the writer: written and read again it loads
 * (a refusal traps). Run: tests/fuzz/run.sh SECONDS calfile.
 */
#include <stdint.h>
#include <stdio.h>

#include "calfile.h"
#include "fuzz-file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *dir = fuzz_tmp_dir();
	struct dps_calibration cpu, cpu2;
	struct dps_mem_calibration mem, mem2;
	char err[512], path[PATH_MAX];
	unsigned sections = 0;
	FILE *out;

	dps_calibration_default(&cpu);
	dps_mem_calibration_default(&mem);
	snprintf(path, sizeof(path), "%s", fuzz_write_file(dir, "calibration", data, size));
	if (dps_calfile_read(path, &cpu, &mem, &sections, err, sizeof(err))) {
		return 0;
	}
	snprintf(path, sizeof(path), "%s/written", dir);
	out = fopen(path, "w");
	if (!out) {
		return 0;
	}
	dps_calfile_write(out, sections & DPS_CALFILE_CPU ? &cpu : NULL,
			  sections & DPS_CALFILE_MEM ? &mem : NULL);
	fclose(out);
	dps_calibration_default(&cpu2);
	dps_mem_calibration_default(&mem2);
	if (dps_calfile_read(path, &cpu2, &mem2, NULL, err, sizeof(err))) {
		fprintf(stderr, "a calibration read cannot be read again once written: %s\n", err);
		__builtin_trap();
	}
	return 0;
}
