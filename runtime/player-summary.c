/* SPDX-License-Identifier: MIT */
/*
 * The player's summary (dps_play_result_print): what a stub and `dps run` print on stderr
 * after a play, one row per thread with each column's unit, then what dps's own costs did to
 * the threads' CPU (doc/runtime.md, "Own costs") and what the root's runs were charged with
 * for the process's start-up ("The stub's start-up and exit").
 */
#include <inttypes.h>
#include <stdio.h>

#include <dps/dps.h>

/* own CPU not taken out of a thread's runs beyond which the summary says its runs were short */
#define SHORT_RUNS_NS 500000

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

/* name as shown on a terminal: control characters (an escape sequence in a thread name
 * from a trace or a manifest) become '?', so a summary cannot drive the terminal. */
static const char *printable(const char *name, char *buf, size_t len)
{
	size_t i = 0;

	for (; name[i] && i + 1 < len; i++) {
		unsigned char c = (unsigned char)name[i];

		buf[i] = c < 0x20 || c == 0x7f ? '?' : (char)c;
	}
	buf[i] = '\0';
	return buf;
}

void dps_play_result_print(const struct dps_program *prog, const struct dps_play_result *result,
			   FILE *out)
{
	char shown[256];
	uint64_t own = 0, taken = 0;
	size_t n_short = 0;

	fprintf(out, "dps: %s: %zu threads, makespan %.3f ms\n",
		printable(prog && prog->name ? prog->name : "program", shown, sizeof(shown)),
		result->n_threads, ms(result->makespan_ns));
	/* every duration column names its unit: a bare "run_req" was read as us by some */
	fprintf(out, "%-10s %-15s %10s %10s %10s %12s %12s %12s %12s %8s %10s %10s\n", "id", "name",
		"start_ms", "end_ms", "cpu_ms", "run_req_ms", "run_act_ms", "sleep_req_ms",
		"sleep_act_ms", "actions", "own_ms", "taken_ms");
	for (size_t i = 0; i < result->n_threads; i++) {
		const struct dps_thread_result *r = &result->threads[i];
		const char *name = prog && i < prog->n_threads && prog->threads[i].name
				       ? prog->threads[i].name
				       : "";

		fprintf(out,
			"%-10" PRIu64 " %-15.15s %10.3f %10.3f %10.3f %12.3f %12.3f %12.3f %12.3f "
			"%8" PRIu64 " %10.3f %10.3f\n",
			r->id, printable(name, shown, sizeof(shown)), ms(r->start_ns),
			ms(r->end_ns), ms(r->cpu_ns), ms(r->run_req_ns), ms(r->run_act_ns),
			ms(r->sleep_req_ns), ms(r->sleep_act_ns), r->n_actions, ms(r->own_cpu_ns),
			ms(r->compensated_ns));
		own += r->own_cpu_ns;
		taken += r->compensated_ns;
		/* a thread's end, after its last run, always leaves a little */
		if (r->own_cpu_ns > r->compensated_ns + SHORT_RUNS_NS) {
			n_short++;
		}
	}
	/* what dps's own costs did to the threads' CPU (doc/runtime.md, "Own costs") */
	fprintf(out,
		"own costs: %.3f ms of dps's own CPU outside the runs (own_ms), %.3f ms of it "
		"taken out of the runs (taken_ms)",
		ms(own), ms(taken));
	if (n_short) {
		fprintf(out,
			"; %zu thread(s) spent more CPU than recorded (%.3f ms in all): their "
			"runs were shorter than dps's costs of their actions\n",
			n_short, ms(own - taken));
	} else {
		fprintf(out, "\n");
	}
	/* what the root's runs were charged for, and what they were not (doc/runtime.md) */
	for (size_t i = 0; i < result->n_threads; i++) {
		const struct dps_thread_result *r = &result->threads[i];

		if (!r->startup_cpu_ns && !r->setup_cpu_ns) {
			continue;
		}
		fprintf(out, "start-up: thread %" PRIu64 ": ", r->id);
		if (r->startup_cpu_ns) {
			fprintf(out,
				"charged %.3f ms of CPU used before main (exec, loading, "
				"constructors) to its runs; ",
				ms(r->startup_cpu_ns));
		}
		fprintf(out,
			"not charged: %.3f ms of dps's own set-up after main (calibration, the "
			"set)\n",
			ms(r->setup_cpu_ns));
	}
}
