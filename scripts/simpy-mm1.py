#!/usr/bin/env python3
"""tpsim's M/M/1 beside the same queue in SimPy, a peer most users know.

Both simulate `scenarios/mm1.toml` (arrivals at 0.8/s, exponential
service at 1/s, one FCFS server) for its 200,000 s, written the way each
tool is meant to be used: in SimPy a source process and a process per
customer holding a `Resource`; in tpsim the scenario file as shipped, run
by the release binary. Rounds alternate between the two (medians of
interleaved runs), and the speed is model events (arrivals and
departures) per second of wall-clock time, start-up included for both.
Each side's mean response is printed too, to show they simulate the same
queue (exact: 5 s).

    pip install simpy
    cargo build --release
    scripts/simpy-mm1.py [--rounds 5]

Not part of CI. docs/PERFORMANCE.md quotes its output.
"""

import argparse
import json
import random
import statistics
import subprocess
import sys
import time

try:
    import simpy
except ImportError:
    sys.exit("SimPy is not installed: pip install simpy")

ARRIVAL_RATE = 0.8
SERVICE_RATE = 1.0
END = 200_000.0
WARMUP = 1_000.0


def simpy_mm1(seed: int) -> tuple[int, float, float]:
    """Returns (model events, mean response after the warm-up, wall seconds)."""
    started = time.perf_counter()
    rng = random.Random(seed)
    env = simpy.Environment()
    server = simpy.Resource(env, capacity=1)
    events = 0
    responses = []

    def customer():
        nonlocal events
        arrived = env.now
        with server.request() as turn:
            yield turn
            yield env.timeout(rng.expovariate(SERVICE_RATE))
        events += 1
        if arrived >= WARMUP:
            responses.append(env.now - arrived)

    def source():
        nonlocal events
        while True:
            yield env.timeout(rng.expovariate(ARRIVAL_RATE))
            events += 1
            env.process(customer())

    env.process(source())
    env.run(until=END)
    return events, statistics.fmean(responses), time.perf_counter() - started


def tpsim_mm1(root: str) -> tuple[int, float, float]:
    """Runs the shipped scenario with the release binary."""
    started = time.perf_counter()
    out = subprocess.run(
        [f"{root}/target/release/tpsim", "run", f"{root}/scenarios/mm1.toml", "--json"],
        capture_output=True, text=True, check=True,
    ).stdout
    wall = time.perf_counter() - started
    summary = json.loads(out)
    return summary["events"], summary["classes"][0]["mean_response"], wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    root = subprocess.run(
        ["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True, check=True
    ).stdout.strip()
    ours, theirs = [], []
    for r in range(args.rounds):
        pair = [(ours, lambda: tpsim_mm1(root)), (theirs, lambda: simpy_mm1(r + 1))]
        for runs, run in pair if r % 2 == 0 else reversed(pair):
            runs.append(run())
    for name, runs in (("tpsim", ours), (f"SimPy {simpy.__version__}", theirs)):
        rates = [events / wall for events, _, wall in runs]
        print(
            f"{name:>12}: {statistics.median(rates) / 1e6:8.3f} M events/s "
            f"(median of {len(runs)}; {runs[0][0]} events, mean response "
            f"{statistics.fmean(r for _, r, _ in runs):.3f} s)"
        )
    speedup = [o[0] / o[2] / (t[0] / t[2]) for o, t in zip(ours, theirs)]
    print(f"tpsim / SimPy: {statistics.median(speedup):.0f}x "
          f"(range {min(speedup):.0f}-{max(speedup):.0f} over the rounds)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
