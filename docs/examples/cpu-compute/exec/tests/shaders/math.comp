#version 450
// GLSL.std.450 functions and bit operations; each invocation writes 32 results.
layout(local_size_x = 32) in;
layout(std430, binding = 0) readonly buffer In { float x[]; };
layout(std430, binding = 3) readonly buffer InK { int k[]; };
layout(std430, binding = 1) buffer Out { float f[]; };
layout(std430, binding = 2) buffer OutI { int o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    float a = x[i];
    float b = x[i + 1];
    uint base = i * 16;
    f[base + 0] = sqrt(abs(a));
    f[base + 1] = pow(abs(a), 1.5);
    f[base + 2] = exp(a * 0.1);
    f[base + 3] = floor(a);
    f[base + 4] = fma(a, b, 1.0);
    f[base + 5] = clamp(a, -2.0, 3.0);
    f[base + 6] = mix(a, b, 0.25);
    f[base + 7] = min(a, b) + max(a, b);
    f[base + 8] = sign(a) * fract(a);
    f[base + 9] = mod(a, 3.0);
    f[base + 10] = smoothstep(-1.0, 1.0, a) + step(0.0, b);
    f[base + 11] = length(vec3(a, b, 1.0));
    f[base + 12] = dot(normalize(vec2(a, 1.0)), vec2(b, 2.0));
    f[base + 13] = cross(vec3(a, b, 1.0), vec3(1.0, a, b)).y;
    f[base + 14] = trunc(a) + round(b) + ceil(a);
    f[base + 15] = atan(a, b) + sin(a) * cos(b) + inversesqrt(abs(b) + 1.0);
    int m = k[i];
    uint u = uint(m);
    o[base + 0] = findMSB(m);
    o[base + 1] = findLSB(m);
    o[base + 2] = bitCount(m);
    o[base + 3] = bitfieldExtract(m, 3, 7);
    o[base + 4] = int(bitfieldExtract(u, 5, 9));
    o[base + 5] = bitfieldInsert(m, 0x5a, 4, 8);
    o[base + 6] = int(bitfieldReverse(u));
    o[base + 7] = abs(m) + sign(m);
    o[base + 8] = min(m, 7) + max(m, -3) + clamp(m, -100, 100);
    o[base + 9] = m / 7 + m % 7;
    o[base + 10] = int(u >> 3) ^ (m << 2);
    o[base + 11] = int(packHalf2x16(vec2(a, b)));
    o[base + 12] = int(packUnorm4x8(vec4(0.1, 0.5, a, b)));
    o[base + 13] = int(a * 3.0) + int(uint(abs(b)));
    o[base + 14] = floatBitsToInt(a) ^ 0x1234;
    o[base + 15] = int(a < b) + 2 * int(isnan(a / 0.0)) + 4 * int(isinf(a / 0.0));
}
