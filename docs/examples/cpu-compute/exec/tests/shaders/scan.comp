#version 450
// Hillis-Steele inclusive scan per workgroup in shared memory (double buffered).
layout(local_size_x = 128) in;
layout(std430, binding = 0) buffer Data { int v[]; };
shared int buf[2][128];
void main() {
    uint l = gl_LocalInvocationIndex;
    uint g = gl_GlobalInvocationID.x;
    int src = 0;
    buf[0][l] = v[g];
    barrier();
    for (uint off = 1; off < gl_WorkGroupSize.x; off *= 2) {
        int x = buf[src][l];
        if (l >= off) x += buf[src][l - off];
        buf[1 - src][l] = x;
        src = 1 - src;
        barrier();
    }
    v[g] = buf[src][l];
}
