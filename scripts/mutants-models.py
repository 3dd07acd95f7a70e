#!/usr/bin/env python3
"""Mutation testing of the models against the integration tests.

cargo-mutants runs a mutated package's own tests, but the checks that
matter for `tpsim-models` (the validation against queueing theory, the
time-sharing checks) live in the root package's `tests/it`. This script
takes cargo-mutants' list of mutants of one source file, applies each in
turn to a clean clone of the repository, runs the chosen integration tests
and the models crate's own unit tests, reverts it, and prints one line per
mutant: caught, MISSED, unviable (does not build) or caught (timeout), with
the seconds it took. With cargo-nextest installed the integration tests
run under it, which stops a stage at its first failing test.

    scripts/mutants-models.py FILE... [--shard K/N] [--from M] [--filter validation::]...
                              [--later TEST ...]

FILE may be a glob (`'crates/models/src/system/**'`), and several may be
given: their mutants are taken together, in cargo-mutants' order. A test
runs if its name contains any `--filter` (which may be repeated). Shard K of N takes
every N-th mutant starting at the K-th (1-based), so N sessions cover a
file between them, or one shard is a systematic sample; `--from M` starts
at the shard's M-th mutant (1-based), to finish a shard that was stopped. The quick
integration tests run first, then the unit tests; tests named with
`--later` (the slow statistical ones) run only for a mutant that neither
caught, so most mutants cost a rebuild and the quick tests. Each stage
is first run once unmutated, which must pass; a mutant's run of a stage
is stopped (and counted caught) after four times that stage's unmutated
time, or at least a minute, unless `--timeout` sets it. Not part of CI:
each mutant costs 30 s to 3 min on two cores.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", metavar="FILE",
                        help="source files to mutate, e.g. crates/models/src/simulate.rs")
    parser.add_argument("--shard", default="1/1", help="K/N: this shard of N")
    parser.add_argument("--from", dest="start", type=int, default=1,
                        help="start at the shard's M-th mutant (1-based)")
    parser.add_argument("--filter", action="append", default=[],
                        help="test-name filter for tests/it (repeatable: any matches)")
    parser.add_argument(
        "--timeout", type=int, default=None,
        help="seconds per stage (default: 4x the stage's unmutated time, at least 60)",
    )
    parser.add_argument(
        "--later", nargs="*", default=[],
        help="slow tests run only when the others miss the mutant",
    )
    args = parser.parse_args()
    k, n = (int(x) for x in args.shard.split("/"))
    if not 1 <= k <= n:
        parser.error("--shard must be K/N with 1 <= K <= N")

    root = subprocess.run(
        ["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True, check=True
    ).stdout.strip()
    listing = subprocess.run(
        ["cargo", "mutants", "--list", "--json", "--diff", "--workspace"]
        + [arg for f in args.files for arg in ("-f", f)],
        cwd=root, capture_output=True, text=True, check=True,
    ).stdout
    mutants = json.loads(listing)[k - 1 :: n]
    print(f"{len(mutants)} mutants in shard {k}/{n} of {' '.join(args.files)}", flush=True)
    if args.start > 1:
        mutants = mutants[args.start - 1 :]
        print(f"starting at the {args.start}th: {len(mutants)} to run", flush=True)

    # Builds are kept between runs, under the repository's target directory.
    os.environ["CARGO_TARGET_DIR"] = os.path.join(root, "target", "mutants-models")
    with tempfile.TemporaryDirectory() as scratch:
        clone = os.path.join(scratch, "tpsim")
        subprocess.run(["git", "clone", "-q", root, clone], check=True)
        test = ["cargo", "test", "-q", "--test", "it"]
        # cargo-nextest, where installed, stops at the first failing test:
        # a caught mutant need not wait for the rest.
        runner = test
        if subprocess.run(["cargo", "nextest", "--version"], capture_output=True).returncode == 0:
            runner = ["cargo", "nextest", "run", "--cargo-quiet", "--test", "it"]
        quick = runner + ["--"] + args.filter + [f"--skip={t}" for t in args.later]
        # The models crate's own unit tests next, then the slow ones.
        stages = [quick, ["cargo", "test", "-q", "-p", "tpsim-models", "--lib"]]
        if args.later:
            stages.append(test + ["--"] + args.later)
        timeouts = baseline(clone, test, stages, args.timeout)
        counts = {}
        for mutant in mutants:
            started = time.monotonic()
            verdict = run_one(clone, mutant, test, stages, timeouts)
            counts[verdict] = counts.get(verdict, 0) + 1
            seconds = time.monotonic() - started
            print(f"{verdict:<16} {seconds:4.0f} s  {mutant['name']}", flush=True)
    print(", ".join(f"{v}: {c}" for v, c in sorted(counts.items())))
    return 0


def baseline(clone: str, test: list, stages: list, fixed) -> list:
    """Runs every stage unmutated (each must pass) and returns the time
    limit for each: `fixed` if given, else four times its time, at least
    a minute."""
    subprocess.run(test + ["--no-run"], cwd=clone, check=True, capture_output=True)
    limits = []
    for stage in stages:
        started = time.monotonic()
        ran = subprocess.run(stage, cwd=clone, capture_output=True)
        seconds = time.monotonic() - started
        if ran.returncode != 0:
            sys.exit(f"unmutated, `{' '.join(stage)}` fails: fix the tree first")
        limits.append(fixed if fixed is not None else max(60, round(4 * seconds)))
        print(f"unmutated {seconds:4.0f} s, limit {limits[-1]} s: {' '.join(stage)}", flush=True)
    return limits


def run_one(clone: str, mutant: dict, test: list, stages: list, timeouts: list) -> str:
    applied = subprocess.run(
        ["patch", "--quiet", "--batch", mutant["file"]],
        input=mutant["diff"], text=True, cwd=clone, capture_output=True,
    )
    try:
        if applied.returncode != 0:
            return "not applied"
        built = subprocess.run(test + ["--no-run"], cwd=clone, capture_output=True)
        if built.returncode != 0:
            return "unviable"
        for stage, timeout in zip(stages, timeouts):
            try:
                ran = subprocess.run(stage, cwd=clone, capture_output=True, timeout=timeout)
            except subprocess.TimeoutExpired:
                return "caught (timeout)"
            if ran.returncode != 0:
                return "caught"
        return "MISSED"
    finally:
        subprocess.run(["git", "checkout", "-q", "--", "."], cwd=clone, check=True)


if __name__ == "__main__":
    sys.exit(main())
