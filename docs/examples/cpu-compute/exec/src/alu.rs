//! Scalar arithmetic, logic, comparison, conversion and GLSL.std.450 component functions.
//!
//! Why one big `eval`: every component-wise SPIR-V op (core or extended) becomes `Op::Alu` with
//! an `AluOp`, so the interpreter has one tight loop and specialization-constant folding
//! (`OpSpecConstantOp`) reuses the same code. Floats of every width are computed in f64 and
//! rounded once to the result width (exact for +,-,*,/,sqrt of f16/f32); integers are kept
//! zero-extended to their width `w`; undefined cases (division by zero, oversized shifts) give a
//! value instead of a panic.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AluOp {
    // integer
    SNeg,
    IAdd,
    ISub,
    IMul,
    UDiv,
    SDiv,
    UMod,
    SRem,
    SMod,
    Shl,
    ShrL,
    ShrA,
    And,
    Or,
    Xor,
    Not,
    BitReverse,
    BitCount,
    BfInsert,
    BfSExtract,
    BfUExtract,
    IEq,
    INe,
    UGt,
    SGt,
    UGe,
    SGe,
    ULt,
    SLt,
    ULe,
    SLe,
    SAbs,
    SSign,
    SMin,
    SMax,
    UMin,
    UMax,
    SClamp,
    UClamp,
    FindILsb,
    FindSMsb,
    FindUMsb,
    // logic
    LNot,
    LAnd,
    LOr,
    LEq,
    LNe,
    // float
    FNeg,
    FAdd,
    FSub,
    FMul,
    FDiv,
    FRem,
    FMod,
    FOrdEq,
    FOrdNe,
    FOrdLt,
    FOrdGt,
    FOrdLe,
    FOrdGe,
    FUnordEq,
    FUnordNe,
    FUnordLt,
    FUnordGt,
    FUnordLe,
    FUnordGe,
    IsNan,
    IsInf,
    Round,
    RoundEven,
    Trunc,
    FAbs,
    FSign,
    Floor,
    Ceil,
    Fract,
    Radians,
    Degrees,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    Asinh,
    Acosh,
    Atanh,
    Atan2,
    Pow,
    Exp,
    Log,
    Exp2,
    Log2,
    Sqrt,
    InverseSqrt,
    FMin,
    FMax,
    FClamp,
    NMin,
    NMax,
    NClamp,
    FMix,
    Step,
    SmoothStep,
    Fma,
    Ldexp,
    // conversions (w = source width, w2 = result width)
    FToU,
    FToS,
    SToF,
    UToF,
    UConvert,
    SConvert,
    FConvert,
}

#[inline]
pub fn mask(v: u64, w: u8) -> u64 {
    if w >= 64 {
        v
    } else {
        v & ((1u64 << w) - 1)
    }
}

#[inline]
pub fn sext(v: u64, w: u8) -> i64 {
    if w >= 64 || w == 0 {
        v as i64
    } else {
        let s = 64 - w as u32;
        ((v << s) as i64) >> s
    }
}

#[inline]
pub fn tof(v: u64, w: u8) -> f64 {
    match w {
        64 => f64::from_bits(v),
        16 => f16_to_f32(v as u16) as f64,
        _ => f32::from_bits(v as u32) as f64,
    }
}

#[inline]
pub fn fromf(x: f64, w: u8) -> u64 {
    match w {
        64 => x.to_bits(),
        16 => f32_to_f16(x as f32) as u64,
        _ => (x as f32).to_bits() as u64,
    }
}

pub fn f16_to_f32(h: u16) -> f32 {
    let sign = ((h >> 15) as u32) << 31;
    let exp = ((h >> 10) & 0x1f) as u32;
    let man = (h & 0x3ff) as u32;
    let bits = match (exp, man) {
        (0, 0) => sign,
        (0, m) => {
            // subnormal: normalise
            let mut e = 127 - 15 + 1;
            let mut m = m;
            while m & 0x400 == 0 {
                m <<= 1;
                e -= 1;
            }
            sign | ((e as u32) << 23) | ((m & 0x3ff) << 13)
        }
        (0x1f, 0) => sign | 0x7f80_0000,
        (0x1f, m) => sign | 0x7fc0_0000 | (m << 13),
        (e, m) => sign | ((e + 127 - 15) << 23) | (m << 13),
    };
    f32::from_bits(bits)
}

pub fn f32_to_f16(f: f32) -> u16 {
    let x = f.to_bits();
    let sign = ((x >> 16) & 0x8000) as u16;
    let exp = ((x >> 23) & 0xff) as i32;
    let man = x & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if man != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        let m = man | 0x80_0000;
        let shift = (14 - e) as u32;
        let half = 1u32 << (shift - 1);
        let rem = m & ((1 << shift) - 1);
        let mut r = m >> shift;
        if rem > half || (rem == half && r & 1 == 1) {
            r += 1;
        }
        return sign | r as u16;
    }
    let mut r = ((e as u32) << 10) | (man >> 13);
    let rem = man & 0x1fff;
    if rem > 0x1000 || (rem == 0x1000 && r & 1 == 1) {
        r += 1;
    }
    sign | r as u16
}

#[inline]
fn b(v: bool) -> u64 {
    v as u64
}

/// Evaluates one component.
#[inline]
pub fn eval(op: AluOp, w: u8, w2: u8, a: u64, bb: u64, c: u64, d: u64) -> u64 {
    use AluOp::*;
    match op {
        FAdd => fromf(tof(a, w) + tof(bb, w), w),
        FSub => fromf(tof(a, w) - tof(bb, w), w),
        FMul => fromf(tof(a, w) * tof(bb, w), w),
        FDiv => fromf(tof(a, w) / tof(bb, w), w),
        IAdd => mask(a.wrapping_add(bb), w),
        ISub => mask(a.wrapping_sub(bb), w),
        IMul => mask(a.wrapping_mul(bb), w),
        _ => eval_int(op, w, w2, a, bb, c, d),
    }
}

fn eval_int(op: AluOp, w: u8, w2: u8, a: u64, bb: u64, c: u64, d: u64) -> u64 {
    use AluOp::*;
    // Widths are powers of two, so the low bits of the shift count are the count modulo w.
    let sh = |s: u64| (s & (w.max(1) as u64 - 1)) as u32;
    match op {
        SNeg => mask((sext(a, w)).wrapping_neg() as u64, w),
        UDiv => a.checked_div(bb).unwrap_or(0),
        SDiv => mask(sext(a, w).checked_div(sext(bb, w)).unwrap_or(0) as u64, w),
        UMod => a.checked_rem(bb).unwrap_or(0),
        SRem => mask(sext(a, w).checked_rem(sext(bb, w)).unwrap_or(0) as u64, w),
        SMod => {
            let (x, y) = (sext(a, w), sext(bb, w));
            let r = x.checked_rem(y).unwrap_or(0);
            let r = if r != 0 && ((r < 0) != (y < 0)) {
                r.wrapping_add(y)
            } else {
                r
            };
            mask(r as u64, w)
        }
        Shl => mask(a << sh(bb), w),
        ShrL => a >> sh(bb),
        ShrA => mask((sext(a, w) >> sh(bb)) as u64, w),
        And => a & bb,
        Or => a | bb,
        Xor => a ^ bb,
        Not => mask(!a, w),
        BitReverse => a.reverse_bits() >> (64 - w as u32),
        BitCount => a.count_ones() as u64,
        BfInsert => {
            let (off, cnt) = (bb_min(c, w), bb_min(d, w));
            let m = if cnt >= 64 {
                !0
            } else {
                ((1u64 << cnt) - 1) << off
            };
            mask((a & !m) | ((bb << off) & m), w)
        }
        BfSExtract | BfUExtract => {
            let (off, cnt) = (bb_min(bb, w), bb_min(c, w));
            if cnt == 0 {
                return 0;
            }
            let v = a >> off;
            let v = if cnt >= 64 {
                v
            } else {
                v & ((1u64 << cnt) - 1)
            };
            if op == BfSExtract {
                mask(sext(v, cnt as u8) as u64, w)
            } else {
                v
            }
        }
        IEq => b(a == bb),
        INe => b(a != bb),
        UGt => b(a > bb),
        SGt => b(sext(a, w) > sext(bb, w)),
        UGe => b(a >= bb),
        SGe => b(sext(a, w) >= sext(bb, w)),
        ULt => b(a < bb),
        SLt => b(sext(a, w) < sext(bb, w)),
        ULe => b(a <= bb),
        SLe => b(sext(a, w) <= sext(bb, w)),
        SAbs => mask(sext(a, w).wrapping_abs() as u64, w),
        SSign => mask(sext(a, w).signum() as u64, w),
        SMin => mask(sext(a, w).min(sext(bb, w)) as u64, w),
        SMax => mask(sext(a, w).max(sext(bb, w)) as u64, w),
        UMin => a.min(bb),
        UMax => a.max(bb),
        SClamp => mask(sext(a, w).max(sext(bb, w)).min(sext(c, w)) as u64, w),
        UClamp => a.max(bb).min(c),
        FindILsb => {
            if a == 0 {
                mask(!0, w)
            } else {
                a.trailing_zeros() as u64
            }
        }
        FindUMsb => msb(a, w),
        FindSMsb => {
            let v = if sext(a, w) < 0 { mask(!a, w) } else { a };
            msb(v, w)
        }
        LNot => b(a == 0),
        LAnd => b(a != 0 && bb != 0),
        LOr => b(a != 0 || bb != 0),
        LEq => b((a != 0) == (bb != 0)),
        LNe => b((a != 0) != (bb != 0)),
        UConvert => mask(a, w2),
        SConvert => mask(sext(a, w) as u64, w2),
        FToU => {
            let x = tof(a, w);
            let max = mask(!0, w2);
            if x.is_nan() || x <= 0.0 {
                0
            } else if x >= max as f64 {
                max
            } else {
                x as u64
            }
        }
        FToS => {
            let x = tof(a, w);
            let hi = (mask(!0, w2) >> 1) as i64;
            let v = if x.is_nan() {
                0
            } else {
                (x as i64).clamp(-hi - 1, hi)
            };
            mask(v as u64, w2)
        }
        SToF => int_to_float(sext(a, w) as f64, sext(a, w) as f32, w2),
        UToF => int_to_float(a as f64, a as f32, w2),
        _ => eval_float(op, w, w2, a, bb, c),
    }
}

fn bb_min(v: u64, w: u8) -> u32 {
    v.min(w as u64) as u32
}

fn msb(v: u64, w: u8) -> u64 {
    if v == 0 {
        mask(!0, w)
    } else {
        63 - v.leading_zeros() as u64
    }
}

/// i64/u64 -> f32 must round once, so f32 results convert directly rather than through f64.
fn int_to_float(x64: f64, x32: f32, w2: u8) -> u64 {
    match w2 {
        64 => x64.to_bits(),
        32 => x32.to_bits() as u64,
        _ => f32_to_f16(x32) as u64,
    }
}

fn eval_float(op: AluOp, w: u8, w2: u8, a: u64, bb: u64, c: u64) -> u64 {
    use AluOp::*;
    let x = tof(a, w);
    let y = tof(bb, w);
    let z = tof(c, w);
    let cmp = |v: bool| b(v);
    let r = match op {
        FNeg => return fromf(-x, w),
        FRem => x % y,
        FMod => x - y * (x / y).floor(),
        FOrdEq => return cmp(x == y),
        FOrdNe => return cmp(!x.is_nan() && !y.is_nan() && x != y),
        FOrdLt => return cmp(x < y),
        FOrdGt => return cmp(x > y),
        FOrdLe => return cmp(x <= y),
        FOrdGe => return cmp(x >= y),
        FUnordEq => return cmp(x.is_nan() || y.is_nan() || x == y),
        FUnordNe => return cmp(x != y),
        FUnordLt => return cmp(x.is_nan() || y.is_nan() || x < y),
        FUnordGt => return cmp(x.is_nan() || y.is_nan() || x > y),
        FUnordLe => return cmp(x.is_nan() || y.is_nan() || x <= y),
        FUnordGe => return cmp(x.is_nan() || y.is_nan() || x >= y),
        IsNan => return cmp(x.is_nan()),
        IsInf => return cmp(x.is_infinite()),
        Round => x.round(),
        RoundEven => x.round_ties_even(),
        Trunc => x.trunc(),
        FAbs => x.abs(),
        FSign => {
            if x > 0.0 {
                1.0
            } else if x < 0.0 {
                -1.0
            } else {
                x
            }
        }
        Floor => x.floor(),
        Ceil => x.ceil(),
        Fract => x - x.floor(),
        Radians => x.to_radians(),
        Degrees => x.to_degrees(),
        Sin => x.sin(),
        Cos => x.cos(),
        Tan => x.tan(),
        Asin => x.asin(),
        Acos => x.acos(),
        Atan => x.atan(),
        Sinh => x.sinh(),
        Cosh => x.cosh(),
        Tanh => x.tanh(),
        Asinh => x.asinh(),
        Acosh => x.acosh(),
        Atanh => x.atanh(),
        Atan2 => x.atan2(y),
        Pow => x.powf(y),
        Exp => x.exp(),
        Log => x.ln(),
        Exp2 => x.exp2(),
        Log2 => x.log2(),
        Sqrt => x.sqrt(),
        InverseSqrt => 1.0 / x.sqrt(),
        FMin | NMin => x.min(y),
        FMax | NMax => x.max(y),
        FClamp | NClamp => x.max(y).min(z),
        FMix => x * (1.0 - z) + y * z,
        Step => {
            if y < x {
                0.0
            } else {
                1.0
            }
        }
        SmoothStep => {
            let t = ((z - x) / (y - x)).clamp(0.0, 1.0);
            t * t * (3.0 - 2.0 * t)
        }
        Fma => {
            if w == 64 {
                x.mul_add(y, z)
            } else {
                (x as f32).mul_add(y as f32, z as f32) as f64
            }
        }
        Ldexp => x * 2f64.powi(sext(bb, 32).clamp(-2000, 2000) as i32),
        FConvert => return fromf(x, w2),
        _ => 0.0,
    };
    fromf(r, w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_round_trip() {
        for v in [
            0.0f32,
            1.0,
            -2.5,
            65504.0,
            2f32.powi(-14),
            2f32.powi(-24),
            3.0 * 2f32.powi(-20),
            f32::INFINITY,
        ] {
            assert_eq!(f16_to_f32(f32_to_f16(v)), v, "{v}");
        }
        assert!(f16_to_f32(f32_to_f16(f32::NAN)).is_nan());
        assert_eq!(f32_to_f16(1e6), 0x7c00);
    }

    #[test]
    fn integer_edges() {
        assert_eq!(
            eval(AluOp::SDiv, 32, 32, 0x8000_0000, 0xffff_ffff, 0, 0),
            0x8000_0000
        );
        assert_eq!(eval(AluOp::UDiv, 32, 32, 5, 0, 0, 0), 0);
        assert_eq!(
            eval(AluOp::SMod, 32, 32, mask(-7i64 as u64, 32), 3, 0, 0),
            2
        );
        assert_eq!(
            eval(AluOp::SRem, 32, 32, mask(-7i64 as u64, 32), 3, 0, 0),
            mask(-1i64 as u64, 32)
        );
        assert_eq!(eval(AluOp::FindUMsb, 32, 32, 0x10, 0, 0, 0), 4);
        assert_eq!(
            eval(AluOp::FindSMsb, 32, 32, 0xffff_ffff, 0, 0, 0),
            0xffff_ffff
        );
        assert_eq!(eval(AluOp::BitReverse, 32, 32, 1, 0, 0, 0), 0x8000_0000);
        assert_eq!(eval(AluOp::BfUExtract, 32, 32, 0xabcd, 4, 8, 0), 0xbc);
        assert_eq!(eval(AluOp::BfSExtract, 32, 32, 0xf0, 4, 4, 0), 0xffff_ffff);
        assert_eq!(eval(AluOp::BfInsert, 32, 32, 0xffff, 0, 4, 8), 0xf00f);
        assert_eq!(
            eval(AluOp::FToS, 32, 32, (-3.7f32).to_bits() as u64, 0, 0, 0),
            mask(-3i64 as u64, 32)
        );
    }
}
