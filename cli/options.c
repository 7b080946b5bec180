/* SPDX-License-Identifier: MIT */
/* Option values every subcommand parses the same way (cli.h). */
#include <errno.h>
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
