"""Helpers shared by the study scripts: run a scenario text through the
release `tpsim` and summarise paired replications with Student-t
intervals."""

import json
import math
import statistics
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TPSIM = ROOT / "target" / "release" / "tpsim"

# Two-sided 97.5% points of Student's t for n - 1 degrees of freedom.
T975 = {2: 12.706, 3: 4.303, 4: 3.182, 5: 2.776, 6: 2.571, 7: 2.447, 8: 2.365,
        9: 2.306, 10: 2.262, 15: 2.145, 20: 2.093, 30: 2.045}


def build():
    """Builds the release binary the scripts run."""
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "tpsim-cli"], cwd=ROOT, check=True)


def summary(text, seed, workdir):
    """The summary of one run of `text` under `seed`, as `--json` prints it."""
    path = Path(workdir) / "scenario.toml"
    path.write_text(text)
    out = subprocess.run([str(TPSIM), "run", str(path), "--seed", str(seed), "--json"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def run(text, seed, workdir):
    """The summaries of the command classes of one run of `text`, by name."""
    classes = summary(text, seed, workdir)["classes"]
    return {c["name"]: c for c in classes if c["kind"] == "command"}


def interval(xs):
    """The mean of `xs` and the half-width of its 95% interval."""
    n = len(xs)
    mean = statistics.fmean(xs)
    t = T975.get(n, 2.0)
    return mean, t * statistics.stdev(xs) / math.sqrt(n)
