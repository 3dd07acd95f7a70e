#!/usr/bin/env python3
"""Which mechanism produces each paged-versus-swapped difference.

Runs each shipped pair (Berkeley 1979, Purdue 1980) swapped and paged on
common random numbers (the same seeds), for a list of variants that each
switch one mechanism off in both members of the pair, and prints, per
variant and command class, the mean over replications of
ln(R_paged / R_swapped) with a 95% Student-t interval: above 0, swapping
is faster. Two variants switch the buffer cache on instead (`[files]`
with 3BSD's 48 buffers of 1 KiB, blocks scattered or contiguous), to see
what exec through the cache does to the comparison before the shipped
scenarios take it. Not part of CI: a few minutes on two cores.

Usage: scripts/ablation.py [REPLICATIONS]   (default 10)
"""

import math
import sys
import tempfile

from tpsimrun import ROOT, build, interval, run


def variants(text):
    """(name, edit) pairs: each edit switches one mechanism off."""
    def no_shells(t):
        return t.replace('shell = "sh"', "")

    def round_robin(t):
        return t.replace('scheduler = "unix"', 'scheduler = "round-robin"')

    def fcfs_arms(t):
        return t.replace('order = "disksort"', 'order = "fcfs"')

    def free_exec(t):
        # Programs on a device that takes no time to speak of.
        t = t.replace("[[device]]", '[[device]]\nname = "free-programs"\nrate = "1000GB/s"\n\n[[device]]', 1)
        return t.replace("[memory]\n", '[memory]\nprograms = "free-programs"\n', 1)

    def buffer_cache(layout):
        # Not a mechanism switched off but one switched on: 3BSD's buffer
        # cache (param.h 2.1: NBUF 48, BSIZE 1024) with V7's rules, exec
        # reading block by block; the copy rate is assumed (2 MB/s).
        def edit(t):
            t = t.replace('cylinders = 815,', 'cylinder = "214016B", cylinders = 815,')
            t = t.replace('cylinders = 823,', 'cylinder = "81920B", cylinders = 823,')
            return t + (f'\n[files]\nbuffers = 48\nblock = "1KiB"\ncopy_rate = "2MB/s"\n'
                        f'layout = "{layout}"\n')
        return edit

    def no_big_jobs(t):
        return t.replace('{ class = "macsyma", weight = 1 }', '{ class = "macsyma", weight = 0 }')

    out = [("as shipped", lambda t: t), ("no shells", no_shells),
           ("round robin", round_robin), ("disk queues FCFS", fcfs_arms),
           ("exec free", free_exec),
           ("+ buffer cache, scattered", buffer_cache("scattered")),
           ("+ buffer cache, contiguous", buffer_cache("contiguous"))]
    if "macsyma" in text:
        out.append(("no MACSYMA", no_big_jobs))
    return out


def main():
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    build()
    for site in ["berkeley-1979", "purdue-1980"]:
        swapped = (ROOT / "scenarios" / f"{site}-swapped.toml").read_text()
        paged = (ROOT / "scenarios" / f"{site}-paged.toml").read_text()
        print(f"\n{site}: ln(R paged / R swapped), mean ± 95% over {reps} paired replications")
        header = None
        with tempfile.TemporaryDirectory() as work:
            for name, edit in variants(paged):
                ratios = {}
                for seed in range(1, reps + 1):
                    s = run(edit(swapped), seed, work)
                    p = run(edit(paged), seed, work)
                    for cls, c in p.items():
                        r = c["mean_response"]
                        other = s.get(cls, {}).get("mean_response")
                        if r is not None and other is not None:
                            ratios.setdefault(cls, []).append(math.log(r / other))
                classes = [c for c in ratios if len(ratios[c]) == reps]
                if header is None:
                    header = classes
                    print("| variant | " + " | ".join(header) + " |")
                    print("|---" * (len(header) + 1) + "|")
                cells = []
                for c in header:
                    if c in ratios and len(ratios[c]) == reps:
                        m, h = interval(ratios[c])
                        cells.append(f"{m:+.3f} ± {h:.3f}")
                    else:
                        cells.append("-")
                print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
