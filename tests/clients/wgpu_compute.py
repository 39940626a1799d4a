"""wgpu-py compute: c = a * b + (a ^ b) on u32 arrays, compared with numpy exactly."""
import sys

import os

import numpy as np
import wgpu

# wgpu hides an adapter whose conformanceVersion is 0 (a driver that has not passed the CTS,
# such as vkgen's CPU compute example) unless the instance allows it; the test that runs this
# script on such a device says so.
if os.environ.get("VKGEN_CLIENT_ALLOW_NONCONFORMANT") == "1":
    from wgpu.backends.wgpu_native.extras import set_instance_extras

    set_instance_extras(flags=["Default", "AllowUnderlyingNoncompliantAdapter"])

N = 65536
SHADER = """
@group(0) @binding(0) var<storage, read> a: array<u32>;
@group(0) @binding(1) var<storage, read> b: array<u32>;
@group(0) @binding(2) var<storage, read_write> c: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    c[i] = a[i] * b[i] + (a[i] ^ b[i]);
}
"""

adapter = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
info = adapter.info
print(f"adapter: {info['device']} backend={info['backend_type']} type={info['adapter_type']}")
if info["backend_type"] != "Vulkan":
    sys.exit(f"not the Vulkan backend: {info}")
device = adapter.request_device_sync()

rng = np.random.default_rng(12)
a = rng.integers(0, 2**32, N, dtype=np.uint32)
b = rng.integers(0, 2**32, N, dtype=np.uint32)
usage = wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC
buf_a = device.create_buffer_with_data(data=a, usage=usage)
buf_b = device.create_buffer_with_data(data=b, usage=usage)
buf_c = device.create_buffer(size=a.nbytes, usage=usage)
module = device.create_shader_module(code=SHADER)
pipeline = device.create_compute_pipeline(
    layout="auto", compute={"module": module, "entry_point": "main"}
)
bind_group = device.create_bind_group(
    layout=pipeline.get_bind_group_layout(0),
    entries=[
        {"binding": i, "resource": {"buffer": buf, "offset": 0, "size": buf.size}}
        for i, buf in enumerate([buf_a, buf_b, buf_c])
    ],
)
encoder = device.create_command_encoder()
cpass = encoder.begin_compute_pass()
cpass.set_pipeline(pipeline)
cpass.set_bind_group(0, bind_group)
cpass.dispatch_workgroups(N // 64)
cpass.end()
device.queue.submit([encoder.finish()])
gpu = np.frombuffer(device.queue.read_buffer(buf_c), dtype=np.uint32)

cpu = a * b + (a ^ b)  # numpy's uint32 arithmetic wraps like WGSL's
bad = np.flatnonzero(gpu != cpu)
if bad.size:
    i = bad[0]
    sys.exit(f"{bad.size} of {N} differ; first at {i}: gpu {gpu[i]} cpu {cpu[i]}")
print(f"wgpu compute: {N} of {N} equal the CPU, checksum {int(cpu.sum(dtype=np.uint64))}")
