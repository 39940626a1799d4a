#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#extension GL_EXT_shader_16bit_storage : require
// 64-bit integers and doubles, 16-bit storage.
layout(local_size_x = 16) in;
layout(std430, binding = 0) buffer B { int64_t a[16]; uint64_t u[16]; double d[16]; uint16_t h[16]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    int64_t x = a[i];
    a[i] = x * x * 3 - (x >> 2) + x / 5;
    u[i] = (u[i] << 7) ^ (u[i] >> 3) + uint64_t(i) * 0x100000001ul;
    double y = d[i];
    d[i] = sqrt(abs(y)) * y + fma(y, 2.0lf, 1.0lf / 3.0lf);
    h[i] = uint16_t(h[i] * uint16_t(3) + uint16_t(i));
}
