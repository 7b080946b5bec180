#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# A one-node SLURM cluster on this machine, for the tests that submit `dps whatif --plan`'s
# sbatch script (doc/testing.md, "The one-node SLURM cluster"). Usage:
#   tests/cluster/slurm.sh up DIR      starts it; prints the line to export (SLURM_CONF=...)
#   tests/cluster/slurm.sh down DIR    stops the daemons it started in DIR (their pid files,
#                                      or their command lines when DIR was removed under them)
#   tests/cluster/slurm.sh status DIR  says whether it is up (exit 0) or not (exit 1)
# Everything is under DIR: slurm.conf, the controller's state, slurmd's spool, the logs, the pid
# files, and a munged of its own (its key, socket and log: DIR/munge*). The machine's munged, if
# any, is neither used nor touched, so two clusters (two checkouts' tests) never share or stop
# each other's munged. The ports are the first free ones from 6817 up, so a system slurmctld or
# another checkout's cluster does not collide. Needs root (slurmd runs jobs as their users)
# and the packages slurm-wlm and munge (scripts/setup.sh installs them).
set -euo pipefail

prog=slurm.sh
usage() {
    echo "usage: $0 up|down|status DIR" >&2
    exit 2
}
[ $# -eq 2 ] || usage
action=$1
made_dir=
[ -d "$2" ] || made_dir=1
mkdir -p "$2"
dir=$(cd "$2" && pwd)
# down or status of a DIR that was gone (its daemons may still run): the DIR made to look for
# them does not stay
if [ -n "$made_dir" ] && [ "$action" != up ]; then
    trap 'rm -rf "$dir"' EXIT
fi
conf=$dir/slurm.conf
run=$dir/run
logs=$dir/log
msock=$dir/munge-socket/munge.socket
export SLURM_CONF=$conf

say() { echo "$prog: $*" >&2; }
die() {
    say "$*"
    exit 1
}

# The pid in DIR's pid file of daemon $1 (slurmctld, slurmd, munged) when that process is alive
# and is the one this script started in DIR (its command line names DIR's files; a pid reused
# by another process is not), else nothing.
ours() {
    local pid=$1 state cmd
    [ -r "/proc/$pid/stat" ] || return 1
    # a zombie is dead (a daemon's parent here may be slow to reap it)
    state=$(sed -E 's/^.*\) ([A-Z]).*$/\1/' "/proc/$pid/stat" 2>/dev/null) || return 1
    [ "$state" != Z ] || return 1
    cmd=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || return 1
    case "$cmd" in
    *"$dir/"*) return 0 ;;
    esac
    return 1
}

our_pid() {
    local f=$run/$1.pid pid p
    if [ -s "$f" ]; then
        pid=$(head -n 1 "$f" 2>/dev/null) || pid= # a daemon removes its own on exit
        if [[ "$pid" =~ ^[0-9]+$ ]] && ours "$pid"; then
            echo "$pid"
        fi
        return 0
    fi
    # no pid file (DIR removed under a running cluster, say by a killed test's clean-up):
    # the daemon is found by its name and its command line naming DIR's files
    for p in /proc/[0-9]*; do
        pid=${p#/proc/}
        if [ "$(cat "$p/comm" 2>/dev/null)" = "$1" ] && ours "$pid"; then
            echo "$pid"
            return 0
        fi
    done
}

# Stops daemon $1 if it is ours: SIGTERM, 15 s, then SIGKILL. Removes its pid file.
stop_daemon() {
    local name=$1 pid
    pid=$(our_pid "$name")
    if [ -n "$pid" ]; then
        kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 150); do
            [ -n "$(our_pid "$name")" ] || break
            sleep 0.1
        done
        if [ -n "$(our_pid "$name")" ]; then
            say "$name (pid $pid) did not stop on SIGTERM in 15 s; killing it"
            kill -KILL "$pid" 2>/dev/null || true
            sleep 0.2
        fi
        say "stopped $name (pid $pid)"
    fi
    rm -f "$run/$name.pid"
}

# The last lines of daemon $1's log, to say why it did not start.
log_tail() {
    local f=$logs/$1.log
    if [ -s "$f" ]; then
        echo "--- last lines of $f:" >&2
        tail -n 20 "$f" >&2
        echo "---" >&2
    else
        echo "($f is empty or missing)" >&2
    fi
}

# The state of this machine's node as the controller sees it (idle, down*, drained, ...).
node_state() {
    sinfo -h -N -n "$node" -o '%T' 2>/dev/null | head -n 1 || true
}

# The first TCP port from $1 up that nothing listens on and that is not $2.
free_port() {
    local p=$1
    while [ "$p" = "${2:-}" ] || [ -n "$(ss -Htln "sport = :$p" 2>/dev/null)" ]; do
        p=$((p + 1))
        [ "$p" -lt 7900 ] || die "no free TCP port between $1 and 7900"
    done
    echo "$p"
}

node=$(hostname -s)

case "$action" in
status)
    up=1
    for d in munged slurmctld slurmd; do
        pid=$(our_pid "$d")
        if [ -n "$pid" ]; then
            echo "$d: running (pid $pid)"
        else
            echo "$d: not running"
            up=0
        fi
    done
    if [ "$up" = 1 ]; then
        state=$(node_state)
        echo "node $node: ${state:-no answer from slurmctld}"
        if [ "$state" = idle ] || [ "$state" = mixed ] || [ "$state" = allocated ]; then
            echo "up: SLURM_CONF=$conf"
            exit 0
        fi
    fi
    echo "not up ($dir)"
    exit 1
    ;;
down)
    if [ -f "$conf" ] && [ -n "$(our_pid slurmctld)" ]; then
        # jobs still there: cancelled, so that no slurmstepd outlives its slurmd
        mapfile -t jobs < <(squeue -h -o '%A' 2>/dev/null || true)
        if [ "${#jobs[@]}" -gt 0 ]; then
            scancel "${jobs[@]}" 2>/dev/null || true
            for _ in $(seq 100); do
                [ -z "$(squeue -h -o '%A' 2>/dev/null || true)" ] && break
                sleep 0.1
            done
        fi
    fi
    for d in slurmd slurmctld munged; do
        stop_daemon "$d"
    done
    exit 0
    ;;
up) ;;
*) usage ;;
esac

# --- up ---
[ "$(id -u)" = 0 ] || die "needs root (slurmd runs the jobs as their users; SlurmUser=root)"
for tool in slurmctld slurmd sinfo sbatch squeue scancel munged munge unmunge ss; do
    command -v "$tool" >/dev/null ||
        die "$tool not found: install slurm-wlm and munge (scripts/setup.sh test installs them)"
done

# A cluster of an earlier run in DIR: refused while its three daemons run (it may be running
# jobs); its leftovers (some daemons dead, e.g. a killed test's) stopped and their pid files
# removed.
alive=()
for d in munged slurmctld slurmd; do
    [ -z "$(our_pid "$d")" ] || alive+=("$d")
done
if [ "${#alive[@]}" -eq 3 ]; then
    die "a cluster is already up in $dir (node $node: $(node_state)); tests/cluster/slurm.sh down $dir first"
fi
if [ "${#alive[@]}" -gt 0 ]; then
    say "stopping the leftovers of an earlier cluster in $dir: ${alive[*]}"
fi
for d in slurmd slurmctld munged; do
    stop_daemon "$d" 2>/dev/null
done

# the socket's path must fit a sockaddr_un (108 bytes); slurmd's spool sockets are longer still
[ "${#dir}" -lt 70 ] || die "DIR's path is too long for the daemons' sockets (${#dir} > 69 characters): $dir"
mkdir -p "$run" "$logs" "$dir/state" "$dir/spool" "$dir/munge" "$dir/munge-socket"
# munged refuses a socket whose directory (and every one above it) not all may search
chmod 755 "$dir" "$dir/munge-socket"
chmod 700 "$dir/munge" "$dir/state" "$dir/spool"
rm -f "$dir/munge-socket/"* "$logs"/*.log

# munged: a key and a daemon of the cluster's own.
key=$dir/munge/munge.key
if [ ! -s "$key" ]; then
    if command -v mungekey >/dev/null; then
        mungekey --create --keyfile="$key"
    else
        (umask 077 && dd if=/dev/urandom of="$key" bs=1024 count=1 status=none)
    fi
fi
chmod 600 "$key"
if ! munged --socket="$msock" --key-file="$key" --log-file="$logs/munged.log" \
    --pid-file="$run/munged.pid" --seed-file="$dir/munge/munged.seed" 2>"$logs/munged.err"; then
    cat "$logs/munged.err" >&2
    log_tail munged
    die "munged did not start (its socket's directory, $dir and every one above it must be searchable by all)"
fi
if ! munge --socket="$msock" -n 2>/dev/null | unmunge --socket="$msock" >/dev/null 2>&1; then
    log_tail munged
    die "munged started but does not answer on $msock"
fi

# slurm.conf: this machine's node as slurmd -C sees it (CPUs, sockets, cores, threads, memory).
hw=$(slurmd -C 2>/dev/null | head -n 1) || true
[[ "$hw" == NodeName=* ]] || die "slurmd -C did not describe this machine: $hw"
hw=${hw#NodeName=* }
ctld_port=$(free_port 6817)
slurmd_port=$(free_port $((ctld_port + 1)) "$ctld_port")
cat >"$conf" <<EOF
# Written by tests/cluster/slurm.sh up $dir: a one-node cluster for the tests.
ClusterName=dpstest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$msock
CredType=cred/munge
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
ReturnToService=2
MailProg=/bin/true
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$run/slurmctld.pid
SlurmdPidFile=$run/slurmd.pid
SlurmctldLogFile=$logs/slurmctld.log
SlurmdLogFile=$logs/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
NodeName=$node NodeAddr=127.0.0.1 NodeHostname=$node $hw State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF

# Fails: says which daemon, the last lines of its log, stops what started.
fail_start() {
    local who=$1
    shift
    say "$*"
    log_tail "$who"
    for d in slurmd slurmctld munged; do
        stop_daemon "$d" 2>/dev/null
    done
    die "$who: the cluster did not start (logs in $logs)"
}

# -c: no state of an earlier cluster in DIR recovered (its jobs, its node's state)
slurmctld -c -f "$conf" 2>"$logs/slurmctld.err" ||
    { cat "$logs/slurmctld.err" >&2; fail_start slurmctld "slurmctld exited with $?"; }
for _ in $(seq 100); do
    [ -z "$(our_pid slurmctld)" ] || break
    sleep 0.1
done
[ -n "$(our_pid slurmctld)" ] || fail_start slurmctld "slurmctld is not running 10 s after it was started"
slurmd -f "$conf" 2>"$logs/slurmd.err" ||
    { cat "$logs/slurmd.err" >&2; fail_start slurmd "slurmd exited with $?"; }

# Up when the controller sees the node idle: 60 s at most (by the clock: on a busy machine
# each round's processes take a while). A node the controller refused (inval: its resources
# fewer than slurm.conf's; drained) does not come back by waiting.
state=
deadline=$((SECONDS + 60))
while [ "$SECONDS" -lt "$deadline" ]; do
    [ -n "$(our_pid slurmctld)" ] || fail_start slurmctld "slurmctld died while the node registered"
    state=$(node_state)
    case "$state" in
    idle) break ;;
    inval* | drain*) break ;;
    esac
    if [ -z "$(our_pid slurmd)" ] && [ -s "$run/slurmd.pid" ]; then
        fail_start slurmd "slurmd died while registering"
    fi
    sleep 0.5
done
if [ "$state" != idle ]; then
    reason=$(scontrol show node "$node" 2>/dev/null | grep -o 'Reason=.*' || true)
    [ -n "$(our_pid slurmd)" ] || fail_start slurmd "slurmd is not running"
    log_tail slurmctld
    case "$state" in
    inval* | drain*) why="slurmctld refused node $node (state: $state${reason:+; $reason})" ;;
    *) why="node $node is not idle after 60 s (state: ${state:-no answer}${reason:+; $reason})" ;;
    esac
    fail_start slurmd "$why"
fi
say "up in $dir (slurmctld pid $(our_pid slurmctld) port $ctld_port, slurmd pid $(our_pid slurmd), munged pid $(our_pid munged)); export:"
echo "SLURM_CONF=$conf"
