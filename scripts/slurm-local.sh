#!/usr/bin/env bash
# A private single-node Slurm for tests and docs checks: `batch --slurm` against a real scheduler.
#
#   scripts/slurm-local.sh start DIR    install slurm-wlm + munge if missing, start munged, slurmctld
#                                       and slurmd with everything (config, key, sockets, state,
#                                       logs, PID files) inside DIR; prints `export SLURM_CONF=…`
#                                       on stdout, so: eval "$(scripts/slurm-local.sh start DIR)"
#   scripts/slurm-local.sh stop DIR     cancel its jobs, stop the daemons it started (by their PID
#                                       files only) and check ports 6817/6818 are closed again
#   scripts/slurm-local.sh status DIR   whether its daemons run, and the node and job lists
#
# Exit status: 0 done, 1 failed (logs in DIR/log, munged's in DIR/munge), 77 not possible here (not
# root, or Slurm missing and no apt-get): callers skip visibly on 77.
#
# The daemons listen on 127.0.0.1 only (CommunicationParameters=NoCtldInAddrAny,NoInAddrAny with
# the node and controller addressed as 127.0.0.1). No accounting: read job states with
# `scontrol show job` (finished jobs stay visible for an hour, MinJobAge). munged runs as the
# `munge` user with its own key and socket in DIR/munge; slurmctld and slurmd run as root.
# DIR is made traversable (mode 755) so that munged can reach its folder; its parents must be
# traversable too, and its path at most 80 characters (munged's socket lives in it).
set -uo pipefail

ports=(6817 6818)
say() { echo "slurm-local: $*" >&2; }
die() { say "$*"; exit 1; }

usage() { say "usage: scripts/slurm-local.sh start|stop|status DIR"; exit 64; }
[ $# -eq 2 ] || usage
action=$1
mkdir -p "$2" 2>/dev/null || die "$2: cannot create the folder"
dir=$(cd "$2" && pwd) || die "$2: cannot enter the folder"
conf=$dir/slurm.conf

# Whether a process from one of our PID files is alive.
alive() { [ -s "$1" ] && [ "$(cat "/proc/$(cat "$1")/comm" 2>/dev/null)" = "$(basename "$1" .pid)" ]; }

# Ports of ours that something listens on (from /proc, so no extra tool is needed).
listening() {
  local port hex
  for port in "${ports[@]}"; do
    hex=$(printf '%04X' "$port")
    if awk -v p=":$hex" 'NR > 1 && $4 == "0A" && substr($2, length($2) - 4) == p { found = 1 } END { exit !found }' \
      /proc/net/tcp /proc/net/tcp6 2>/dev/null; then
      echo "$port"
    fi
  done
}

ports_closed() { [ -z "$(listening)" ]; }
gone() { ! kill -0 "$1" 2>/dev/null; }
no_running_jobs() { [ -z "$(SLURM_CONF=$conf squeue -h -t R,CG,CF,S -o %A 2>/dev/null)" ]; }

# Waits up to $1 seconds for the command after it to succeed.
wait_for() {
  local limit=$1 waited=0
  shift
  until "$@"; do
    [ "$waited" -ge $((limit * 10)) ] && return 1
    sleep 0.1
    waited=$((waited + 1))
  done
}

# Sends TERM to the processes of PID files, all at once (each takes about 2 s to shut down),
# then KILL to any still running after 10 s; removes the files.
stop_pids() {
  local file pid pids=()
  for file in "$@"; do
    # Only the daemon the file names: a stale file's PID may belong to someone else by now.
    [ -s "$file" ] && pid=$(cat "$file") && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$(basename "$file" .pid)" ] &&
      kill -TERM "$pid" 2>/dev/null && pids+=("$pid:$file")
  done
  for entry in "${pids[@]}"; do
    pid=${entry%%:*} file=${entry#*:}
    if ! wait_for 10 gone "$pid"; then
      say "$(basename "$file" .pid) ($pid) ignored TERM; killing it"
      kill -KILL "$pid" 2>/dev/null
      wait_for 5 gone "$pid" || say "$(basename "$file" .pid) ($pid) is still running"
    fi
  done
  rm -f "$@"
}

stop() {
  if alive "$dir/run/slurmctld.pid"; then
    # Jobs first: slurmstepd ignores TERM, so only scancel ends a running job cleanly.
    local jobs
    jobs=$(SLURM_CONF=$conf squeue -h -o %A 2>/dev/null | sort -u)
    if [ -n "$jobs" ]; then
      # shellcheck disable=SC2086
      SLURM_CONF=$conf scancel $jobs 2>/dev/null
      wait_for 30 no_running_jobs ||
        say "jobs still running after scancel: $(SLURM_CONF=$conf squeue -h -o %A 2>/dev/null | tr '\n' ' ')"
    fi
  fi
  stop_pids "$dir/run/slurmd.pid" "$dir/run/slurmctld.pid" "$dir/munge/munged.pid"
  local open
  wait_for 10 ports_closed
  open=$(listening | tr '\n' ' ')
  [ -z "$open" ] || die "ports still open after stopping: $open"
  say "stopped (logs in $dir/log)"
}

status() {
  local name file running=0
  for name in munged slurmctld slurmd; do
    file=$dir/run/$name.pid
    [ "$name" = munged ] && file=$dir/munge/munged.pid
    if alive "$file"; then
      say "$name running (pid $(cat "$file"))"
      running=$((running + 1))
    else
      say "$name not running"
    fi
  done
  if [ "$running" -eq 3 ]; then
    SLURM_CONF=$conf sinfo -N -o '%N %T %c %m' >&2
    SLURM_CONF=$conf squeue >&2
    echo "export SLURM_CONF=$conf"
  else
    return 1
  fi
}

install_if_missing() {
  local missing=()
  command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v sbatch >/dev/null || missing+=(slurm-wlm)
  command -v munged >/dev/null && command -v mungekey >/dev/null || missing+=(munge)
  [ ${#missing[@]} -eq 0 ] && return 0
  command -v apt-get >/dev/null || { say "skipped: ${missing[*]} not installed and no apt-get here"; exit 77; }
  say "installing ${missing[*]} (apt-get --no-install-recommends)"
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends slurm-wlm munge >"$dir/apt.log" 2>&1; then
    DEBIAN_FRONTEND=noninteractive apt-get update -q >>"$dir/apt.log" 2>&1
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends slurm-wlm munge >>"$dir/apt.log" 2>&1 ||
      { say "skipped: apt-get could not install ${missing[*]} (see $dir/apt.log)"; exit 77; }
  fi
}

write_conf() {
  local node cpus sockets cores threads memory
  node=$(hostname -s)
  # CPUs=2 Boards=1 SocketsPerBoard=1 CoresPerSocket=2 ThreadsPerCore=1 RealMemory=24105
  read -r cpus sockets cores threads memory < <(slurmd -C | awk '
    /^NodeName/ { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
      print v["CPUs"], v["SocketsPerBoard"], v["CoresPerSocket"], v["ThreadsPerCore"], v["RealMemory"] }')
  [ -n "${memory:-}" ] || die "slurmd -C did not describe this machine"
  # A little below what the machine reports, so the node is never drained for low memory.
  memory=$((memory * 9 / 10))
  cat >"$conf" <<EOF
# Written by scripts/slurm-local.sh: a private single-node cluster, loopback only.
ClusterName=headscan-local
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=${ports[0]}
SlurmdPort=${ports[1]}
CommunicationParameters=NoCtldInAddrAny,NoInAddrAny
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket.2
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SwitchType=switch/none
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MinJobAge=3600
MailProg=/bin/true
ReturnToService=2
PlugStackConfig=$dir/plugstack.conf
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus Sockets=$sockets CoresPerSocket=$cores ThreadsPerCore=$threads RealMemory=$memory State=UNKNOWN
PartitionName=local Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
  : >"$dir/plugstack.conf"
}

# Starts a daemon with nothing of ours but /dev/null and its log: daemons keep the descriptors they
# inherit, and a caller waiting for our pipes (or, like Foundation's Process, for a socket it
# passed down) to close would otherwise wait for as long as the daemons run.
detached() {
  (
    for fd in /proc/self/fd/*; do
      fd=${fd##*/}
      [ "$fd" -gt 2 ] && eval "exec $fd>&-" 2>/dev/null
    done
    exec "$@"
  ) </dev/null >>"$dir/log/daemons.log" 2>&1
}

node_idle() { [ "$(SLURM_CONF=$conf sinfo -h -N -o %T 2>/dev/null)" = idle ]; }

start() {
  [ "$(id -u)" -eq 0 ] || { say "skipped: a private Slurm needs root (slurmd runs jobs as their users)"; exit 77; }
  if status >/dev/null 2>&1; then
    say "already running in $dir"
    echo "export SLURM_CONF=$conf"
    return 0
  fi
  install_if_missing
  local open
  open=$(listening | tr '\n' ' ')
  [ -z "$open" ] || die "ports already in use (another Slurm?): $open"
  id munge >/dev/null 2>&1 || die "no 'munge' user (the munge package creates it)"
  chmod 755 "$dir"
  runuser -u munge -- test -x "$dir" || die "$dir: the munge user cannot reach this folder (a parent is not traversable)"
  [ ${#dir} -le 80 ] || die "$dir: path too long for munged's socket (at most 80 characters)"
  mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/run" "$dir/log"
  chown munge:munge "$dir/munge" && chmod 755 "$dir/munge"
  if [ ! -s "$dir/munge/munge.key" ]; then
    runuser -u munge -- mungekey --create --keyfile="$dir/munge/munge.key" || die "mungekey failed"
  fi
  write_conf
  trap 'say "start failed; stopping what was started (logs in $dir/log)"; stop; exit 1' ERR
  set -E
  detached runuser -u munge -- munged --socket="$dir/munge/munge.socket.2" --key-file="$dir/munge/munge.key" \
    --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/munged.seed"
  wait_for 10 alive "$dir/munge/munged.pid" || { say "munged did not start: $(tail -1 "$dir/log/daemons.log")"; false; }
  detached slurmctld -f "$conf"
  wait_for 20 alive "$dir/run/slurmctld.pid" || { say "slurmctld did not start: $(tail -1 "$dir/log/daemons.log")"; false; }
  detached slurmd -f "$conf"
  wait_for 20 alive "$dir/run/slurmd.pid" || { say "slurmd did not start: $(tail -1 "$dir/log/daemons.log")"; false; }
  wait_for 30 node_idle || { say "node not idle: $(SLURM_CONF=$conf sinfo -h -N -o '%T %E' 2>&1)"; false; }
  trap - ERR
  say "running: node $(hostname -s) idle, partition local, config $conf"
  echo "export SLURM_CONF=$conf"
}

case "$action" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  *) usage ;;
esac
