#version 450
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) buffer Y { float y[]; };
layout(push_constant) uniform P { float a; uint n; } p;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < p.n) {
        y[i] = p.a * x[i] + y[i];
    }
}
