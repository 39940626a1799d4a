#version 460
// shaderIntegerDotProduct: every dot instruction on i32 vectors and on 4x8-bit packed scalars.
#extension GL_EXT_integer_dot_product : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
layout(local_size_x = 16) in;

struct Case { ivec4 a; ivec4 b; uint pa; uint pb; int acc; uint uacc; };
layout(set = 0, binding = 0) readonly buffer In { Case cases[]; };
layout(set = 0, binding = 1) writeonly buffer Out { uint r[]; };
layout(push_constant) uniform P { uint n; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= n) return;
    Case c = cases[i];
    uvec4 ua = uvec4(c.a), ub = uvec4(c.b);
    uint o = 16 * i;
    r[o + 0] = uint(dotEXT(c.a, c.b));
    r[o + 1] = dotEXT(ua, ub);
    r[o + 2] = uint(dotEXT(c.a, ub));
    r[o + 3] = uint(dotAccSatEXT(c.a, c.b, c.acc));
    r[o + 4] = dotAccSatEXT(ua, ub, c.uacc);
    r[o + 5] = uint(dotAccSatEXT(c.a, ub, c.acc));
    r[o + 6] = uint(dotPacked4x8EXT(int(c.pa), int(c.pb)));
    r[o + 7] = dotPacked4x8EXT(c.pa, c.pb);
    r[o + 8] = uint(dotPacked4x8EXT(int(c.pa), c.pb));
    r[o + 9] = uint(dotPacked4x8AccSatEXT(int(c.pa), int(c.pb), c.acc));
    r[o + 10] = dotPacked4x8AccSatEXT(c.pa, c.pb, c.uacc);
    r[o + 11] = uint(dotPacked4x8AccSatEXT(int(c.pa), c.pb, c.acc));
    // 8-bit vectors (DotProductInput4x8Bit) with an 8-bit saturating accumulator.
    i8vec4 sa = i8vec4(unpack8(c.pa)), sb = i8vec4(unpack8(c.pb));
    u8vec4 va = unpack8(c.pa), vb = unpack8(c.pb);
    r[o + 12] = uint(int(dotEXT(sa, sb)));
    r[o + 13] = uint(int(dotAccSatEXT(sa, sb, int8_t(c.acc))));
    r[o + 14] = uint(dotAccSatEXT(va, vb, uint8_t(c.uacc)));
    r[o + 15] = uint(int(dotAccSatEXT(sa, vb, int8_t(c.acc))));
}
