#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
// f16 arithmetic, int8 storage, 64-bit and compare-exchange atomics, shared atomics,
// OpSpecConstantOp, matrices.
layout(local_size_x = 32) in;
layout(constant_id = 3) const uint K = 5;
const uint K2 = K * 2u + 1u;       // OpSpecConstantOp IMul/IAdd
const uint SEL = K > 4u ? 100u : 200u; // OpSpecConstantOp Select
layout(std430, binding = 0) buffer B {
    float16_t h[32];
    int8_t c[32];
    uint64_t big;
    uint mn;
    uint mx;
    uint cas;
    mat4 m;
    vec4 mv[32];
    float tr[32];
};
shared uint hits;
void main() {
    uint i = gl_LocalInvocationIndex;
    if (i == 0u) hits = 0u;
    barrier();
    h[i] = h[i] * float16_t(1.5) + float16_t(i);
    c[i] = int8_t(int(c[i]) * 3 - int(K2));
    atomicAdd(big, uint64_t(i) << 33);
    atomicMin(mn, i + SEL);
    atomicMax(mx, i * K2);
    atomicCompSwap(cas, i, i + 1u);
    atomicAdd(hits, 1u);
    mv[i] = m * vec4(float(i), 1.0, 2.0, 0.5) + transpose(m)[1] + outerProduct(vec4(1.0), vec4(float(i)))[2];
    barrier();
    tr[i] = float(hits);
}
