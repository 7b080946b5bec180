/* SPDX-License-Identifier: MIT */
/* Allocates in a tight loop: with tiny LTTng buffers, the tracer must discard events
 * (test-live.c, discarded_events_mark_the_result_partial). */
#include <stdlib.h>

int main(void)
{
	for (long i = 0; i < 200000; i++) {
		char *volatile p = malloc(32);

		p[0] = 1;
		free(p);
	}
	return 0;
}
