//! WGSL compiled by naga (the SPIR-V wgpu hands a Vulkan driver), checked against Rust.
mod common;
use common::*;
use cpu_compute_exec::Program;

fn weight(k: u32) -> u32 {
    let mut acc = 0u32;
    for j in 0..k {
        acc += match j % 3 {
            0 => 1,
            _ => 10,
        };
        if acc > 200 {
            break;
        }
    }
    acc
}

/// wgpu's bounds-check policies and SPIR-V versions each shape the module differently.
#[test]
fn naga_particles() {
    particles(&[]);
    particles(&["--index-bounds-check-policy", "ReadZeroSkipWrite"]);
    particles(&[
        "--index-bounds-check-policy",
        "Restrict",
        "--spirv-version",
        "1.3",
    ]);
    particles(&["--spirv-version", "1.4", "-g"]);
}

fn particles(args: &[&str]) {
    let Some(words) = wgsl("particles.wgsl", args) else {
        return;
    };
    let prog = Program::from_words(&words, "main", &[]).unwrap();
    assert_eq!(prog.workgroup_size(), [64, 1, 1]);
    assert_eq!(prog.bindings(), &[(0, 0, 1), (0, 1, 1), (0, 2, 1)]);
    let n = 200usize;
    let mut g = Lcg(17);
    // Particle { pos: vec2 @0, vel: vec2 @8, id: u32 @16 }, stride 24.
    let init: Vec<([f32; 2], [f32; 2], u32)> = (0..n)
        .map(|_| ([g.f32(), g.f32()], [g.f32(), g.f32()], g.next() % 1000))
        .collect();
    let mut buf = vec![0u32; 6 * n];
    for (i, (p, v, id)) in init.iter().enumerate() {
        buf[6 * i..6 * i + 5].copy_from_slice(&[
            p[0].to_bits(),
            p[1].to_bits(),
            v[0].to_bits(),
            v[1].to_bits(),
            *id,
        ]);
    }
    let (dt, scale) = (0.5f32, 3u32);
    let mut params = [dt.to_bits(), scale, 0, 0];
    let mut counter = [0u32];
    let res = Res::new()
        .buf(0, 0, &mut buf)
        .buf(0, 1, &mut params)
        .buf(0, 2, &mut counter);
    prog.dispatch(&res, [0; 3], [4, 1, 1], 2).unwrap();
    drop(res);
    let mut total = 0u32;
    for (i, (p, v, id)) in init.iter().enumerate() {
        let pos = [p[0] + v[0] * dt, p[1] + v[1] * dt];
        let w = weight(id % 32) * scale;
        let id2 = if pos[0] < 0.0 { *id } else { id + w };
        let got = &buf[6 * i..6 * i + 5];
        assert_eq!(
            got,
            &[
                pos[0].to_bits(),
                pos[1].to_bits(),
                v[0].to_bits(),
                v[1].to_bits(),
                id2
            ],
            "particle {i}"
        );
        total = total.wrapping_add(id2);
    }
    assert_eq!(counter[0], total);
}

#[test]
fn naga_wgpu_client_shader() {
    for args in [
        &[][..],
        &["--index-bounds-check-policy", "ReadZeroSkipWrite"][..],
    ] {
        let Some(words) = wgsl("wgpu_client.wgsl", args) else {
            return;
        };
        let prog = Program::from_words(&words, "main", &[]).unwrap();
        let n = 4096usize;
        let mut g = Lcg(12);
        let mut a: Vec<u32> = (0..n).map(|_| g.next() ^ g.next() << 16).collect();
        let mut b: Vec<u32> = (0..n).map(|_| g.next() ^ g.next() << 16).collect();
        let mut c = vec![0u32; n];
        let res = Res::new()
            .buf(0, 0, &mut a)
            .buf(0, 1, &mut b)
            .buf(0, 2, &mut c);
        prog.dispatch(&res, [0; 3], [n as u32 / 64, 1, 1], 2)
            .unwrap();
        drop(res);
        for i in 0..n {
            assert_eq!(
                c[i],
                a[i].wrapping_mul(b[i]).wrapping_add(a[i] ^ b[i]),
                "at {i}"
            );
        }
    }
}
