#!/usr/bin/env python3
"""Compares memory policies on the Berkeley VAX of 1979 at several memory
sizes: swapping, paging with replacement by process (lifetime functions),
and memory as frames under the 3BSD clock with and without its swapper,
the working set and page-fault frequency (the phase model of
berkeley-1979-clock.toml). Each cell is the mean response of a command
class over independent replications of a 24-hour day, with its 95%
interval, from `tpsim sweep`.

Not part of CI: about a minute in release mode.
    scripts/berkeley-policies.py [REPLICATIONS]
"""

import json
import subprocess
import sys

from tpsimrun import ROOT, TPSIM, build

SIZES = ["512KiB", "768KiB", "1MiB", "2MiB"]
CLASSES = ["edit", "man", "cc", "macsyma"]
CLOCK = "scenarios/berkeley-1979-clock.toml"

# (label, scenario, extra --set arguments)
POLICIES = [
    # 32V's PHYSPAGES raised with the memory (a tunable), so that every
    # policy has the memory of its column.
    ("swapping", "scenarios/berkeley-1979-swapped.toml", ["memory.usable=2MiB"]),
    ("paging, by process", "scenarios/berkeley-1979-paged.toml", []),
    ("clock with the 3BSD swapper (shipped)", CLOCK, []),
    ("clock alone", CLOCK, ["memory.swapper=false"]),
    ("working set, tau 200 ms", CLOCK,
     ["memory.replacement=working-set", "memory.tau=200ms", "memory.reference_bits=hardware"]),
    ("page-fault frequency, T 20 ms", CLOCK,
     ["memory.replacement=page-fault-frequency", "memory.fault_interval=20ms",
      "memory.reference_bits=hardware"]),
]


def sweep(scenario, extra, replications):
    """The estimates of one policy: {(size, class): (mean, half-width)}."""
    args = [str(TPSIM), "sweep", str(ROOT / scenario), "--json",
            "--replications", str(replications),
            "--set", "memory.size=" + ",".join(SIZES),
            "--measure", "classes.*.mean_response"]
    for kv in extra:
        # A one-value key: a sweep of a single point.
        args += ["--set", kv]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    estimates = {}
    for point in json.loads(out)["points"]:
        size = point["values"][0]
        for row in point["estimates"]:
            parts = row["measure"].split(".")
            if parts[0] == "classes" and parts[2] == "mean_response":
                estimates[(size, parts[1])] = (row["mean"], row["half_width"])
    return estimates


def main():
    replications = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    build()
    print(f"Berkeley 1979, mean response [s] ± 95% over {replications} replications of a day\n")
    print("| memory | policy | " + " | ".join(CLASSES) + " |")
    print("|---|---|" + "---|" * len(CLASSES))
    results = [(label, sweep(scenario, extra, replications)) for label, scenario, extra in POLICIES]
    for size in SIZES:
        for label, estimates in results:
            cells = []
            for c in CLASSES:
                mean, half = estimates.get((size, c), (None, None))
                cells.append("-" if mean is None else f"{mean:.2f} ± {half:.2f}")
            print(f"| {size} | {label} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
