/* SPDX-License-Identifier: MIT */
/*
 * The failure paths of every subcommand, one table (issue 16): each row runs `dps` with
 * arguments that must fail and checks the exit code (1 a run-time failure, 2 bad usage or bad
 * input: doc/), a piece of the message on stderr, and, where a row names one, a path that
 * must not exist afterwards (the option was refused before any work started), and a piece of
 * stderr that must not be there (no calibration ran before the error: the order is checked by
 * what was said, not by timing).
 *
 * In arguments, @SET@ is a valid action set, @BAD@ the directory of the rejected sets
 * (tests/simgen/data/bad), @TRACE@ a real trace (tests/data), @XZ@ the bundled trace, @TMP@ a
 * fresh directory of the row's own.
 */
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <glib.h>

#include "dps-test.h"

#define MAX_ARGS 10

struct failure {
	const char *args[MAX_ARGS]; /* after "dps" */
	int code;
	const char *message;  /* a piece of stderr */
	const char *not_made; /* a path that must not exist afterwards, or NULL */
	bool as_nobody;	      /* run as an unprivileged user (skipped when we are not root) */
	const char *not_said; /* a piece of stderr that must not be there, or NULL */
};

/* What a calibration that ran says (its step line), before the error it must not precede. */
#define CALIBRATED "calibrating this machine"

static const struct failure failures[] = {
    /* the command itself */
    {{NULL}, 2, "Usage: dps COMMAND"},
    {{"bogus"}, 2, "unknown command 'bogus'"},
    /* gen */
    {{"gen"}, 2, "expected exactly one action-set directory"},
    {{"gen", "@SET@", "--bogus"}, 2, "dps gen: unrecognized option '--bogus'"},
    {{"gen", "/nonexistent/set", "-o", "@TMP@/x.c"}, 2, "/nonexistent/set", "@TMP@/x.c"},
    {{"gen", "@SET@", "-o", "/nonexistent/dir/x.c"}, 1, "/nonexistent/dir/x.c"},
    /* build */
    {{"build", "/nonexistent/set", "-o", "@TMP@/stub"}, 2, "/nonexistent/set", "@TMP@/stub"},
    {{"build", "@TMP@", "-o", "@TMP@/stub"}, 2, "no thread", "@TMP@/stub"},
    {{"build", "@SET@", "-o", "/nonexistent/dir/stub"}, 1, "/nonexistent/dir/stub"},
    /* a join that can never return is bad input, before anything is built or run (issue 26) */
    {{"build", "@BAD@/join-cycle", "-o", "@TMP@/stub"},
     2,
     "join-cycle/2.act:2:6: join of thread 3 that can never return",
     "@TMP@/stub"},
    {{"gen", "@BAD@/join-before-create", "-o", "@TMP@/x.c"},
     2,
     "join-before-create/1.act:2:6: join of thread 2 that can never return",
     "@TMP@/x.c"},
    /* calibrate */
    {{"calibrate", "--bogus"}, 2, "dps calibrate: unexpected argument '--bogus'"},
    /* an output that cannot be written is refused before the measurement (seconds) */
    {{"calibrate", "-o", "/nonexistent/dir/x.cal"},
     1,
     "cannot write /nonexistent/dir/x.cal: /nonexistent/dir is not a directory"},
    {{"calibrate", "--memory", "--quick", "-o", "/nonexistent/dir/x.cal"},
     1,
     "cannot write /nonexistent/dir/x.cal: /nonexistent/dir is not a directory"},
    /* run */
    {{"run", "/nonexistent/set"}, 2, "/nonexistent/set"},
    {{"run", "@SET@", "--mode", "bogus"}, 2, "--mode: expected work, cpu or wall, got 'bogus'"},
    {{"run", "@SET@", "--scale", "-1"}, 2, "--scale: expected a non-negative number"},
    {{"run", "@SET@", "--scale=nan"}, 2, "--scale: expected a non-negative number"},
    {{"run", "@SET@", "--thread-scale", "99999=0.5"}, 2, "no thread with id 99999"},
    {{"run", "@SET@", "--calibration", "/nonexistent/x.cal"}, 2, "/nonexistent/x.cal"},
    {{"run", "@SET@", "--bogus"}, 2, "unknown option '--bogus'"},
    {{"run", "@BAD@/join-cycle"},
     2,
     "join-cycle/2.act:2:6: join of thread 3 that can never return",
     .not_said = "makespan"},
    /* analyze */
    {{"analyze"}, 2, "expected one or more trace directories"},
    {{"analyze", "/nonexistent/trace"}, 2, "/nonexistent/trace: cannot read the trace"},
    {{"analyze", "@TRACE@", "--pid", "999999", "-o", "@TMP@/set"},
     2,
     "the selection matches no thread",
     "@TMP@/set"},
    {{"analyze", "@TRACE@", "--min-block", "nan"}, 2, "--min-block: expected a duration"},
    {{"analyze", "@TRACE@", "--min-block", "-5"}, 2, "--min-block: expected a duration"},
    /* the same parser and message for every command that takes it (cli/options.c) */
    {{"replay", "@TRACE@", "--min-block", "x"}, 2, "dps replay: --min-block: expected a duration"},
    {{"whatif", "@SET@", "--thread", "2", "--min-block", "x"},
     2,
     "dps whatif: --min-block: expected a duration"},
    {{"export", "@TRACE@", "--min-block", "x"}, 2, "dps export: --min-block: expected a duration"},
    {{"analyze", "@TRACE@", "--pid", "x"}, 2, "--pid"},
    /* compare */
    {{"compare"}, 2, "expected two inputs"},
    {{"compare", "@SET@", "/nonexistent/set"}, 2, "/nonexistent/set"},
    {{"compare", "@SET@", "@SET@", "--threshold", "abc"}, 2, "--threshold"},
    {{"compare", "@SET@", "@SET@", "--html", "/nonexistent/dir/r.html"},
     1,
     "/nonexistent/dir/r.html"},
    /* export: refused before the output file is made */
    {{"export", "-o", "@TMP@/x.json"}, 2, "expected one INPUT", "@TMP@/x.json"},
    {{"export", "@SET@"}, 2, "expected -o FILE"},
    {{"export", "@SET@", "--format", "svg", "-o", "@TMP@/x.json"},
     2,
     "--format: expected perfetto, got 'svg'",
     "@TMP@/x.json"},
    {{"export", "/nonexistent/trace", "-o", "@TMP@/x.json"},
     2,
     "/nonexistent/trace",
     "@TMP@/x.json"},
    {{"export", "@TRACE@", "-o", "@TMP@/x.json"}, 2, "no selection", "@TMP@/x.json"},
    {{"export", "@TRACE@", "--pid", "999999", "-o", "@TMP@/x.json"},
     2,
     "the selection matches no thread",
     "@TMP@/x.json"},
    {{"export", "@SET@", "--min-block", "x", "-o", "@TMP@/x.json"}, 2, "--min-block"},
    {{"export", "@SET@", "-o", "/nonexistent/dir/x.json"}, 1, "/nonexistent/dir/x.json"},
    /* replay: refused before the output directory is made */
    {{"replay"}, 2, "expected one TRACE directory"},
    {{"replay", "@XZ@", "--comm", "xz", "--mode", "bogus", "-o", "@TMP@/out"},
     2,
     "--mode: expected work, cpu or wall",
     "@TMP@/out"},
    {{"replay", "@XZ@", "--comm", "xz", "--scale", "x", "-o", "@TMP@/out"},
     2,
     "--scale: expected a non-negative number, got 'x'",
     "@TMP@/out"},
    {{"replay", "@XZ@", "--comm", "xz", "--thread-scale", "5=x", "-o", "@TMP@/out"},
     2,
     "--thread-scale",
     "@TMP@/out"},
    {{"replay", "@TRACE@", "-o", "@TMP@/out"}, 2, "no selection", "@TMP@/out"},
    /* a missing path is said at once, before a process is asked for or chosen (issue 25) */
    {{"replay", "/nonexistent/trace", "-o", "@TMP@/out"},
     2,
     "/nonexistent/trace: no such trace directory",
     "@TMP@/out",
     .not_said = "no selection"},
    {{"replay", "@XZ@", "--set", "/nonexistent/set", "-o", "@TMP@/out"},
     2,
     "--set /nonexistent/set: no such action set directory",
     "@TMP@/out"},
    {{"replay", "@XZ@", "--calibration", "/nonexistent/x.cal", "-o", "@TMP@/out"},
     2,
     "--calibration /nonexistent/x.cal: no such file",
     "@TMP@/out"},
    /* what only the analysis can check, checked before the calibration (issue 25) */
    {{"replay", "@XZ@", "--comm", "xzz", "-o", "@TMP@/out"},
     2,
     "the selection matches no thread",
     "@TMP@/out",
     .not_said = CALIBRATED},
    {{"replay", "@XZ@", "--thread-scale", "99=0.5", "-o", "@TMP@/out"},
     2,
     "no thread with id 99 ",
     "@TMP@/out",
     .not_said = CALIBRATED},
    {{"replay", "@XZ@", "--comm", "xz", "--min-block", "x", "-o", "@TMP@/out"},
     2,
     "--min-block",
     "@TMP@/out"},
    /* whatif: refused before the output directory is made or a stub runs */
    {{"whatif"}, 2, "expected one TRACE or action set directory"},
    {{"whatif", "@SET@"}, 2, "no component"},
    {{"whatif", "@SET@", "--thread", "99", "-o", "@TMP@/out"},
     2,
     "--thread 99: no such thread",
     "@TMP@/out"},
    {{"whatif", "@SET@", "--thread-comm", "nosuchname", "-o", "@TMP@/out"},
     2,
     "--thread-comm nosuchname: no thread of that name",
     "@TMP@/out"},
    {{"whatif", "@SET@", "--thread", "2", "--from", "1", "--to", "0.5", "-o", "@TMP@/out"},
     2,
     "empty sweep",
     "@TMP@/out"},
    {{"whatif", "@SET@", "--thread", "2", "--step", "0", "-o", "@TMP@/out"},
     2,
     "empty sweep",
     "@TMP@/out"},
    {{"whatif", "@SET@", "--thread", "2", "--stub", "fast"}, 2, "--stub: expected busy"},
    /* --sweep misses: a set whose component runs have cache figures, the busy stub, here */
    {{"whatif", "@SET@", "--thread", "2", "--sweep", "l2"}, 2, "--sweep: expected cpu or misses"},
    {{"whatif", "@SET@", "--thread", "2", "--sweep", "misses", "-o", "@TMP@/out"},
     2,
     "--sweep misses: no run of the component thread 2",
     "@TMP@/out"},
    {{"whatif", "@TRACE@", "--thread", "2", "--sweep", "misses", "-o", "@TMP@/out"},
     2,
     "--sweep misses: a trace's set has no cache figures",
     "@TMP@/out"},
    {{"whatif", "@SET@", "--thread", "2", "--sweep", "misses", "--stub", "busy,flat"},
     2,
     "--sweep misses: it sweeps the busy stub only"},
    {{"whatif", "@SET@", "--thread", "2", "--sweep", "misses", "--plan", "@TMP@/plan"},
     2,
     "--sweep misses: not on a cluster yet",
     "@TMP@/plan"},
    {{"whatif", "@SET@", "--thread", "x"}, 2, "--thread expects an action-set id"},
    {{"whatif", "@SET@", "--thread", "2", "--repeat", "0"}, 2, "--repeat expects a count"},
    {{"whatif", "/nonexistent/set", "--thread", "2"},
     2,
     "/nonexistent/set: no such trace or action set directory"},
    {{"whatif", "@SET@/1.act", "--thread", "2"}, 2, "1.act: not a directory"},
    {{"whatif", "@TRACE@", "--thread", "2", "-o", "@TMP@/out"}, 2, "no selection", "@TMP@/out"},
    /* a trace's threads, checked once the analysis has read it, before the calibration and
     * the build (issue 25) */
    {{"whatif", "@XZ@", "--thread", "99", "-o", "@TMP@/out"},
     2,
     "--thread 99: no such thread in",
     "@TMP@/out",
     .not_said = CALIBRATED},
    {{"whatif", "@XZ@", "--thread-comm", "xzz", "-o", "@TMP@/out"},
     2,
     "--thread-comm xzz: no thread of that name in",
     "@TMP@/out",
     .not_said = CALIBRATED},
    {{"whatif", "--region", "r", "-o", "@TMP@/out", "--", "/nonexistent/prog"},
     2,
     "/nonexistent/prog: No such file or directory",
     "@TMP@/out",
     .not_said = CALIBRATED},
    {{"whatif", "--region", "r", "--", "nosuchcommand-dps"},
     2,
     "nosuchcommand-dps: command not found",
     .not_said = CALIBRATED},
    {{"whatif", "@XZ@", "--thread", "23703", "--window-to", "99.end", "-o", "@TMP@/out"},
     2,
     "--window-to 99.end: no thread 99 in",
     "@TMP@/out",
     .not_said = CALIBRATED},
    /* ssf (doc/ssf.md): the header is written whole or not at all */
    {{"ssf"}, 2, "Usage: dps ssf gen"},
    {{"ssf", "bogus"}, 2, "unknown action 'bogus'"},
    {{"ssf", "gen", "@SET@", "-o", "@TMP@/h.h"}, 2, "missing --type", "@TMP@/h.h"},
    {{"ssf", "gen", "@SET@", "--type", "struct x", "-o", "@TMP@/h.h"},
     2,
     "not an ELF object",
     "@TMP@/h.h"},
    {{"ssf", "gen", "@SET@", "--type", "struct x", "--opaque", "maybe", "-o", "@TMP@/h.h"},
     2,
     "--opaque: expected null or skip",
     "@TMP@/h.h"},
    {{"ssf", "gen", "@SET@", "--type", "struct x", "-a", "/nonexistent.ssf", "-o", "@TMP@/h.h"},
     2,
     "/nonexistent.ssf",
     "@TMP@/h.h"},
    {{"ssf", "decode"}, 2, "expected exactly one SSF file"},
    {{"ssf", "decode", "@SET@/1.act"}, 2, "offset 0: expected the magic"},
    {{"ssf", "decode", "/nonexistent.ssf"}, 2, "/nonexistent.ssf"},
    /* memory (doc/memory-predict.md): the profile is written whole or not at all */
    {{"memory"}, 2, "expected profile or predict"},
    {{"memory", "bogus"}, 2, "unknown verb"},
    {{"memory", "profile", "-o", "@TMP@/p.json"}, 2, "expected at least one TRACE"},
    {{"memory", "profile", "@TRACE@"}, 2, "missing -o PROFILE"},
    {{"memory", "profile", "@TRACE@", "--size", "x", "-o", "@TMP@/p.json"},
     2,
     "--size x: expected a number",
     "@TMP@/p.json"},
    {{"memory", "profile", "/nonexistent/trace", "-o", "@TMP@/p.json"},
     2,
     "/nonexistent/trace",
     "@TMP@/p.json"},
    {{"memory", "profile", "@XZ@", "-o", "@TMP@/p.json"},
     2,
     "no lttng_ust_libc event",
     "@TMP@/p.json"},
    {{"memory", "predict", "@TMP@/none.json", "--basis", "x", "--count", "1"},
     2,
     "none.json: No such file"},
    {{"memory", "predict", "@SET@/1.act", "--basis", "x", "--count", "1"},
     2,
     "1.act: not a dps memory profile"},
    {{"memory", "predict", "p.json", "--basis", "x", "--count", "0"}, 2, "--count 0: expected"},
    {{"memory", "predict", "p.json", "--count", "3"}, 2, "missing --basis CLASS"},
    {{"memory", "predict", "p.json", "--basis", "x", "--size", "3", "--count", "3"},
     2,
     "exclude each other"},
    /* cache apply (doc/cache.md): the set is written whole or not at all */
    {{"cache", "bogus"}, 2, "unknown verb 'bogus' (expected capture or apply)"},
    {{"cache", "apply", "@SET@"}, 2, "expected SET CAPTURE"},
    {{"cache", "apply", "@SET@", "@SET@/1.act"}, 2, "expected -o DIR"},
    {{"cache", "apply", "/nonexistent/set", "@SET@/1.act", "-o", "@TMP@/out"},
     2,
     "/nonexistent/set",
     "@TMP@/out"},
    {{"cache", "apply", "@SET@", "/nonexistent/x.cache", "-o", "@TMP@/out"},
     2,
     "/nonexistent/x.cache: cannot open the capture",
     "@TMP@/out"},
    {{"cache", "apply", "@SET@", "@SET@/1.act", "-o", "@TMP@/out"},
     2,
     "1.act:1:1: expected 'desc:', 'cmd:', 'events:'",
     "@TMP@/out"},
    {{"cache", "apply", "@SET@", "@SET@/1.act", "--thread", "x", "-o", "@TMP@/out"},
     2,
     "--thread expects a thread's id",
     "@TMP@/out"},
    /* record: refused before the trace directory is made */
    {{"record"}, 2, "expected a command to run after --"},
    {{"record", "-o", "@TMP@/t", "--", "nosuchcommand-dps"},
     2,
     "nosuchcommand-dps: command not found",
     "@TMP@/t"},
    {{"record", "-o", "@TMP@/t", "--", "/etc/passwd"}, 2, "not an executable file", "@TMP@/t"},
    {{"record", "--no-ust", "--no-kernel", "-o", "@TMP@/t", "--", "true"},
     2,
     "nothing to record",
     "@TMP@/t"},
    {{"record", "-o", "/nonexistent/dir/t", "--", "true"}, 1, "/nonexistent/dir/t"},
    {{"record", "--no-ust", "-o", "@TMP@/t", "--", "true"},
     1,
     "needs root",
     "@TMP@/t",
     .as_nobody = true},
};

/* arg with its placeholders replaced (g_free). */
static char *expand(const char *arg, const char *tmp)
{
	const char *const from[] = {"@SET@", "@TRACE@", "@XZ@", "@TMP@", "@BAD@"};
	char *to[5], *out = g_strdup(arg);

	to[0] = dps_test_strf("%s/tests/compare/sets/base", dps_test_source_dir());
	to[1] = dps_test_strf("%s/traces/ls-ust", dps_test_data_dir());
	to[2] = dps_test_strf("%s/examples/traces/xz-T2", dps_test_source_dir());
	to[3] = g_strdup(tmp);
	to[4] = dps_test_strf("%s/tests/simgen/data/bad", dps_test_source_dir());
	for (size_t i = 0; i < 5; i++) {
		char **parts = g_strsplit(out, from[i], -1);

		g_free(out);
		out = g_strjoinv(to[i], parts);
		g_strfreev(parts);
		g_free(to[i]);
	}
	return out;
}

/* Runs one row and checks it; each failed check names the row's command line. */
static void check_row(const struct failure *f)
{
	char *tmp = dps_test_mkdtemp("cli");
	GPtrArray *argv = g_ptr_array_new_with_free_func(g_free);
	struct dps_test_run run;
	GString *line = g_string_new("dps");

	if (f->as_nobody) {
		/* the unprivileged user must be able to look for its output's parent */
		chmod(tmp, 0777);
		g_ptr_array_add(argv, g_strdup("setpriv"));
		g_ptr_array_add(argv, g_strdup("--reuid=65534"));
		g_ptr_array_add(argv, g_strdup("--regid=65534"));
		g_ptr_array_add(argv, g_strdup("--clear-groups"));
	}
	g_ptr_array_add(argv, g_strdup(dps_test_bin()));
	for (size_t i = 0; i < MAX_ARGS && f->args[i]; i++) {
		g_ptr_array_add(argv, expand(f->args[i], tmp));
		g_string_append_printf(line, " %s", f->args[i]);
	}
	g_ptr_array_add(argv, NULL);
	run = dps_test_run(NULL, (const char *const *)argv->pdata, NULL);
	cr_expect_eq(run.status, f->code, "%s: exit %d, want %d; stderr:\n%s", line->str,
		     run.status, f->code, run.err);
	cr_expect_not_null(strstr(run.err, f->message), "%s: stderr lacks '%s':\n%s", line->str,
			   f->message, run.err);
	if (f->not_made) {
		char *path = expand(f->not_made, tmp);
		struct stat st;

		cr_expect_neq(stat(path, &st), 0,
			      "%s: %s was made: work started before the "
			      "error",
			      line->str, f->not_made);
		g_free(path);
	}
	if (f->not_said) {
		cr_expect_null(strstr(run.err, f->not_said),
			       "%s: stderr says '%s' before the error: work started first:\n%s",
			       line->str, f->not_said, run.err);
	}
	dps_test_run_fini(&run);
	g_string_free(line, TRUE);
	g_ptr_array_free(argv, TRUE);
	dps_test_rmtree(tmp);
	g_free(tmp);
}

/*
 * The rows, in one process: a Criterion test per row cost a fork and set-up each (4.5 s of
 * the 13 s); every check is still reported on its own (cr_expect), with the row's command.
 */
Test(cli, failures_exit_with_their_code_and_say_why, .timeout = 280)
{
	size_t n = 0;

	for (size_t i = 0; i < sizeof(failures) / sizeof(failures[0]); i++) {
		if (!failures[i].as_nobody) {
			check_row(&failures[i]);
			n++;
		}
	}
	cr_log_info("%zu rows run", n);
}

/* The rows run as an unprivileged user: skipped when we are not root. */
Test(cli, failures_as_nobody_exit_with_their_code_and_say_why, .timeout = 120)
{
	dps_test_require(geteuid() == 0, "needs root to drop to an unprivileged user");
	for (size_t i = 0; i < sizeof(failures) / sizeof(failures[0]); i++) {
		if (failures[i].as_nobody) {
			check_row(&failures[i]);
		}
	}
}
