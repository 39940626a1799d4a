#version 450
// A shared-memory tree reduction (barriers inside a loop), a global atomic, push and
// specialization constants: the workgroup size is specialization constant 0, the multiplier
// constant 1. Each workgroup sums its WG values into partial[group], adds that sum to
// total and raises max_partial to it. All arithmetic is uint and wraps, so every result
// is exact.
layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint WG = 64;
layout(constant_id = 1) const uint MULT = 1;

layout(push_constant) uniform Push { uint n; uint add; } pc;
layout(std430, set = 0, binding = 0) readonly buffer In { uint values[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Partials { uint partial[]; };
layout(std430, set = 0, binding = 2) buffer Totals { uint total; uint max_partial; };

shared uint tile[WG];

void main() {
    uint gid = gl_GlobalInvocationID.x;
    uint lid = gl_LocalInvocationID.x;
    tile[lid] = gid < pc.n ? values[gid] * MULT + pc.add : 0u;
    barrier();
    for (uint s = WG / 2u; s > 0u; s >>= 1u) {
        if (lid < s) {
            tile[lid] += tile[lid + s];
        }
        barrier();
    }
    if (lid == 0u) {
        partial[gl_WorkGroupID.x] = tile[0];
        atomicAdd(total, tile[0]);
        atomicMax(max_partial, tile[0]);
    }
}
