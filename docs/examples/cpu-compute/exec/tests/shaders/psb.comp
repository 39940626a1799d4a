#version 460
// bufferDeviceAddress: a linked list of nodes reached through a pointer in a uniform block,
// pointers loaded from PSB memory, p[i] (OpPtrAccessChain), uint64/uvec2 round trips and an
// address no buffer holds.
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference2 : require
#extension GL_EXT_buffer_reference_uvec2 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 64) in;

layout(buffer_reference, std430, buffer_reference_align = 4) buffer Words { uint w[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Word { uint x; };
layout(buffer_reference) buffer Node;
layout(buffer_reference, std430, buffer_reference_align = 8) buffer Node {
    Node next;
    Words data;
    uint scale;
};

layout(set = 0, binding = 0) uniform Roots { Node head; Words out_words; uint n; };
layout(push_constant) uniform P { uint64_t probe; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= n) return;
    uint acc = 0;
    for (Node p = head; uint64_t(p) != 0; p = p.next) {
        acc += p.data.w[i] * p.scale;
    }
    Word base = Word(out_words);
    Word mine = base[i];
    mine.x = acc;
    // The same word through a uvec2 round trip and 64-bit arithmetic.
    Words again = Words(uvec2(out_words));
    Word far = Word(uint64_t(again) + 4ul * uint64_t(n + i));
    Word nowhere = Word(probe);
    nowhere.x = 7u;
    far.x = nowhere.x + uint(uint64_t(mine) - uint64_t(base)) + again.w[i] - acc;
}
