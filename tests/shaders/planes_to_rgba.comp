#version 450
// 4:2:0 planes (Y as R8, chroma as R8G8 for NV12 or two R8 planes for YV12) to RGBA8, BT.601
// narrow range, chroma sample (x / 2, y / 2): the conversion an application does itself where
// the device has no Y'CbCr sampler.
layout(local_size_x = 8, local_size_y = 8) in;
layout(binding = 0) uniform sampler2D luma;
layout(binding = 1) uniform sampler2D cb_plane;
layout(binding = 2) uniform sampler2D cr_plane;
layout(binding = 3) writeonly buffer Out { uint rgba[]; };
layout(push_constant) uniform Params { uint width; uint height; uint interleaved; };

void main() {
    uvec2 p = gl_GlobalInvocationID.xy;
    if (p.x >= width || p.y >= height) return;
    float y = texelFetch(luma, ivec2(p), 0).r * 255.0;
    ivec2 c = ivec2(p / 2);
    float cb, cr;
    if (interleaved != 0) {
        vec2 v = texelFetch(cb_plane, c, 0).rg * 255.0;
        cb = v.r;
        cr = v.g;
    } else {
        cb = texelFetch(cb_plane, c, 0).r * 255.0;
        cr = texelFetch(cr_plane, c, 0).r * 255.0;
    }
    float yy = (y - 16.0) * (255.0 / 219.0);
    float u = (cb - 128.0) * (255.0 / 224.0);
    float v = (cr - 128.0) * (255.0 / 224.0);
    vec3 rgb = vec3(yy + 1.402 * v, yy - 0.344136 * u - 0.714136 * v, yy + 1.772 * u);
    uvec3 q = uvec3(clamp(round(rgb), 0.0, 255.0));
    rgba[p.y * width + p.x] = q.r | (q.g << 8) | (q.b << 16) | (255u << 24);
}
