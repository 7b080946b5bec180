#!/usr/bin/env bash
# Starts or stops the session daemon the live tests use. As a normal user it is private: its
# sockets live under LTTNG_HOME=$2. As root, LTTng always uses the system rundir
# (/var/run/lttng), so the fixture reuses a running root daemon or starts one, and stops only
# a daemon it started itself. Also mounts tracefs (perf sched record needs it) when root.
set -u
action=$1
home=$2
export LTTNG_HOME=$home
case "$action" in
start)
    rm -rf "$home"
    mkdir -p "$home"
    if [ "$(id -u)" = 0 ] && ! mountpoint -q /sys/kernel/tracing 2>/dev/null; then
        mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true
    fi
    if ! command -v lttng-sessiond >/dev/null; then
        echo "sessiond.sh: lttng-sessiond not installed (apt-get install lttng-tools)" >&2
        exit 1
    fi
    if timeout 10 lttng list >/dev/null 2>&1; then
        echo "sessiond.sh: reusing the running session daemon"
        exit 0
    fi
    # --no-kernel: without the LTTng kernel tracer a root daemon would only warn about it.
    lttng-sessiond --daemonize --no-kernel || { echo "sessiond.sh: cannot start lttng-sessiond" >&2; exit 1; }
    for _ in $(seq 50); do
        if timeout 10 lttng list >/dev/null 2>&1; then
            pgrep -n -x lttng-sessiond > "$home/fixture.pid"
            exit 0
        fi
        sleep 0.1
    done
    echo "sessiond.sh: lttng-sessiond did not answer" >&2
    exit 1
    ;;
stop)
    # Waits for the daemon to be gone: its teardown removes the rundir's consumer sockets
    # after SIGTERM, and a daemon started meanwhile (the next ctest run's fixture) lost its
    # own to it and hung every session command (two ctest runs back to back, beside a busy
    # core). SIGKILL after 10 s.
    if [ -f "$home/fixture.pid" ]; then
        pid=$(cat "$home/fixture.pid")
        rm -f "$home/fixture.pid"
        alive() { [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = lttng-sessiond ]; }
        kill "$pid" 2>/dev/null || true
        for _ in $(seq 100); do
            alive || exit 0
            sleep 0.1
        done
        echo "sessiond.sh: lttng-sessiond $pid still there 10 s after SIGTERM: SIGKILL" >&2
        kill -9 "$pid" 2>/dev/null || true
        for _ in $(seq 50); do
            alive || exit 0
            sleep 0.1
        done
        echo "sessiond.sh: lttng-sessiond $pid did not end" >&2
        exit 1
    fi
    exit 0
    ;;
*)
    echo "usage: $0 start|stop LTTNG_HOME" >&2
    exit 2
    ;;
esac
