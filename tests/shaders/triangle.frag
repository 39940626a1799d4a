#version 450
// Solid colour from a push constant (16 bytes at offset 0, fragment stage).

layout(push_constant) uniform Push {
    vec4 color;
} pc;

layout(location = 0) out vec4 out_color;

void main() {
    out_color = pc.color;
}
