// WGSL as wgpu clients write it: runtime arrays of structs, whole-struct loads and stores,
// a function taking a pointer, loops with a switch, select, arrayLength, workgroup memory,
// atomics and a barrier.
struct Particle {
    pos: vec2<f32>,
    vel: vec2<f32>,
    id: u32,
}

struct Params {
    dt: f32,
    scale: u32,
}

@group(0) @binding(0) var<storage, read_write> particles: array<Particle>;
@group(0) @binding(1) var<uniform> params: Params;
@group(0) @binding(2) var<storage, read_write> counter: atomic<u32>;

var<workgroup> tile: array<u32, 64>;

fn advance(p: ptr<function, Particle>, dt: f32) {
    (*p).pos = (*p).pos + (*p).vel * dt;
}

fn weight(k: u32) -> u32 {
    var acc = 0u;
    for (var j = 0u; j < k; j = j + 1u) {
        switch j % 3u {
            case 0u: { acc = acc + 1u; }
            case 1u, 2u: { acc = acc + 10u; }
            default: { acc = acc + 100u; }
        }
        if acc > 200u { break; }
    }
    return acc;
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    let i = gid.x;
    let n = arrayLength(&particles);
    var mine = 0u;
    if i < n {
        var p = particles[i];
        advance(&p, params.dt);
        let w = weight(p.id % 32u) * params.scale;
        p.id = select(p.id + w, p.id, p.pos.x < 0.0);
        particles[i] = p;
        mine = p.id;
    }
    tile[li] = mine;
    workgroupBarrier();
    if li == 0u {
        var s = 0u;
        for (var k = 0u; k < 64u; k = k + 1u) {
            s = s + tile[k];
        }
        atomicAdd(&counter, s);
    }
}
