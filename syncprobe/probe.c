/* SPDX-License-Identifier: MIT */
/*
 * The helpers of probe.h that are not macros: the next definition of a wrapped function, the
 * tracepoint guard's thread variable and the time left until a deadline, defined once for every
 * primitive's file.
 */
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "probe.h"

__thread int syncprobe_in_probe __attribute__((tls_model("initial-exec")));

/*
 * dlsym without a version gives the oldest one, whose layout may differ (pthread_cond_* of
 * GLIBC_2.2.5): the version programs link is asked for first. A program's versioned reference
 * binds to this library's unversioned definition (the dynamic loader accepts the global
 * version for any version asked).
 */
void *syncprobe_next_def(const char *name, const char *version)
{
	void *f = version ? dlvsym(RTLD_NEXT, name, version) : NULL;

	return f ? f : dlsym(RTLD_NEXT, name);
}

int64_t syncprobe_left_ns(clockid_t clk, const struct timespec *abs)
{
	struct timespec now;
	int64_t sec;

	if (!abs) {
		return -1;
	}
	if (clock_gettime(clk, &now)) {
		return 0;
	}
	sec = (int64_t)abs->tv_sec - (int64_t)now.tv_sec;
	if (sec > 100LL * 365 * 86400) {
		return INT64_MAX;
	}
	if (sec < -100LL * 365 * 86400) {
		return 0;
	}
	sec = sec * 1000000000 + (abs->tv_nsec - now.tv_nsec);
	return sec > 0 ? sec : 0;
}
