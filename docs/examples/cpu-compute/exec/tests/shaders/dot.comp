#version 460
// shaderIntegerDotProduct: every dot instruction on i32 vectors, on 4x8-bit packed scalars and
// on 8-bit vectors. glslang 12 predates GL_EXT_integer_dot_product's dotEXT, so the
// instructions are declared through GL_EXT_spirv_intrinsics (the SPIR-V is the same).
#extension GL_EXT_spirv_intrinsics : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
layout(local_size_x = 16) in;

#define DOT(name, op, cap, R, A, B) \
    spirv_instruction(extensions = ["SPV_KHR_integer_dot_product"], capabilities = [6019, cap], id = op) \
    R name(A a, B b);
#define DOTP(name, op, R, A, B) \
    spirv_instruction(extensions = ["SPV_KHR_integer_dot_product"], capabilities = [6019, 6018], id = op) \
    R name(A a, B b, spirv_literal int fmt);
#define ACC(name, op, cap, R, A, B) \
    spirv_instruction(extensions = ["SPV_KHR_integer_dot_product"], capabilities = [6019, cap], id = op) \
    R name(A a, B b, R acc);
#define ACCP(name, op, R, A, B) \
    spirv_instruction(extensions = ["SPV_KHR_integer_dot_product"], capabilities = [6019, 6018], id = op) \
    R name(A a, B b, R acc, spirv_literal int fmt);

DOT(sdot, 4450, 6016, int, ivec4, ivec4)
DOT(udot, 4451, 6016, uint, uvec4, uvec4)
DOT(sudot, 4452, 6016, int, ivec4, uvec4)
ACC(sdot_sat, 4453, 6016, int, ivec4, ivec4)
ACC(udot_sat, 4454, 6016, uint, uvec4, uvec4)
ACC(sudot_sat, 4455, 6016, int, ivec4, uvec4)
DOTP(sdot_p, 4450, int, uint, uint)
DOTP(udot_p, 4451, uint, uint, uint)
DOTP(sudot_p, 4452, int, uint, uint)
ACCP(sdot_p_sat, 4453, int, uint, uint)
ACCP(udot_p_sat, 4454, uint, uint, uint)
ACCP(sudot_p_sat, 4455, int, uint, uint)
DOT(sdot8, 4450, 6017, int, i8vec4, i8vec4)
ACC(sdot8_sat, 4453, 6017, int8_t, i8vec4, i8vec4)
ACC(udot8_sat, 4454, 6017, uint8_t, u8vec4, u8vec4)
ACC(sudot8_sat, 4455, 6017, int8_t, i8vec4, u8vec4)

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
    r[o + 0] = uint(sdot(c.a, c.b));
    r[o + 1] = udot(ua, ub);
    r[o + 2] = uint(sudot(c.a, ub));
    r[o + 3] = uint(sdot_sat(c.a, c.b, c.acc));
    r[o + 4] = udot_sat(ua, ub, c.uacc);
    r[o + 5] = uint(sudot_sat(c.a, ub, c.acc));
    r[o + 6] = uint(sdot_p(c.pa, c.pb, 0));
    r[o + 7] = udot_p(c.pa, c.pb, 0);
    r[o + 8] = uint(sudot_p(c.pa, c.pb, 0));
    r[o + 9] = uint(sdot_p_sat(c.pa, c.pb, c.acc, 0));
    r[o + 10] = udot_p_sat(c.pa, c.pb, c.uacc, 0);
    r[o + 11] = uint(sudot_p_sat(c.pa, c.pb, c.acc, 0));
    i8vec4 sa = i8vec4(unpack8(c.pa)), sb = i8vec4(unpack8(c.pb));
    u8vec4 va = unpack8(c.pa), vb = unpack8(c.pb);
    r[o + 12] = uint(sdot8(sa, sb));
    r[o + 13] = uint(int(sdot8_sat(sa, sb, int8_t(c.acc))));
    r[o + 14] = uint(udot8_sat(va, vb, uint8_t(c.uacc)));
    r[o + 15] = uint(int(sudot8_sat(sa, vb, int8_t(c.acc))));
}
