/* SPDX-License-Identifier: MIT */
/*
 * The papers' busy loop, alone in its file so that nothing else's optimisation settings or
 * inlining decisions change it: calibration measures exactly this code.
 *
 * The empty asm statement with a memory clobber and the counter as an in/out operand is a
 * compiler barrier: the compiler must assume each iteration reads and writes memory and changes
 * the counter, so it cannot drop the loop, fold it into a closed form or vectorise it, at -O3
 * with -ffast-math or any other level. No libm call or volatile store is needed.
 */
#include <stdint.h>

#include <dps/dps.h>

void dps_work_loops(uint64_t loops)
{
	for (uint64_t i = 0; i < loops; i++) {
		__asm__ __volatile__("nop" : "+r"(i) : : "memory");
	}
}
