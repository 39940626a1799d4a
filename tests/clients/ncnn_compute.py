"""ncnn: a convolution + ReLU + max-pool net on its Vulkan path, compared with its CPU path.

Inputs and weights are small integers, so every sum is exact in fp32 whatever the order the
shaders add in: the two paths must agree bit for bit.
"""
import os
import struct
import sys
import tempfile

import ncnn
import numpy as np

W, H, C, K = 16, 12, 8, 16
PARAM = f"""7767517
4 4
Input data 0 1 data 0={W} 1={H} 2={C}
Convolution conv 1 1 data conv 0={K} 1=3 4=1 5=1 6={K * C * 9}
ReLU relu 1 1 conv act
Pooling pool 1 1 act out 0=0 1=2 2=2
"""

rng = np.random.default_rng(12)
weights = rng.integers(-3, 4, K * C * 9).astype(np.float32)
bias = rng.integers(-20, 21, K).astype(np.float32)
# Convolution reads its weights with a 4-byte type tag (0: raw fp32), its bias without one.
MODEL = struct.pack("<I", 0) + weights.tobytes() + bias.tobytes()
MODEL_PATH = os.path.join(tempfile.mkdtemp(), "net.bin")
with open(MODEL_PATH, "wb") as f:
    f.write(MODEL)
data = rng.integers(-4, 5, (C, H, W)).astype(np.float32)


def run(vulkan):
    net = ncnn.Net()
    net.opt.use_vulkan_compute = vulkan
    # Plain fp32 arithmetic: no half/bf16/int8 storage, and no Winograd transforms, whose
    # fractional coefficients would round the integer sums.
    for flag in ("use_fp16_packed", "use_fp16_storage", "use_fp16_arithmetic",
                 "use_bf16_storage", "use_int8_inference", "use_winograd_convolution",
                 "use_sgemm_convolution"):
        setattr(net.opt, flag, False)
    if vulkan:
        net.set_vulkan_device(0)
    if net.load_param_mem(PARAM) != 0:
        sys.exit("load_param_mem failed")
    if net.load_model(MODEL_PATH) != 0:
        sys.exit("load_model failed")
    ex = net.create_extractor()
    ex.input("data", ncnn.Mat(data))
    ret, out = ex.extract("out")
    if ret != 0:
        sys.exit(f"extract failed: {ret}")
    result = np.array(out).copy()
    del ex
    net.clear()
    return result


if ncnn.get_gpu_count() < 1:
    sys.exit("ncnn found no Vulkan device")
info = ncnn.get_gpu_info(0)
print(f"ncnn gpu 0: {info.device_name()} api {info.api_version():#x}")
cpu = run(False)
gpu = run(True)
if cpu.shape != (K, H // 2, W // 2) or gpu.shape != cpu.shape:
    sys.exit(f"shapes: cpu {cpu.shape} gpu {gpu.shape}")
# The same net in numpy (ncnn's weight layout is [out][in][ky][kx]).
padded = np.pad(data, ((0, 0), (1, 1), (1, 1)))
w4 = weights.reshape(K, C, 3, 3)
conv = np.zeros((K, H, W), np.float32) + bias[:, None, None]
for dy in range(3):
    for dx in range(3):
        conv += np.einsum("kc,chw->khw", w4[:, :, dy, dx], padded[:, dy:dy + H, dx:dx + W])
ref = np.maximum(conv, 0).reshape(K, H // 2, 2, W // 2, 2).max(axis=(2, 4))
if not np.array_equal(cpu, ref):
    sys.exit("ncnn's CPU path differs from numpy: the reference is wrong")
if not np.any(cpu):
    sys.exit("the CPU result is all zeros: the test checks nothing")
bad = np.argwhere(gpu != cpu)
if bad.size:
    i = tuple(bad[0])
    sys.exit(f"{len(bad)} of {cpu.size} differ; first at {i}: gpu {gpu[i]} cpu {cpu[i]}")
print(f"ncnn vulkan: {cpu.size} of {cpu.size} equal the CPU path, sum {float(cpu.sum())}")
ncnn.destroy_gpu_instance()
