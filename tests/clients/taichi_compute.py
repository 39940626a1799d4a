"""Taichi on its Vulkan backend: integer kernels compared with numpy exactly."""
import sys

import numpy as np
import taichi as ti

ti.init(arch=ti.vulkan, offline_cache=False, log_level=ti.WARN)
if ti.lang.impl.current_cfg().arch != ti.vulkan:
    sys.exit(f"Taichi fell back to {ti.lang.impl.current_cfg().arch}, not Vulkan")

N = 4096
a = ti.field(ti.i32, shape=N)
b = ti.field(ti.i32, shape=N)
c = ti.field(ti.i32, shape=N)
total = ti.field(ti.i64, shape=())


@ti.kernel
def compute():
    for i in a:
        x = a[i] * 7 + (b[i] ^ (i * 31))
        c[i] = (x >> 3) - (b[i] % 1000)
    for i in c:
        ti.atomic_add(total[None], ti.cast(c[i], ti.i64))


rng = np.random.default_rng(12)
na = rng.integers(-(2**20), 2**20, N, dtype=np.int32)
nb = rng.integers(0, 2**30, N, dtype=np.int32)
a.from_numpy(na)
b.from_numpy(nb)
compute()
gpu = c.to_numpy()
idx = np.arange(N, dtype=np.int32)
x = na * np.int32(7) + (nb ^ (idx * np.int32(31)))
cpu = (x >> 3) - (nb % 1000)
bad = np.flatnonzero(gpu != cpu)
if bad.size:
    i = bad[0]
    sys.exit(f"{bad.size} of {N} differ; first at {i}: gpu {gpu[i]} cpu {cpu[i]}")
want = int(cpu.astype(np.int64).sum())
if total[None] != want:
    sys.exit(f"atomic sum: gpu {total[None]} cpu {want}")
print(f"taichi vulkan: {N} of {N} equal the CPU, sum {want}")
