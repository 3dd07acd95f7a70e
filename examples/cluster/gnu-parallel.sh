#!/usr/bin/env bash
# A sweep (or a batch) cut into shards that GNU parallel runs, on this
# machine's cores or, with --sshloginfile, on several machines; then the
# shards' records merged into the whole sweep's table and files.
#
#   examples/cluster/gnu-parallel.sh SCENARIO OUT SHARDS [tpsim sweep options]
#
#   examples/cluster/gnu-parallel.sh scenarios/thrashing.toml results 8 \
#       --set memory.size=160KiB,320KiB --set users.terminals=4..32:4 \
#       --replications 20
#
# Shard I of SHARDS writes OUT/shards/I/shard.json; `tpsim merge` writes
# OUT/merged/{replications.csv,estimates.csv,batch.json}, the files one
# `tpsim sweep ... --out` would have written, byte for byte. Set TPSIM to
# the tpsim binary if it is not on the PATH. Options are passed to tpsim as
# they are (parallel's --quote): keys with brackets need no escaping.
# With no --set option it runs `tpsim batch` instead.
set -euo pipefail

if [ $# -lt 3 ]; then
    sed -n '2,18p' "$0" >&2
    exit 2
fi
scenario=$1
out=$2
shards=$3
shift 3
tpsim=${TPSIM:-tpsim}
command=batch
for arg in "$@"; do
    if [ "$arg" = --set ]; then command=sweep; fi
done

# One thread per shard, one shard per core (parallel's default).
seq 1 "$shards" | parallel --quote --halt now,fail=1 \
    "$tpsim" "$command" "$scenario" "$@" --jobs 1 \
    --shard "{}/$shards" --out "$out/shards/{}" >/dev/null
"$tpsim" merge "$out"/shards/* --out "$out/merged"
