#!/usr/bin/env python3
"""Which mechanism produces each paged-versus-swapped difference.

Runs each shipped pair (Berkeley 1979, Purdue 1980) swapped and paged on
common random numbers (the same seeds), for a list of variants that each
switch one mechanism off in both members of the pair, and prints, per
variant and command class, the mean over replications of
ln(R_paged / R_swapped) with a 95% Student-t interval: above 0, swapping
is faster. Besides the switches, the buffer cache's assumed values are
varied over their plausible range: files scattered over their file
system (both members', or the swapped member's only) in place of laid
down in order, half or twice each kernel's buffers, the copy from a buffer
at 1 or 8 MB/s in place of 2. Not part
of CI: a few minutes on two cores.

Usage: scripts/ablation.py [REPLICATIONS [VARIANT ...]]
  REPLICATIONS defaults to 10; naming variants runs only those (and the
  pair as shipped), for example "no buffer cache".
"""

import math
import re
import sys
import tempfile

from tpsimrun import ROOT, build, interval, run


def variants(text):
    """(name, edit) pairs: each edit switches one mechanism off."""
    def no_shells(t):
        return t.replace('shell = "sh"   ', "", 1)

    def round_robin(t):
        t = t.replace('scheduler = "unix"', 'scheduler = "round-robin"')
        return "".join(l for l in t.splitlines(True) if not l.startswith("unix = "))

    def fcfs_arms(t):
        return t.replace('order = "disksort"', 'order = "fcfs"')

    def free_exec(t):
        # Programs on a device that takes no time to speak of.
        t = t.replace("[[device]]", '[[device]]\nname = "free-programs"\nrate = "1000GB/s"\n\n[[device]]', 1)
        return t.replace("[memory]\n", '[memory]\nprograms = "free-programs"\n', 1)

    def no_cache(t):
        # The I/O path before the buffer cache: exec reads an image in one
        # transfer, and the reads the cache took over go back to `io`: the
        # manual page and the macros nroff reads, the temporary files
        # ccom and as read back (8 KiB each).
        t = t[:t.index("\n# The file system's buffer cache")] + "\n"
        if "rp06-1" in t:
            t = t.replace('files = [{ read = "ctm1" }, { write = "ctm2" }]',
                          'io = { count = 8, size = "1KiB", device = "rp06-1" }')
            t = t.replace('io = { count = 8, size = "1KiB", device = "rp06-1" }    # the object',
                          'io = { count = 16, size = "1KiB", device = "rp06-1" }    # the object')
        else:
            t = t.replace('{ count = 4, size = "1KiB", device = "rm03-', '{ count = 8, size = "1KiB", device = "rm03-')
            t = t.replace('files = [{ read = "ctm1" }, { write = "ctm2" }]',
                          'io = [{ count = 4, size = "1KiB", device = "rm03-1" }, '
                          '{ count = 4, size = "1KiB", device = "rm03-2" }]')
        t = "".join(l for l in t.splitlines(True)
                    if not l.startswith(("files = [", "sticky = true")))
        return t.replace("count = 33,", "count = 40,")

    def scattered(swapped_only):
        # Each block of a file on a cylinder of its own: a file system
        # aged until its free list is scrambled (the swapped member's only:
        # its file system older than the paged member's).
        def edit(t):
            if swapped_only and 'policy = "swapping"' not in t:
                return t
            return t.replace('layout = "contiguous"', 'layout = "scattered"')
        return edit

    def no_sticky(t):
        return "".join(l for l in t.splitlines(True) if not l.startswith("sticky = true"))

    def buffers(factor):
        # Each member's NBUF (32V's 32, 3BSD's 48) scaled.
        def edit(t):
            return re.sub(r"^buffers = (\d+)", lambda m: f"buffers = {round(int(m[1]) * factor)}",
                          t, flags=re.M)
        return edit

    def copy_rate(rate):
        return lambda t: t.replace('copy_rate = "2MB/s"', f'copy_rate = "{rate}"')

    def swapped_40bsd_clock(t):
        # The swapped member on 4.0BSD's constants too (it is 32V or V7,
        # whose clock.c is V7's).
        if 'policy = "swapping"' not in t:
            return t
        return t.replace('quantum = "1s" ', 'quantum = "250ms" ').replace(
            "[system]\n", "[system]\nunix = { decay = 0.9, pagein_priority = 0 }\n", 1)

    def swapped_1k_blocks(t):
        if 'policy = "swapping"' not in t:
            return t
        return t.replace('block = "512B"', 'block = "1KiB"')

    def v7_clock(t):
        # The paged member back on V7's (and 3BSD's) clock constants.
        t = t.replace('quantum = "250ms"', 'quantum = "1s"')
        return "".join(l for l in t.splitlines(True) if not l.startswith("unix = "))

    def no_big_jobs(t):
        return t.replace('{ class = "macsyma", weight = 1 }', '{ class = "macsyma", weight = 0 }')

    out = [("as shipped", lambda t: t), ("no shells", no_shells),
           ("round robin", round_robin), ("disk queues FCFS", fcfs_arms),
           ("exec free", free_exec), ("no buffer cache", no_cache),
           ("no sticky text", no_sticky),
           ("files scattered", scattered(False)),
           ("swapped member's files scattered", scattered(True)),
           ("half the buffers", buffers(0.5)), ("twice the buffers", buffers(2)),
           ("copies at 1 MB/s", copy_rate("1MB/s")), ("copies at 8 MB/s", copy_rate("8MB/s")),
           ("paged on V7's clock", v7_clock),
           ("swapped on 4.0BSD's clock", swapped_40bsd_clock),
           ("swapped member's blocks 1 KiB", swapped_1k_blocks)]
    if "macsyma" in text:
        out.append(("no MACSYMA", no_big_jobs))
    return out


def main():
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    chosen = sys.argv[2:]
    build()
    for site in ["berkeley-1979", "purdue-1980"]:
        swapped = (ROOT / "scenarios" / f"{site}-swapped.toml").read_text()
        paged = (ROOT / "scenarios" / f"{site}-paged.toml").read_text()
        print(f"\n{site}: ln(R paged / R swapped), mean ± 95% over {reps} paired replications")
        header = None
        with tempfile.TemporaryDirectory() as work:
            for name, edit in variants(paged):
                if chosen and name not in chosen and name != "as shipped":
                    continue
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
