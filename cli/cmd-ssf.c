/* SPDX-License-Identifier: MIT */
/* dps ssf gen|decode: SSF type descriptions from DWARF, and SSF files as text (doc/ssf.md). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "atomic-out.h"
#include "cli.h"
#include "ssf-tool.h"

static void print_usage(FILE *out)
{
	fprintf(
	    out,
	    "Usage: dps ssf gen OBJECT_OR_BINARY --type TYPE [--type TYPE...] -o HEADER\n"
	    "                   [-a ANNOTATIONS] [--prefix NAME] [--opaque null|skip]\n"
	    "       dps ssf decode FILE [--named]\n\n"
	    "gen: reads the DWARF (-g) of an object or a binary and writes a C header describing\n"
	    "TYPE and every type it reaches, with typed save/load/check wrappers for libdps's\n"
	    "dps/ssf.h. Members DWARF cannot settle (a pointer to a scalar: one or an array? a\n"
	    "union: which member?) need a line in the annotation file; gen lists the missing ones\n"
	    "and writes nothing.\n"
	    "      --type TYPE        \"struct NAME\", \"union NAME\", \"enum NAME\", a typedef, a "
	    "base type\n"
	    "  -o, --output FILE      the header to write ('-' = standard output)\n"
	    "  -a, --annotations FILE length/one/tag/case/opaque lines (doc/ssf.md)\n"
	    "      --prefix NAME      prefix of generated names (default: from the output's name)\n"
	    "      --opaque null|skip function pointers, void *, FILE *: restored as NULL "
	    "(default)\n"
	    "                         or left as they are\n\n"
	    "decode: prints an SSF file from the type descriptions it carries, in the form of\n"
	    "the paper's Listing 3 (default) or, with --named, one named value per line.\n"
	    "      --named            decode: one named value per line\n"
	    "  -h, --help             this help\n\n"
	    "Exit: 0 ok, 1 cannot write, 2 bad usage or bad input. See doc/ssf.md.\n");
}

/* The prefix from the output's name: "conn-ssf.h" -> "conn_ssf". */
static void prefix_from(const char *output, char *buf, size_t len)
{
	const char *base = strrchr(output, '/') ? strrchr(output, '/') + 1 : output;
	size_t n = 0;

	for (; *base && *base != '.' && n + 1 < len; base++) {
		char c = *base;

		buf[n++] = (char)(((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
				   (c >= '0' && c <= '9'))
				      ? c
				      : '_');
	}
	buf[n] = 0;
	if (!n || (buf[0] >= '0' && buf[0] <= '9') || !strcmp(output, "-")) {
		snprintf(buf, len, "ssf");
	}
}

static int cmd_gen(int argc, char **argv)
{
	/* 't', 'p': codes, not short options (-t, -p are --tid, --pid in dps) */
	static const struct option options[] = {
	    {"type", required_argument, NULL, 't'},
	    {"output", required_argument, NULL, 'o'},
	    {"annotations", required_argument, NULL, 'a'},
	    {"prefix", required_argument, NULL, 'p'},
	    {"opaque", required_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct ssf_gen_options o = {.report = stderr};
	const char *types[64], *output = NULL;
	struct dps_diag diag = {{0}};
	struct dps_out_file of = {0};
	char prefix[128];
	int c, ret;

	o.types = types;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:a:h", options, NULL)) != -1) {
		switch (c) {
		case 't':
			if (o.n_types == sizeof(types) / sizeof(types[0])) {
				fprintf(stderr, "dps ssf gen: more than 64 --type\n");
				return DPS_EXIT_USAGE;
			}
			types[o.n_types++] = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 'a':
			o.annotations = optarg;
			break;
		case 'p':
			o.prefix = optarg;
			break;
		case 'q':
			if (strcmp(optarg, "null") && strcmp(optarg, "skip")) {
				fprintf(stderr, "dps ssf gen: --opaque: expected null or skip\n");
				return DPS_EXIT_USAGE;
			}
			o.opaque =
			    strcmp(optarg, "skip") ? SSF_GEN_OPAQUE_NULL : SSF_GEN_OPAQUE_SKIP;
			break;
		case 'h':
			print_usage(stdout);
			return DPS_EXIT_OK;
		default:
			print_usage(stderr);
			return DPS_EXIT_USAGE;
		}
	}
	if (optind + 1 != argc || !output || !o.n_types) {
		fprintf(stderr, "dps ssf gen: %s\n",
			optind + 1 != argc ? "expected exactly one object or binary"
			: !output	   ? "missing -o FILE"
					   : "missing --type TYPE");
		print_usage(stderr);
		return DPS_EXIT_USAGE;
	}
	if (!o.prefix) {
		prefix_from(output, prefix, sizeof(prefix));
		o.prefix = prefix;
	}
	if (!ssf_tool_is_ident(o.prefix)) {
		fprintf(stderr, "dps ssf gen: --prefix '%s': expected a C identifier\n", o.prefix);
		return DPS_EXIT_USAGE;
	}
	if (!strcmp(output, "-")) {
		ret = ssf_gen(argv[optind], &o, stdout, &diag);
		if (!ret && fflush(stdout)) {
			ret = DPS_ERR_IO;
			dps_diag_setf(&diag, "cannot write to standard output");
		}
	} else {
		/* generated into a temporary beside the target: a failure leaves no half header */
		ret = dps_out_file_open(&of, output, &diag);
		if (!ret) {
			ret = ssf_gen(argv[optind], &o, of.f, &diag);
			if (ret) {
				dps_out_file_abort(&of);
			} else {
				ret = dps_out_file_commit(&of, &diag);
			}
		}
	}
	if (ret) {
		fprintf(stderr, "dps ssf gen: %s\n", diag.msg);
	}
	return dps_cli_exit_code(ret);
}

static int cmd_decode(int argc, char **argv)
{
	/* 'n': a code, not -n (--name in dps gen and build) */
	static const struct option options[] = {
	    {"named", no_argument, NULL, 'n'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	enum ssf_decode_form form = SSF_DECODE_LISTING;
	struct dps_diag diag = {{0}};
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		switch (c) {
		case 'n':
			form = SSF_DECODE_NAMED;
			break;
		case 'h':
			print_usage(stdout);
			return DPS_EXIT_OK;
		default:
			print_usage(stderr);
			return DPS_EXIT_USAGE;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "dps ssf decode: expected exactly one SSF file\n");
		print_usage(stderr);
		return DPS_EXIT_USAGE;
	}
	ret = ssf_decode_file(argv[optind], form, stdout, &diag);
	if (fflush(stdout) && !ret) {
		ret = DPS_ERR_IO;
		dps_diag_setf(&diag, "cannot write to standard output");
	}
	if (ret) {
		fprintf(stderr, "dps ssf decode: %s\n", diag.msg);
	}
	return dps_cli_exit_code(ret);
}

int dps_cmd_ssf(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		print_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? DPS_EXIT_USAGE : DPS_EXIT_OK;
	}
	if (!strcmp(argv[1], "gen")) {
		return cmd_gen(argc - 1, argv + 1);
	}
	if (!strcmp(argv[1], "decode")) {
		return cmd_decode(argc - 1, argv + 1);
	}
	fprintf(stderr, "dps ssf: unknown action '%s' (expected gen or decode)\n", argv[1]);
	return DPS_EXIT_USAGE;
}
