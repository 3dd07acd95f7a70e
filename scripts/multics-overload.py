#!/usr/bin/env python3
"""Which part of the Multics scheduler keeps USL's edits quick at overload.

Runs multics-usl-1975.toml at several numbers of users under round robin,
under the Multics scheduler as shipped, and under the Multics scheduler
with one of its mechanisms switched off (the working-set test; the levels),
all on common random numbers, and prints per variant and load the mean
over replications of the edits' and the MACSYMA jobs' median and mean
responses with 95% Student-t intervals. Not part of CI: a few minutes on
two cores.

Usage: scripts/multics-overload.py [REPLICATIONS]   (default 5)
"""

import re
import sys
import tempfile

from tpsimrun import ROOT, build, interval, run

SHIPPED = 'scheduler = "multics"'
SETTINGS = "multics = { levels = 6, min_eligible = 2, working_set_factor = 0 }"


def variants():
    """(name, edit) pairs, each edit applied to the shipped scenario."""
    def settings(new):
        return lambda t: t.replace(SETTINGS, new)

    return [
        ("round robin", lambda t: t.replace(SHIPPED, 'scheduler = "round-robin"').replace(SETTINGS, "")),
        ("multics", lambda t: t),
        ("multics, with the working-set test", settings("multics = { levels = 6, min_eligible = 2, working_set_factor = 1 }")),
        ("multics, one level", settings("multics = { levels = 1, min_eligible = 2, working_set_factor = 0 }")),
        ("multics, one level, with the working-set test", settings("multics = { levels = 1, min_eligible = 2, working_set_factor = 1 }")),
    ]


def main():
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    build()
    shipped = (ROOT / "scenarios" / "multics-usl-1975.toml").read_text()
    assert SHIPPED in shipped and SETTINGS in shipped, "the shipped scenario changed"
    loads = [10, 20, 30, 37, 45]
    print(f"multics-usl-1975: responses [s], mean ± 95% over {reps} replications")
    print("| variant | users | edit p50 | edit mean | macsyma mean |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as work:
        for name, edit in variants():
            for users in loads:
                text = re.sub(r"terminals = \d+", f"terminals = {users}", edit(shipped), count=1)
                cells = {"edit p50": [], "edit mean": [], "macsyma mean": []}
                for seed in range(1, reps + 1):
                    classes = run(text, seed, work)
                    cells["edit p50"].append(classes["edit"]["response_p50"])
                    cells["edit mean"].append(classes["edit"]["mean_response"])
                    cells["macsyma mean"].append(classes["macsyma"]["mean_response"])
                shown = []
                for xs in cells.values():
                    if any(x is None for x in xs):
                        shown.append("-")
                    else:
                        m, h = interval(xs)
                        shown.append(f"{m:.2f} ± {h:.2f}")
                print(f"| {name} | {users} | " + " | ".join(shown) + " |")


if __name__ == "__main__":
    main()
