#!/usr/bin/env python3
"""The 1981 study's probe analysis on the shipped installations.

For each pair (Berkeley 1979 with levels clustered to 30 observations,
Purdue 1980 with the study's window of +-1 level), runs each installation
REPLICATIONS times with its probe (seeds 1..R, both members on the same
seeds), pools the observations, and reports for each benchmark and load
index (users, user processes):

- how many levels have their median below their mean (the study found
  it at every level);
- how rough the 75th-percentile curve is: the number of steps where it
  falls as the load rises, and the mean absolute second difference
  relative to the curve's mean (the study found the curves against user
  processes smoother);
- the comparison of the pair (`tpsim compare`): levels where swapped is
  significantly faster, and where paged is, and the whole-curve test
  (the mean over levels of the difference of the 75th percentiles,
  swapped less paged, with its interval over the paired replications).

Variants named after the replications (those of scripts/ablation.py,
such as "clearing 0.25 ms a click" or "32V on all the memory") are applied
to both members first, in the order given, so that the study can be run
across an assumption's plausible range.

Not part of CI: several minutes on two cores.

Usage: scripts/probe-study.py [REPLICATIONS [VARIANT ...]]   (default 5, as shipped)
"""

import csv
import io
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from ablation import variants
from tpsimrun import ROOT, TPSIM, build

PAIRS = [
    ("berkeley-1979", ["--cluster", "30"]),
    ("purdue-1980", ["--window", "1"]),
]


def tpsim(*args):
    return subprocess.run([str(TPSIM), *args], check=True, capture_output=True, text=True).stdout


def pooled_observations(scenario, path, reps, work):
    """The probe observations of `reps` runs of the scenario at `path`, in
    one table."""
    rows, header = [], None
    for seed in range(1, reps + 1):
        out = Path(work) / f"{scenario}-{seed}"
        tpsim("run", str(path), "--seed", str(seed), "--out", str(out))
        reader = csv.reader(io.StringIO((out / "probe.csv").read_text()))
        header = next(reader)
        rows.extend(reader)
    table = Path(work) / f"{scenario}-pooled.csv"
    with open(table, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)
    return table


def roughness(points):
    """Falls as the load rises, and mean |second difference| / mean."""
    ys = [y for _, y in points]
    falls = sum(1 for a, b in zip(ys, ys[1:]) if b < a)
    second = [abs(c - 2 * b + a) for a, b, c in zip(ys, ys[1:], ys[2:])]
    mean = sum(ys) / len(ys) if ys else 0.0
    rel = (sum(second) / len(second) / mean) if second and mean > 0 else 0.0
    return falls, rel


def scenarios(site, chosen, work):
    """The pair's scenario files, with the variants `chosen` applied to
    both members; None if a variant does not apply to the pair."""
    paths = {}
    for kind in ["swapped", "paged"]:
        text = (ROOT / "scenarios" / f"{site}-{kind}.toml").read_text()
        edits = dict(variants(text))
        for name in chosen:
            if name not in edits:
                return None
            text = edits[name](text)
        paths[kind] = Path(work) / f"{site}-{kind}.toml"
        paths[kind].write_text(text)
    return paths


def main():
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    chosen = sys.argv[2:]
    build()
    with tempfile.TemporaryDirectory() as work:
        for site, grouping in PAIRS:
            variant = f", {'; '.join(chosen)}" if chosen else ""
            print(f"\n## {site} ({' '.join(grouping)}, {reps} replications of each, pooled{variant})\n")
            paths = scenarios(site, chosen, work)
            if paths is None:
                print(f"(no variant {'; '.join(chosen)!r} at {site}: the variants are "
                      f"{', '.join(name for name, _ in variants(ROOT.joinpath('scenarios', site + '-paged.toml').read_text()))})")
                continue
            tables = {kind: pooled_observations(f"{site}-{kind}", paths[kind], reps, work)
                      for kind in ["swapped", "paged"]}
            print("| installation | benchmark | index | levels | median < mean | p75 falls | p75 roughness |")
            print("|---|---|---|---|---|---|---|")
            for kind, table in tables.items():
                for index in ["users", "processes"]:
                    rows = json.loads(tpsim("analyze", str(table), "--by", index, *grouping, "--json"))["rows"]
                    for bench in dict.fromkeys(r["benchmark"] for r in rows):
                        mine = [r for r in rows if r["benchmark"] == bench]
                        below = sum(1 for r in mine if r["median"] < r["mean"])
                        falls, rough = roughness([(r["level"], r["p75"]) for r in mine])
                        print(f"| {kind} | {bench} | {index} | {len(mine)} | {below} | {falls} | {rough:.3f} |")
            print()
            print("| benchmark | index | levels | swapped significantly faster | paged significantly faster "
                  "| whole curve, swapped less paged [95%] | p | expected by chance |")
            print("|---|---|---|---|---|---|---|---|")
            for index in ["users", "processes"]:
                out = json.loads(tpsim(
                    "compare",
                    str(paths["swapped"]),
                    str(paths["paged"]),
                    "--replications", str(reps), "--by", index, *grouping, "--json"))
                for bench in dict.fromkeys(r["benchmark"] for r in out["rows"]):
                    mine = [r for r in out["rows"] if r["benchmark"] == bench]
                    faster = [r["level"] for r in mine if r["significant"] and r["difference"] < 0]
                    slower = [r["level"] for r in mine if r["significant"] and r["difference"] > 0]
                    # (No whole-curve test with a single replication.)
                    curve = next((c for c in out.get("curves", []) if c["benchmark"] == bench), None)
                    whole = "- | - | -"
                    if curve:
                        low, high = curve["interval"]
                        whole = (f"{curve['difference']:+.2f} s [{low:+.2f}, {high:+.2f}] | "
                                 f"{curve['p_value']:.3g} | {curve['expected_by_chance']:.1f}")
                    print(f"| {bench} | {index} | {len(mine)} | {len(faster)} {faster} | "
                          f"{len(slower)} {slower} | {whole} |")


if __name__ == "__main__":
    main()
