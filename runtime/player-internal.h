/* SPDX-License-Identifier: MIT */
/* Player internals the tests reach: fault injection for the thread-creation failure path. */
#ifndef DPS_RUNTIME_PLAYER_INTERNAL_H
#define DPS_RUNTIME_PLAYER_INTERNAL_H

#include <stddef.h>

/* Makes the nth pthread_create (1-based, counted per dps_play) of later plays fail with
 * EAGAIN; 0 turns it off. Not thread-safe; for tests only. */
void dps__player_fail_create_at(size_t n);

#endif /* DPS_RUNTIME_PLAYER_INTERNAL_H */
