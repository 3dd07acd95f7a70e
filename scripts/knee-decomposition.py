#!/usr/bin/env python3
"""Predicts a paged system's thrashing knee by the fixed-multiprogramming
decomposition, from lifetime functions measured by tpsim, and sets the
prediction beside the simulated throughput.

    scripts/knee-decomposition.py [SCENARIO] [--users 2,4,...] [--seeds N]

SCENARIO (default scenarios/thrashing-clock.toml) must use memory as
frames (`memory.replacement = "clock"`), one command class with an
exponential processor demand and exponential think and seek times. The
script:

1. runs the scenario at each number of users (`--seeds` replications
   each), keeping each run's `lifetime.csv` and throughput;
2. pools the lifetime meters of all runs into one curve L(m): processor
   time at m resident pages over the faults taken at m;
3. for each multiprogramming level n, gives each of n commands in memory
   m = (user frames - reserve) / n pages, where the reserve is what the
   daemon keeps free: between none (it frees only at its budget's pace, and
   faults use up free frames meanwhile) and `lotsfree` (what it aims at);
   both are computed. A command of mean demand D takes D / L(m) faults,
   each costing the fault path and a context switch on the processor and a
   page read (plus the class's share of dirty pages written) on the disk;
   exact MVA of the processor and the disk with n commands and no think
   time gives the throughput X(n) of the memory-constrained subsystem;
4. puts X(n) as a flow-equivalent server behind the terminals: the number
   of commands in the system is a birth-death process, up at (N - k) / Z,
   down at X(k); its throughput against N is the prediction, and its peak
   the predicted knee.

Not part of CI. docs/time-sharing.md quotes its output.
"""

import argparse
import csv
import json
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

from tpsimrun import ROOT, TPSIM, build

UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0}
SIZES = {"B": 1, "KiB": 1024, "MiB": 1024**2, "KB": 1000, "MB": 1000**2}


def quantity(text, units):
    """A number with a unit suffix, in the base unit."""
    for suffix in sorted(units, key=len, reverse=True):
        if text.endswith(suffix):
            return float(text[: -len(suffix)]) * units[suffix]
    raise SystemExit(f"cannot read {text!r}")


def exp_mean(spec, key):
    if not (isinstance(spec, dict) and "exp" in spec and "mean" in spec["exp"]):
        raise SystemExit(f"{key}: the script needs {{ exp = {{ mean = ... }} }}")
    return quantity(spec["exp"]["mean"], UNITS)


def parameters(scenario):
    """What the decomposition needs from the scenario."""
    s = tomllib.loads(scenario)
    memory, classes, devices = s["memory"], s["class"], s["device"]
    if memory.get("replacement") != "clock" or len(classes) != 1:
        raise SystemExit("the script needs memory.replacement = \"clock\" and one class")
    page = quantity(memory["page"], SIZES)
    frames = int((quantity(memory["size"], SIZES) - quantity(memory.get("kernel", "0B"), SIZES)) / page)
    lotsfree = int(quantity(memory["lotsfree"], SIZES) / page) if "lotsfree" in memory else frames // 8
    disk = next(d for d in devices if d["name"] == memory["device"])
    rate = quantity(disk["rate"].replace("/s", ""), SIZES)
    cls = classes[0]
    return {
        "frames": frames,
        "lotsfree": lotsfree,
        "demand": exp_mean(cls["cpu"], "class.cpu"),
        "dirty": cls.get("dirty", 0.0),
        "think": exp_mean(s["users"]["think"], "users.think"),
        "fault_cpu": quantity(disk.get("fault_cpu", "0s"), UNITS),
        "switch": quantity(s["system"].get("context_switch", "0s"), UNITS),
        "page_read": exp_mean(disk["seek"], "device.seek") + page / rate,
    }


def simulate(scenario, users, seeds, workdir):
    """Runs the scenario at `users` users under `seeds` seeds: the mean
    throughput and the lifetime rows of every run."""
    text = scenario.replace("terminals = 16", f"terminals = {users}")
    if text == scenario and users != 16:
        raise SystemExit("the script sets users by rewriting `terminals = 16`")
    path = Path(workdir) / f"u{users}.toml"
    path.write_text(text)
    throughputs, rows = [], []
    for seed in range(1, seeds + 1):
        out = Path(workdir) / f"u{users}-s{seed}"
        subprocess.run([str(TPSIM), "run", str(path), "--seed", str(seed), "--out", str(out)],
                       check=True, capture_output=True)
        summary = json.loads((out / "summary.json").read_text())
        throughputs.append(summary["classes"][0]["throughput"])
        with open(out / "lifetime.csv") as f:
            rows.extend(csv.DictReader(f))
    return sum(throughputs) / len(throughputs), rows


def lifetime_curve(rows):
    """L(m) pooled over runs: {m: (cpu seconds, faults)}."""
    pooled = {}
    for r in rows:
        cpu, faults = pooled.get(int(r["resident_pages"]), (0.0, 0))
        pooled[int(r["resident_pages"])] = (cpu + float(r["cpu_s"]), faults + int(r["faults"]))
    return pooled


def lifetime_at(curve, m):
    """The pooled lifetime at m pages: from the sizes around m, widening
    until 100 faults are in."""
    for width in range(0, 50):
        cpu = sum(curve.get(k, (0, 0))[0] for k in range(m - width, m + width + 1))
        faults = sum(curve.get(k, (0, 0))[1] for k in range(m - width, m + width + 1))
        if faults >= 100:
            return cpu / faults
    return float("inf")


def mva(demands, n):
    """Exact MVA of queueing centres with `demands` and n customers, no
    think time: the throughput."""
    queue = [0.0] * len(demands)
    x = 0.0
    for k in range(1, n + 1):
        residence = [d * (1 + q) for d, q in zip(demands, queue)]
        x = k / sum(residence)
        queue = [x * r for r in residence]
    return x


def predicted(p, curve, n_max, users, reserve):
    """The decomposition's throughput at each number of users, with
    `reserve` frames kept free."""
    x = [0.0]
    for n in range(1, n_max + 1):
        m = (p["frames"] - reserve) // n
        faults = p["demand"] / lifetime_at(curve, m)
        cpu = p["demand"] + faults * (p["fault_cpu"] + p["switch"])
        disk = faults * p["page_read"] * (1 + p["dirty"])
        x.append(mva([cpu, disk], n))
    out = {}
    for big_n in users:
        weights, w = [1.0], 1.0
        for k in range(1, big_n + 1):
            w *= (big_n - k + 1) / p["think"] / x[k]
            weights.append(w)
        total = sum(weights)
        out[big_n] = sum(wk * x[k] for k, wk in enumerate(weights)) / total
    return x, out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenario", nargs="?", default=str(ROOT / "scenarios" / "thrashing-clock.toml"))
    parser.add_argument("--users", default="2,3,4,5,6,7,8,9,10,12,16")
    parser.add_argument("--seeds", type=int, default=2)
    args = parser.parse_args()
    scenario = Path(args.scenario).read_text()
    p = parameters(scenario)
    users = [int(u) for u in args.users.split(",")]
    build()
    simulated, rows = {}, []
    with tempfile.TemporaryDirectory() as workdir:
        for n in users:
            simulated[n], more = simulate(scenario, n, args.seeds, workdir)
            rows.extend(more)
            print(f"simulated {n} users", file=sys.stderr)
    curve = lifetime_curve(rows)
    reserves = (0, p["lotsfree"])
    results = [predicted(p, curve, max(users), users, r) for r in reserves]
    print("| multiprogramming n | " + " | ".join(
        f"pages each, L [ms], X(n) [1/s], {r} kept free" for r in reserves) + " |")
    print("|---|---|---|")
    for n in range(1, min(max(users), 10) + 1):
        cells = []
        for r, (x, _) in zip(reserves, results):
            m = (p["frames"] - r) // n
            cells.append(f"{m}, {1000 * lifetime_at(curve, m):.3f}, {x[n]:.4f}")
        print(f"| {n} | " + " | ".join(cells) + " |")
    print()
    print("| users | " + " | ".join(f"predicted, {r} kept free [1/s]" for r in reserves)
          + " | simulated [1/s] |")
    print("|---|---|---|---|")
    for n in users:
        print(f"| {n} | " + " | ".join(f"{pred[n]:.4f}" for _, pred in results)
              + f" | {simulated[n]:.4f} |")
    knee_s = max(users, key=lambda n: simulated[n])
    for r, (_, pred) in zip(reserves, results):
        knee_p = max(users, key=lambda n: pred[n])
        print(f"\npredicted knee ({r} frames kept free) at {knee_p} users, simulated at {knee_s}")


if __name__ == "__main__":
    main()
