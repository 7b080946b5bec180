/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the stream-file check (analyzer/streams.c): any bytes as the stream
 * files and LTTng index files of a trace give findings, never a crash, leak or undefined
 * behaviour; what is left out is one of the trace's stream files, and of files alike one is
 * always kept. The input is cut at each "\nFILE\n" into the contents of, in turn: s_0,
 * index/s_0.idx, s_1, index/s_1.idx, s_1.bak, index/s_1.bak.idx, index/s_2.idx (a stream file
 * missing); what the input does not reach is not there.
 * Run: tests/fuzz/run.sh SECONDS streams.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz-file.h"
#include "streams.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[] = {
    "s_0", "index/s_0.idx", "s_1", "index/s_1.idx", "s_1.bak", "index/s_1.bak.idx", "index/s_2.idx",
};
#define N_STREAMS 3 /* s_0, s_1, s_1.bak */

static const char sep[] = "\nFILE\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char trace[PATH_MAX];
	GPtrArray *skips = g_ptr_array_new_with_free_func(g_free);
	GPtrArray *left_out = g_ptr_array_new_with_free_func(g_free);
	size_t n = sizeof(sep) - 1;

	if (!trace[0]) {
		char index[PATH_MAX];

		snprintf(trace, sizeof(trace), "%s/trace", fuzz_tmp_dir());
		snprintf(index, sizeof(index), "%s/index", trace);
		if (mkdir(trace, 0700) || mkdir(index, 0700)) {
			perror("dps fuzz: mkdir");
			abort();
		}
		fuzz_write_file(trace, "metadata", (const uint8_t *)"", 0);
	}
	for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "%s/%s", trace, names[i]);
		unlink(path);
	}
	for (size_t i = 0; i < G_N_ELEMENTS(names) && data; i++) {
		const uint8_t *end = memmem(data, size, sep, n);
		size_t len = end ? (size_t)(end - data) : size;

		fuzz_write_file(trace, names[i], data, len);
		data = end ? end + n : NULL;
		size = end ? size - len - n : 0;
	}
	analyzer_streams_check(trace, skips, left_out);
	if (left_out->len >= N_STREAMS) {
		fprintf(stderr, "every stream file left out\n");
		__builtin_trap();
	}
	for (guint i = 0; i < left_out->len; i++) {
		const char *p = g_ptr_array_index(left_out, i);
		bool known = false;

		for (size_t k = 0; k < G_N_ELEMENTS(names); k++) {
			char path[PATH_MAX];

			snprintf(path, sizeof(path), "%s/%s", trace, names[k]);
			known = known || (!strcmp(p, path) && !strstr(names[k], ".idx"));
		}
		if (!known || access(p, R_OK)) {
			fprintf(stderr, "left out %s, not a stream file of the trace\n", p);
			__builtin_trap();
		}
	}
	for (guint i = 0; i < skips->len; i++) {
		if (!strstr(g_ptr_array_index(skips, i), trace)) {
			fprintf(stderr, "a finding without the trace's name: %s\n",
				(const char *)g_ptr_array_index(skips, i));
			__builtin_trap();
		}
	}
	g_ptr_array_free(skips, TRUE);
	g_ptr_array_free(left_out, TRUE);
	return 0;
}
