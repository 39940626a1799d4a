#version 450
// Samples a multi-planar image through a Y'CbCr conversion sampler (nearest, co-sited) and
// writes RGBA8: the device does the conversion.
layout(local_size_x = 8, local_size_y = 8) in;
layout(binding = 0) uniform sampler2D picture;
layout(binding = 3) writeonly buffer Out { uint rgba[]; };
layout(push_constant) uniform Params { uint width; uint height; uint interleaved; };

void main() {
    uvec2 p = gl_GlobalInvocationID.xy;
    if (p.x >= width || p.y >= height) return;
    vec2 uv = (vec2(p) + 0.5) / vec2(width, height);
    vec3 rgb = texture(picture, uv).rgb * 255.0;
    uvec3 q = uvec3(clamp(round(rgb), 0.0, 255.0));
    rgba[p.y * width + p.x] = q.r | (q.g << 8) | (q.b << 16) | (255u << 24);
}
