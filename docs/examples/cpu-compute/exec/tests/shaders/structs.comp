#version 450
// Arrays of structs in std430 storage and std140 uniform blocks, row- and column-major matrices.
layout(local_size_x = 8) in;
struct Item { vec3 pos; float w; ivec2 idx; mat2 m; };
layout(std430, binding = 0) readonly buffer Items { uint count; Item items[]; };
layout(std140, binding = 1) uniform U { vec4 scale; layout(row_major) mat3 rm; float arr[4]; } u;
struct Res { vec4 a; vec2 b; int c; };
layout(std430, binding = 2) buffer Out { Res res[]; };
Item twice(Item it) { it.pos *= 2.0; it.w += 1.0; return it; }
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= count) return;
    Item it = twice(items[i]);
    vec3 p = u.rm * it.pos;
    vec2 q = it.m * vec2(it.idx);
    res[i].a = vec4(p, it.w) * u.scale;
    res[i].b = q + vec2(u.arr[i % 4]);
    res[i].c = it.idx.x * it.idx.y + int(items[i].pos.y);
}
