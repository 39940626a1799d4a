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
    let res = Res::new()
        .buf(0, 0, &mut x)
        .buf(0, 1, &mut y)
        .push(&[a.to_bits(), n]);
    prog.dispatch(&res, [0; 3], [n.div_ceil(256), 1, 1], 4)
        .unwrap();
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
    let res = Res::new()
        .buf(0, 0, &mut data)
        .buf(0, 1, &mut out)
        .push(&[n, bias]);
    prog.dispatch(&res, [0; 3], [groups, 1, 1], 4).unwrap();
    drop(res);
    let mut total = 0u32;
    for grp in 0..groups as usize {
        let s: u32 = (0..local as usize)
            .map(|l| grp * local as usize + l)
            .map(|i| {
                if (i as u32) < n {
                    data[i] * 3 + bias
                } else {
                    0
                }
            })
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

#[test]
fn scan() {
    let prog = program("scan.comp", "vulkan1.1", &[]).unwrap();
    let groups = 40usize;
    let mut g = Lcg(3);
    let v0: Vec<i32> = (0..groups * 128)
        .map(|_| (g.next() % 200) as i32 - 100)
        .collect();
    let mut v = v0.clone();
    let res = Res::new().buf(0, 0, &mut v);
    prog.dispatch(&res, [0; 3], [groups as u32, 1, 1], 3)
        .unwrap();
    drop(res);
    for grp in 0..groups {
        let mut acc = 0;
        for l in 0..128 {
            acc += v0[grp * 128 + l];
            assert_eq!(v[grp * 128 + l], acc, "group {grp} lane {l}");
        }
    }
}

fn put(b: &mut [u8], off: usize, v: &[u32]) {
    for (k, x) in v.iter().enumerate() {
        b[off + 4 * k..off + 4 * k + 4].copy_from_slice(&x.to_le_bytes());
    }
}
fn get(b: &[u8], off: usize) -> u32 {
    u32::from_le_bytes(b[off..off + 4].try_into().unwrap())
}
fn f(x: f32) -> u32 {
    x.to_bits()
}

#[test]
fn struct_arrays_std140_std430_row_major() {
    let prog = program("structs.comp", "vulkan1.1", &[]).unwrap();
    let n = 13usize;
    // Items: uint count; Item items[] at 16, stride 48 (vec3 pos @0, w @12, ivec2 idx @16, mat2 m @24).
    let mut items = vec![0u8; 16 + 48 * n];
    put(&mut items, 0, &[n as u32]);
    let item = |i: usize| {
        let fi = i as f32;
        (
            [fi, fi * 0.5, -fi],
            fi + 0.25,
            [i as i32 - 3, 2],
            [[1.0, fi], [0.5, -2.0f32]],
        )
    };
    for i in 0..n {
        let (pos, w, idx, m) = item(i);
        let o = 16 + 48 * i;
        put(
            &mut items,
            o,
            &[
                f(pos[0]),
                f(pos[1]),
                f(pos[2]),
                f(w),
                idx[0] as u32,
                idx[1] as u32,
            ],
        );
        put(
            &mut items,
            o + 24,
            &[f(m[0][0]), f(m[0][1]), f(m[1][0]), f(m[1][1])],
        );
    }
    // U (std140): vec4 scale @0; row_major mat3 @16 (3 rows, stride 16); float arr[4] @64 stride 16.
    let mut u = vec![0u8; 128];
    let scale = [2.0f32, 0.5, 1.0, -1.0];
    let rows = [[1.0f32, 2.0, 0.0], [0.0, 1.0, -1.0], [3.0, 0.0, 0.5]];
    put(&mut u, 0, &scale.map(f));
    for (r, row) in rows.iter().enumerate() {
        put(&mut u, 16 + 16 * r, &row.map(f));
    }
    let arr = [10.0f32, 20.0, 30.0, 40.0];
    for (k, a) in arr.iter().enumerate() {
        put(&mut u, 64 + 16 * k, &[f(*a)]);
    }
    // Out: Res { vec4 a @0; vec2 b @16; int c @24 } stride 32.
    let mut out = vec![0u8; 32 * n];
    let res = Res::new()
        .buf(0, 0, &mut items)
        .buf(0, 1, &mut u)
        .buf(0, 2, &mut out);
    prog.dispatch(&res, [0; 3], [2, 1, 1], 2).unwrap();
    drop(res);
    for i in 0..n {
        let (pos, w, idx, m) = item(i);
        let pos2 = pos.map(|p| p * 2.0);
        let p: Vec<f32> = (0..3)
            .map(|r| (0..3).map(|c| rows[r][c] * pos2[c]).sum())
            .collect();
        let q: Vec<f32> = (0..2)
            .map(|r| (0..2).map(|c| m[c][r] * idx[c] as f32).sum())
            .collect();
        let a = [
            p[0] * scale[0],
            p[1] * scale[1],
            p[2] * scale[2],
            (w + 1.0) * scale[3],
        ];
        let o = 32 * i;
        for (k, want) in a.iter().enumerate() {
            assert_eq!(
                f32::from_bits(get(&out, o + 4 * k)),
                *want,
                "item {i} a[{k}]"
            );
        }
        assert_eq!(
            f32::from_bits(get(&out, o + 16)),
            q[0] + arr[i % 4],
            "item {i} b.x"
        );
        assert_eq!(
            f32::from_bits(get(&out, o + 20)),
            q[1] + arr[i % 4],
            "item {i} b.y"
        );
        assert_eq!(
            get(&out, o + 24) as i32,
            idx[0] * idx[1] + pos[1] as i32,
            "item {i} c"
        );
    }
    // Invocations past `count` return early and write nothing.
    assert!(out[32 * n..].iter().all(|&b| b == 0));
}

fn collatz(mut x: i32) -> i32 {
    let mut steps = 0;
    while x != 1 {
        if steps > 1000 {
            break;
        }
        x = if x % 2 == 0 {
            x / 2
        } else {
            x.wrapping_mul(3).wrapping_add(1)
        };
        steps += 1;
    }
    steps
}

/// glslang lowers GLSL `%` on ints to OpSMod (sign of the divisor).
fn classify(x: i32) -> i32 {
    match x.rem_euclid(5) {
        0 => 10,
        1 => 25,
        2 => 5,
        -1 => -1,
        _ => 99,
    }
}

#[test]
fn control_flow_loops_switch_calls() {
    let prog = program("control.comp", "vulkan1.1", &[]).unwrap();
    let mut g = Lcg(11);
    let v0: Vec<i32> = (0..256)
        .map(|i| {
            if i < 8 {
                i - 4
            } else {
                (g.next() % 500) as i32 - 100
            }
        })
        .collect();
    let mut v = v0.clone();
    let res = Res::new().buf(0, 0, &mut v);
    prog.dispatch(&res, [0; 3], [4, 1, 1], 2).unwrap();
    drop(res);
    for (i, &x) in v0.iter().enumerate() {
        let acc: i32 = (0..(x & 15)).filter(|j| j % 3 != 1).sum();
        let c = if x > 0 { collatz(x) } else { -1 };
        assert_eq!(v[i], c * 10000 + acc * 100 + classify(x), "x = {x}");
    }
}

/// The project's own ash compute test shader (tests/shaders/fill.comp of the vkgen checkout),
/// where this crate still sits inside it.
#[test]
fn vkgen_fill_shader() {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../../tests/shaders/fill.comp");
    if !src.is_file() {
        eprintln!(
            "{} not found (crate copied out of the checkout): not run",
            src.display()
        );
        return;
    }
    let prog =
        cpu_compute_exec::Program::from_words(&spirv_at(&src, "vulkan1.1"), "main", &[]).unwrap();
    let (n, multiplier) = (1000u32, 2654435761u32);
    // The descriptor range is exactly n elements; the last group's extra invocations see
    // OpArrayLength = n and write nothing.
    let mut data = vec![0xDEAD_BEEFu32; n as usize + 24];
    let res = Res::new()
        .buf(0, 0, &mut data[..n as usize])
        .push(&[multiplier]);
    prog.dispatch(&res, [0; 3], [n.div_ceil(64), 1, 1], 2)
        .unwrap();
    drop(res);
    for i in 0..n {
        assert_eq!(
            data[i as usize],
            i.wrapping_mul(multiplier).wrapping_add(7) ^ (i >> 3),
            "at {i}"
        );
    }
    assert!(data[n as usize..].iter().all(|&v| v == 0xDEAD_BEEF));
}
