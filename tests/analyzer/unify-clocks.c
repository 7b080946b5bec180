/* SPDX-License-Identifier: MIT */
/*
 * unify-clocks DIR: gives a copy of an older dps record trace (perf and UST on two clocks) the
 * one time line dps record gives a trace today (analyzer_unify_clocks), so that babeltrace2
 * reads it as one trace: bt-plugin.py compares sink.dps.actions with dps analyze on it, the
 * kernel (perf) and UST events of one process together. Exit 0 done, 1 not.
 */
#include <stdio.h>

#include "analyzer.h"

int main(int argc, char **argv)
{
	struct dps_diag diag = {""};

	if (argc != 2) {
		fprintf(stderr, "usage: unify-clocks DIR\n");
		return 2;
	}
	if (analyzer_unify_clocks(argv[1], &diag)) {
		fprintf(stderr, "unify-clocks: %s\n", diag.msg);
		return 1;
	}
	return 0;
}
