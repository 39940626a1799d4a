//! Math, wide types, subgroups, robustness and refusals.
mod common;
use common::*;
use cpu_compute_exec::{Program, Refusal};

/// f32 -> f16 bits for values exactly representable as normal halves (the test data is).
fn half(x: f32) -> u32 {
    if x == 0.0 {
        return (x.to_bits() >> 16) & 0x8000;
    }
    let b = x.to_bits();
    let e = ((b >> 23) & 0xff) as i32 - 127 + 15;
    ((b >> 16) & 0x8000) | ((e as u32) << 10) | ((b >> 13) & 0x3ff)
}

fn d(x: f64) -> f32 {
    x as f32
}

fn math_ref(a: f32, b: f32) -> [f32; 16] {
    let (a64, b64) = (a as f64, b as f64);
    let fract = d(a64 - a64.floor());
    let sign = if a > 0.0 {
        1.0
    } else if a < 0.0 {
        -1.0
    } else {
        a
    };
    let t = ((a64 + 1.0) / 2.0).clamp(0.0, 1.0);
    let l = (a64 * a64 + 1.0).sqrt();
    let n = [d(a64 / l), d(1.0 / l)];
    let dot = d(n[0] as f64 * b64 + n[1] as f64 * 2.0);
    [
        a.abs().sqrt(),
        d(a64.abs().powf(1.5)),
        d(((a * 0.1) as f64).exp()),
        a.floor(),
        a.mul_add(b, 1.0),
        a.clamp(-2.0, 3.0),
        d(a64 * 0.75 + b64 * 0.25),
        a.min(b) + a.max(b),
        sign * fract,
        d(a64 - 3.0 * (a64 / 3.0).floor()),
        d(t * t * (3.0 - 2.0 * t)) + if b < 0.0 { 0.0 } else { 1.0 },
        d((a64 * a64 + b64 * b64 + 1.0).sqrt()),
        dot,
        d(1.0 - a64 * b64),
        a.trunc() + b.round() + a.ceil(),
        d(a64.atan2(b64)) + d(a64.sin()) * d(b64.cos()) + d(1.0 / ((b.abs() + 1.0) as f64).sqrt()),
    ]
}

fn int_ref(m: i32, a: f32, b: f32) -> [i32; 16] {
    let u = m as u32;
    let msb = |v: u32| {
        if v == 0 {
            -1
        } else {
            31 - v.leading_zeros() as i32
        }
    };
    let unorm = |c: f32| (c.clamp(0.0, 1.0) * 255.0).round_ties_even() as u32;
    [
        msb(if m < 0 { !u } else { u }),
        if m == 0 {
            -1
        } else {
            m.trailing_zeros() as i32
        },
        m.count_ones() as i32,
        (m << (32 - 10)) >> (32 - 7),
        ((u >> 5) & 0x1ff) as i32,
        ((u & !(0xff << 4)) | (0x5a << 4)) as i32,
        u.reverse_bits() as i32,
        m.wrapping_abs() + m.signum(),
        m.min(7) + m.max(-3) + m.clamp(-100, 100),
        m / 7 + m.rem_euclid(7),
        ((u >> 3) as i32) ^ (m << 2),
        (half(a) | half(b) << 16) as i32,
        (unorm(0.1) | unorm(0.5) << 8 | unorm(a) << 16 | unorm(b) << 24) as i32,
        (a * 3.0) as i32 + b.abs() as u32 as i32,
        a.to_bits() as i32 ^ 0x1234,
        (a < b) as i32 + 2 * (a / 0.0).is_nan() as i32 + 4 * (a / 0.0).is_infinite() as i32,
    ]
}

#[test]
fn glsl_std450_math_and_bits() {
    let prog = program("math.comp", "vulkan1.1", &[]).unwrap();
    let n = 64usize;
    let mut g = Lcg(5);
    let mut x: Vec<f32> = (0..=n)
        .map(|i| {
            if i == 3 {
                0.0
            } else {
                (g.next() % 80) as f32 * 0.25 - 10.0
            }
        })
        .collect();
    let mut k: Vec<i32> = (0..n)
        .map(|i| if i < 2 { i as i32 } else { g.next() as i32 })
        .collect();
    let mut fo = vec![0f32; 16 * n];
    let mut io = vec![0i32; 16 * n];
    let res = Res::new()
        .buf(0, 0, &mut x)
        .buf(0, 3, &mut k)
        .buf(0, 1, &mut fo)
        .buf(0, 2, &mut io);
    prog.dispatch(&res, [0; 3], [2, 1, 1], 2).unwrap();
    drop(res);
    for i in 0..n {
        let want = math_ref(x[i], x[i + 1]);
        for j in 0..16 {
            let got = fo[16 * i + j];
            assert!(
                got == want[j] || (got.is_nan() && want[j].is_nan()),
                "f[{i}][{j}] {got} != {}",
                want[j]
            );
        }
        let want = int_ref(k[i], x[i], x[i + 1]);
        for j in 0..16 {
            assert_eq!(
                io[16 * i + j],
                want[j],
                "o[{i}][{j}] m={} a={} b={}",
                k[i],
                x[i],
                x[i + 1]
            );
        }
    }
}

#[test]
fn int64_float64_int16() {
    let prog = program("wide.comp", "vulkan1.1", &[]).unwrap();
    let mut g = Lcg(9);
    let a0: Vec<i64> = (0..16)
        .map(|i| ((g.next() as i64) << 20) - (i as i64) * 977_000_000_000)
        .collect();
    let u0: Vec<u64> = (0..16)
        .map(|_| (g.next() as u64) << 32 | g.next() as u64)
        .collect();
    let d0: Vec<f64> = (0..16)
        .map(|i| (g.next() as f64) / 1e6 - 1000.0 * i as f64)
        .collect();
    let h0: Vec<u16> = (0..16).map(|_| g.next() as u16).collect();
    let mut buf = vec![0u8; 416];
    for i in 0..16 {
        buf[8 * i..8 * i + 8].copy_from_slice(&a0[i].to_le_bytes());
        buf[128 + 8 * i..136 + 8 * i].copy_from_slice(&u0[i].to_le_bytes());
        buf[256 + 8 * i..264 + 8 * i].copy_from_slice(&d0[i].to_le_bytes());
        buf[384 + 2 * i..386 + 2 * i].copy_from_slice(&h0[i].to_le_bytes());
    }
    let res = Res::new().buf(0, 0, &mut buf);
    prog.dispatch(&res, [0; 3], [1, 1, 1], 1).unwrap();
    drop(res);
    let r8 = |o: usize| u64::from_le_bytes(buf[o..o + 8].try_into().unwrap());
    for i in 0..16 {
        let x = a0[i];
        assert_eq!(
            r8(8 * i) as i64,
            x.wrapping_mul(x)
                .wrapping_mul(3)
                .wrapping_sub(x >> 2)
                .wrapping_add(x / 5)
        );
        let u = u0[i];
        assert_eq!(
            r8(128 + 8 * i),
            (u << 7) ^ ((u >> 3).wrapping_add((i as u64).wrapping_mul(0x1_0000_0001)))
        );
        let y = d0[i];
        assert_eq!(
            f64::from_bits(r8(256 + 8 * i)),
            y.abs().sqrt() * y + y.mul_add(2.0, 1.0 / 3.0)
        );
        let h = u16::from_le_bytes(buf[384 + 2 * i..386 + 2 * i].try_into().unwrap());
        assert_eq!(h, h0[i].wrapping_mul(3).wrapping_add(i as u16));
    }
}

#[test]
fn subgroup_of_one() {
    let prog = program("subgroup.comp", "vulkan1.1", &[]).unwrap();
    let v0: Vec<u32> = (0..64).map(|i| i * 3 % 17).collect();
    let mut v = v0.clone();
    let res = Res::new().buf(0, 0, &mut v);
    prog.dispatch(&res, [0; 3], [2, 1, 1], 2).unwrap();
    drop(res);
    for (i, &x) in v0.iter().enumerate() {
        let local = (i % 32) as u32;
        let want = x
            + x
            + 1
            + (x > 10) as u32 * 10
            + 100
            + 10000
            + 32 * 100000
            + local * 1000000
            + x
            + x
            + if x > 3 { 7 } else { 0 }
            + 20000000;
        assert_eq!(v[i], want, "x = {x}");
    }
}

#[test]
fn out_of_bounds_and_missing_bindings_are_robust() {
    let prog = program("oob.comp", "vulkan1.1", &[]).unwrap();
    assert_eq!(prog.bindings(), &[(0, 0, 1), (0, 1, 1), (0, 2, 2)]);
    let mut a = vec![100u32; 8];
    let mut e0: Vec<u32> = vec![1, 2, 3, 4];
    let mut e1 = vec![0u32; 4];
    let res = Res::new()
        .buf(0, 0, &mut a)
        .elem(0, 2, 0, &mut e0)
        .elem(0, 2, 1, &mut e1);
    prog.dispatch(&res, [0; 3], [1, 1, 1], 1).unwrap();
    drop(res);
    assert_eq!(a, [1, 1, 1, 1, 100, 100, 100, 100]);
    assert_eq!(e1, [10, 12, 14, 16]);
    assert_eq!(e0, [1, 2, 3, 4]);
}

#[test]
fn image_is_refused_by_name() {
    let Err(err) = program("image.comp", "vulkan1.1", &[]) else {
        panic!("an image shader must be refused");
    };
    assert!(matches!(err, Refusal::Unsupported(_)), "{err:?}");
    assert!(err.to_string().contains("OpTypeImage"), "{err}");
}

#[test]
fn unknown_entry_point_and_capability_are_refused() {
    let words = spirv("saxpy.comp", "vulkan1.1");
    let err = Program::from_words(&words, "nope", &[]).err().unwrap();
    assert_eq!(err.to_string(), "no compute entry point named nope");
    // Swap `OpCapability Shader` for `OpCapability Geometry` (2).
    let mut w = words.clone();
    let at = (5..w.len())
        .find(|&i| w[i] == (2 << 16 | 17) && w[i + 1] == 1)
        .unwrap();
    w[at + 1] = 2;
    let err = Program::from_words(&w, "main", &[]).err().unwrap();
    assert_eq!(err.to_string(), "capability Geometry is not supported");
}

#[test]
fn f16_int8_int64_atomics_spec_ops_matrices() {
    let prog = program("extras.comp", "vulkan1.1", &[spec_u32(3, 7)]).unwrap();
    let (k2, sel) = (15u32, 100u32);
    let mut b = vec![0u8; 832];
    let mut g = Lcg(23);
    let c0: Vec<i8> = (0..32).map(|_| g.next() as i8).collect();
    let m: Vec<f32> = (0..16).map(|_| (g.next() % 9) as f32 - 4.0).collect(); // column-major
    for i in 0..32 {
        b[2 * i..2 * i + 2].copy_from_slice(&(half(i as f32 * 0.25) as u16).to_le_bytes());
        b[64 + i] = c0[i] as u8;
    }
    b[104..108].copy_from_slice(&u32::MAX.to_le_bytes());
    for (k, v) in m.iter().enumerate() {
        b[128 + 4 * k..132 + 4 * k].copy_from_slice(&v.to_bits().to_le_bytes());
    }
    let res = Res::new().buf(0, 0, &mut b);
    prog.dispatch(&res, [0; 3], [1, 1, 1], 1).unwrap();
    drop(res);
    let u32_at = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
    for i in 0..32 {
        let h = u16::from_le_bytes(b[2 * i..2 * i + 2].try_into().unwrap()) as u32;
        assert_eq!(h, half(i as f32 * 0.25 * 1.5 + i as f32), "h[{i}]");
        assert_eq!(
            b[64 + i] as i8,
            (c0[i] as i32 * 3 - k2 as i32) as i8,
            "c[{i}]"
        );
        let v = [i as f32, 1.0, 2.0, 0.5];
        for r in 0..4 {
            let mv: f32 = (0..4).map(|c| m[4 * c + r] * v[c]).sum();
            let want = mv + m[4 * r + 1] + i as f32;
            assert_eq!(
                f32::from_bits(u32_at(192 + 16 * i + 4 * r)),
                want,
                "mv[{i}][{r}]"
            );
        }
        assert_eq!(
            f32::from_bits(u32_at(704 + 4 * i)),
            32.0,
            "shared atomic count"
        );
    }
    let big = u64::from_le_bytes(b[96..104].try_into().unwrap());
    assert_eq!(big, (0..32u64).map(|i| i << 33).sum::<u64>());
    assert_eq!(u32_at(104), sel);
    assert_eq!(u32_at(108), 31 * k2);
    // Invocations of a workgroup run in index order, so each compare-exchange sees its
    // predecessor's value.
    assert_eq!(u32_at(112), 32);
}
