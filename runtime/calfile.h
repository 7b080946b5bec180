/* SPDX-License-Identifier: MIT */
/*
 * The one calibration file (calfile.c): the CPU and the memory calibration, sections of one
 * versioned file, read and written by one table-driven module. libdps's public load/save
 * functions (dps.h, dps-memory.h) are thin wrappers over these.
 */
#ifndef DPS_RUNTIME_CALFILE_H
#define DPS_RUNTIME_CALFILE_H

#include <stdio.h>

#include <dps/dps-memory.h>
#include <dps/dps.h>

/* Sections of the file (bits). */
#define DPS_CALFILE_CPU 1u
#define DPS_CALFILE_MEM 2u

/*
 * Reads path. cpu and mem (either may be NULL: that section is checked but not kept) must
 * hold their defaults: keys the file lacks keep them. *sections (may be NULL) gets the
 * sections the file has. Returns DPS_OK (err may then list keys missing from a section that
 * is there), DPS_ERR_INVAL with "file:line: what was expected" in err (older formats say
 * their version), DPS_ERR_NOENT or DPS_ERR_IO.
 */
int dps_calfile_read(const char *path, struct dps_calibration *cpu, struct dps_mem_calibration *mem,
		     unsigned *sections, char *err, size_t errlen);

/* Writes the header and the sections given (NULL: left out). DPS_OK or DPS_ERR_IO. */
int dps_calfile_write(FILE *out, const struct dps_calibration *cpu,
		      const struct dps_mem_calibration *mem);

/* Replaces path atomically with the sections given; a section given as NULL keeps what an
 * existing, readable file at path had. DPS_OK, or DPS_ERR_IO with the reason in err. */
int dps_calfile_save(const char *path, const struct dps_calibration *cpu,
		     const struct dps_mem_calibration *mem, char *err, size_t errlen);

/* "CPU (dps calibrate)" or "memory (dps calibrate --memory)". */
const char *dps_calfile_section_name(unsigned section);

#endif /* DPS_RUNTIME_CALFILE_H */
