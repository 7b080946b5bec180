/* SPDX-License-Identifier: MIT */
/*
 * What every wrapper of libdps-syncprobe shares (one file per primitive beside it: cond.c,
 * barrier.c, sem.c, rwlock.c, pipe.c, omp-*.c). A wrapper finds the definition it replaces with
 * SYNCPROBE_RESOLVE, calls it, and around the call emits dps_sync events with SYNCPROBE_EMIT,
 * which costs one predicted branch when no session enables the event, keeps errno for the
 * program, and evaluates the event's arguments (a timeout, an fstat) only when it is enabled.
 *
 * The guards: a wrapped function the tracer itself calls while it writes one of our events (a
 * write to its wake-up pipe, say) is the tracer's, not the program's, and is not traced again;
 * nor are the calls liblttng-ust makes from its own code at other times (syncprobe_from_tracer).
 */
#ifndef DPS_SYNCPROBE_PROBE_H
#define DPS_SYNCPROBE_PROBE_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* The library is built with hidden visibility: only the wrappers are exported. */
#define DPS_PROBE_EXPORT __attribute__((visibility("default")))

/* The symbol versions a program links today on x86-64: pthread_cond_* kept their GLIBC_2.3.2
 * version, the rest of libpthread moved into libc in 2.34 with a new one (the GLIBC_2.2.5 and
 * GLIBC_2.30 definitions are the same code, kept for old binaries). */
#define SYNCPROBE_GLIBC_COND "GLIBC_2.3.2"
#define SYNCPROBE_GLIBC_PTHREAD "GLIBC_2.34"

/* Set while this thread is inside one of the probe's tracepoints. Initial-exec: a preloaded
 * library has room in the static TLS block, and the general model's __tls_get_addr call would
 * cost more than the rest of a wrapper. */
extern __thread int syncprobe_in_probe __attribute__((tls_model("initial-exec")));

/* The next definition of name after this library: of that version when version is not NULL
 * and it exists, else the default one. NULL when there is none. */
void *syncprobe_next_def(const char *name, const char *version);

/* Looks var (a pointer to the replaced function) up on first use; a race looks it up twice,
 * finding the same. */
#define SYNCPROBE_RESOLVE(var, name, version)                                                      \
	do {                                                                                       \
		if (!__atomic_load_n(&(var), __ATOMIC_ACQUIRE)) {                                  \
			__atomic_store_n(&(var),                                                   \
					 (__typeof__(var))syncprobe_next_def(name, version),       \
					 __ATOMIC_RELEASE);                                        \
		}                                                                                  \
	} while (0)

/* Fires dps_sync:event with the arguments (evaluated only when it is enabled), errno kept. */
#define SYNCPROBE_EMIT(event, ...)                                                                 \
	do {                                                                                       \
		if (lttng_ust_tracepoint_enabled(dps_sync, event) && !syncprobe_in_probe) {        \
			int syncprobe_errno_ = errno;                                              \
			syncprobe_in_probe = 1;                                                    \
			lttng_ust_do_tracepoint(dps_sync, event, __VA_ARGS__);                     \
			syncprobe_in_probe = 0;                                                    \
			errno = syncprobe_errno_;                                                  \
		}                                                                                  \
	} while (0)

/* Whether the call that returns to caller (__builtin_return_address(0) in a wrapper) was made
 * by the tracer itself: liblttng-ust's wake-up pipes, its registration's semaphore. Such calls
 * are not the program's and fire no event. */
bool syncprobe_from_tracer(const void *caller);

/* An object's address as an event's u64 field. */
#define SYNCPROBE_ADDR(p) ((uint64_t)(uintptr_t)(p))

/* The time left until abs on clock clk, in ns: 0 when it is past or the clock cannot be read,
 * INT64_MAX beyond 100 years; -1 when abs is NULL (the real call then fails as it does). */
int64_t syncprobe_left_ns(clockid_t clk, const struct timespec *abs);

#endif /* DPS_SYNCPROBE_PROBE_H */
