/* SPDX-License-Identifier: MIT */
/*
 * The load_* lines of record.info: how busy the machine was while the command ran, so a
 * comparison can say when its figures were taken on a busy machine (doc/record.md).
 *   load_cpus N, load_wall_s S, load_own_pct P (the command's CPU time, of all CPUs' time),
 *   load_others_pct P (everything else that ran: other processes, the tracers), load_steal_pct P
 */
#include <stdio.h>
#include <string.h>

#include "record-internal.h"

void dps_record__write_load(const struct recording *r, FILE *f)
{
	const struct dps_load *l = &r->load;

	if (!l->known) {
		return;
	}
	fprintf(f,
		"load_cpus %d\nload_wall_s %.3f\nload_own_pct %.1f\nload_others_pct %.1f\n"
		"load_steal_pct %.1f\n",
		l->cpus, l->wall_s, l->own_pct, l->others_pct, l->steal_pct);
}

bool dps_record_info_load(const char *trace, struct dps_load *load)
{
	char path[4096], line[256];
	unsigned seen = 0;
	FILE *f;

	*load = (struct dps_load){0};
	if (snprintf(path, sizeof(path), "%s/record.info", trace) >= (int)sizeof(path)) {
		return false;
	}
	f = fopen(path, "r");
	if (!f) {
		return false;
	}
	while (fgets(line, sizeof(line), f)) {
		double v;

		if (sscanf(line, "load_cpus %lf", &v) == 1 && v >= 1) {
			load->cpus = (int)v;
			seen |= 1;
		} else if (sscanf(line, "load_wall_s %lf", &v) == 1 && v >= 0) {
			load->wall_s = v;
		} else if (sscanf(line, "load_own_pct %lf", &v) == 1 && v >= 0) {
			load->own_pct = v;
		} else if (sscanf(line, "load_others_pct %lf", &v) == 1 && v >= 0) {
			load->others_pct = v;
			seen |= 2;
		} else if (sscanf(line, "load_steal_pct %lf", &v) == 1 && v >= 0) {
			load->steal_pct = v;
		}
	}
	fclose(f);
	load->known = seen == 3;
	load->busy_pct = load->own_pct + load->others_pct;
	return load->known;
}
