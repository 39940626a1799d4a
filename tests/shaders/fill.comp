#version 450
// Fill compute shader for the vkgen integration tests.
//
// One invocation per element: out[i] = (i * multiplier + 7) ^ (i >> 3), with the usual
// wrapping 32-bit unsigned arithmetic. The element count comes from the bound buffer
// range (runtime array length), so the host sizes the descriptor to exactly n elements
// and invocations past the end (the last workgroup is partial) do nothing.
// Host-side reference: vkgen_tests::compute::expected_fill.

layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(std430, set = 0, binding = 0) buffer Out {
    uint data[];
} out_buf;

layout(push_constant) uniform Push {
    uint multiplier;
} pc;

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= uint(out_buf.data.length())) {
        return;
    }
    out_buf.data[i] = (i * pc.multiplier + 7u) ^ (i >> 3u);
}
