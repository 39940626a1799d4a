#version 450
// Loops with break/continue, a switch with fallthrough, nested functions with inout parameters.
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer B { int v[]; };
int collatz(int x) {
    int steps = 0;
    while (x != 1) {
        if (steps > 1000) break;
        x = (x % 2 == 0) ? x / 2 : 3 * x + 1;
        steps++;
    }
    return steps;
}
void accumulate(inout int acc, int k) {
    for (int j = 0; j < k; j++) {
        if (j % 3 == 1) continue;
        acc += j;
    }
}
int classify(int x) {
    int r = 0;
    switch (x % 5) {
        case 0: r = 10; break;
        case 1: r = 20;
        case 2: r += 5; break;
        case -1: r = -1; break;
        default: r = 99;
    }
    return r;
}
void main() {
    uint i = gl_GlobalInvocationID.x;
    int x = v[i];
    int acc = 0;
    accumulate(acc, x & 15);
    int c = x > 0 ? collatz(x) : -1;
    v[i] = c * 10000 + acc * 100 + classify(x);
}
