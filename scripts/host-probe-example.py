#!/usr/bin/env python3
"""The worked example of docs/host-probe.md: this machine measured with
`tpsim probe` under a ramp of processor loops, a model of it, and the two
sets of 75th percentiles side by side, level by level.

1. Measures (unless given a probe.csv already): two benchmarks, `true`
   (/bin/true: a fork and an exec) and `loop` (100,000 turns of a shell
   loop: processor-bound), a cycle every second, while a ramp runs 0, 1,
   2, 3, then 4 processor loops for 40 s each.
2. Takes each benchmark's processor demand from the runs at step 0 (no
   workers): the mean of user + system time.
3. Writes the model of the machine (scenarios/host-2cpu.toml with those
   demands, and the step's workers as background processes that never
   sleep) and runs `tpsim compare` of the measurement against it at each
   step, grouping by the ramp's workers (the container's own idle
   processes left out of the index).
4. Prints, per benchmark and number of workers, the measured and modelled
   75th percentiles and their difference; then the model's under other
   slices than the assumed 4 ms (1 ms and 16 ms).

Not part of CI: about four minutes, most of it measuring.

Usage: scripts/host-probe-example.py [OUTDIR [probe.csv]]
"""

import csv
import json
import re
import statistics
import subprocess
import sys
from pathlib import Path

from tpsimrun import ROOT, TPSIM, build

STEPS = [0, 1, 2, 3, 4]
LOOP = "i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done"


def tpsim(*args):
    return subprocess.run([str(TPSIM), *map(str, args)], check=True, capture_output=True, text=True)


def measure(out):
    """Runs the probe with its ramp; the path of its probe.csv."""
    ramp = "cpu:" + ",".join(map(str, STEPS)) + "@40s"
    tpsim("probe", "--bench", "true=/bin/true", "--bench", f"loop={LOOP}", "--sleep", "1s",
          "--duration", f"{40 * len(STEPS)}s", "--ramp", ramp, "--min-uid", "0", "--out", out)
    return Path(out) / "probe.csv"


def by_workers(table, out):
    """The rows that ended well, their `processes` index replaced by the
    ramp's workers; and each benchmark's demand at step 0 (mean user +
    system time)."""
    rows = [r for r in csv.DictReader(open(table)) if r["status"] == "ok"]
    demand = {}
    for name in sorted({r["benchmark"] for r in rows}):
        cpu = [float(r["user_s"]) + float(r["system_s"]) for r in rows
               if r["benchmark"] == name and r["ramp_workers"] == "0"]
        demand[name] = statistics.mean(cpu)
    path = Path(out) / "by-workers.csv"
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["benchmark", "phase", "users", "processes", "elapsed_s"])
        for r in rows:
            w.writerow([r["benchmark"], "measured", r["users"], r["ramp_workers"], r["elapsed_s"]])
    return path, demand


def model(demand, workers, out, quantum="4ms"):
    """The scenario of the machine with `workers` loops running (and the
    round robin's slice `quantum`, assumed)."""
    text = (ROOT / "scenarios" / "host-2cpu.toml").read_text()
    text = text.replace('quantum = "4ms"', f'quantum = "{quantum}"')
    for name, seconds in demand.items():
        # The class's demand line follows its name.
        text = re.sub(rf'(name = "{name}".*\ncpu = \{{ det = \{{ value = )"[^"]*"',
                      rf'\g<1>"{seconds * 1e3:.3f}ms"', text)
    if workers > 0:
        text += (f'\n[[background]]\nname = "workers"\nclass = "spin"\ncount = {workers}\n'
                 'sleep = { det = { value = "1ms" } }\n')
    path = Path(out) / f"host-{workers}-{quantum}.toml"
    path.write_text(text)
    return path


def main():
    build()
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "host-probe-example")
    out.mkdir(parents=True, exist_ok=True)
    table = Path(sys.argv[2]) if len(sys.argv) > 2 else measure(out / "measured")
    measured, demand = by_workers(table, out)
    print("Demand at step 0 (mean user + system time): " +
          ", ".join(f"{n} {d * 1e3:.2f} ms" for n, d in demand.items()))
    print()
    print("| benchmark | workers | measured n | measured p75 [s] | model p75 [s] | difference [s] | difference |")
    print("|---|---|---|---|---|---|---|")
    for workers in STEPS:
        scenario = model(demand, workers, out)
        result = json.loads(tpsim("compare", measured, scenario, "--by", "processes", "--json").stdout)
        for row in result["rows"]:
            if row["level"] != workers or row["a_p75"] is None or row["b_p75"] is None:
                continue
            a, b = row["a_p75"], row["b_p75"]
            print(f"| {row['benchmark']} | {workers} | {row['a_count']} | {a:.4f} | {b:.4f} | "
                  f"{a - b:+.4f} | {100 * (a - b) / b:+.0f}% |")
    # The slice is assumed: the model's p75 under others.
    quanta = ["1ms", "4ms", "16ms"]
    print()
    print("| benchmark | workers | measured p75 [s] | " + " | ".join(f"model p75, {q} slice [s]" for q in quanta) + " |")
    print("|---|---|---|" + "---|" * len(quanta))
    for workers in STEPS:
        found = {}
        for q in quanta:
            scenario = model(demand, workers, out, q)
            result = json.loads(tpsim("compare", measured, scenario, "--by", "processes", "--json").stdout)
            for row in result["rows"]:
                if row["level"] == workers and row["a_p75"] is not None and row["b_p75"] is not None:
                    found.setdefault(row["benchmark"], [row["a_p75"]]).append(row["b_p75"])
        for name, (a, *bs) in sorted(found.items()):
            print(f"| {name} | {workers} | {a:.4f} | " + " | ".join(f"{b:.4f}" for b in bs) + " |")


if __name__ == "__main__":
    main()
