/* SPDX-License-Identifier: MIT */
/*
 * Room at the end of a plain array that its readers index directly: the pointer + count +
 * capacity members of a public struct (struct dps_actset, struct analyzer_result), where a
 * GArray would change every reader. Where an array is private to one file, use a GArray or a
 * GPtrArray instead.
 */
#ifndef DPS_COMMON_GROW_H
#define DPS_COMMON_GROW_H

#include <stddef.h>

#include <glib.h>

/*
 * Returns array, moved if it had to grow, with room for need (>= 1) elements of elem_size
 * bytes; *cap is updated. The capacity doubles from 16, so appending n elements costs O(n).
 * Returns NULL on ENOMEM (g_try_realloc_n: an overflowing size too), leaving array (still the
 * caller's) and *cap as they were. The array is freed with free() or g_free(): GLib allocates
 * with the system malloc.
 */
static inline void *dps_grow(void *array, size_t *cap, size_t need, size_t elem_size)
{
	size_t new_cap;

	if (need <= *cap) {
		return array;
	}
	new_cap = *cap ? *cap : 16;
	while (new_cap < need) {
		new_cap *= 2;
	}
	array = g_try_realloc_n(array, new_cap, elem_size);
	if (array) {
		*cap = new_cap;
	}
	return array;
}

#endif /* DPS_COMMON_GROW_H */
