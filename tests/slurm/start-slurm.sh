#!/usr/bin/env bash
# A real single-node Slurm on localhost for the tests and CI (Debian/Ubuntu, as root, no systemd).
# Idempotent: installs slurmctld/slurmd/munge if missing, writes slurm.conf if it changed, starts
# the daemons that are not running, waits until the node is idle and runs one job through sbatch.
#   bash tests/slurm/start-slurm.sh [start|stop|status]
# There is no slurmdbd, so sacct does not work: runs against this cluster pass
# --slurm-status-command squeue (MinJobAge keeps finished jobs visible to squeue).
set -euo pipefail

PARTITION="${SLURM_PARTITION:-debug}"
CONF=/etc/slurm/slurm.conf
CTLD_PID=/run/slurmctld.pid
SLURMD_PID=/run/slurmd.pid
MUNGE_PID=/run/munge/munged.pid
LOGDIR=/var/log/slurm

say() { echo "[start-slurm] $*" >&2; }
alive() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }
stop_pidfile() {
  if alive "$1"; then
    local pid; pid=$(cat "$1"); kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$1"
}

case "${1:-start}" in
  stop) stop_pidfile "$SLURMD_PID"; stop_pidfile "$CTLD_PID"; stop_pidfile "$MUNGE_PID"; exit 0 ;;
  status) sinfo; squeue --states=all; exit 0 ;;
  start) ;;
  *) echo "usage: $0 [start|stop|status]" >&2; exit 2 ;;
esac
[ "$(id -u)" = 0 ] || { echo "start-slurm.sh must run as root" >&2; exit 1; }
started=$(date +%s)

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null \
   || ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
  say "installing slurmctld slurmd slurm-client munge"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >/dev/null
  apt-get install -y -q --no-install-recommends slurmctld slurmd slurm-client munge >/dev/null
fi

# munge: the authentication daemon (refuses to run as root)
if [ ! -s /etc/munge/munge.key ]; then
  mungekey --create --keyfile=/etc/munge/munge.key 2>/dev/null \
    || dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
fi
chown munge:munge /etc/munge/munge.key && chmod 0400 /etc/munge/munge.key
install -d -o munge -g munge -m 0755 /run/munge
install -d -o munge -g munge -m 0700 /var/log/munge /var/lib/munge
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  stop_pidfile "$MUNGE_PID"
  rm -f /run/munge/munge.socket.2 /run/munge/munge.socket.2.lock
  runuser -u munge -- /usr/sbin/munged --pid-file="$MUNGE_PID"
  for _ in $(seq 1 50); do munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break; sleep 0.1; done
fi

# slurm.conf: one node on 127.0.0.1 with this machine's CPUs and 90% of its memory
HW=$(slurmd -C | head -1 | tr ' ' '\n' \
  | grep -E '^(CPUs|Boards|SocketsPerBoard|CoresPerSocket|ThreadsPerCore)=' | tr '\n' ' ')
MEM_MB=$(awk '/MemTotal/ {print int($2/1024*0.9)}' /proc/meminfo)
install -d -o slurm -g slurm -m 0755 /var/lib/slurm /var/lib/slurm/slurmctld \
  /var/lib/slurm/slurmd "$LOGDIR"
NEWCONF=$(mktemp)
cat > "$NEWCONF" <<CONF
ClusterName=localcluster
SlurmctldHost=localhost
SlurmUser=slurm
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
MinJobAge=600
MaxJobCount=100000
SlurmctldTimeout=30
SlurmdTimeout=30
StateSaveLocation=/var/lib/slurm/slurmctld
SlurmdSpoolDir=/var/lib/slurm/slurmd
SlurmctldPidFile=${CTLD_PID}
SlurmdPidFile=${SLURMD_PID}
SlurmctldLogFile=${LOGDIR}/slurmctld.log
SlurmdLogFile=${LOGDIR}/slurmd.log
NodeName=localhost NodeAddr=127.0.0.1 ${HW}RealMemory=${MEM_MB} State=UNKNOWN
PartitionName=${PARTITION} Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
if ! cmp -s "$NEWCONF" "$CONF"; then
  install -m 0644 "$NEWCONF" "$CONF"
  stop_pidfile "$SLURMD_PID"; stop_pidfile "$CTLD_PID"
fi
rm -f "$NEWCONF"

alive "$CTLD_PID" || /usr/sbin/slurmctld
for _ in $(seq 1 100); do scontrol ping 2>/dev/null | grep -q UP && break; sleep 0.1; done
alive "$SLURMD_PID" || /usr/sbin/slurmd -N localhost

state=""
for _ in $(seq 1 150); do
  state=$(sinfo -h -n localhost -o '%T' 2>/dev/null || true)
  case "$state" in
    idle*|mixed*|allocated*|completing*) break ;;
    drain*|down*) scontrol update NodeName=localhost State=RESUME 2>/dev/null || true ;;
  esac
  sleep 0.2
done
case "$state" in
  idle*|mixed*|allocated*|completing*) ;;
  *) say "node state '$state'; see $LOGDIR"; tail -20 "$LOGDIR"/*.log >&2 || true; exit 1 ;;
esac

# smoke job through sbatch, polled with squeue (there is no sacct)
out=$(mktemp)
job=$(sbatch --parsable -p "$PARTITION" -t 1 --mem=10 -o "$out" --wrap='echo ok')
for _ in $(seq 1 300); do
  js=$(squeue -h -j "$job" --states=all -o '%T' 2>/dev/null || true)
  case "$js" in COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY) break ;; esac
  sleep 0.2
done
[ "$js" = COMPLETED ] && grep -qx ok "$out" || { say "smoke job $job ended '$js'"; exit 1; }
rm -f "$out"
say "slurm ready in $(( $(date +%s) - started )) s: $(sinfo -h -o '%P %a %D %T %N')"
