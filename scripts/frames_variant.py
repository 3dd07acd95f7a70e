#!/usr/bin/env python3
"""A scenario paged by process, turned into one with memory as frames.

Every class's lifetime function L(m) = 2b / (1 + (c/m)^2) (`locality = {
cfl = { b, c } }`) becomes a phase model by the rule
berkeley-1979-clock.toml states: a locality set of c pages, exponential
phases of mean b * c * (1 - c/P) for an image of P pages (a process
holding its set then faults once per b of processor time on average),
references every `--reference` of processor time (`--reference b/3`: a
third of the class's own b; `b` alone, b itself). The reference interval
sets how fast a process short of its set faults, one fault per
c * reference / missing pages of processor time: the one-level phase
model's lifetime below c, which the lifetime function does not fix (at
c/2, `b/5` matches L(m); the Multics scenarios under the clock fit `b/3`
to the M.I.T. time breakdown, docs/multics.md). `memory.free_target`
becomes `lotsfree`; `--clock` settings are added to the memory table.
The rest of the file, comments included, is kept.

Usage: scripts/frames_variant.py SCENARIO.toml [--reference 1us | b | b/3]
           [--clock 'slowscan = "200ms"' ...] > FRAMES.toml
"""

import argparse
import re
import sys
import tomllib

# Units of sizes a scenario may give, in their own family (bytes or words).
UNITS = {"B": ("bytes", 1), "KB": ("bytes", 1000), "KiB": ("bytes", 1024),
         "MB": ("bytes", 1000**2), "MiB": ("bytes", 1024**2),
         "w": ("words", 1), "Kw": ("words", 1024), "Mw": ("words", 1024**2)}

CFL = re.compile(r'locality\s*=\s*\{\s*cfl\s*=\s*\{\s*b\s*=\s*"([0-9.]+)(us|ms|s)"\s*,\s*c\s*=\s*([0-9.]+)\s*\}\s*\}')


def size(text):
    """A size as (family, amount)."""
    number, unit = re.fullmatch(r"\s*([0-9.]+)\s*([A-Za-z]+)\s*", text).groups()
    family, scale = UNITS[unit]
    return family, float(number) * scale


def pages(image, page):
    """The pages of an image of size `image`, pages of size `page`."""
    (fi, i), (fp, p) = size(image), size(page)
    if fi != fp:
        sys.exit(f"frames_variant: sizes {image!r} and {page!r} are not of one unit family")
    return -(-i // p)


def seconds(number, unit):
    return float(number) * {"us": 1e-6, "ms": 1e-3, "s": 1.0}[unit]


def reference_of(reference, b):
    """The reference interval: a duration as given, or `b` or `b/N`, the
    class's own b (seconds) or a fraction of it, as a duration."""
    match = re.fullmatch(r"b(?:/([0-9.]+))?", reference)
    if not match:
        return reference
    return f"{b / float(match.group(1) or 1) * 1e6:.6g}us"


def convert(text, reference, clock):
    """The frames version of scenario `text`."""
    scenario = tomllib.loads(text)
    page = scenario["memory"]["page"]
    images = {c["name"]: c["size"] for c in scenario["class"]}
    out, current = [], None
    for line in text.splitlines():
        named = re.match(r'^name\s*=\s*"([^"]+)"', line)
        if named and named.group(1) in images:
            current = named.group(1)
        match = CFL.search(line)
        if match:
            b = seconds(match.group(1), match.group(2))
            c = float(match.group(3))
            p = pages(images[current], page)
            set_ = min(int(round(c)), int(p))
            phase = b * set_ * (1 - set_ / p)
            if phase <= 0:
                # The set is the whole image: one phase, the program's life.
                model = f'set = {set_}, phase = {{ det = {{ value = "100000s" }} }}'
            else:
                model = f'set = {set_}, phase = {{ exp = {{ mean = "{phase * 1e3:.4g}ms" }} }}'
            ref = reference_of(reference, b)
            line = CFL.sub(f'locality = {{ phases = {{ {model}, reference = "{ref}" }} }}',
                           line)
        if re.match(r"^free_target\s*=", line):
            line = re.sub(r"^free_target", "lotsfree", line)
        out.append(line)
        if re.match(r'^policy\s*=\s*"paging"', line):
            out.append('replacement = "clock"     # memory as frames (scripts/frames_variant.py)')
            out.extend(clock)
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenario")
    parser.add_argument("--reference", default="1us")
    parser.add_argument("--clock", action="append", default=[],
                        help="a line for the memory table, such as 'slowscan = \"200ms\"'")
    args = parser.parse_args()
    with open(args.scenario, encoding="utf-8") as f:
        sys.stdout.write(convert(f.read(), args.reference, args.clock))


if __name__ == "__main__":
    main()
