#!/usr/bin/env python3
"""Two tpsim binaries compared by the processor time of whole runs.

On a loaded machine criterion's interleaved rounds can spread by tens of
per cent even for identical code, too much to answer whether a change
costs 3%. The processor time the kernel charges a run (user and system,
from its resource usage when it is reaped) is steadier: it does not count
the time the run waited for a processor. This script runs each scenario
with the old and the new binary alternately, PAIRS times, flipping which
goes first, and prints per scenario the median processor time of each,
their ratio (new / old) and the median of the paired ratios.
docs/PERFORMANCE.md ("The model as parts") quotes its output.

    scripts/cpu-ab.py OLD_TPSIM NEW_TPSIM SCENARIO.toml... [--pairs 15]

Shorten the scenarios first (end_time, warm-up 0) so that a run takes
tenths of a second. Not part of CI.
"""

import argparse
import resource
import statistics
import subprocess
import sys


def cpu_seconds(binary, scenario):
    """The processor time of one `tpsim run SCENARIO --json` [s]."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(
        [binary, "run", scenario, "--json"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=True,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("scenarios", nargs="+")
    parser.add_argument("--pairs", type=int, default=15)
    args = parser.parse_args()
    if args.pairs < 1:
        parser.error("--pairs must be at least 1")
    binaries = {"old": args.old, "new": args.new}
    print("scenario,old_ms,new_ms,new_over_old,paired_median")
    for scenario in args.scenarios:
        times = {"old": [], "new": []}
        for pair in range(args.pairs):
            order = ("old", "new") if pair % 2 == 0 else ("new", "old")
            for which in order:
                times[which].append(cpu_seconds(binaries[which], scenario))
        old = statistics.median(times["old"])
        new = statistics.median(times["new"])
        paired = statistics.median(n / o for n, o in zip(times["new"], times["old"]))
        print(f"{scenario},{old * 1e3:.1f},{new * 1e3:.1f},{new / old:.3f},{paired:.3f}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
