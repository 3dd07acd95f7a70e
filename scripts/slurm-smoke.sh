#!/usr/bin/env bash
# Runs examples/cluster/slurm-array.sh on a real Slurm: a one-node cluster
# on this machine (Debian's slurm-wlm and munge, installed if missing),
# started with a slurm.conf for localhost written here, then a job array
# of the shipped example on a sweep, `tpsim merge` of its shards, and a
# byte-for-byte comparison with the sweep run whole. The daemons run in
# the foreground of this script and are stopped when it ends.
#
# Not part of CI (it installs and starts daemons; about two minutes on two
# cores). Run as root or with sudo available:
#   scripts/slurm-smoke.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/merged-check.sh

as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

# A daemon in the background as root, its process the one `$!` names.
as_root_exec() {
    if [ "$(id -u)" = 0 ]; then exec "$@"; else exec sudo "$@"; fi
}

if ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        --no-install-recommends slurm-wlm munge
fi
cargo build --release --quiet -p tpsim-cli
export TPSIM=$PWD/target/release/tpsim

work=$(mktemp -d)
daemons=()
cleanup() {
    for pid in "${daemons[@]}"; do
        as_root kill "$pid" 2>/dev/null || true
    done
    wait 2>/dev/null || true
    as_root rm -rf "$work"
}
trap cleanup EXIT

# A cluster of this one machine, its spool and state kept in $work.
node=$(hostname -s)
cpus=$(nproc)
mkdir -p "$work/state" "$work/spool" "$work/munge"
cat > "$work/slurm.conf" <<EOF
ClusterName=tpsim-smoke
SlurmctldHost=$node
SlurmUser=root
SlurmctldPort=6817
SlurmdPort=6818
AuthType=auth/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
NodeName=$node CPUs=$cpus State=UNKNOWN
PartitionName=smoke Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$work/slurm.conf

# munge's key and socket, then the controller and the node daemon.
as_root dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
as_root chmod 400 "$work/munge/munge.key"
socket=$work/munge/munge.socket
as_root munged --force --key-file="$work/munge/munge.key" --socket="$socket" \
    --pid-file="$work/munge/munged.pid" --seed-file="$work/munge/seed" \
    --log-file="$work/munge/munged.log"
daemons+=("$(cat "$work/munge/munged.pid")")
# Slurm finds munge's socket through its plugin's default path; point it
# there for this run.
as_root mkdir -p /run/munge
as_root ln -sf "$socket" /run/munge/munge.socket.2
as_root_exec slurmctld -D -f "$SLURM_CONF" > "$work/slurmctld.log" 2>&1 &
daemons+=($!)
as_root_exec slurmd -D -f "$SLURM_CONF" > "$work/slurmd.log" 2>&1 &
daemons+=($!)
for _ in $(seq 60); do
    if sinfo -h -o %T 2>/dev/null | grep -q idle; then break; fi
    sleep 1
done
if ! sinfo -h -o %T 2>/dev/null | grep -q idle; then
    echo "slurm-smoke: the node did not come up; slurmctld's and slurmd's logs:" >&2
    tail -n 20 "$work/slurmctld.log" "$work/slurmd.log" >&2
    exit 1
fi

scenario=scenarios/thrashing.toml
options=(--set memory.size=160KiB,320KiB --set users.terminals=4..16:4
         --set run.end_time=1500s --set run.warmup=300s --replications 3)
"$TPSIM" sweep "$scenario" "${options[@]}" --out "$work/whole" > "$work/whole.txt"

# The example's array, as its header says to submit it, waited for.
(cd "$work" && sbatch --wait --quiet --array=1-3 --cpus-per-task=1 \
    "$OLDPWD/examples/cluster/slurm-array.sh" \
    "$OLDPWD/$scenario" "$work/slurm" "${options[@]}")
"$TPSIM" merge "$work"/slurm/shards/* --out "$work/slurm/merged" > "$work/slurm.txt"

failed=0
same_as_whole "$work/whole" "$work/whole.txt" "$work/slurm/merged" "$work/slurm.txt" \
    slurm-smoke || failed=1
if [ "$failed" = 0 ]; then
    rows=$(($(wc -l < "$work/whole/replications.csv") - 1))
    echo "slurm-smoke: Slurm $(sinfo -V | cut -d' ' -f2) ran 3 array tasks on $node; merged, their $rows replications are the whole sweep, byte for byte"
fi
exit "$failed"
