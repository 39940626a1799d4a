#version 450
// Out-of-bounds reads and writes, a missing binding and a descriptor array.
layout(local_size_x = 4) in;
layout(std430, binding = 0) buffer A { uint a[]; };
layout(std430, binding = 1) buffer Missing { uint m[]; };
layout(std430, binding = 2) buffer Arr { uint v[4]; } arr[2];
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint far = a[i + 1000000];
    a[i + 5000000] = 7u;
    uint missing = m[i];
    m[i] = 3u;
    arr[1].v[i] = arr[0].v[i] * 2u + uint(a.length());
    arr[i % 3].v[i + 100] = 1u;
    a[i] = far + missing + 1u;
}
