/* SPDX-License-Identifier: MIT */
/* A program with one local CPU stub region run three times (test-stub-live): 2 ms of CPU in
 * the original code; the mode comes from the environment (dps/stub.h). */
#include <dps/dps.h>
#include <dps/stub.h>

int main(void)
{
	for (int i = 0; i < 3; i++) {
		if (dps_stub_begin("work")) {
			dps_run_ns(2 * 1000 * 1000, DPS_RUN_CPU);
		}
		dps_stub_end("work");
	}
	return 0;
}
