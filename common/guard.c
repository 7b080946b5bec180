/* SPDX-License-Identifier: MIT */
/*
 * The guardian and the sweep (guard.h).
 *
 * Wire: each message is one send() on a stream socket: an operation ('+' register, '-'
 * release, 'X' the owner ends normally), a kind ('P' path, 'S' session, 'C' child), and for a
 * child "PID SIG PGROUP", then the name, NUL-terminated. Only the process that started the
 * guardian sends (a forked child that has not exec'd yet holds the socket too, and must not
 * speak for its parent).
 *
 * The guardian is a grandchild (the middle process exits at once), in its own session, with
 * every descriptor but the socket and stderr closed: it must not keep a pipe of its owner's
 * open (a reader waiting for EOF would wait for the guardian), nor be reaped or counted by
 * the owner's waits.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>

#include "atomic-out.h"
#include "guard.h"
#include "subprocess.h"

static GMutex lock;
static int guard_fd = -1;
static pid_t guard_owner;
static bool guard_failed, exit_hook;

/* ---- the guardian ---- */

struct child {
	pid_t pid;
	int sig;
	bool pgroup;
};

struct held {
	GHashTable *paths;    /* char * -> NULL */
	GHashTable *sessions; /* char * -> NULL */
	GHashTable *children; /* GINT_TO_POINTER(pid) -> struct child * */
	bool clean_exit;
};

static void take(struct held *h, const char *msg)
{
	char op = msg[0], kind = op ? msg[1] : 0;
	const char *name = op && kind ? msg + 2 : "";

	if (op == 'X') {
		h->clean_exit = true;
		return;
	}
	if (kind == 'P' || kind == 'S') {
		GHashTable *t = kind == 'P' ? h->paths : h->sessions;

		if (op == '+') {
			g_hash_table_replace(t, g_strdup(name), NULL);
		} else {
			g_hash_table_remove(t, name);
		}
	} else if (kind == 'C') {
		struct child c = {0};
		int pgroup = 0;

		if (sscanf(name, "%d %d %d", &c.pid, &c.sig, &pgroup) < 1 || c.pid <= 0) {
			return;
		}
		c.pgroup = pgroup != 0;
		if (op == '+') {
			g_hash_table_replace(h->children, GINT_TO_POINTER(c.pid),
					     g_memdup2(&c, sizeof(c)));
		} else {
			g_hash_table_remove(h->children, GINT_TO_POINTER(c.pid));
		}
	}
}

static bool alive(pid_t pid)
{
	return kill(pid, 0) == 0 || errno == EPERM;
}

/* Stops the registered programs: their signal, then SIGKILL after 2 s. */
static void stop_children(struct held *h, GString *said)
{
	GHashTableIter it;
	gpointer value;
	bool any = false;

	g_hash_table_iter_init(&it, h->children);
	while (g_hash_table_iter_next(&it, NULL, &value)) {
		struct child *c = value;
		char path[64], comm[64] = "";
		FILE *f;

		if (!alive(c->pid)) {
			continue;
		}
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)c->pid);
		f = fopen(path, "r");
		if (f) {
			if (fgets(comm, sizeof(comm), f)) {
				comm[strcspn(comm, "\n")] = '\0';
			}
			fclose(f);
		}
		kill(c->pgroup ? -c->pid : c->pid, c->sig);
		g_string_append_printf(said, "%sstopped %s (pid %d)", said->len ? ", " : "",
				       comm[0] ? comm : "a program", (int)c->pid);
		any = true;
	}
	for (int i = 0; any && i < 40; i++) {
		any = false;
		g_hash_table_iter_init(&it, h->children);
		while (g_hash_table_iter_next(&it, NULL, &value)) {
			any = any || alive(((struct child *)value)->pid);
		}
		if (any) {
			g_usleep(50000);
		}
	}
	g_hash_table_iter_init(&it, h->children);
	while (g_hash_table_iter_next(&it, NULL, &value)) {
		struct child *c = value;

		if (alive(c->pid)) {
			kill(c->pgroup ? -c->pid : c->pid, SIGKILL);
		}
	}
}

/*
 * `lttng destroy NAME`, killed after DESTROY_TIMEOUT seconds: it waits until the session's
 * trace is complete, and once (a session daemon whose consumer had lost a killed dps's
 * application mid-flush) it never returned, the guardian with it, holding dps's stderr open
 * and the test that waited for it. Returns 0 when destroyed, 124 when it did not answer.
 */
#define DESTROY_TIMEOUT "10"

static int destroy_with_timeout(const char *name, char **out)
{
	const char *argv[] = {
	    "timeout", "-s", "KILL", DESTROY_TIMEOUT, "lttng", "destroy", name, NULL,
	};
	const struct dps_subprocess_options o = {.capture_stderr = true};
	int rc = dps_subprocess_run((char *const *)argv, &o, out);

	return rc == 128 + SIGKILL ? 124 : rc;
}

static void destroy_session(const char *name, GString *said)
{
	char *out = NULL;
	int rc = destroy_with_timeout(name, &out);

	if (rc != 0 && rc != 124) {
		/* No such session (yet): the owner was killed while `lttng create` ran, and the
		 * session daemon may still be making it. Once more, a moment later; a session
		 * that never was costs this 0.3 s. */
		free(out);
		out = NULL;
		g_usleep(300000);
		rc = destroy_with_timeout(name, &out);
	}
	if (rc == 0) {
		g_string_append_printf(said, "%sdestroyed LTTng session %s", said->len ? ", " : "",
				       name);
	} else if (rc == 124) {
		g_string_append_printf(
		    said,
		    "%scould not destroy LTTng session %s (lttng destroy did not "
		    "end within " DESTROY_TIMEOUT " s; `lttng destroy %s` removes it)",
		    said->len ? ", " : "", name, name);
	}
	free(out);
}

__attribute__((noreturn)) static void run_guardian(int fd, pid_t owner)
{
	struct held h = {
	    .paths = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
	    .sessions = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
	    .children = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free),
	};
	GString *pending = g_string_new(NULL), *said = g_string_new(NULL);
	GHashTableIter it;
	gpointer key;
	char buf[8192];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		size_t start = 0;

		if (n < 0) {
			if (errno == EINTR) {
				continue;
			}
			break;
		}
		g_string_append_len(pending, buf, n);
		for (size_t i = 0; i < pending->len; i++) {
			if (pending->str[i] == '\0') {
				take(&h, pending->str + start);
				start = i + 1;
			}
		}
		g_string_erase(pending, 0, (gssize)start);
	}
	stop_children(&h, said);
	g_hash_table_iter_init(&it, h.sessions);
	while (g_hash_table_iter_next(&it, &key, NULL)) {
		destroy_session(key, said);
	}
	/* temporaries: a normal end releases what it keeps; they are left alone then */
	g_hash_table_iter_init(&it, h.paths);
	while (!h.clean_exit && g_hash_table_iter_next(&it, &key, NULL)) {
		struct stat st;

		if (lstat(key, &st) == 0 && dps_out_remove_tree(key) == 0) {
			g_string_append_printf(said, "%sremoved %s", said->len ? ", " : "",
					       (const char *)key);
		}
	}
	if (said->len) {
		fprintf(stderr, "dps: process %d ended before cleaning up: %s\n", (int)owner,
			said->str);
	}
	_exit(0);
}

/* ---- the owner's side ---- */

static void say_clean_exit(void)
{
	static const char msg[] = "X";

	g_mutex_lock(&lock);
	if (guard_fd >= 0 && getpid() == guard_owner) {
		(void)!send(guard_fd, msg, sizeof(msg), MSG_NOSIGNAL);
	}
	g_mutex_unlock(&lock);
}

/* Starts the guardian once. Called with lock held. */
static void start_guardian(void)
{
	int sv[2];
	pid_t mid, owner = getpid();

	if (guard_fd >= 0 && guard_owner == owner) {
		return;
	}
	if (guard_fd >= 0) {
		/* a forked child of the owner: its own guardian, if it registers anything */
		close(guard_fd);
		guard_fd = -1;
	}
	if (guard_failed || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		guard_failed = true;
		return;
	}
	fflush(NULL);
	mid = fork();
	if (mid < 0) {
		close(sv[0]);
		close(sv[1]);
		guard_failed = true;
		return;
	}
	if (mid == 0) {
		int null;

		/* The new session before the second fork: when the owner's wait for this middle
		 * process returns, the guardian is out of the owner's process group already. Made
		 * after the fork, a SIGKILL to the group (a terminal's, a test's) that came before
		 * the guardian ran could kill it with its owner, and what it held was left. */
		setsid();
		if (fork() != 0) {
			_exit(0);
		}
		for (int s = 1; s < NSIG; s++) {
			if (s != SIGKILL && s != SIGSTOP && s != SIGCHLD) {
				signal(s, s == SIGSEGV || s == SIGABRT || s == SIGBUS ? SIG_DFL
										      : SIG_IGN);
			}
		}
		signal(SIGCHLD, SIG_DFL);
		prctl(PR_SET_NAME, "dps-guard");
		null = open("/dev/null", O_RDWR);
		if (null >= 0) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDOUT_FILENO);
		}
		/* everything of the owner's but stderr and the socket (as fd 3) */
		if (sv[1] != 3 && dup2(sv[1], 3) == 3) {
			sv[1] = 3;
		}
		close_range(4, ~0U, 0);
		run_guardian(sv[1], owner);
	}
	close(sv[1]);
	while (waitpid(mid, NULL, 0) < 0 && errno == EINTR) {
	}
	guard_fd = sv[0];
	guard_owner = owner;
	if (!exit_hook) {
		exit_hook = true;
		atexit(say_clean_exit);
	}
}

static void say(char op, char kind, const char *name)
{
	size_t len = strlen(name);
	char *msg;

	if (len > 8192) {
		return;
	}
	msg = g_malloc(len + 3);
	msg[0] = op;
	msg[1] = kind;
	memcpy(msg + 2, name, len + 1);
	g_mutex_lock(&lock);
	if (op == '+') {
		start_guardian();
	}
	if (guard_fd >= 0 && getpid() == guard_owner) {
		(void)!send(guard_fd, msg, len + 3, MSG_NOSIGNAL);
	}
	g_mutex_unlock(&lock);
	g_free(msg);
}

void dps_guard_path(const char *path)
{
	say('+', 'P', path);
}

void dps_guard_release_path(const char *path)
{
	say('-', 'P', path);
}

void dps_guard_session(const char *name)
{
	say('+', 'S', name);
}

void dps_guard_release_session(const char *name)
{
	say('-', 'S', name);
}

void dps_guard_child(pid_t pid, int sig, bool pgroup)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%d %d %d", (int)pid, sig, pgroup ? 1 : 0);
	say('+', 'C', buf);
}

void dps_guard_release_child(pid_t pid)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%d", (int)pid);
	say('-', 'C', buf);
}

void dps_guard_child_setup(pid_t parent, int sig)
{
	prctl(PR_SET_PDEATHSIG, sig);
	if (getppid() != parent) {
		_exit(127); /* the parent died before the line above */
	}
}

/* ---- the sweep ---- */

bool dps_guard_owner_gone(pid_t pid)
{
	return pid > 0 && kill(pid, 0) != 0 && errno == ESRCH;
}

/* The owner's pid in "PID-..." at s, or 0. */
static pid_t pid_prefix(const char *s)
{
	char *end;
	long v;

	if (!isdigit((unsigned char)*s)) {
		return 0;
	}
	errno = 0;
	v = strtol(s, &end, 10);
	return errno || *end != '-' || v <= 0 || v > INT32_MAX ? 0 : (pid_t)v;
}

/* Removes the entries of dir named prefix + "PID-..." whose PID is gone. */
static size_t sweep(const char *dir, const char *prefix, const char *what)
{
	size_t plen = strlen(prefix), n = 0;
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d) {
		return 0;
	}
	while ((e = readdir(d))) {
		pid_t pid;
		char *path;

		if (strncmp(e->d_name, prefix, plen) || !(pid = pid_prefix(e->d_name + plen)) ||
		    !dps_guard_owner_gone(pid)) {
			continue;
		}
		path = g_build_filename(dir, e->d_name, NULL);
		if (dps_out_remove_tree(path) == 0) {
			fprintf(stderr, "dps: removed %s, left by an interrupted dps (pid %d)%s\n",
				path, (int)pid, what);
			n++;
		}
		g_free(path);
	}
	closedir(d);
	return n;
}

size_t dps_guard_sweep_dir(const char *dir, const char *prefix)
{
	return sweep(dir, prefix, "");
}

size_t dps_guard_sweep_temps(const char *target)
{
	char *dir = g_path_get_dirname(target);
	char *base = g_path_get_basename(target);
	char *prefix = g_strdup_printf(".%s.tmp-", base);
	size_t n = sweep(dir, prefix, "");

	g_free(prefix);
	g_free(base);
	g_free(dir);
	return n;
}

size_t dps_guard_sweep_sessions(void)
{
	const char *list[] = {"lttng", "list", NULL};
	const struct dps_subprocess_options o = {.quiet_stderr = true};
	char *out = NULL, *p;
	size_t n = 0;

	if (!dps_subprocess_in_path("lttng") ||
	    dps_subprocess_run((char *const *)list, &o, &out) != 0 || !out) {
		free(out);
		return 0;
	}
	for (p = out; (p = strstr(p, "dps-record-"));) {
		size_t len = strcspn(p, " \t\n[(");
		char *name = g_strndup(p, len);
		pid_t pid = pid_prefix(name + strlen("dps-record-"));

		p += len;
		if (pid && dps_guard_owner_gone(pid)) {
			char *msg = NULL;

			if (destroy_with_timeout(name, &msg) == 0) {
				fprintf(stderr,
					"dps: destroyed LTTng session %s, left by an interrupted "
					"dps (pid %d)\n",
					name, (int)pid);
				n++;
			}
			free(msg);
		}
		g_free(name);
	}
	free(out);
	return n;
}
