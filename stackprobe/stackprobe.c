/* SPDX-License-Identifier: MIT */
/*
 * libdps-stackprobe: the -finstrument-functions hooks that measure the stack for recordings.
 *
 * A program compiled with -finstrument-functions calls __cyg_profile_func_enter/exit at every
 * function entry and exit (glibc defines empty ones). Linking this library, or preloading it
 * (LD_PRELOAD=libdps-stackprobe.so), replaces them with hooks that emit dps_stack:func_entry /
 * func_exit with the stack pointer of the instrumented function, which is a real measurement
 * of its stack depth, unlike a call depth times a guessed frame size.
 *
 * The hooks themselves must not be instrumented (they would recurse), and cost one predicted
 * branch when no session enables the events.
 */
#include <stdint.h>

#include "dps_stack_tp.h"

#define DPS_PROBE_HOOK __attribute__((no_instrument_function, visibility("default")))

void __cyg_profile_func_enter(void *this_fn, void *call_site) DPS_PROBE_HOOK;
void __cyg_profile_func_exit(void *this_fn, void *call_site) DPS_PROBE_HOOK;

/*
 * The instrumented function's stack pointer when it called the hook: this frame's canonical
 * frame address (the sp before the call pushed the return address). __builtin_frame_address
 * forces a frame pointer here, so the offset is exact on x86-64 and AArch64.
 */
static inline __attribute__((always_inline, no_instrument_function)) uint64_t caller_sp(void)
{
#if defined(__x86_64__)
	return (uint64_t)(uintptr_t)__builtin_frame_address(0) + 16;
#else
	return (uint64_t)(uintptr_t)__builtin_frame_address(0);
#endif
}

void __cyg_profile_func_enter(void *this_fn, void *call_site)
{
	(void)call_site;
	lttng_ust_tracepoint(dps_stack, func_entry, (uint64_t)(uintptr_t)this_fn, caller_sp());
}

void __cyg_profile_func_exit(void *this_fn, void *call_site)
{
	(void)call_site;
	lttng_ust_tracepoint(dps_stack, func_exit, (uint64_t)(uintptr_t)this_fn, caller_sp());
}
