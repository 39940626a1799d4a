#version 450
// Hard-coded triangle for the WSI tests: no vertex buffers, positions picked by gl_VertexIndex.
// Draw with vkCmdDraw(cmd, 3, 1, 0, 0), triangle list, no vertex input state.

const vec2 POSITIONS[3] = vec2[3](
    vec2(0.0, -0.5),
    vec2(0.5, 0.5),
    vec2(-0.5, 0.5)
);

void main() {
    gl_Position = vec4(POSITIONS[gl_VertexIndex], 0.0, 1.0);
}
