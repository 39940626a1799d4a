//! shaderIntegerDotProduct: every dot instruction against a Rust reference, saturation included.
mod common;
use common::*;

/// One shader input (std430 `Case`: ivec4 a, ivec4 b, uint pa, uint pb, int acc, uint uacc).
#[derive(Clone, Copy)]
#[repr(C)]
struct Case {
    a: [i32; 4],
    b: [i32; 4],
    pa: u32,
    pb: u32,
    acc: i32,
    uacc: u32,
}

fn bytes(p: u32) -> [u8; 4] {
    p.to_le_bytes()
}

/// The precise dot product of lanes, each lane widened by its own signedness.
fn dot(a: &[i128], b: &[i128]) -> i128 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn sat(v: i128, lo: i128, hi: i128) -> i128 {
    v.max(lo).min(hi)
}

/// The sixteen results the shader writes for `c`, computed independently of the executor.
fn reference(c: &Case) -> [u32; 16] {
    let s32 = |v: &[i32; 4]| v.map(|x| x as i128);
    let u32v = |v: &[i32; 4]| v.map(|x| x as u32 as i128);
    let s8 = |p: u32| bytes(p).map(|x| x as i8 as i128);
    let u8v = |p: u32| bytes(p).map(|x| x as i128);
    let (imin, imax) = (i32::MIN as i128, i32::MAX as i128);
    let (acc, uacc) = (c.acc as i128, c.uacc as i128);
    let (acc8, uacc8) = (c.acc as i8 as i128, c.uacc as u8 as i128);
    let low32 = |v: i128| v as u32;
    [
        low32(dot(&s32(&c.a), &s32(&c.b))),
        low32(dot(&u32v(&c.a), &u32v(&c.b))),
        low32(dot(&s32(&c.a), &u32v(&c.b))),
        low32(sat(dot(&s32(&c.a), &s32(&c.b)) + acc, imin, imax)),
        low32(sat(
            dot(&u32v(&c.a), &u32v(&c.b)) + uacc,
            0,
            u32::MAX as i128,
        )),
        low32(sat(dot(&s32(&c.a), &u32v(&c.b)) + acc, imin, imax)),
        low32(dot(&s8(c.pa), &s8(c.pb))),
        low32(dot(&u8v(c.pa), &u8v(c.pb))),
        low32(dot(&s8(c.pa), &u8v(c.pb))),
        low32(sat(dot(&s8(c.pa), &s8(c.pb)) + acc, imin, imax)),
        low32(sat(dot(&u8v(c.pa), &u8v(c.pb)) + uacc, 0, u32::MAX as i128)),
        low32(sat(dot(&s8(c.pa), &u8v(c.pb)) + acc, imin, imax)),
        low32(dot(&s8(c.pa), &s8(c.pb))),
        low32(sat(dot(&s8(c.pa), &s8(c.pb)) + acc8, -128, 127)),
        low32(sat(dot(&u8v(c.pa), &u8v(c.pb)) + uacc8, 0, 255)),
        low32(sat(dot(&s8(c.pa), &u8v(c.pb)) + acc8, -128, 127)),
    ]
}

fn edge_cases() -> Vec<Case> {
    let c = |a: [i32; 4], b: [i32; 4], pa: u32, pb: u32, acc: i32, uacc: u32| Case {
        a,
        b,
        pa,
        pb,
        acc,
        uacc,
    };
    let (max, min) = (i32::MAX, i32::MIN);
    vec![
        // Dot products far outside i32/u32 (plain forms wrap, AccSat forms clamp high).
        c([max; 4], [max; 4], 0x7f7f_7f7f, 0x7f7f_7f7f, max, u32::MAX),
        // Far below: clamps low; -128 * -128 lanes are positive.
        c([min; 4], [max; 4], 0x8080_8080, 0x8080_8080, min, 0),
        c([min; 4], [min; 4], 0x8080_8080, 0x7f7f_7f7f, min, 1),
        // A dot product that fits, pushed over the edge only by the accumulator.
        c(
            [1, 0, 0, 0],
            [1, 0, 0, 0],
            0x0000_0001,
            0x0000_0001,
            max,
            u32::MAX,
        ),
        c(
            [-1, 0, 0, 0],
            [1, 0, 0, 0],
            0x0000_00ff,
            0x0000_0001,
            min,
            0,
        ),
        // Saturation must not hide a negative dot product pulling a large accumulator back.
        c(
            [-1, -1, -1, -1],
            [1, 1, 1, 1],
            0xffff_ffff,
            0x0101_0101,
            max,
            u32::MAX,
        ),
        c([0; 4], [0; 4], 0, 0, 0, 0),
        // 8-bit accumulators: 127/-128 limits and mixed-sign lanes.
        c([3; 4], [-5; 4], 0x7f80_7f80, 0xff01_ff01, 120, 250),
        c(
            [7, -7, 7, -7],
            [9, 9, -9, -9],
            0x0102_0304,
            0xfffe_fdfc,
            -120,
            3,
        ),
    ]
}

#[test]
fn integer_dot_products_match_the_spec() {
    let prog = program("dot.comp", "vulkan1.3", &[]).unwrap();
    let mut cases = edge_cases();
    let mut g = Lcg(5);
    while cases.len() < 500 {
        let big = cases.len().is_multiple_of(2);
        let v = |g: &mut Lcg| {
            if big {
                g.next() as i32 ^ (g.next() << 31) as i32
            } else {
                (g.next() % 2001) as i32 - 1000
            }
        };
        let a = [v(&mut g), v(&mut g), v(&mut g), v(&mut g)];
        let b = [v(&mut g), v(&mut g), v(&mut g), v(&mut g)];
        let (pa, pb) = (g.next() ^ g.next() << 16, g.next() ^ g.next() << 16);
        let acc = g.next() as i32 ^ (g.next() << 31) as i32;
        let uacc = g.next() ^ g.next() << 16;
        cases.push(Case {
            a,
            b,
            pa,
            pb,
            acc,
            uacc,
        });
    }
    let n = cases.len();
    let mut out = vec![0u32; 16 * n];
    let res = Res::new()
        .buf(0, 0, &mut cases)
        .buf(0, 1, &mut out)
        .push(&[n as u32]);
    prog.dispatch(&res, [0; 3], [(n as u32).div_ceil(16), 1, 1], 3)
        .unwrap();
    drop(res);
    for (i, c) in cases.iter().enumerate() {
        assert_eq!(&out[16 * i..16 * i + 16], &reference(c), "case {i}");
    }
    const { assert!(cpu_compute_exec::SUPPORTED.integer_dot_product) };
}
