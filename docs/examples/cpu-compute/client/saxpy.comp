#version 450
// y = a·x + y over n floats, on a 2-D grid of workgroups (16 Mi elements are more than
// maxComputeWorkGroupCount[0] workgroups of 256).
layout(local_size_x = 256) in;
layout(push_constant) uniform Push { float a; uint n; } pc;
layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) buffer Y { float y[]; };

void main() {
    uint i = gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 256u + gl_GlobalInvocationID.x;
    if (i < pc.n) {
        y[i] = pc.a * x[i] + y[i];
    }
}
