#version 450
// Shared-memory tree reduction (barriers inside a loop) plus a global atomic, with push and
// specialization constants; the workgroup size is a specialization constant too.
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint SCALE = 1;
layout(std430, set = 0, binding = 0) readonly buffer In { uint data[]; };
layout(std430, set = 0, binding = 1) buffer Out { uint total; uint partial[]; };
layout(push_constant) uniform P { uint n; uint bias; } p;
shared uint tmp[gl_WorkGroupSize.x];
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint l = gl_LocalInvocationID.x;
    tmp[l] = i < p.n ? data[i] * SCALE + p.bias : 0u;
    barrier();
    for (uint s = gl_WorkGroupSize.x / 2; s > 0; s >>= 1) {
        if (l < s) {
            tmp[l] += tmp[l + s];
        }
        barrier();
    }
    if (l == 0) {
        partial[gl_WorkGroupID.x] = tmp[0];
        atomicAdd(total, tmp[0]);
    }
}
