#!/usr/bin/env python3
"""tpsim's speed as ratios to baselines, from interleaved runs.

The machine a benchmark runs on is rarely quiet: another process, the
clock's boost or the neighbours of a virtual machine move one criterion
run by 10-40%. A ratio to a baseline measured at nearly the same moment
moves much less. This script runs the benchmarks of each group one after
the other, each tpsim benchmark next to its baseline, ROUNDS times,
flipping the order every round, and prints per pair the median of each,
the median ratio with its range over the rounds, and the target where
the pair has one. docs/PERFORMANCE.md quotes its output.

    nice scripts/bench-ratios.py [--rounds 3] [--time 3] [--only calendar,network,scale,timesharing]

The groups:

- calendar: the hold model on tpsim's calendar against a bare binary
  heap, at 10 to 1,000,000 pending events (cost ratios: lower is better);
- network: tpsim's M/M/1 against the same queue as a loop keeping every
  figure a run reports by hand (the like-for-like baseline) and as a bare
  loop keeping none; the loop with tpsim's statistics types against the
  one keeping them by hand; the repairman and the central server against
  the bare loop (speed ratios: higher is better);
- scale: `thrashing-clock` with every part multiplied by 16, 256 and
  1,024, the cost of an event against the scenario as shipped (x1);
- timesharing: the shipped time-sharing scenarios against the bare loop
  (not run unless asked for: they have no target).

Every group but timesharing by default: about 6 minutes with three rounds
of 3 s on two cores, 10 with five. Each round's ratios go to stderr as
they come. Not part of CI. Criterion writes where cargo builds
(CARGO_TARGET_DIR, else target/).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

# (group, bench target, tpsim benchmark, baseline, kind, target): kind
# "cost" is time per element over the baseline's (lower is better),
# "speed" the baseline's over tpsim's (higher is better); a target is
# (bound, whether every round must meet it, as the issue states it).
HOLD_SIZES = (10, 1_000, 100_000, 1_000_000)
PAIRS = (
    [("calendar", "calendar", f"calendar_hold/{n}", f"bare_heap_hold/{n}", "cost",
      (1.2, True)) for n in HOLD_SIZES]
    + [("network", "mm1", "network/mm1", "network/bare_loop_with_statistics", "speed",
        (0.6, False)),
       ("network", "mm1", "network/bare_loop_with_tpsim_statistics",
        "network/bare_loop_with_statistics", "speed", None)]
    + [("network", "mm1", f"network/{s}", "network/bare_loop", "speed", None) for s in
       ("mm1", "repairman", "central-server")]
    + [("scale", "timesharing", f"timesharing-scale/thrashing-clock/x{k}",
        "timesharing-scale/thrashing-clock/x1", "cost", (2.0, False) if k == 1_024 else None)
       for k in (16, 256, 1_024)]
    + [("timesharing", "timesharing", f"timesharing/{s}", "timesharing/bare_loop", "speed", None)
       for s in ("thrashing", "berkeley-1979-paged", "berkeley-1979-swapped",
                 "multics-mit-1975")]
)
GROUPS = ("calendar", "network", "scale", "timesharing")
DEFAULT = ("calendar", "network", "scale")


def target_dir(root: str) -> str:
    """Where cargo builds, and so where criterion writes its estimates."""
    return os.environ.get("CARGO_TARGET_DIR") or os.path.join(root, "target")


def measure(root: str, bench: str, name: str, seconds: float) -> float:
    """Runs one benchmark; returns criterion's median time per element [ns]."""
    done = subprocess.run(
        ["cargo", "bench", "-q", "--bench", bench, "--", "--exact", name,
         "--warm-up-time", "1", "--measurement-time", str(seconds), "--noplot"],
        cwd=root, capture_output=True, text=True,
    )
    if done.returncode != 0:
        sys.exit(f"benchmark {name} failed:\n{done.stderr}")
    # Criterion names the folder by the group, then the function with any
    # further slash made an underscore.
    group, function = name.split("/", 1)
    folder = os.path.join(target_dir(root), "criterion", group, function.replace("/", "_"), "new")
    with open(os.path.join(folder, "estimates.json")) as f:
        per_iteration = json.load(f)["median"]["point_estimate"]
    with open(os.path.join(folder, "benchmark.json")) as f:
        throughput = json.load(f).get("throughput") or {}
    return per_iteration / throughput.get("Elements", 1)


def ratio(kind: str, ours: float, base: float) -> float:
    return base / ours if kind == "speed" else ours / base


def verdict(kind: str, ratios: list, target) -> str:
    """Whether `ratios` meet `target` at their median, and in every round."""
    if target is None:
        return ""
    bound, every = target
    better = (lambda r: r >= bound) if kind == "speed" else (lambda r: r <= bound)
    sign = ">=" if kind == "speed" else "<="
    at_median = better(statistics.median(ratios))
    in_every = all(better(r) for r in ratios)
    wanted = in_every if every else at_median
    how = "in every round" if every else "at the median"
    return (f"{sign} {bound} {how}: {'met' if wanted else 'MISSED'} "
            f"(median {'met' if at_median else 'missed'}, "
            f"{sum(better(r) for r in ratios)} of {len(ratios)} rounds)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--time", type=float, default=3.0, help="criterion measurement time [s]")
    parser.add_argument("--only", default=",".join(DEFAULT),
                        help=f"groups, comma-separated, of {', '.join(GROUPS)}")
    args = parser.parse_args()
    groups = args.only.split(",")
    if not set(groups) <= set(GROUPS):
        sys.exit(f"unknown group in {args.only}: the groups are {', '.join(GROUPS)}")
    root = subprocess.run(
        ["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True, check=True
    ).stdout.strip()
    pairs = [p for p in PAIRS if p[0] in groups]
    subprocess.run(["cargo", "bench", "--no-run", "-q"] + sum(
        (["--bench", b] for b in sorted({p[1] for p in pairs})), []), cwd=root, check=True)

    # Each benchmark once a round, a pair's two next to each other.
    order = []
    for _, bench, name, baseline, _, _ in pairs:
        for one in (name, baseline):
            if (bench, one) not in order:
                order.append((bench, one))
    times = {one: [] for one in order}
    for r in range(args.rounds):
        for bench, name in order if r % 2 == 0 else reversed(order):
            times[(bench, name)].append(measure(root, bench, name, args.time))
        print(f"round {r + 1} of {args.rounds}:", file=sys.stderr)
        for _, bench, name, baseline, kind, _ in pairs:
            ours, base = times[(bench, name)][-1], times[(bench, baseline)][-1]
            print(f"  {name} {ours:.1f} ns, {baseline} {base:.1f} ns: "
                  f"{ratio(kind, ours, base):.2f}", file=sys.stderr, flush=True)

    print("| benchmark | tpsim [ns] | baseline [ns] | ratio, median (range) | target |")
    print("|---|---|---|---|---|")
    for _, bench, name, baseline, kind, target in pairs:
        ours, base = times[(bench, name)], times[(bench, baseline)]
        ratios = [ratio(kind, o, b) for o, b in zip(ours, base)]
        label = "x the speed" if kind == "speed" else "x the cost"
        print(
            f"| `{name}` vs `{baseline}` | {statistics.median(ours):.1f} | "
            f"{statistics.median(base):.1f} | {statistics.median(ratios):.2f}{label} "
            f"({min(ratios):.2f}-{max(ratios):.2f}) | {verdict(kind, ratios, target)} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
