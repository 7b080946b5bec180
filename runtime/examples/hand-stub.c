/* SPDX-License-Identifier: MIT */
/*
 * A hand-written "local stub" (the CPU-stub paper's PSF dropped into real code): the code
 * under study is replaced by a calibrated run and a sleep whose lengths you choose.
 *
 *	cc hand-stub.c $(pkg-config --cflags --libs dps) -o hand-stub
 *	DPS_CALIBRATION=my.cal ./hand-stub 2000 500
 */
#include <stdio.h>
#include <stdlib.h>

#include <dps/dps.h>

/* What used to be the real function: 2 ms of CPU, then waiting 0.5 ms on "I/O". */
static void stubbed_component(uint64_t run_us, uint64_t wait_us)
{
	dps_run_ns(run_us * 1000, DPS_RUN_CPU);
	dps_sleep_ns(wait_us * 1000);
}

int main(int argc, char **argv)
{
	uint64_t run_us = argc > 1 ? strtoull(argv[1], NULL, 10) : 2000;
	uint64_t wait_us = argc > 2 ? strtoull(argv[2], NULL, 10) : 500;
	const struct dps_calibration *cal;
	char err[256];

	if (dps_init(NULL, err, sizeof(err))) {
		fprintf(stderr, "hand-stub: %s\n", err);
		return 1;
	}
	cal = dps_calibration_borrow();
	for (int i = 0; i < 3; i++) {
		stubbed_component(run_us, wait_us);
	}
	printf("hand-stub: 3 x (run %llu us, sleep %llu us) with %.1f loops/us\n",
	       (unsigned long long)run_us, (unsigned long long)wait_us, cal->work_loops_per_us);
	return 0;
}
