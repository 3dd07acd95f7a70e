#!/usr/bin/env bash
# Runs the integration tests (tests/it, all of them but the heavy ones that
# scripts/heavy-checks.sh runs) under other seeds: each of seed offsets 1..N (default 20)
# moves every statistical test's master seed. A correct model passes all of
# them but with the suite's false-alarm probability (SUITE_FALSE_ALARM in
# tests/it/main.rs, 0.005 per offset). The script also counts the interval
# checks one run makes and fails if they and the heavy tests' checks
# (counted once, from one run of them at the usual seeds) are more than
# INTERVAL_CHECKS, the number the per-check level was set for.
#
# Not part of CI: it takes about 20 runs of the suite, in release mode.
#   scripts/seed-offsets.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."

offsets="${1:-20}"
budget=$(sed -n 's/^pub const INTERVAL_CHECKS: u32 = \([0-9]*\);/\1/p' tests/it/main.rs)
log=$(mktemp)
trap 'rm -f "$log"' EXIT

cargo test --release --test it --no-run
TPSIM_CHECK_LOG="$log" cargo test --release --quiet --test it -- --ignored > /dev/null
heavy_checks=$(wc -l < "$log")
failed=0
for offset in $(seq 1 "$offsets"); do
    : > "$log"
    if output=$(TPSIM_TEST_SEED_OFFSET="$offset" TPSIM_CHECK_LOG="$log" \
        cargo test --release --quiet --test it 2>&1); then
        result=pass
    else
        result=FAIL
        failed=$((failed + 1))
        echo "$output" | grep -E -A1 "panicked|FAILED" >&2 || true
    fi
    checks=$(wc -l < "$log")
    echo "seed offset $offset: $result, $checks interval checks (and $heavy_checks in the heavy tests)"
    if [ $((checks + heavy_checks)) -gt "$budget" ]; then
        echo "the suite made $checks interval checks and the heavy tests $heavy_checks, more than the budget of $budget" >&2
        exit 1
    fi
done
echo "$failed of $offsets seed offsets failed"
[ "$failed" -eq 0 ]
