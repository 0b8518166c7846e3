#!/usr/bin/python3
"""hot_pages.py - how many pages of gpu-tracker's own code a sample runs.

    bench/hot_pages.py build/gpu-tracker            # the summary alone
    bench/hot_pages.py build/gpu-tracker --series   # with both series

Runs the command under valgrind's callgrind at --st 0.01 wrapping `sleep 1`,
takes the sampling thread's profile, keeps the functions of the binary it
called at least once a sample, and maps them to their addresses (nm): the
distinct 4 KiB pages they span. On a CPU without PCID every wake-up starts
with an empty TLB, so this count, not the instruction count, follows what
a small sample costs (src/lib/util/hot_path.h, docs/performance.md). Prints
each function with its address and page, then the count. Needs valgrind.
"""
import collections
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile


def annotate(path, *args):
    return subprocess.run(["callgrind_annotate", *args, path], capture_output=True,
                          text=True, check=True).stdout


def callee_counts(path, binary):
    """Calls of each function of binary, from the profile file itself
    (callgrind's format: "cob=", "cfn=" name the callee of the "calls="
    line that follows; names and objects are given once in full as "(id)
    name", then by their id)."""
    names, objects = {}, {}
    counts = collections.Counter()
    current_object = callee = callee_object = None
    with open(path) as f:
        for line in f:
            key, _, value = line.rstrip("\n").partition("=")
            if key == "ob":
                current_object = resolve(objects, value)
            elif key == "fn":
                resolve(names, value)
            elif key == "cob":
                callee_object = resolve(objects, value)
            elif key == "cfn":
                callee = resolve(names, value)
            elif key == "calls" and callee:
                # without a cob line the callee is in the caller's object
                if (callee_object or current_object) == binary:
                    counts[callee] += int(value.split()[0])
                callee = callee_object = None
    return counts


def resolve(table, value):
    """A compressed name: "(id) name" defines, "(id)" refers."""
    m = re.match(r"\((\d+)\)(?: (.*))?$", value)
    if not m:
        return value
    if m.group(2) is not None:
        table[m.group(1)] = m.group(2)
    return table.get(m.group(1))


def main():
    if len(sys.argv) < 2 or not shutil.which("valgrind"):
        sys.exit("usage: hot_pages.py GPU_TRACKER [--series] (needs valgrind)")
    binary = os.path.abspath(sys.argv[1])
    series = "--series" in sys.argv[2:]
    work = tempfile.mkdtemp(prefix="gt-hot-pages-")
    try:
        extra = (["--process-csv", os.path.join(work, "p.csv"),
                  "--system-csv", os.path.join(work, "s.csv")] if series else [])
        out = os.path.join(work, "cg.out")
        env = dict(os.environ, XDG_CONFIG_HOME=work)
        subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out,
                        "--separate-threads=yes", binary, "--st", "0.01", "-q", "-o",
                        "/dev/null", *extra, "--", "sleep", "1"],
                       env=env, capture_output=True, check=True)
        sampler = None
        for path in sorted(glob.glob(out + "-*")):
            if "tracker.c:sampler_main" in annotate(path):
                sampler = path
        if not sampler:
            sys.exit("hot_pages.py: no sampling thread in the profile")
        calls = callee_counts(sampler, binary)
        symbols = {}
        nm = subprocess.run(["nm", "-S", "--defined-only", binary], capture_output=True,
                            text=True, check=True).stdout
        for line in nm.splitlines():
            parts = line.split()
            if len(parts) == 4 and parts[2] in "tT":
                symbols[parts[3]] = (int(parts[0], 16), int(parts[1], 16))
        # take_sample runs once a sample: what runs about as often or more is
        # the per-sample path (a few run in all samples but the first or last)
        per_sample = calls.get("take_sample", 0)
        if per_sample == 0:
            sys.exit("hot_pages.py: no take_sample in the sampling thread's profile")
        pages, rows = set(), []
        for name, n in calls.items():
            sym = symbols.get(name) or symbols.get(name.split(".")[0])
            if n < 0.9 * per_sample or not sym:
                continue
            address, size = sym
            pages.update(range(address // 4096, (address + max(size, 1) - 1) // 4096 + 1))
            rows.append((address, size, name, n))
        for address, size, name, n in sorted(rows):
            print(f"{address:8x} {size:6d} page {address // 4096:4x}  {name} ({n} calls)")
        print(f"{len(rows)} functions run at every sample ({per_sample} samples), "
              f"{len(pages)} distinct pages of code")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
