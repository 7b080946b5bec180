/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the dps memory profile reader (mempredict/io.c) and the prediction
 * behind it (mempredict/predict.c): any file as a profile loads or is refused with a message;
 * one that loads, predicted with its first class as the basis (and against its sizes when it
 * has them), gives figures that are finite and not negative. Never a crash, leak or undefined
 * behaviour. Run: tests/fuzz/run.sh SECONDS profile.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "fuzz-file.h"
#include "mempredict.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct mp_prediction *pr)
{
	double v[] = {pr->peak_bytes, pr->avg_bytes,	    pr->peak_lo,
		      pr->peak_hi,    pr->paper_peak_bytes, pr->paper_avg_bytes};

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		if (!isfinite(v[i]) || v[i] < 0) {
			fprintf(stderr, "prediction figure %zu is %g\n", i, v[i]);
			__builtin_trap();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *dir = fuzz_tmp_dir();
	struct mp_profile p;
	struct mp_prediction pr;
	struct dps_diag diag;
	const char *path = fuzz_write_file(dir, "p.json", data, size);

	if (mp_profile_load(path, &p, &diag)) {
		return 0;
	}
	if (p.n_sets && p.sets[0].n_classes) {
		struct mp_predict_options o = {.basis = p.sets[0].classes[0].name, .count = 1000};

		if (!mp_predict(&p, &o, &pr, &diag)) {
			check(&pr);
			mp_prediction_fini(&pr);
		}
		o.basis = NULL;
		o.by_size = true;
		if (!mp_predict(&p, &o, &pr, &diag)) {
			check(&pr);
			mp_prediction_fini(&pr);
		}
	}
	mp_profile_fini(&p);
	return 0;
}
