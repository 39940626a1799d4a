#!/usr/bin/env python3
"""Re-extracts registry/limits/minimum_requirements.json from a Vulkan-Profiles git clone.

    registry/limits/extract.py PATH/TO/Vulkan-Profiles PATH/TO/vk.xml \
        > registry/limits/minimum_requirements.json

The source is LunarG's `VP_LUNARG_minimum_requirements.json`: one profile per core version
(`VP_LUNARG_minimum_requirements_1_N`), each listing the capabilities (features and properties)
the specification's "Required Limits" table asks of that version. The generator needs them per
version, so each capability is attributed to the first profile that lists it. `X_split` is the
same requirements as `X` written with the pre-1.2 structures (`VkPhysicalDeviceSubgroupProperties`
instead of `VkPhysicalDeviceVulkan11Properties`), so both belong to the version that introduced
either: registries older than 1.2 know only the split form, and the generator keeps whichever
structures its registry has. Only `capabilities` are read; `optionals` ask nothing.

vk.xml (the newest registry at hand) gives each member's `limittype` (`max`, `min,mul`, `range`…),
recorded next to the values for registries older than 1.2.1xx, which have no `limittype`; the
generator prefers the registry's own.

The output records where it came from (repository, commit, path, SHA-256 of the file) so a reader
can check it against upstream; it is read by the generator at build time (`include_str!`).
"""
import hashlib
import json
import subprocess
import sys
import xml.etree.ElementTree as ET

REPOSITORY = "https://github.com/KhronosGroup/Vulkan-Profiles"
PATH = "profiles/LunarG/VP_LUNARG_minimum_requirements.json"
PREFIX = "VP_LUNARG_minimum_requirements_"


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True).stdout


def limittypes(vk_xml, versions):
    """`{struct: {member: limittype}}` for every member the extracted properties name."""
    members = {}
    for t in ET.parse(vk_xml).getroot().iter("type"):
        if t.get("category") == "struct":
            members[t.get("name")] = {
                m.findtext("name"): (m.findtext("type"), m.get("limittype"))
                for m in t.findall("member")
            }
    out = {}

    def walk(struct, values):
        for member, value in values.items():
            ty, lt = members[struct][member]
            if isinstance(value, dict):
                walk(ty, value)
            elif lt:
                out.setdefault(struct, {})[member] = lt

    for entries in versions.values():
        for e in entries:
            for struct, values in e["properties"].items():
                walk(struct, values)
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    repo, vk_xml = sys.argv[1], sys.argv[2]
    commit = git(repo, "rev-parse", "HEAD").decode().strip()
    raw = git(repo, "show", f"{commit}:{PATH}")
    doc = json.loads(raw)
    caps = doc["capabilities"]
    base = lambda name: name.removesuffix("_split")
    seen = {}
    versions = {}
    profiles = sorted(
        (p for p in doc["profiles"].items() if p[0].startswith(PREFIX)),
        key=lambda p: tuple(int(x) for x in p[1]["api-version"].split(".")),
    )
    for name, profile in profiles:
        major, minor = profile["api-version"].split(".")[:2]
        version = f"VK_VERSION_{major}_{minor}"
        for cap in profile["capabilities"]:
            if not isinstance(cap, str):
                sys.exit(f"{name}: alternatives in capabilities are not supported")
            key = base(cap)
            owner = seen.setdefault(key, version)
            entries = versions.setdefault(owner, [])
            if any(e["capability"] == cap for e in entries):
                continue
            entries.append({"capability": cap, "properties": caps[cap].get("properties", {})})
    out = {
        "source": {
            "repository": REPOSITORY,
            "commit": commit,
            "path": PATH,
            "sha256": hashlib.sha256(raw).hexdigest(),
            "profiles": [name for name, _ in profiles],
        },
        "versions": versions,
        "limittypes": {
            "registry": vk_xml.rsplit("/", 1)[-1],
            "sha256": hashlib.sha256(open(vk_xml, "rb").read()).hexdigest(),
            "members": limittypes(vk_xml, versions),
        },
    }
    json.dump(out, sys.stdout, indent=2)
    sys.stdout.write("\n")


main()
