#!/usr/bin/env python3
"""Compares vulkaninfo --json reports entry by entry: the first file is the reference (Debian's
Khronos loader), each further one a report through our loader. Prints the entry count and every
entry that differs; exits 1 when one differs."""
import json
import sys


def flatten(value, path, out):
    if isinstance(value, dict):
        for key, item in value.items():
            flatten(item, f"{path}/{key}", out)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            flatten(item, f"{path}[{index}]", out)
    else:
        out[path] = value
    return out


def main():
    reference = flatten(json.load(open(sys.argv[1])), "", {})
    failed = False
    for other_path in sys.argv[2:]:
        other = flatten(json.load(open(other_path)), "", {})
        missing = sorted(set(reference) - set(other))
        extra = sorted(set(other) - set(reference))
        changed = sorted(k for k in set(reference) & set(other) if reference[k] != other[k])
        print(f"{other_path}: {len(other)} entries vs {len(reference)}; "
              f"{len(missing)} missing, {len(extra)} extra, {len(changed)} changed")
        for key in missing[:40]:
            print(f"  missing {key} = {reference[key]!r}")
        for key in extra[:40]:
            print(f"  extra   {key} = {other[key]!r}")
        for key in changed[:40]:
            print(f"  changed {key}: {reference[key]!r} -> {other[key]!r}")
        failed |= bool(missing or extra or changed)
    sys.exit(1 if failed else 0)


main()
