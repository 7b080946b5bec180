/* SPDX-License-Identifier: MIT */
/*
 * dps build: generate, then run the C compiler against libdps.
 *
 * Where libdps comes from is decided once (simgen_libdps_flags): the pkg-config path the user
 * names, the build tree this dps binary belongs to, the dps.pc installed beside this dps
 * (PREFIX/bin/dps -> PREFIX/LIBDIR/pkgconfig), the dps.pc pkg-config finds, in that order. The
 * build tree's paths are compiled in (simgen-config.h, written by CMake), so a dps binary run
 * from its build directory never picks up an older installed libdps by accident, and an
 * installed dps links the libdps installed with it.
 *
 * A stub linked against a shared libdps from pkg-config gets an rpath to the directory it was
 * linked from (unless a system directory the loader searches anyway), so it runs without
 * LD_LIBRARY_PATH wherever dps was installed.
 *
 * Commands are run with posix_spawnp and an argument vector: nothing goes through a shell, so
 * a set or output path with spaces or quotes is passed as is.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>

#include "atomic-out.h"
#include "guard.h"
#include "simgen-config.h"
#include "simgen.h"
#include "subprocess.h"

/*
 * Argument vectors are GPtrArrays of g_strdup'd words (freed with the array). GLib aborts on
 * ENOMEM, so appending cannot fail. strv_end NULL-terminates one for exec or for a caller.
 */
static GPtrArray *strv_new(void)
{
	return g_ptr_array_new_with_free_func(g_free);
}

static void strv_push(GPtrArray *sv, const char *s)
{
	g_ptr_array_add(sv, g_strdup(s));
}

/* Appends the words of s split at any of seps (pkg-config output, $CC, --cflags values). */
static void strv_push_words(GPtrArray *sv, const char *s, const char *seps)
{
	char *copy = g_strdup(s);
	char *save = NULL;

	for (char *w = strtok_r(copy, seps, &save); w; w = strtok_r(NULL, seps, &save)) {
		strv_push(sv, w);
	}
	g_free(copy);
}

static void strv_push_all(GPtrArray *sv, char *const *v)
{
	for (size_t i = 0; v && v[i]; i++) {
		strv_push(sv, v[i]);
	}
}

/* The words NULL-terminated, borrowed from sv (push nothing after this). */
static char **strv_end(GPtrArray *sv)
{
	g_ptr_array_add(sv, NULL);
	return (char **)sv->pdata;
}

/* The NULL-terminated vector, now the caller's (simgen_strv_free); sv is freed. */
static char **strv_steal(GPtrArray *sv)
{
	strv_end(sv);
	return (char **)g_ptr_array_free(sv, FALSE);
}

void simgen_strv_free(char **v)
{
	g_strfreev(v);
}

static char *strv_join(char *const *v)
{
	size_t len = 1;
	char *s;

	for (size_t i = 0; v[i]; i++) {
		len += strlen(v[i]) + 1;
	}
	s = malloc(len);
	if (s) {
		s[0] = '\0';
	}
	for (size_t i = 0; s && v[i]; i++) {
		if (i) {
			strcat(s, " ");
		}
		strcat(s, v[i]);
	}
	return s;
}

/* Runs pkg-config (common/subprocess.h) with envp (NULL: environ), its stdout into *out, its
 * stderr silenced. Returns its exit status, or a negative status when it cannot be run. */
static int run_command(char *const *argv, char *const *envp, char **out, bool quiet_stderr)
{
	const struct dps_subprocess_options opts = {.envp = envp, .quiet_stderr = quiet_stderr};

	return dps_subprocess_run(argv, &opts, out);
}

/* environ with PKG_CONFIG_PATH replaced by path (NULL: environ unchanged). The strings are
 * borrowed from environ except the new one, which is the vector's last owned entry. */
static char **make_env(const char *pkg_config_path)
{
	size_t n = 0, k = 0;
	char **env;

	while (environ[n]) {
		n++;
	}
	env = calloc(n + 2, sizeof(*env));
	if (!env) {
		goto end;
	}
	for (size_t i = 0; i < n; i++) {
		if (strncmp(environ[i], "PKG_CONFIG_PATH=", 16) != 0) {
			env[k++] = environ[i];
		}
	}
	if (asprintf(&env[k], "PKG_CONFIG_PATH=%s", pkg_config_path) < 0) {
		free(env);
		env = NULL;
	}
end:
	return env;
}

static void free_env(char **env)
{
	size_t n = 0;

	if (!env) {
		return;
	}
	while (env[n]) {
		n++;
	}
	if (n) {
		free(env[n - 1]);
	}
	free(env);
}

/* pkg-config --cflags / --libs dps into cflags/libs. Returns SIMGEN_OK, SIMGEN_ERR_NOENT when
 * pkg-config or dps.pc is missing. */
static int query_pkg_config(const char *path, GPtrArray *cflags, GPtrArray *libs)
{
	/* posix_spawn wants char *const[]: writable copies of the words. */
	char pkg_config[] = "pkg-config", opt_cflags[] = "--cflags", opt_libs[] = "--libs";
	char dps[] = "dps";
	char *const cargv[] = {pkg_config, opt_cflags, dps, NULL};
	char *const largv[] = {pkg_config, opt_libs, dps, NULL};
	char **env = environ;
	char *out = NULL;
	int ret;

	if (path) {
		env = make_env(path);
		if (!env) {
			ret = SIMGEN_ERR_NOMEM;
			goto end;
		}
	}
	ret = run_command(cargv, env, &out, true);
	if (ret != 0 || !out) {
		ret = SIMGEN_ERR_NOENT;
		goto free_out;
	}
	strv_push_words(cflags, out, " \t\n");
	free(out);
	out = NULL;
	ret = run_command(largv, env, &out, true);
	if (ret != 0 || !out) {
		ret = SIMGEN_ERR_NOENT;
		goto free_out;
	}
	strv_push_words(libs, out, " \t\n");
free_out:
	free(out);
	if (path) {
		free_env(env);
	}
end:
	return ret;
}

/* True for the directories the dynamic loader searches by itself: no rpath needed there. */
static bool is_system_lib_dir(const char *dir)
{
	static const char *const sys[] = {"/lib",
					  "/lib64",
					  "/usr/lib",
					  "/usr/lib64",
					  "/usr/lib/" SIMGEN_CFG_MULTIARCH,
					  "/lib/" SIMGEN_CFG_MULTIARCH};

	for (size_t i = 0; i < sizeof(sys) / sizeof(sys[0]); i++) {
		if (!strcmp(dir, sys[i])) {
			return true;
		}
	}
	return false;
}

/* For each -LDIR of libs holding a shared libdps, -Wl,-rpath,DIR: pkg-config's Libs give the
 * link-time path only, and a stub must find the same libdps when it runs. */
static void add_libdps_rpaths(GPtrArray *libs)
{
	guint n = libs->len;

	for (guint i = 0; i < n; i++) {
		const char *w = libs->pdata[i];
		char dir[PATH_MAX], *so;

		/* the real directory: pkg-config's ${pcfiledir}/../.. paths made plain */
		if (strncmp(w, "-L", 2) || !w[2] || !realpath(w + 2, dir) ||
		    is_system_lib_dir(dir)) {
			continue;
		}
		so = g_build_filename(dir, "libdps.so", NULL);
		if (access(so, R_OK) == 0) {
			g_ptr_array_add(libs, g_strdup_printf("-Wl,-rpath,%s", dir));
		}
		g_free(so);
	}
}

/* The pkgconfig directory of the installation this dps belongs to (PREFIX/bin/dps ->
 * PREFIX/LIBDIR/pkgconfig) when it holds dps.pc; NULL otherwise (g_free). */
static char *installed_pc_dir(void)
{
	const char *bin = SIMGEN_CFG_INSTALL_BINDIR;
	char self[PATH_MAX], *bindir, *prefix, *pcdir, *pc;

	if (!realpath("/proc/self/exe", self)) {
		return NULL;
	}
	bindir = g_path_get_dirname(self);
	/* BINDIR is relative to the prefix: as many ".." as it has components */
	prefix = g_strdup(bindir);
	for (const char *c = bin; *c; c++) {
		if (*c != '/' && (c == bin || c[-1] == '/')) {
			char *up = g_path_get_dirname(prefix);

			g_free(prefix);
			prefix = up;
		}
	}
	pcdir = g_path_is_absolute(SIMGEN_CFG_INSTALL_LIBDIR)
		    ? g_build_filename(SIMGEN_CFG_INSTALL_LIBDIR, "pkgconfig", NULL)
		    : g_build_filename(prefix, SIMGEN_CFG_INSTALL_LIBDIR, "pkgconfig", NULL);
	pc = g_build_filename(pcdir, "dps.pc", NULL);
	if (access(pc, R_OK) != 0) {
		g_free(pcdir);
		pcdir = NULL;
	}
	g_free(pc);
	g_free(prefix);
	g_free(bindir);
	return pcdir;
}

/* True when this process is the dps executable of the build tree simgen-config.h describes. */
static bool is_running_from_build_tree(void)
{
	char self[PATH_MAX], built[PATH_MAX];

	if (!realpath("/proc/self/exe", self) || !realpath(SIMGEN_CFG_DPS_EXE, built)) {
		return false;
	}
	return !strcmp(self, built);
}

static bool has_build_tree_libdps(void)
{
	return SIMGEN_CFG_LIBDPS[0] && access(SIMGEN_CFG_LIBDPS, R_OK) == 0;
}

static int get_build_tree_flags(GPtrArray *cflags, GPtrArray *libs)
{
	GPtrArray *incs = strv_new();

	strv_push_words(incs, SIMGEN_CFG_INCLUDE_DIRS, ";");
	for (guint i = 0; i < incs->len; i++) {
		g_ptr_array_add(cflags, g_strdup_printf("-I%s", (char *)incs->pdata[i]));
	}
	strv_push_words(libs, SIMGEN_CFG_LIBS, ";");
	g_ptr_array_free(incs, TRUE);
	return SIMGEN_OK;
}

int simgen_libdps_flags(char ***cflags, char ***libs, const char **origin, struct dps_diag *diag)
{
	GPtrArray *c = strv_new(), *l = strv_new();
	const char *path = getenv("DPS_PKG_CONFIG_PATH");
	char *installed = NULL;
	int ret;

	if (path && path[0]) {
		*origin = "pkg-config (DPS_PKG_CONFIG_PATH)";
		ret = query_pkg_config(path, c, l);
		if (ret == SIMGEN_ERR_NOENT) {
			dps_diag_setf(diag, "no dps.pc in DPS_PKG_CONFIG_PATH=\"%s\"", path);
		}
	} else if (is_running_from_build_tree() && has_build_tree_libdps()) {
		*origin = "build tree";
		ret = get_build_tree_flags(c, l);
	} else if (!is_running_from_build_tree() && (installed = installed_pc_dir())) {
		*origin = "installation of this dps";
		ret = query_pkg_config(installed, c, l);
	} else {
		*origin = "pkg-config";
		ret = query_pkg_config(NULL, c, l);
		if (ret == SIMGEN_ERR_NOENT && has_build_tree_libdps()) {
			g_ptr_array_set_size(c, 0);
			g_ptr_array_set_size(l, 0);
			*origin = "build tree";
			ret = get_build_tree_flags(c, l);
		} else if (ret == SIMGEN_ERR_NOENT) {
			dps_diag_setf(diag,
				      "libdps not found: pkg-config --cflags --libs dps failed "
				      "and the build tree's %s is gone (install dps, or set "
				      "DPS_PKG_CONFIG_PATH to the directory of dps.pc)",
				      SIMGEN_CFG_LIBDPS[0] ? SIMGEN_CFG_LIBDPS : "libdps");
		}
	}
	if (ret) {
		goto error;
	}
	if (strcmp(*origin, "build tree")) {
		add_libdps_rpaths(l);
	}
	*cflags = strv_steal(c);
	*libs = strv_steal(l);
	goto end;
error:
	if (ret == SIMGEN_ERR_NOMEM) {
		dps_diag_setf(diag, "out of memory");
	}
	g_ptr_array_free(c, TRUE);
	g_ptr_array_free(l, TRUE);
	*cflags = *libs = NULL;
end:
	g_free(installed);
	return ret;
}

/*
 * One compiler command: CC words, our flags, libdps's, the user's, then -c src -o obj
 * (lib_libs NULL) or -o exe followed by the inputs and the libraries.
 */
static void make_cc_argv(const struct simgen_build_options *bopts, char *const *lib_cflags,
			 char *const *lib_libs, char *const *inputs, const char *output,
			 GPtrArray *argv)
{
	static const char *const base[] = {"-std=gnu11", "-O2", "-pthread"};
	const char *cc = bopts->cc;

	if (!cc || !cc[0]) {
		cc = getenv("CC");
	}
	if (!cc || !cc[0]) {
		cc = "cc";
	}
	strv_push_words(argv, cc, " \t");
	if (argv->len == 0) {
		strv_push(argv, "cc");
	}
	for (size_t i = 0; i < sizeof(base) / sizeof(base[0]); i++) {
		strv_push(argv, base[i]);
	}
	strv_push_words(argv, SIMGEN_CFG_SANITIZE_FLAGS, ";");
	strv_push_all(argv, lib_cflags);
	for (size_t i = 0; bopts->cflags && bopts->cflags[i]; i++) {
		strv_push_words(argv, bopts->cflags[i], " \t");
	}
	if (!lib_libs) {
		strv_push(argv, "-c");
	}
	strv_push(argv, "-o");
	strv_push(argv, output);
	strv_push_all(argv, inputs);
	strv_push_all(argv, lib_libs);
	strv_end(argv);
}

/* A private directory next to output for the intermediate files, so the final rename stays
 * on one file system. Returns the owned path or NULL (errno set). */
static char *make_work_dir(const char *output)
{
	const char *slash = strrchr(output, '/');
	int dir_len = slash ? (int)(slash - output + 1) : 0;
	char *dir;

	char *parent = g_strdup_printf("%.*s", dir_len ? dir_len : 1, dir_len ? output : ".");

	dps_guard_sweep_dir(parent, ".dps-build-"); /* what a killed build left */
	g_free(parent);
	if (asprintf(&dir, "%.*s.dps-build-%d-XXXXXX", dir_len, output, (int)getpid()) < 0) {
		dir = NULL;
	} else {
		sigset_t old;
		int made;

		dps_out_hold_signals(&old); /* registered, then made */
		made = dps_out_make_temp(dir, true, 0700);
		dps_out_release_signals(&old);
		if (made < 0) {
			free(dir);
			dir = NULL;
		}
	}
	return dir;
}

/*
 * Runs the n commands in cmds at once and waits for all of them. Returns SIMGEN_OK, or the
 * first failure: SIMGEN_ERR_NOENT (compiler not found) or SIMGEN_ERROR, with diag naming the
 * command and its status.
 */
static int run_parallel(GPtrArray *const *cmds, size_t n, bool verbose, struct dps_diag *diag)
{
	pid_t *pids = calloc(n, sizeof(*pids));
	int ret = pids ? SIMGEN_OK : SIMGEN_ERR_NOMEM;

	for (size_t i = 0; i < n && !ret; i++) {
		char **argv = (char **)cmds[i]->pdata;
		int err;

		if (verbose) {
			char *cmd = strv_join(argv);

			fprintf(stderr, "dps build: %s\n", cmd ? cmd : argv[0]);
			free(cmd);
		}
		err = posix_spawnp(&pids[i], argv[0], NULL, NULL, argv, environ);
		if (!err) {
			dps_guard_child(pids[i], SIGKILL, false);
		}
		if (err) {
			pids[i] = 0;
			dps_diag_setf(diag, "%s: \"%s\" (%s)",
				      err == ENOENT ? "C compiler not found (use --cc or $CC)"
						    : "cannot start the C compiler",
				      argv[0], strerror(err));
			ret = err == ENOENT ? SIMGEN_ERR_NOENT : SIMGEN_ERROR;
		}
	}
	/* Every started compiler is waited for, even after a failure. */
	for (size_t i = 0; pids && i < n; i++) {
		int status;

		if (!pids[i]) {
			continue;
		}
		while (waitpid(pids[i], &status, 0) < 0 && errno == EINTR) {
		}
		dps_guard_release_child(pids[i]);
		if (!ret && (!WIFEXITED(status) || WEXITSTATUS(status) != 0)) {
			char **argv = (char **)cmds[i]->pdata;
			char *cmd = strv_join(argv);

			dps_diag_setf(diag, "the C compiler failed (%s %d): %s",
				      WIFEXITED(status) ? "exit status" : "signal",
				      WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
				      cmd ? cmd : argv[0]);
			free(cmd);
			ret = SIMGEN_ERROR;
		}
	}
	free(pids);
	return ret;
}

/*
 * Compiles and links the program in work: program.c alone (n_parts 0), or program.c with
 * part-0.c ... part-<n_parts-1>.c compiled in parallel first. exe is the output.
 */
static int compile(const struct simgen_build_options *bopts, const char *src, const char *work,
		   size_t n_parts, const char *exe, struct dps_diag *diag)
{
	char **lib_cflags = NULL, **lib_libs = NULL;
	GPtrArray **cmds = NULL, *link_inputs = NULL;
	const char *origin = "";
	int ret;

	ret = simgen_libdps_flags(&lib_cflags, &lib_libs, &origin, diag);
	if (ret) {
		goto end;
	}
	if (bopts->verbose) {
		fprintf(stderr, "dps build: libdps from the %s\n", origin);
	}
	cmds = g_new0(GPtrArray *, n_parts + 1);
	link_inputs = strv_new();
	strv_push(link_inputs, src);
	for (size_t k = 0; k < n_parts; k++) {
		char *part_src = g_strdup_printf("%s/part-%zu.c", work, k);
		char *part_obj = g_strdup_printf("%s/part-%zu.o", work, k);
		char *const inputs[] = {part_src, NULL};

		cmds[k] = strv_new();
		make_cc_argv(bopts, lib_cflags, NULL, inputs, part_obj, cmds[k]);
		strv_push(link_inputs, part_obj);
		g_free(part_src);
		g_free(part_obj);
	}
	cmds[n_parts] = strv_new();
	make_cc_argv(bopts, lib_cflags, lib_libs, strv_end(link_inputs), exe, cmds[n_parts]);
	ret = n_parts ? run_parallel(cmds, n_parts, bopts->verbose, diag) : SIMGEN_OK;
	if (!ret) {
		ret = run_parallel(&cmds[n_parts], 1, bopts->verbose, diag);
	}
	for (size_t k = 0; k <= n_parts; k++) {
		g_ptr_array_free(cmds[k], TRUE);
	}
	g_free(cmds);
	g_ptr_array_free(link_inputs, TRUE);
end:
	simgen_strv_free(lib_cflags);
	simgen_strv_free(lib_libs);
	return ret;
}

/* How many parallel parts: the explicit --jobs, else one per online CPU (at most 8) for a big
 * set, never more than the threads that have actions, and none (one file) when the source is
 * to be kept, since --source names one file. */
static size_t get_n_parts(const struct dps_actset *set, const struct simgen_build_options *bopts)
{
	size_t n_actions = 0, n_tables = 0, n;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	for (size_t t = 0; t < set->n_threads; t++) {
		n_actions += set->threads[t].n_actions;
		n_tables += set->threads[t].n_actions > 0;
	}
	if (bopts->jobs) {
		n = bopts->jobs;
	} else if (n_actions >= SIMGEN_SPLIT_MIN_ACTIONS && cpus > 1) {
		n = cpus < 8 ? (size_t)cpus : 8;
	} else {
		n = 1;
	}
	if (n > n_tables) {
		n = n_tables;
	}
	return bopts->keep_source || n < 2 ? 0 : n;
}

/* Removes what a split build leaves in work (the parts may be missing: unlink just fails). */
static void remove_parts(const char *work, size_t n_parts)
{
	for (size_t k = 0; work && k < n_parts; k++) {
		char *path;

		if (asprintf(&path, "%s/part-%zu.c", work, k) >= 0) {
			unlink(path);
			path[strlen(path) - 1] = 'o';
			unlink(path);
			free(path);
		}
	}
}

int simgen_build(const struct dps_actset *set, const struct simgen_options *gopts,
		 const struct simgen_build_options *bopts, const char *output,
		 struct dps_diag *diag)
{
	static const struct simgen_build_options no_opts;
	size_t n_parts = 0;
	struct stat st;
	char *work = NULL, *src = NULL, *exe = NULL;
	int ret;

	if (!bopts) {
		bopts = &no_opts;
	}
	/* The program is renamed into place: never over a device, FIFO or directory. */
	if (stat(output, &st) == 0 && !S_ISREG(st.st_mode)) {
		dps_diag_setf(diag, "the output exists and is not a regular file: path=\"%s\"",
			      output);
		ret = SIMGEN_ERR_INVAL;
		goto end;
	}
	work = make_work_dir(output);
	if (!work) {
		dps_diag_setf(diag,
			      "Cannot create a work directory next to the output: path=\"%s\", "
			      "errno=%d (%s)",
			      output, errno, strerror(errno));
		ret = SIMGEN_ERR_IO;
		goto end;
	}
	if (asprintf(&exe, "%s/program", work) < 0) {
		exe = NULL;
		ret = SIMGEN_ERR_NOMEM;
		goto remove_work;
	}
	if (bopts->keep_source) {
		src = strdup(bopts->keep_source);
	} else if (asprintf(&src, "%s/program.c", work) < 0) {
		src = NULL;
	}
	if (!src) {
		ret = SIMGEN_ERR_NOMEM;
		goto remove_work;
	}
	n_parts = get_n_parts(set, bopts);
	if (n_parts) {
		ret = simgen_write_split(set, gopts, work, n_parts, diag);
	} else {
		ret = simgen_write_file(set, gopts, src, diag);
	}
	if (ret) {
		goto remove_work;
	}
	ret = compile(bopts, src, work, n_parts, exe, diag);
	if (ret) {
		goto remove_work;
	}
	if (rename(exe, output) != 0) {
		dps_diag_setf(diag,
			      "Cannot move the program into place: path=\"%s\", errno=%d (%s)",
			      output, errno, strerror(errno));
		ret = SIMGEN_ERR_IO;
	}

remove_work:
	if (exe) {
		unlink(exe);
	}
	remove_parts(work, n_parts);
	if (src && !bopts->keep_source) {
		unlink(src);
	}
	if (work) {
		rmdir(work);
		dps_out_unregister_temp(work);
	}
end:
	if (ret == SIMGEN_ERR_NOMEM) {
		dps_diag_setf(diag, "out of memory");
	}
	free(src);
	free(exe);
	free(work);
	return ret;
}
