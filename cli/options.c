/* SPDX-License-Identifier: MIT */
/*
 * The options every subcommand spells the same way (cli.h): the process-selection group, one
 * table from which the commands' getopt_long entries, parsing and help lines all come, and the
 * option values several commands parse (durations, ids, --wait-quiet).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "analyzer.h"
#include "cli.h"
#include "machine-load.h"
#include "text-out.h"

bool dps_cli_parse_duration(const char *s, int64_t *ns)
{
	return analyzer_parse_duration(s, ns);
}

bool dps_cli_parse_id(const char *s, int64_t *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < 0) {
		return false;
	}
	*out = v;
	return true;
}

int dps_cli_set_min_block(const char *cmd, const char *arg, int64_t *ns)
{
	if (!dps_cli_parse_duration(arg, ns)) {
		fprintf(stderr,
			"dps %s: --min-block: expected a duration (20, 20us, 0.5ms), got '%s'\n",
			cmd, arg);
		return DPS_EXIT_USAGE;
	}
	return DPS_EXIT_OK;
}

int dps_cli_set_wait_quiet(const char *cmd, const char *arg, double *seconds)
{
	char *end;
	double v;

	if (!arg) {
		*seconds = DPS_LOAD_WAIT_QUIET_DEFAULT_S;
		return DPS_EXIT_OK;
	}
	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v > 0) || v > 86400) {
		fprintf(stderr,
			"dps %s: --wait-quiet: expected =SECONDS, a number over 0 and at most "
			"86400, got '%s'\n",
			cmd, arg);
		return DPS_EXIT_USAGE;
	}
	*seconds = v;
	return DPS_EXIT_OK;
}

int dps_cli_set_selection(const char *cmd, const char *opt, char which, const char *arg,
			  struct analyzer_options *a, struct analyzer_options *b)
{
	int64_t id = -1;

	if (which != 'c' && !dps_cli_parse_id(arg, &id)) {
		fprintf(stderr, "dps %s: %s expects a non-negative integer, got '%s'\n", cmd, opt,
			arg);
		return DPS_EXIT_USAGE;
	}
	for (int k = 0; k < 2; k++) {
		struct analyzer_options *o = k ? b : a;

		if (!o) {
			continue;
		}
		if (which == 'p') {
			o->pid = id;
		} else if (which == 't') {
			o->tid = id;
		} else {
			o->comm = arg;
		}
	}
	return DPS_EXIT_OK;
}

void dps_cli_warn_partial(const char *cmd, const struct analyzer_result *res)
{
	const char *reason = res->partial_reason ? res->partial_reason : "events lost";
	/* the reason names stream files: a hostile name's escape sequences are not sent */
	char *safe;

	if (!res->partial) {
		return;
	}
	safe = g_malloc(strlen(reason) + 1);
	dps_text_sanitize(reason, safe, strlen(reason) + 1);
	fprintf(stderr,
		"dps %s: warning: the trace is incomplete (%s); the result is marked partial "
		"(--strict makes this an error)\n",
		cmd, safe);
	g_free(safe);
}

/* getopt_long's values of the group's long-only options: above any command's own */
enum {
	OPT_CALIBRATION = 0x1000,
	OPT_KEEP_TRACER,
	OPT_STRICT,
	OPT_NO_PROGRESS,
};

/* The process-selection group: one line per option (its entry, member, help). */
static const struct sel_option {
	struct option opt;
	unsigned member;    /* enum dps_cli_sel */
	const char *column; /* the help's option column */
	const char *help;   /* lines after the first indented; NULL: made by the help */
} sel_options[] = {
    {{"pid", required_argument, NULL, 'p'},
     DPS_CLI_SEL_PROCESS,
     "-p, --pid P",
     "the process P (and its threads)"},
    {{"tid", required_argument, NULL, 't'},
     DPS_CLI_SEL_PROCESS,
     "-t, --tid T",
     "the thread T (and the threads it creates)"},
    {{"comm", required_argument, NULL, 'c'},
     DPS_CLI_SEL_PROCESS,
     "-c, --comm NAME",
     "the process named NAME"},
    {{"follow-children", no_argument, NULL, 'f'},
     DPS_CLI_SEL_FOLLOW,
     "-f, --follow-children",
     "take fork+exec child processes as threads"},
    {{"min-block", required_argument, NULL, 'm'}, DPS_CLI_SEL_MIN_BLOCK, "-m, --min-block D", NULL},
    {{"calibration", required_argument, NULL, OPT_CALIBRATION},
     DPS_CLI_SEL_CALIBRATION,
     "    --calibration FILE",
     NULL},
    {{"keep-tracer-threads", no_argument, NULL, OPT_KEEP_TRACER},
     DPS_CLI_SEL_KEEP_TRACER,
     "    --keep-tracer-threads",
     "keep lttng-ust's listener threads (NAME-ust)"},
    {{"strict", no_argument, NULL, OPT_STRICT},
     DPS_CLI_SEL_STRICT,
     "    --strict",
     "an incomplete trace (a stream file skipped, events\n"
     "lost) is an error (exit status 1)"},
    {{"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
     DPS_CLI_SEL_PROGRESS,
     "    --no-progress",
     "no progress line (shown on a terminal only)"},
};

#define N_SEL_OPTIONS (sizeof(sel_options) / sizeof(sel_options[0]))
/* where the help's text begins */
#define SEL_HELP_COLUMN 25

void dps_cli_selection_init(struct dps_cli_selection *s, unsigned members,
			    struct analyzer_options *a, struct analyzer_options *b)
{
	*s = (struct dps_cli_selection){.members = members, .a = a, .b = b, .progress = true};
}

struct option *dps_cli_selection_longopts(unsigned members, const struct option *own,
					  const char *own_short, char **shortopts)
{
	GString *letters = g_string_new(own_short);
	struct option *all;
	size_t n_own = 0, n = 0;

	while (own && own[n_own].name) {
		n_own++;
	}
	all = g_new0(struct option, n_own + N_SEL_OPTIONS + 1);
	for (; n < n_own; n++) {
		all[n] = own[n];
	}
	for (size_t i = 0; i < N_SEL_OPTIONS; i++) {
		const struct option *o = &sel_options[i].opt;

		if (!(sel_options[i].member & members)) {
			continue;
		}
		all[n++] = *o;
		if (o->val < 0x100) {
			g_string_append_c(letters, (char)o->val);
			if (o->has_arg == required_argument) {
				g_string_append_c(letters, ':');
			}
		}
	}
	*shortopts = g_string_free(letters, FALSE);
	return all;
}

/* The entry of c among members', NULL when c is not one. */
static const struct sel_option *find_sel_option(unsigned members, int c)
{
	for (size_t i = 0; i < N_SEL_OPTIONS; i++) {
		if ((sel_options[i].member & members) && sel_options[i].opt.val == c) {
			return &sel_options[i];
		}
	}
	return NULL;
}

int dps_cli_selection_parse(struct dps_cli_selection *s, const char *cmd, int c, const char *arg)
{
	const struct sel_option *e = find_sel_option(s->members, c);
	char opt[32];

	if (!e) {
		return -1;
	}
	snprintf(opt, sizeof(opt), "--%s", e->opt.name);
	switch (c) {
	case 'p':
	case 't':
	case 'c':
		if (s->n_process++ && (s->members & DPS_CLI_SEL_ONE)) {
			fprintf(stderr, "dps %s: give one of --pid, --tid, --comm\n", cmd);
			return DPS_EXIT_USAGE;
		}
		return dps_cli_set_selection(cmd, opt, (char)c, arg, s->a, s->b);
	case 'm':
		if (dps_cli_set_min_block(cmd, arg, &s->a->min_block_ns)) {
			return DPS_EXIT_USAGE;
		}
		if (s->b) {
			s->b->min_block_ns = s->a->min_block_ns;
		}
		return DPS_EXIT_OK;
	case 'f':
	case OPT_CALIBRATION:
		for (int k = 0; k < 2; k++) {
			struct analyzer_options *o = k ? s->b : s->a;

			if (!o) {
				continue;
			}
			if (c == 'f') {
				o->follow_children = true;
			} else {
				o->calibration_path = arg;
			}
		}
		return DPS_EXIT_OK;
	case OPT_KEEP_TRACER:
		s->keep_tracer_threads = true;
		return DPS_EXIT_OK;
	case OPT_STRICT:
		s->strict = true;
		return DPS_EXIT_OK;
	case OPT_NO_PROGRESS:
		s->progress = false;
		return DPS_EXIT_OK;
	default:
		return -1;
	}
}

/* text's lines, the first after the column (or on its own line when the column is too
 * wide: two blanks apart at least), the others below it */
static void print_help_entry(FILE *out, const char *column, const char *text)
{
	int width = fprintf(out, "  %s", column);

	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		int len = nl ? (int)(nl - line) : (int)strlen(line);

		if (width > SEL_HELP_COLUMN - 2) {
			width = fprintf(out, "  ");
		} else {
			width += fprintf(out, "%*s", SEL_HELP_COLUMN - width, "");
		}
		fprintf(out, "%.*s\n", len, line);
		width = 0;
		line = nl ? nl + 1 : line + len;
	}
	if (!text || !*text) {
		fputc('\n', out);
	}
}

void dps_cli_selection_help(FILE *out, unsigned members, const char *calibration)
{
	char *min_block = g_strdup_printf("fold blocks shorter than D into run (default: the\n"
					  "calibration's, else %u us); D in us, or ns/us/ms/s",
					  ANALYZER_DEFAULT_MIN_BLOCK_NS / 1000);

	for (size_t i = 0; i < N_SEL_OPTIONS; i++) {
		const struct sel_option *e = &sel_options[i];
		const char *text = e->help;

		if (!(e->member & members)) {
			continue;
		}
		if (e->opt.val == 'm') {
			text = min_block;
		} else if (e->opt.val == OPT_CALIBRATION) {
			text = calibration ? calibration
					   : "a dps calibrate file, whose min_block_ns is\n"
					     "the default of --min-block";
		}
		print_help_entry(out, e->column, text);
	}
	g_free(min_block);
}
