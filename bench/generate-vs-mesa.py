#!/usr/bin/env python3
"""Full `vkgen generate` against Mesa's four runtime generators, side by side in one run.

    bench/generate-vs-mesa.py --vkgen target/release/vkgen --registry vk-1.4.359.xml \
        --mesa-util DIR [--python PY] [--runs 7] [--baseline OLD_VKGEN]

Without `--mesa-util` (a machine without Mesa's generators) it compares with `--baseline` only:
the Mesa ratio is then the baseline's from an earlier side-by-side run, scaled, not measured.

Fetches nothing. The comparison inputs, obtained beforehand:
- DIR holds Mesa 23.3.6's `src/vulkan/util/` generators: vk_dispatch_table_gen.py,
  vk_entrypoints_gen.py, vk_dispatch_trampolines_gen.py, vk_extensions_gen.py and the modules
  they import (vk_entrypoints.py, vk_extensions.py). From a Mesa checkout:
  `git -C mesa archive mesa-23.3.6 src/vulkan/util | tar -x --strip-components=3 -C DIR`
  (a mirror of the release tree serves too: BENCHMARKS.md names the one used, and the commit
  whose `VERSION` reads 23.3.6).
- PY is a Python 3 with Mako (`python3 -m venv v && v/bin/pip install mako`; or
  `pip install --target PYLIB mako` and this script run with `PYTHONPATH=PYLIB`, which the
  generators it starts inherit).
- The registry is ../shared/registry/vk-1.4.359.xml.

Each round runs vkgen (all outputs, formatted, written) then Mesa's four generators one after
the other with the arguments Mesa's meson.build gives them (`vk_common` entrypoints); rounds
alternate so both sides see the same machine state. Prints medians, the ratio, and vkgen's own
per-phase timings (`--timings`) of its median run. `--baseline` adds an older vkgen binary
(say, the last release's) to every round, run without `--timings`, for a before/after ratio.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

MESA = [
    ("vk_dispatch_table_gen.py", ["--out-c", "dispatch.c", "--out-h", "dispatch.h", "--beta", "false"]),
    ("vk_entrypoints_gen.py", ["--proto", "--weak", "--out-h", "entry.h", "--out-c", "entry.c",
                               "--prefix", "vk_common", "--beta", "false"]),
    ("vk_dispatch_trampolines_gen.py", ["--out-c", "tramp.c", "--out-h", "tramp.h", "--beta", "false"]),
    ("vk_extensions_gen.py", ["--out-c", "ext.c", "--out-h", "ext.h"]),
]


def timed(cmd, cwd):
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    took = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stderr}")
    return took, done.stderr


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vkgen", required=True)
    ap.add_argument("--registry", required=True)
    ap.add_argument("--mesa-util")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--baseline")
    a = ap.parse_args()
    vkgen = os.path.abspath(a.vkgen)
    registry = os.path.abspath(a.registry)
    if not a.mesa_util and not a.baseline:
        sys.exit("give --mesa-util (the comparison) or --baseline (before/after only), or both")
    util = os.path.abspath(a.mesa_util) if a.mesa_util else None
    missing = [g for g, _ in MESA if util and not os.path.isfile(os.path.join(util, g))]
    if missing:
        sys.exit(f"--mesa-util {util} lacks {', '.join(missing)} (see this script's header)")
    baseline = os.path.abspath(a.baseline) if a.baseline else None
    ours, theirs, phases, before = [], [], [], []
    with tempfile.TemporaryDirectory() as scratch:
        for _ in range(a.runs):
            out = os.path.join(scratch, "vkgen")
            took, err = timed([vkgen, "generate", "--registry", registry, "--out", out,
                               "--timings"], scratch)
            ours.append(took)
            phases.append((took, err))
            if baseline:
                took, _ = timed([baseline, "generate", "--registry", registry, "--out",
                                 os.path.join(scratch, "baseline")], scratch)
                before.append(took)
            if util:
                total = 0.0
                for gen, args in MESA:
                    took, _ = timed([a.python, os.path.join(util, gen), "--xml", registry]
                                    + args, scratch)
                    total += took
                theirs.append(total)
    mo = statistics.median(ours)
    print(f"registry {registry}, {a.runs} alternated rounds, {os.cpu_count()} CPUs")
    print(f"vkgen generate (all outputs)        median {mo * 1000:8.1f} ms  "
          f"(min {min(ours) * 1000:.1f}, max {max(ours) * 1000:.1f})")
    if theirs:
        mt = statistics.median(theirs)
        print(f"Mesa's 4 runtime generators, serial median {mt * 1000:8.1f} ms  "
              f"(min {min(theirs) * 1000:.1f}, max {max(theirs) * 1000:.1f})")
        print(f"ratio: vkgen is {mt / mo:.1f}x faster")
    if before:
        mb = statistics.median(before)
        against = f"{mt / mb:.1f}x Mesa; " if theirs else ""
        print(f"baseline vkgen ({a.baseline})  median {mb * 1000:8.1f} ms "
              f"(min {min(before) * 1000:.1f}, max {max(before) * 1000:.1f}): "
              f"{against}this vkgen takes {mo / mb:.3f} of its time")
    median_run = sorted(phases)[len(phases) // 2][1]
    print("vkgen's phases in its median run:")
    print("".join(l + "\n" for l in median_run.splitlines() if not l.startswith("vkgen:")), end="")


if __name__ == "__main__":
    main()
