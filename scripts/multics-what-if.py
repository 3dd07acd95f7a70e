#!/usr/bin/env python3
"""The 1975 Multics report's what-if changes, run as simulations.

Section III of RFC-103 projects, from its meters and a little algebra, what
three changes would do to M.I.T.'s performance (useful work as a share of
the processor time not idle for light load): the bulk store replaced by as
many words of core (+30%), the disk fault path repaired so that a disk
fault costs the processor what a bulk-store fault does, td 7.1 -> 1.8 ms
(+8%), both (+43%); and USL with its disk fault path repaired (+10%).

This script runs each change on the recalibrated scenario beside the
scenario as shipped, on common random numbers (the same seeds), and prints
per change the mean of the paired relative changes in
`cpu.useful_of_non_idle` with a 95% Student-t interval, beside the report's
projection, with the meters that explain the difference. Not part of CI:
about a minute per replication on two cores.

Usage: scripts/multics-what-if.py [REPLICATIONS]   (default 5)
"""

import sys
import tempfile

from tpsimrun import ROOT, build, interval, summary

MIT = ROOT / "scenarios" / "multics-mit-1975.toml"
USL = ROOT / "scenarios" / "multics-usl-1975.toml"
DISK_TD = 'fault_cpu = "7.1ms"'
BULK_TB = 'fault_cpu = "1.8ms"'


def no_bulk_store(text):
    """The bulk store's 2000K words made core: 384K + 2000K = 2384K words."""
    for line in ['bulk_store = "bulk-store"', 'bulk_store_size = "2000Kw"']:
        assert line in text, line
        text = "\n".join(l for l in text.splitlines() if not l.startswith(line)) + "\n"
    assert 'size = "384Kw"' in text
    return text.replace('size = "384Kw"', 'size = "2384Kw"', 1)


def repaired(text):
    """Every disk fault costs what a bulk-store fault does."""
    assert DISK_TD in text
    return text.replace(DISK_TD, BULK_TB)


CHANGES = [
    ("M.I.T., bulk store replaced by core", MIT, no_bulk_store, 0.30),
    ("M.I.T., disk fault path repaired", MIT, repaired, 0.08),
    ("M.I.T., both", MIT, lambda t: repaired(no_bulk_store(t)), 0.43),
    ("USL, disk fault path repaired", USL, repaired, 0.10),
]


def main():
    replications = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    build()
    seeds = range(1, replications + 1)
    shipped = {}
    print(f"{replications} paired replications per change; 95% Student-t intervals\n")
    print("| change | report | simulated change in useful work of time not idle "
          "| useful before -> after | page faults before -> after "
          "| other idle before -> after |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as workdir:
        for name, path, change, projected in CHANGES:
            text = path.read_text()
            if path not in shipped:
                shipped[path] = [summary(text, s, workdir) for s in seeds]
            after = [summary(change(text), s, workdir) for s in seeds]
            before = shipped[path]
            ratios = [a["cpu"]["useful_of_non_idle"] / b["cpu"]["useful_of_non_idle"] - 1
                      for a, b in zip(after, before)]
            mean, half = interval(ratios)

            def avg(runs, key):
                return sum(r["cpu"][key] for r in runs) / len(runs)

            print(f"| {name} | {projected:+.0%} | {mean:+.1%} ± {half:.1%} "
                  f"| {avg(before, 'useful_of_non_idle'):.3f} -> {avg(after, 'useful_of_non_idle'):.3f} "
                  f"| {avg(before, 'fault_handling'):.3f} -> {avg(after, 'fault_handling'):.3f} "
                  f"| {avg(before, 'other_idle'):.3f} -> {avg(after, 'other_idle'):.3f} |")


if __name__ == "__main__":
    main()
