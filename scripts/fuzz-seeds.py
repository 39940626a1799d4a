#!/usr/bin/env python3
"""Writes the fuzz seed corpus: each vk.xml of the registry matrix trimmed to a small registry that
still loads and generates (a few core commands, the WSI/Android extensions and the closure of the
types they use), plus variants carrying an overlay after the `<!--vkgen-overlay-->` marker.

usage: scripts/fuzz-seeds.py REGISTRY_DIR OUT_DIR
"""
import copy
import os
import sys
import xml.etree.ElementTree as ET

COMMANDS = {
    "vkCreateInstance", "vkDestroyInstance", "vkEnumeratePhysicalDevices", "vkGetInstanceProcAddr",
    "vkGetDeviceProcAddr", "vkCreateDevice", "vkDestroyDevice", "vkEnumerateInstanceVersion",
    "vkEnumerateInstanceExtensionProperties", "vkEnumerateDeviceExtensionProperties",
    "vkEnumerateInstanceLayerProperties", "vkGetDeviceQueue", "vkQueueSubmit", "vkCreateImage",
    "vkGetPhysicalDeviceProperties", "vkGetPhysicalDeviceProperties2", "vkCreateFence",
    "vkGetPhysicalDeviceSurfaceCapabilitiesKHR", "vkCreateSwapchainKHR", "vkQueuePresentKHR",
    "vkCreateAndroidSurfaceKHR", "vkDestroySurfaceKHR", "vkGetSwapchainImagesKHR",
    "vkAcquireNextImageKHR", "vkDestroySwapchainKHR", "vkGetSwapchainGrallocUsageANDROID",
    "vkAcquireImageANDROID", "vkQueueSignalReleaseImageANDROID", "vkCmdDraw", "vkCmdSetCullMode",
}
EXTENSIONS = {"VK_KHR_surface", "VK_KHR_swapchain", "VK_KHR_android_surface",
              "VK_ANDROID_native_buffer", "VK_KHR_get_physical_device_properties2",
              "VK_EXT_extended_dynamic_state"}
# Types the built-in overlay refers to.
OVERLAY_TYPES = {"VkStructureType", "VkFormat", "VkImageUsageFlags", "VkImageUsageFlagBits",
                 "VkImage", "VkFence", "VkSemaphore", "VkQueue", "VkDevice", "VkResult",
                 "VkBool32", "VkFlags", "VkImageCreateInfo", "VkBindImageMemoryInfo",
                 "VkPhysicalDeviceProperties2", "VkSwapchainImageUsageFlagsANDROID"}


def cmd_name(c):
    if c.get("name"):
        return c.get("name")
    return c.find("proto/name").text


def type_name(t):
    if t.get("name"):
        return t.get("name")
    n = t.find("name")
    if n is None:
        n = t.find("proto/name")
    return n.text if n is not None else None


def trim(src, dst):
    tree = ET.parse(src)
    root = tree.getroot()
    exts = root.find("extensions")
    for e in list(exts):
        if e.get("name") not in EXTENSIONS:
            exts.remove(e)
    commands = root.find("commands")
    by_name = {cmd_name(c): c for c in commands}
    keep_cmds = set()
    for n in COMMANDS:
        while n in by_name and n not in keep_cmds:
            keep_cmds.add(n)
            n = by_name[n].get("alias", "")
    for c in list(commands):
        if cmd_name(c) not in keep_cmds:
            commands.remove(c)
    types = root.find("types")
    tdefs = {}
    for t in types:
        if t.tag == "type" and type_name(t):
            tdefs.setdefault(type_name(t), []).append(t)
    enums = {e.get("name"): e for e in root.findall("enums")}
    need, todo = set(), list(OVERLAY_TYPES)
    for c in commands:
        for p in c.iter("type"):
            todo.append(p.text)
    for holder in list(root.findall("feature")) + list(exts):
        for r in holder.findall("require"):
            for item in list(r):
                if item.tag == "command" and item.get("name") not in keep_cmds:
                    r.remove(item)
                elif item.tag == "type" and holder.tag == "extension":
                    todo.append(item.get("name"))
    while todo:
        n = todo.pop()
        if not n or n in need:
            continue
        need.add(n)
        for t in tdefs.get(n, []):
            for attr in ("alias", "requires", "bitvalues", "parent"):
                if t.get(attr):
                    todo.append(t.get(attr))
            for sub in t.iter("type"):
                todo.append(sub.text)
        for alias_of in [k for k, v in tdefs.items() if any(x.get("alias") == n for x in v)]:
            todo.append(alias_of)
    for t in list(types):
        if t.tag != "type":
            continue
        if type_name(t) not in need and type_name(t) != "VK_HEADER_VERSION":
            types.remove(t)
    for name, e in enums.items():
        if name != "API Constants" and e.get("type") != "constants" and name not in need:
            root.remove(e)
    for holder in list(root.findall("feature")) + list(exts):
        for r in holder.findall("require"):
            for item in list(r):
                if item.tag == "type" and item.get("name") not in need and item.get("name") not in tdefs:
                    r.remove(item)
                elif item.tag == "type" and item.get("name") in tdefs and item.get("name") not in need:
                    r.remove(item)
                elif item.tag == "enum" and item.get("extends") and item.get("extends") not in need:
                    r.remove(item)
                elif item.tag == "enum" and not item.get("extends") and holder.tag == "feature":
                    r.remove(item)
                elif item.tag == "comment":
                    r.remove(item)
            if len(r) == 0:
                holder.remove(r)
    for el in root.iter():
        el.attrib.pop("comment", None)
        for c in [c for c in el if c.tag == "comment"]:
            el.remove(c)
    for tag in ("spirvextensions", "spirvcapabilities", "formats", "sync", "videocodecs"):
        for e in root.findall(tag):
            root.remove(e)
    tree.write(dst, encoding="unicode")


def main():
    src_dir, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    here = os.path.dirname(os.path.abspath(__file__))
    overlay = open(os.path.join(here, "..", "registry", "android_native_buffer.xml")).read()
    for f in sorted(os.listdir(src_dir)):
        if not f.endswith(".xml"):
            continue
        dst = os.path.join(out, "seed-" + f)
        trim(os.path.join(src_dir, f), dst)
        text = open(dst).read()
        with open(dst.replace(".xml", "-overlay.xml"), "w") as o:
            o.write(text + "<!--vkgen-overlay-->" + overlay)
        print(dst, len(text))
    small = open(os.path.join(here, "..", "generator", "tests", "fixtures", "harden.xml")).read()
    with open(os.path.join(out, "seed-harden.xml"), "w") as o:
        o.write(small)
    with open(os.path.join(out, "seed-harden-overlay.xml"), "w") as o:
        o.write(small + "<!--vkgen-overlay-->" + overlay)


if __name__ == "__main__":
    main()
