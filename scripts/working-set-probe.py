#!/usr/bin/env python3
"""The working-set probe of the 1975 Multics report (its plow/oof): the
largest working set one process can keep in memory at a given load.

Adds to a time-sharing scenario a background process whose class touches
all of its k pages at once (`locality = "sweep"`; under memory as frames a
single phase over the k pages, referenced densely), every `--sleep` after a
pass, and counts its faults per pass. For each number of users it sweeps
k and reports the largest k whose faults per pass stay at or below
`--threshold` of k (mean over `--replications` runs): the report's table
"users -> largest working set (pages)". Not part of CI: minutes per
scenario on two cores.

Usage: scripts/working-set-probe.py SCENARIO.toml [--users 24,48]
           [--pages 25..300:25] [--sleep 100ms] [--threshold 0.05]
           [--replications 3] [--end 4h]
"""

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from tpsimrun import TPSIM, build

PROBE = """
[[class]]
name = "ws-probe-sweep"    # the probe's program: touches all its pages at once
cpu = {{ det = {{ value = "10ms" }} }}
size = "{size}"
locality = {locality}

[[background]]
name = "ws-probe"          # the working-set probe (the report's plow/oof)
class = "ws-probe-sweep"
sleep = {{ det = {{ value = "{sleep}" }} }}
"""


def pages_range(text):
    first, rest = text.split("..")
    last, step = rest.split(":")
    return list(range(int(first), int(last) + 1, int(step)))


def probe_locality(base, pages):
    """The probe's locality: a sweep of its image, or, under memory as
    frames, which needs the phase model, one phase over all its pages that
    lasts the run, referenced every microsecond of processor time (each
    10-ms pass then references every one of up to 1,000 pages about ten
    times, so a page missing at the start of a pass faults within it)."""
    if re.search(r'^replacement\s*=\s*"clock"', base, re.M):
        return ('{ phases = { set = %d, phase = { det = { value = "1000000s" } }, '
                'reference = "1us" } }' % pages)
    return '"sweep"'


def faults_per_pass(base, users, pages, args, work):
    """Mean faults per pass of the probe over the replications."""
    number, unit = re.search(r'^page\s*=\s*"([0-9.]+)\s*(\w+)"', base, re.M).groups()
    text = re.sub(r"^terminals\s*=.*$", f"terminals = {users}", base, flags=re.M)
    text = re.sub(r'^end_time\s*=.*$', f'end_time = "{args.end}"', text, flags=re.M)
    text += PROBE.format(size=f"{pages * float(number):g}{unit}", sleep=args.sleep,
                         locality=probe_locality(base, pages))
    path = Path(work) / "probe.toml"
    path.write_text(text)
    values = []
    for seed in range(1, args.replications + 1):
        done = subprocess.run([str(TPSIM), "run", str(path), "--seed", str(seed), "--json"],
                              capture_output=True, text=True)
        if done.returncode != 0:
            # tpsim names the key and what is wrong with it (a probe larger
            # than user memory, a run shorter than its warm-up, ...).
            print(f"working-set-probe: tpsim refused the probe at {pages} pages and "
                  f"{users} users:\n{done.stderr}", file=sys.stderr)
            sys.exit(2)
        probe = [c for c in json.loads(done.stdout)["classes"] if c["name"] == "ws-probe"]
        values.append(probe[0]["faults_per_command"])
    return statistics.fmean(values)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenario")
    parser.add_argument("--users", default="24,48")
    parser.add_argument("--pages", default="25..300:25")
    parser.add_argument("--sleep", default="100ms")
    parser.add_argument("--threshold", type=float, default=0.05)
    parser.add_argument("--replications", type=int, default=3)
    parser.add_argument("--end", default="4h")
    args = parser.parse_args()
    try:
        ks = pages_range(args.pages)
    except ValueError:
        parser.error(f"--pages must be FIRST..LAST:STEP in pages, got {args.pages!r}")
    build()
    base = Path(args.scenario).read_text()
    print(f"{args.scenario}: the largest k whose faults per pass stay at or below "
          f"{args.threshold:.0%} of k (sleep {args.sleep}, {args.replications} runs of {args.end})")
    print("| users | largest working set (pages) | faults per pass by k |")
    print("|---|---|---|")
    with tempfile.TemporaryDirectory() as work:
        for users in [int(u) for u in args.users.split(",")]:
            largest, seen = None, []
            for pages in ks:
                f = faults_per_pass(base, users, pages, args, work)
                seen.append(f"{pages}: {f:.1f}")
                if f <= args.threshold * pages:
                    largest = pages
                else:
                    break
            print(f"| {users} | {largest if largest is not None else '-'} | {', '.join(seen)} |")


if __name__ == "__main__":
    main()
