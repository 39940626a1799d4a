//! GLSL compute shaders run through the executor, checked exactly against Rust references.
mod common;
use common::*;

#[test]
fn saxpy() {
    let prog = program("saxpy.comp", "vulkan1.1", &[]).unwrap();
    assert_eq!(prog.workgroup_size(), [256, 1, 1]);
    assert_eq!(prog.bindings(), &[(0, 0, 1), (0, 1, 1)]);
    let n = 100_000u32;
    let mut g = Lcg(7);
    let mut x: Vec<f32> = (0..n).map(|_| g.f32()).collect();
    let y0: Vec<f32> = (0..n).map(|_| g.f32()).collect();
    let mut y = y0.clone();
    let a = 2.5f32;
    let res = Res::new().buf(0, 0, &mut x).buf(0, 1, &mut y).push(&[a.to_bits(), n]);
    prog.dispatch(&res, [0; 3], [n.div_ceil(256), 1, 1], 4).unwrap();
    drop(res);
    for i in 0..n as usize {
        assert_eq!(y[i], a * x[i] + y0[i], "at {i}");
    }
}

fn reduce(env: &str) {
    let local = 64u32;
    let prog = program("reduce.comp", env, &[spec_u32(0, local), spec_u32(1, 3)]).unwrap();
    assert_eq!(prog.workgroup_size(), [local, 1, 1]);
    assert_eq!(prog.workgroup_memory_bytes(), 4 * local as usize);
    let groups = 1500u32;
    let n = groups * local - 17;
    let mut g = Lcg(1);
    let mut data: Vec<u32> = (0..groups * local).map(|_| g.next() % 1000).collect();
    let mut out = vec![0u32; 1 + groups as usize];
    let bias = 5u32;
    let res = Res::new().buf(0, 0, &mut data).buf(0, 1, &mut out).push(&[n, bias]);
    prog.dispatch(&res, [0; 3], [groups, 1, 1], 4).unwrap();
    drop(res);
    let mut total = 0u32;
    for grp in 0..groups as usize {
        let s: u32 = (0..local as usize)
            .map(|l| grp * local as usize + l)
            .map(|i| if (i as u32) < n { data[i] * 3 + bias } else { 0 })
            .sum();
        assert_eq!(out[1 + grp], s, "group {grp}");
        total = total.wrapping_add(s);
    }
    assert_eq!(out[0], total);
}

#[test]
fn reduction_vulkan11() {
    reduce("vulkan1.1");
}

#[test]
fn reduction_vulkan13_spirv16() {
    reduce("vulkan1.3");
}
