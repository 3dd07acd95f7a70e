#!/usr/bin/env python3
"""tpsim's speed as ratios to bare baselines, from interleaved runs.

The machine a benchmark runs on is rarely quiet: another process, the
clock's boost or the neighbours of a virtual machine move one criterion
run by 10-40%. A ratio to a baseline measured at nearly the same moment
moves much less. This script runs each tpsim benchmark and its baseline
(a bare loop written in the benchmark itself) alternately, ROUNDS times,
flipping which goes first, and prints per pair the median of each and the
median ratio with its range over the rounds. docs/PERFORMANCE.md quotes
its output.

    scripts/bench-ratios.py [--rounds 5] [--time 3] [--only calendar|network|timesharing]

Speed ratios (events per second, tpsim / bare loop: higher is better) are
given for whole simulations; cost ratios (time per hold, tpsim / bare
heap: lower is better) for the calendar. Not part of CI: five rounds
take about 35 minutes on two cores, three about 20.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

# (bench target, tpsim benchmark, baseline, kind)
PAIRS = (
    [("calendar", f"calendar_hold/{n}", f"bare_heap_hold/{n}", "cost") for n in
     (10, 1_000, 100_000, 1_000_000)]
    + [("mm1", f"network/{s}", "network/bare_loop", "speed") for s in
       ("mm1", "repairman", "central-server")]
    + [("mm1", "network/mm1", "network/bare_loop_with_statistics", "speed")]
    + [("timesharing", f"timesharing/{s}", "timesharing/bare_loop", "speed") for s in
       ("thrashing", "berkeley-1979-paged", "berkeley-1979-swapped", "multics-mit-1975")]
)
GROUPS = {"calendar": "calendar", "network": "mm1", "timesharing": "timesharing"}


def measure(root: str, bench: str, name: str, seconds: float) -> float:
    """Runs one benchmark; returns criterion's median time per element [ns]."""
    done = subprocess.run(
        ["cargo", "bench", "-q", "--bench", bench, "--", "--exact", name,
         "--warm-up-time", "1", "--measurement-time", str(seconds), "--noplot"],
        cwd=root, capture_output=True, text=True,
    )
    if done.returncode != 0:
        sys.exit(f"benchmark {name} failed:\n{done.stderr}")
    folder = os.path.join(root, "target", "criterion", *name.split("/"), "new")
    with open(os.path.join(folder, "estimates.json")) as f:
        per_iteration = json.load(f)["median"]["point_estimate"]
    with open(os.path.join(folder, "benchmark.json")) as f:
        throughput = json.load(f).get("throughput") or {}
    return per_iteration / throughput.get("Elements", 1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--time", type=float, default=3.0, help="criterion measurement time [s]")
    parser.add_argument("--only", choices=sorted(GROUPS), help="one group of pairs")
    args = parser.parse_args()
    root = subprocess.run(
        ["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True, check=True
    ).stdout.strip()
    pairs = [p for p in PAIRS if args.only is None or p[0] == GROUPS[args.only]]
    subprocess.run(["cargo", "bench", "--no-run", "-q"] + sum(
        (["--bench", b] for b in sorted({p[0] for p in pairs})), []), cwd=root, check=True)

    times = {(p[1], p[2]): ([], []) for p in pairs}
    for r in range(args.rounds):
        for bench, name, baseline, _ in pairs:
            order = [(0, name), (1, baseline)]
            for which, bench_name in order if r % 2 == 0 else reversed(order):
                times[(name, baseline)][which].append(measure(root, bench, bench_name, args.time))
        print(f"round {r + 1} of {args.rounds} done", file=sys.stderr, flush=True)

    print("| benchmark | tpsim [ns/event] | baseline [ns/event] | ratio, median (range) |")
    print("|---|---|---|---|")
    for _, name, baseline, kind in pairs:
        ours, bare = times[(name, baseline)]
        if kind == "speed":
            ratios = [b / o for o, b in zip(ours, bare)]
            label = "x the speed"
        else:
            ratios = [o / b for o, b in zip(ours, bare)]
            label = "x the cost"
        print(
            f"| `{name}` vs `{baseline}` | {statistics.median(ours):.1f} | "
            f"{statistics.median(bare):.1f} | {statistics.median(ratios):.2f}{label} "
            f"({min(ratios):.2f}-{max(ratios):.2f}) |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
