/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compare.h"
#include "compare-test.h"

int ct_last_status;

char *ct_set_path(const char *name)
{
	const char *src = getenv("DPS_SOURCE_DIR");
	char *p = NULL;

	cr_assert_not_null(src, "DPS_SOURCE_DIR is not set (run through ctest)");
	cr_assert_gt(asprintf(&p, "%s/tests/compare/sets/%s", src, name), 0);
	return p;
}

struct analyzer_result *ct_load_set(const char *name)
{
	struct dps_diag diag = { { 0 } };
	struct dps_actset *set = NULL;
	struct analyzer_result *m = NULL;
	char *dir = ct_set_path(name);

	cr_assert_eq(dps_actset_load_dir(dir, &set, &diag), DPS_OK, "%s: %s", dir, diag.msg);
	cr_assert_eq(compare_model_from_actset(set, &m, &diag), DPS_OK, "%s: %s", dir, diag.msg);
	dps_actset_destroy(set);
	free(dir);
	return m;
}

char *ct_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f) {
		return NULL;
	}
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)n + 1);
		if (buf && fread(buf, 1, (size_t)n, f) == (size_t)n) {
			buf[n] = '\0';
			if (len) {
				*len = (size_t)n;
			}
		} else {
			free(buf);
			buf = NULL;
		}
	}
	fclose(f);
	return buf;
}

char *ct_run_capture(const char *cmd, char **err_out)
{
	char out_path[] = "/tmp/dps-compare-out-XXXXXX", err_path[] = "/tmp/dps-compare-err-XXXXXX";
	int fo = mkstemp(out_path), fe = mkstemp(err_path), st;
	char *full = NULL, *out;

	cr_assert(fo >= 0 && fe >= 0);
	close(fo);
	close(fe);
	cr_assert_gt(asprintf(&full, "%s >%s 2>%s", cmd, out_path, err_path), 0);
	st = system(full);
	ct_last_status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	out = ct_read_file(out_path, NULL);
	if (err_out) {
		*err_out = ct_read_file(err_path, NULL);
	}
	unlink(out_path);
	unlink(err_path);
	free(full);
	return out ? out : strdup("");
}

const char *ct_dps_bin(void)
{
	const char *bin = getenv("DPS_BIN");

	cr_assert_not_null(bin, "DPS_BIN is not set (run through ctest)");
	return bin;
}

size_t ct_count(const char *hay, const char *needle)
{
	size_t n = 0, len = strlen(needle);

	while ((hay = strstr(hay, needle))) {
		n++;
		hay += len;
	}
	return n;
}
