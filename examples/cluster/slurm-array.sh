#!/usr/bin/env bash
# A sweep (or a batch) cut into the tasks of a Slurm job array: task I of N
# runs shard I/N on the cores Slurm gives it. Submit the array, then the
# merge to run once every task has succeeded:
#
#   job=$(sbatch --parsable --array=1-8 examples/cluster/slurm-array.sh \
#       scenarios/thrashing.toml results \
#       --set memory.size=160KiB,320KiB --set users.terminals=4..32:4 \
#       --replications 20)
#   sbatch --dependency=afterok:$job --wrap 'tpsim merge results/shards/* --out results/merged'
#
# The array must be numbered 1 to N (--array=1-N): shards are numbered so.
# Task I writes OUT/shards/I/shard.json; the merge writes OUT/merged, the
# files one `tpsim sweep ... --out` would have written, byte for byte. Set
# TPSIM to the tpsim binary if it is not on the PATH of the compute nodes.
#SBATCH --job-name=tpsim-shard
#SBATCH --cpus-per-task=4
#SBATCH --time=02:00:00
#SBATCH --output=tpsim-shard-%A-%a.log
set -euo pipefail

if [ $# -lt 2 ] || [ -z "${SLURM_ARRAY_TASK_ID:-}" ]; then
    echo "run it as the tasks of a job array: sbatch --array=1-N $0 SCENARIO OUT [options]" >&2
    exit 2
fi
scenario=$1
out=$2
shift 2
tpsim=${TPSIM:-tpsim}
command=batch
for arg in "$@"; do
    if [ "$arg" = --set ]; then command=sweep; fi
done

exec "$tpsim" "$command" "$scenario" "$@" \
    --jobs "${SLURM_CPUS_PER_TASK:-1}" \
    --shard "$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT" \
    --out "$out/shards/$SLURM_ARRAY_TASK_ID"
