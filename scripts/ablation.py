#!/usr/bin/env python3
"""Which mechanism produces each paged-versus-swapped difference.

Runs each shipped pair (Berkeley 1979, Purdue 1980) swapped and paged on
common random numbers (the same seeds), for a list of variants that each
switch one mechanism off in both members of the pair (or in the one
its name says), and prints, per
variant and command class, the mean over replications of
ln(R_paged / R_swapped) with a 95% Student-t interval: above 0, swapping
is faster. Besides the switches, the assumed values are varied over
their plausible range: the files aged (both members', or the swapped
member's only), in order, or scattered afresh at each request in place
of mkfs's interleave, and the disks under the uniform rule with the
files in order (the pairs before disks had rotational position); half or
twice each kernel's buffers (and 3BSD's 62 of 80/07/19), the copy from a
buffer at 1 or 8 MB/s in place of 2, exec's clearing of a click at 0.05
or 0.25 ms in place of 0.1, the compilation's demand even over its
passes, the drivers' (man.c's, cc.c's) lines four times as long, the
programs' images half or one and a half times as large, every kernel
64 KiB smaller or larger, the think times halved or doubled, at Purdue
32V using all 3 MB (its PHYSPAGES raised), at Berkeley MACSYMA never or
twice as often. The variants are also what scripts/probe-study.py
takes. Not part of CI: an hour or so on two cores.

Usage: scripts/ablation.py [REPLICATIONS [VARIANT ...]]
  REPLICATIONS defaults to 10; naming variants runs only those (and the
  pair as shipped), for example "no buffer cache".
"""

import math
import re
import sys
import tempfile

from tpsimrun import ROOT, build, interval, run

# The start of a class's block, by name, in a scenario's text.
CLASS = r'\nname = "{}" '


def variants(text):
    """(name, edit) pairs: each edit switches one mechanism off."""
    def no_shells(t):
        return t.replace('shell = "sh"   ', "", 1)

    def round_robin(t):
        t = t.replace('scheduler = "unix"', 'scheduler = "round-robin"')
        return "".join(l for l in t.splitlines(True) if not l.startswith("unix = "))

    def fcfs_arms(t):
        return t.replace('order = "disksort"', 'order = "fcfs"')

    def free_exec(swapped_only):
        return lambda t: t if swapped_only and 'policy = "swapping"' not in t else free_programs(t)

    def free_programs(t):
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

    def layout(name, member=None):
        # The files laid out otherwise than by mkfs's interleave on a fresh
        # file system: one block after another, or an aged free list's
        # places (the FFS paper's "few weeks of moderate use"), in both
        # members or one member's only ("swapping" or "paging": its file
        # systems the older).
        def edit(t):
            if member and f'policy = "{member}"' not in t:
                return t
            return t.replace('layout = "interleaved"', f'layout = "{name}"')
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

    def swapped_800409_clock(t):
        # The swapped member on the paged member's clock constants too
        # (Berkeley's kern_clock.c of 80/04/09, as in 4.0BSD); its own are
        # V7's, 32V's clock.c not being found.
        if 'policy = "swapping"' not in t:
            return t
        return t.replace('quantum = "1s" ', 'quantum = "250ms" ').replace(
            "[system]\n", "[system]\nunix = { decay = 0.9, pagein_priority = 0 }\n", 1)

    def swapped_1k_blocks(t):
        if 'policy = "swapping"' not in t:
            return t
        return t.replace('block = "512B"', 'block = "1KiB"')

    def v7_clock(t):
        # The paged member on V7's clock constants (the swapped member's,
        # assumed for 32V), in place of 80/04/09's.
        t = t.replace('quantum = "250ms"', 'quantum = "1s"')
        return "".join(l for l in t.splitlines(True) if not l.startswith("unix = "))

    def big_jobs(weight):
        # MACSYMA's weight among the Berkeley commands (assumed 1).
        return lambda t: t.replace('{ class = "macsyma", weight = 1 }',
                                   f'{{ class = "macsyma", weight = {weight} }}')

    def clearing(ms):
        # Exec's clearing of a 512-byte click (the swapped members'), over
        # its plausible range.
        return lambda t: re.sub(r'^clear_cpu = "[^"]*"', f'clear_cpu = "{ms}ms"', t, flags=re.M)

    def class_value(t, name, key, value):
        # `key = ...`'s number (after `mean = ` or `= "`) in the block of
        # class `name`, given by `value(old)`.
        pattern = "(" + CLASS.format(name) + r".*?\n" + key + r")([0-9.]+)"
        return re.sub(pattern, lambda m: f"{m[1]}{value(float(m[2])):g}", t, count=1, flags=re.S)

    def fixed(t, name, value):
        # Every fixed demand of a program of class `name` in runs lists.
        return re.sub(r'(\{ class = "' + name + r'", instructions = )([0-9.]+)',
                      lambda m: f"{m[1]}{value(float(m[2])):g}", t)

    def cc_even(t):
        # The compilation's demand spread evenly over its four passes, the
        # users' and the probe's, in place of the compiler proper taking
        # most of it.
        passes = ["cpp", "ccom", "as", "ld"]
        key = r"instructions = \{ erlang = \{ k = 2, mean = "
        means, probe = [], []
        for p in passes:
            class_value(t, p, key, lambda v: means.append(v) or v)
            fixed(t, p, lambda v: probe.append(v) or v)
        for p in passes:
            t = class_value(t, p, key, lambda v: sum(means) / 4)
            t = fixed(t, p, lambda v: sum(probe) / 4)
        return t

    def drivers_lines(factor):
        # man.c's and cc.c's own lines `factor` times as long, the
        # difference taken from nroff and ccom so that the commands'
        # demands stay as they were.
        def edit(t):
            line = r"instructions = \{ det = \{ value = "
            old, new = 0.005, 0.005 * factor
            if 'name = "man" ' in t:
                t = class_value(t, "man", line, lambda v: new)
                t = class_value(t, "nroff", r"instructions = \{ exp = \{ mean = ", lambda v: v - 2 * (new - old))
                t = fixed(t, "nroff", lambda v: v - 2 * (new - old))
            t = class_value(t, "cc", line, lambda v: new)
            t = class_value(t, "ccom", r"instructions = \{ erlang = \{ k = 2, mean = ", lambda v: v - 5 * (new - old))
            return fixed(t, "ccom", lambda v: v - 5 * (new - old))
        return edit

    def images(factor):
        # Every program's image (assumed: no a.out header of the VAX
        # binaries survives), text and all, scaled; not the CPU-bound
        # job's and MACSYMA's, which the study gives.
        def edit(t):
            names = re.findall(r'^\[\[class\]\]\nname = "([^"]+)"', t, flags=re.M)
            for p in names:
                if p in ("cpu-bound", "macsyma"):
                    continue
                for key in ['size = "', 'text = "']:
                    t = class_value(t, p, key, lambda v: round(v * factor))
            return t
        return edit

    def search_lead(sectors):
        # The drivers' search ending `sectors` before a block's first (32V's
        # SDIST is 2): a driver a sector late to ask for the next block.
        return lambda t: t.replace('rotation = "position"', f'rotation = "position"\nsearch_lead = {sectors}')

    def gap(blocks):
        # mkfs run with another interleave m (its default 3).
        return lambda t: t.replace('layout = "interleaved"', f'layout = "interleaved"\ninterleave = {{ gap = {blocks} }}')

    def uniform(t):
        # Every disk under the uniform rule (half a revolution on average
        # whatever the sector), its files one block after another: the
        # pairs as shipped before disks had rotational position.
        t = "".join(l for l in t.splitlines(True) if not l.startswith("rotation = "))
        return t.replace('layout = "interleaved"', 'layout = "contiguous"')

    def think(factor):
        # The users' mean think time scaled (assumed: 15 s at Berkeley,
        # 30 s at Purdue).
        return lambda t: re.sub(r'^(think = \{ exp = \{ mean = ")([0-9]+)s"',
                                lambda m: f'{m[1]}{int(m[2]) * factor:g}s"', t, flags=re.M)

    def all_memory(t):
        # 32V with PHYSPAGES raised to the machine's memory (a tunable).
        return re.sub(r'^usable = "[^"]*"', 'usable = "1024MiB"', t, flags=re.M)

    def kernels(delta_kib):
        # Every member's kernel `delta_kib` larger (its text and tables
        # assumed).
        return lambda t: re.sub(r'^kernel = "([0-9]+)KiB"',
                                lambda m: f'kernel = "{int(m[1]) + delta_kib}KiB"', t, flags=re.M)

    def nbuf_62(t):
        # The paged member on 3BSD's 62 buffers of 80/07/19 (param.h 3.9),
        # its kernel 14 KiB larger.
        if 'policy = "paging"' not in t:
            return t
        t = t.replace("buffers = 48 ", "buffers = 62 ")
        return re.sub(r'^kernel = "([0-9]+)KiB"', lambda m: f'kernel = "{int(m[1]) + 14}KiB"', t, flags=re.M)

    out = [("as shipped", lambda t: t), ("no shells", no_shells),
           ("round robin", round_robin), ("disk queues FCFS", fcfs_arms),
           ("exec free", free_exec(False)),
           ("swapped member's exec free", free_exec(True)), ("no buffer cache", no_cache),
           ("no sticky text", no_sticky),
           ("files aged", layout("aged")),
           ("swapped member's files aged", layout("aged", "swapping")),
           ("paged member's files aged", layout("aged", "paging")),
           ("files in order", layout("contiguous")),
           ("files scattered", layout("scattered")),
           ("uniform rule, files in order", uniform),
           ("half the buffers", buffers(0.5)), ("twice the buffers", buffers(2)),
           ("copies at 1 MB/s", copy_rate("1MB/s")), ("copies at 8 MB/s", copy_rate("8MB/s")),
           ("paged on V7's clock", v7_clock),
           ("swapped on 80/04/09's clock", swapped_800409_clock),
           ("swapped member's blocks 1 KiB", swapped_1k_blocks),
           ("clearing 0.05 ms a click", clearing(0.05)), ("clearing 0.25 ms a click", clearing(0.25)),
           ("cc's demand even over its passes", cc_even),
           ("drivers' lines x4", drivers_lines(4)),
           ("programs' images x0.5", images(0.5)), ("programs' images x1.5", images(1.5)),
           ("kernels 64 KiB smaller", kernels(-64)), ("kernels 64 KiB larger", kernels(64)),
           ("paged member's 62 buffers", nbuf_62),
           ("think times x0.5", think(0.5)), ("think times x2", think(2)),
           ("search lead 3", search_lead(3)),
           ("interleave gap 2", gap(2)), ("interleave gap 4", gap(4))]
    if 'usable = "1MiB"' in text or "purdue" in text:
        out.append(("32V on all the memory", all_memory))
    if "macsyma" in text:
        out += [("no MACSYMA", big_jobs(0)), ("MACSYMA twice as often", big_jobs(2))]
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
