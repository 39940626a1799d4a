//! Whole-vector operations (geometry, packing, reductions) and matrix products.
//!
//! These read several components to produce one or a different count, so they cannot be
//! `Op::Alu`. Registers are addressed through the invocation's register slice.

use crate::alu::{f16_to_f32, f32_to_f16, fromf, tof};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VecFn {
    Length,
    Distance,
    Normalize,
    Cross,
    Reflect,
    Refract,
    FaceForward,
    Any,
    All,
    PackHalf2x16,
    UnpackHalf2x16,
    PackUnorm4x8,
    PackSnorm4x8,
    UnpackUnorm4x8,
    UnpackSnorm4x8,
    PackUnorm2x16,
    PackSnorm2x16,
    UnpackUnorm2x16,
    UnpackSnorm2x16,
    /// (x) -> struct { fract, whole }
    ModfStruct,
}

fn get(r: &[u64], base: u32, i: usize, w: u8) -> f64 {
    tof(r[base as usize + i], w)
}

fn dot(r: &[u64], a: u32, b: u32, n: usize, w: u8) -> f64 {
    (0..n).map(|i| get(r, a, i, w) * get(r, b, i, w)).sum()
}

/// Runs `f` over `n`-component operands `a`, writing at `dst`.
pub fn run(f: VecFn, w: u8, n: usize, dst: u32, a: [u32; 3], r: &mut [u64]) {
    let d = dst as usize;
    match f {
        VecFn::Length => r[d] = fromf(dot(r, a[0], a[0], n, w).sqrt(), w),
        VecFn::Distance => {
            let s: f64 = (0..n)
                .map(|i| (get(r, a[0], i, w) - get(r, a[1], i, w)).powi(2))
                .sum();
            r[d] = fromf(s.sqrt(), w);
        }
        VecFn::Normalize => {
            let l = dot(r, a[0], a[0], n, w).sqrt();
            for i in 0..n {
                r[d + i] = fromf(get(r, a[0], i, w) / l, w);
            }
        }
        VecFn::Cross => {
            let x: Vec<f64> = (0..3).map(|i| get(r, a[0], i, w)).collect();
            let y: Vec<f64> = (0..3).map(|i| get(r, a[1], i, w)).collect();
            let c = [
                x[1] * y[2] - y[1] * x[2],
                x[2] * y[0] - y[2] * x[0],
                x[0] * y[1] - y[0] * x[1],
            ];
            for (i, v) in c.iter().enumerate() {
                r[d + i] = fromf(*v, w);
            }
        }
        VecFn::Reflect => {
            let k = 2.0 * dot(r, a[1], a[0], n, w);
            for i in 0..n {
                r[d + i] = fromf(get(r, a[0], i, w) - k * get(r, a[1], i, w), w);
            }
        }
        VecFn::Refract => {
            let eta = get(r, a[2], 0, w);
            let ni = dot(r, a[1], a[0], n, w);
            let k = 1.0 - eta * eta * (1.0 - ni * ni);
            for i in 0..n {
                let v = if k < 0.0 {
                    0.0
                } else {
                    eta * get(r, a[0], i, w) - (eta * ni + k.sqrt()) * get(r, a[1], i, w)
                };
                r[d + i] = fromf(v, w);
            }
        }
        VecFn::FaceForward => {
            let s = if dot(r, a[2], a[1], n, w) < 0.0 {
                1.0
            } else {
                -1.0
            };
            for i in 0..n {
                r[d + i] = fromf(s * get(r, a[0], i, w), w);
            }
        }
        VecFn::Any => r[d] = (0..n).any(|i| r[a[0] as usize + i] != 0) as u64,
        VecFn::All => r[d] = (0..n).all(|i| r[a[0] as usize + i] != 0) as u64,
        VecFn::ModfStruct => {
            for i in 0..n {
                let x = get(r, a[0], i, w);
                r[d + i] = fromf(x - x.trunc(), w);
                r[d + n + i] = fromf(x.trunc(), w);
            }
        }
        _ => pack(f, dst, a[0], r),
    }
}

fn pack(f: VecFn, dst: u32, a: u32, r: &mut [u64]) {
    let (d, a) = (dst as usize, a as usize);
    let fl = |r: &[u64], i: usize| f32::from_bits(r[a + i] as u32);
    let un = |x: f32, m: f32| (x.clamp(0.0, 1.0) * m).round_ties_even() as u64;
    let sn = |x: f32, m: f32| ((x.clamp(-1.0, 1.0) * m).round_ties_even() as i64) as u64;
    match f {
        VecFn::PackHalf2x16 => {
            r[d] = f32_to_f16(fl(r, 0)) as u64 | (f32_to_f16(fl(r, 1)) as u64) << 16;
        }
        VecFn::UnpackHalf2x16 => {
            let v = r[a];
            r[d] = f16_to_f32(v as u16).to_bits() as u64;
            r[d + 1] = f16_to_f32((v >> 16) as u16).to_bits() as u64;
        }
        VecFn::PackUnorm4x8 | VecFn::PackSnorm4x8 => {
            let mut v = 0;
            for i in 0..4 {
                let c = if f == VecFn::PackUnorm4x8 {
                    un(fl(r, i), 255.0)
                } else {
                    sn(fl(r, i), 127.0)
                };
                v |= (c & 0xff) << (8 * i);
            }
            r[d] = v;
        }
        VecFn::PackUnorm2x16 | VecFn::PackSnorm2x16 => {
            let mut v = 0;
            for i in 0..2 {
                let c = if f == VecFn::PackUnorm2x16 {
                    un(fl(r, i), 65535.0)
                } else {
                    sn(fl(r, i), 32767.0)
                };
                v |= (c & 0xffff) << (16 * i);
            }
            r[d] = v;
        }
        VecFn::UnpackUnorm4x8 | VecFn::UnpackSnorm4x8 => {
            let v = r[a];
            for i in 0..4 {
                let b = (v >> (8 * i)) as u8;
                let x = if f == VecFn::UnpackUnorm4x8 {
                    b as f32 / 255.0
                } else {
                    (b as i8 as f32 / 127.0).max(-1.0)
                };
                r[d + i] = x.to_bits() as u64;
            }
        }
        VecFn::UnpackUnorm2x16 | VecFn::UnpackSnorm2x16 => {
            let v = r[a];
            for i in 0..2 {
                let h = (v >> (16 * i)) as u16;
                let x = if f == VecFn::UnpackUnorm2x16 {
                    h as f32 / 65535.0
                } else {
                    (h as i16 as f32 / 32767.0).max(-1.0)
                };
                r[d + i] = x.to_bits() as u64;
            }
        }
        _ => {}
    }
}

/// Column-major (rows x k) * (k x cols) into `dst` (rows x cols); source registers are read
/// before any write so `dst` may not alias them (lowering gives results fresh registers).
#[allow(clippy::too_many_arguments)]
pub fn matmul(w: u8, rows: usize, k: usize, cols: usize, dst: u32, a: u32, b: u32, r: &mut [u64]) {
    for c in 0..cols {
        for row in 0..rows {
            let s: f64 = (0..k)
                .map(|i| get(r, a, i * rows + row, w) * get(r, b, c * k + i, w))
                .sum();
            r[dst as usize + c * rows + row] = fromf(s, w);
        }
    }
}
