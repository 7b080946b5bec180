/* SPDX-License-Identifier: MIT */
/*
 * The helpers of probe.h that are not macros: the next definition of a wrapped function, the
 * tracepoint guard's thread variable, the tracer's own code and the time left until a
 * deadline, defined once for every primitive's file.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
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

/* The executable segments of liblttng-ust*.so. Filled once by the constructor: the libraries
 * are this one's dependencies, loaded before it. */
#define TRACER_RANGES 16
static struct {
	uintptr_t lo, hi;
} tracer_text[TRACER_RANGES];
static int n_tracer_text;

static int note_tracer(struct dl_phdr_info *info, size_t size, void *arg)
{
	const char *name = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;

	(void)size;
	(void)arg;
	name = name ? name + 1 : info->dlpi_name;
	if (!name || strncmp(name, "liblttng-ust", 12)) {
		return 0;
	}
	for (int i = 0; i < info->dlpi_phnum && n_tracer_text < TRACER_RANGES; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			tracer_text[n_tracer_text].lo = info->dlpi_addr + ph->p_vaddr;
			tracer_text[n_tracer_text].hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
			n_tracer_text++;
		}
	}
	return 0;
}

__attribute__((constructor)) static void find_tracer(void)
{
	int saved = errno;

	dl_iterate_phdr(note_tracer, NULL);
	errno = saved;
}

bool syncprobe_from_tracer(const void *caller)
{
	uintptr_t a = (uintptr_t)caller;

	for (int i = 0; i < n_tracer_text; i++) {
		if (a >= tracer_text[i].lo && a < tracer_text[i].hi) {
			return true;
		}
	}
	return false;
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
