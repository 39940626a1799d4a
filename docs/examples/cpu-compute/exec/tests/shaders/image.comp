#version 450
layout(local_size_x = 1) in;
layout(rgba8, binding = 0) uniform writeonly image2D img;
void main() {
    imageStore(img, ivec2(gl_GlobalInvocationID.xy), vec4(1.0));
}
