#!/usr/bin/env bash
# Checks that two tpsim binaries give the same results: every shipped
# scenario's `tpsim run --json`, byte for byte once `wall_seconds` (the
# only field that depends on the machine) is dropped.
#
#   scripts/same-dynamics.sh OLD_TPSIM NEW_TPSIM [SCENARIO.toml ...]
#
# Build the old binary from the commit before a change (for example with
# `git worktree add /tmp/old HEAD~1 && cargo build --release -p tpsim-cli
# --manifest-path /tmp/old/Cargo.toml`). Exits 1 and shows the first
# differing lines of each scenario that differs.
set -euo pipefail
if [ $# -lt 2 ]; then
    echo "usage: $0 OLD_TPSIM NEW_TPSIM [SCENARIO.toml ...]" >&2
    exit 2
fi
old=$1
new=$2
shift 2
cd "$(dirname "$0")/.."
if [ $# -gt 0 ]; then
    scenarios=("$@")
else
    scenarios=(scenarios/*.toml)
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

run() {
    local binary=$1 scenario=$2 out=$3
    "$binary" run "$scenario" --json 2>/dev/null | grep -v '"wall_seconds"' > "$out"
}

status=0
for scenario in "${scenarios[@]}"; do
    name=$(basename "$scenario" .toml)
    run "$old" "$scenario" "$work/$name.old" &
    run "$new" "$scenario" "$work/$name.new"
    wait
    if cmp -s "$work/$name.old" "$work/$name.new"; then
        echo "same       $name"
    else
        echo "DIFFERENT  $name"
        diff "$work/$name.old" "$work/$name.new" | head -20
        status=1
    fi
done
exit "$status"
