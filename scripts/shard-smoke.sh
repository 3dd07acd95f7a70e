#!/usr/bin/env bash
# Runs the cluster examples end to end on this machine and checks that the
# shards they merge are the whole sweep, byte for byte:
# examples/cluster/gnu-parallel.sh with GNU parallel (Debian: apt install
# parallel), and examples/cluster/slurm-array.sh with its array's tasks run
# one after another as Slurm would run them (the environment Slurm gives a
# task, set by hand).
#
# Not part of CI: it needs GNU parallel. About a minute on two cores.
#   scripts/shard-smoke.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/merged-check.sh

if ! command -v parallel >/dev/null; then
    echo "shard-smoke: GNU parallel is not installed (Debian: apt install parallel)" >&2
    exit 2
fi
cargo build --release --quiet -p tpsim-cli
export TPSIM=$PWD/target/release/tpsim
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

scenario=scenarios/thrashing.toml
options=(--set memory.size=160KiB,320KiB --set users.terminals=4..16:4
         --set run.end_time=1500s --set run.warmup=300s --replications 3)

"$TPSIM" sweep "$scenario" "${options[@]}" --out "$work/whole" > "$work/whole.txt"

examples/cluster/gnu-parallel.sh "$scenario" "$work/parallel" 5 "${options[@]}" \
    > "$work/parallel.txt"

for task in 1 2 3; do
    SLURM_ARRAY_TASK_ID=$task SLURM_ARRAY_TASK_COUNT=3 SLURM_CPUS_PER_TASK=2 \
        examples/cluster/slurm-array.sh "$scenario" "$work/slurm" "${options[@]}" >/dev/null
done
"$TPSIM" merge "$work"/slurm/shards/* --out "$work/slurm/merged" > "$work/slurm.txt"

failed=0
for way in parallel slurm; do
    same_as_whole "$work/whole" "$work/whole.txt" "$work/$way/merged" "$work/$way.txt" \
        "shard-smoke: $way" || failed=1
done
if [ "$failed" = 0 ]; then
    rows=$(($(wc -l < "$work/whole/replications.csv") - 1))
    echo "shard-smoke: GNU parallel (5 shards) and Slurm (3 tasks) merged $rows replications into the whole sweep, byte for byte"
fi
exit "$failed"
