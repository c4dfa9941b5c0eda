#!/usr/bin/env bash
# A throw-away single-host SLURM cluster with two slurmd "nodes" (no systemd, no cgroups), for the tests.
#
#   scripts/slurm_local.sh install          install Debian's slurmctld, slurmd, slurm-client and munge when missing
#                                           (root with apt-get only; nothing is started by the packages)
#   scripts/slurm_local.sh start  BASE      write BASE/etc/slurm.conf, start munged, slurmctld and two slurmd
#   scripts/slurm_local.sh status BASE      sinfo of the cluster (exit 1 when it is not up)
#   scripts/slurm_local.sh stop   BASE      cancel every job, shut the daemons down, wait for them, kill leftovers
#
# Everything lives under BASE (state, logs, sockets, pid files); use it with SLURM_CONF=BASE/etc/slurm.conf.
# The two nodes are $(hostname -s) and localhost: both resolve to this host, so a batch script's
# `scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n 1` works unchanged. Ports: SLURM_LOCAL_PORT (default
# 6817) for slurmctld, the next two for the nodes. Recipe and measurements: ../shared/reference/slurm-local.md.
set -euo pipefail

cmd=${1:-}
B=${2:-}

have_all() {
  command -v sbatch >/dev/null && command -v slurmctld >/dev/null && command -v slurmd >/dev/null \
    && command -v munged >/dev/null
}

install() {
  if have_all; then
    return 0
  fi
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    echo "slurm_local: slurmctld/slurmd/munge not installed and this is not root with apt-get: SLURM tests skip" >&2
    return 0
  fi
  # the packages' postinst scripts would start the daemons with the default /etc config: forbid that
  local policy=/usr/sbin/policy-rc.d added=""
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' > "$policy"
    chmod 755 "$policy"
    added=1
  fi
  local pkgs="slurmctld slurmd slurm-client munge"
  export DEBIAN_FRONTEND=noninteractive
  local ok=1
  if ! apt-get install -y -q --no-install-recommends $pkgs; then
    { apt-get update -q && apt-get install -y -q --no-install-recommends $pkgs; } || ok=""
  fi
  if [ -n "$added" ]; then rm -f "$policy"; fi
  if [ -z "$ok" ]; then
    echo "slurm_local: apt-get could not install $pkgs: the SLURM tests will skip" >&2
  fi
  return 0
}

need_base() {
  if [ -z "$B" ]; then
    echo "usage: $0 start|stop|status BASE" >&2
    exit 2
  fi
  B=$(cd "$(dirname "$B")" && pwd)/$(basename "$B")
  export SLURM_CONF=$B/etc/slurm.conf
}

start() {
  need_base
  local host port
  host=$(hostname -s)
  port=${SLURM_LOCAL_PORT:-6817}
  mkdir -p "$B"/{etc,munge,state,spool,log,run}
  chmod 755 "$B/munge"  # munged refuses a socket folder others cannot enter
  cat > "$SLURM_CONF" <<EOF
ClusterName=fsdpds
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$B/munge/munge.socket.2
StateSaveLocation=$B/state
SlurmdSpoolDir=$B/spool/slurmd.%n
SlurmctldPidFile=$B/run/slurmctld.pid
SlurmdPidFile=$B/run/slurmd.%n.pid
SlurmctldLogFile=$B/log/slurmctld.log
SlurmdLogFile=$B/log/slurmd.%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$B/log/jobcomp.txt
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
MinJobAge=300
KillWait=5
Waittime=0
NodeName=$host NodeHostname=$host NodeAddr=127.0.0.1 Port=$((port + 1)) CPUs=1 RealMemory=1000 State=UNKNOWN
NodeName=localhost NodeHostname=$host NodeAddr=127.0.0.1 Port=$((port + 2)) CPUs=1 RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF
  [ -f "$B/munge/munge.key" ] || mungekey --create --keyfile="$B/munge/munge.key" >/dev/null 2>&1 \
    || dd if=/dev/urandom of="$B/munge/munge.key" bs=128 count=1 status=none
  chmod 600 "$B/munge/munge.key"
  munged --key-file="$B/munge/munge.key" --socket="$B/munge/munge.socket.2" --pid-file="$B/run/munged.pid" \
    --log-file="$B/log/munged.log" --seed-file="$B/munge/seed" --force
  slurmctld -i
  slurmd -N "$host"
  slurmd -N localhost
  local i
  for i in $(seq 150); do
    if [ "$(sinfo -h -o '%D %T' 2>/dev/null)" = "2 idle" ]; then
      echo "slurm_local: up (SLURM_CONF=$SLURM_CONF): 2 nodes idle"
      return 0
    fi
    sleep 0.1
  done
  echo "slurm_local: the nodes did not come up; sinfo says: $(sinfo -h 2>&1 || true)" >&2
  return 1
}

status() {
  need_base
  sinfo
}

pid_of() { cat "$B/run/$1.pid" 2>/dev/null || true; }

stop() {
  need_base
  local i p f pids=""
  if [ -f "$SLURM_CONF" ]; then
    scancel --user=root 2>/dev/null || true
    for i in $(seq 100); do
      [ -z "$(squeue -h 2>/dev/null)" ] && break
      sleep 0.1
    done
    scontrol shutdown 2>/dev/null || true  # does not end running steps: hence the scancel above
  fi
  for f in slurmctld slurmd.$(hostname -s) slurmd.localhost munged; do
    p=$(pid_of "$f")
    [ -n "$p" ] && pids="$pids $p"
  done
  p=$(pid_of munged)
  [ -n "$p" ] && kill "$p" 2>/dev/null || true
  for i in $(seq 100); do
    local alive=""
    for p in $pids; do kill -0 "$p" 2>/dev/null && alive="$alive $p"; done
    [ -z "$alive" ] && break
    [ "$i" = 50 ] && for p in $alive; do kill "$p" 2>/dev/null || true; done
    sleep 0.1
  done
  for p in $pids; do kill -0 "$p" 2>/dev/null && kill -9 "$p" 2>/dev/null || true; done
  # job steps whose slurmd is gone ignore SIGTERM (slurm-local.md, teardown): kill those of this cluster by pid
  for p in $(pgrep -f "slurmstepd" 2>/dev/null || true); do
    if tr '\0' ' ' < "/proc/$p/environ" 2>/dev/null | grep -q "SLURM_CONF=$SLURM_CONF"; then
      kill -9 "$p" 2>/dev/null || true
    fi
  done
  echo "slurm_local: stopped"
}

case "$cmd" in
  install) install ;;
  start) start ;;
  stop) stop ;;
  status) status ;;
  *) echo "usage: $0 install | start BASE | status BASE | stop BASE" >&2; exit 2 ;;
esac
