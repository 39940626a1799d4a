//! shaderIntegerDotProduct: OpSDot, OpUDot, OpSUDot and their AccSat forms.
//!
//! Why one op for all six: they differ only in how each operand's lanes are extended (signed or
//! unsigned) and whether the accumulator is added with saturation, so `DotOp` carries those as
//! data. The sum is computed in 128-bit arithmetic: the plain forms return its low bits (the
//! spec's "low-order N bits of the precise result"), the AccSat forms clamp the precise
//! dot + accumulator to the result type's range (signed for S/SU, unsigned for U). Packed
//! operands (`PackedVectorFormat4x8Bit`) are 32-bit scalars holding four 8-bit lanes, lane i in
//! bits 8i..8i+8.

use crate::alu::{mask, sext};
use crate::decode::{bad, word, Dec};
use crate::ir::{Op, Reg, ZERO};
use crate::layout::{scalar_of, Scalar};
use crate::lower::Fn;
use crate::Refusal;
use spirv::Op as S;

#[derive(Clone, Debug)]
pub struct DotOp {
    /// Lanes of operand a / b are sign-extended.
    pub signed: (bool, bool),
    pub sat: bool,
    /// Lane width and count; packed operands are one register of `n` lanes of `w` bits.
    pub w: u8,
    pub n: u8,
    pub packed: bool,
    pub out_w: u8,
    pub dst: Reg,
    pub a: Reg,
    pub b: Reg,
    pub acc: Reg,
}

impl DotOp {
    /// (register, count) of every operand, for `verify`.
    pub fn regs(&self) -> Vec<(Reg, u64)> {
        let k = if self.packed { 1 } else { self.n as u64 };
        vec![(self.dst, 1), (self.a, k), (self.b, k), (self.acc, 1)]
    }
}

fn lane(r: &[u64], base: Reg, i: usize, op: &DotOp, signed: bool) -> i128 {
    let v = if op.packed {
        r[base as usize] >> (8 * i)
    } else {
        r[base as usize + i]
    };
    if signed {
        sext(v, op.w) as i128
    } else {
        mask(v, op.w) as i128
    }
}

/// Evaluates one dot product into `r[dst]`.
pub fn run(op: &DotOp, r: &mut [u64]) {
    let mut sum = 0i128;
    for i in 0..op.n as usize {
        let (x, y) = (
            lane(r, op.a, i, op, op.signed.0),
            lane(r, op.b, i, op, op.signed.1),
        );
        sum = sum.wrapping_add(x.wrapping_mul(y));
    }
    let w = op.out_w as u32;
    let v = if op.sat {
        // The result is signed unless both operands are unsigned (OpUDotAccSat).
        let signed = op.signed.0 || op.signed.1;
        let acc = r[op.acc as usize];
        let (acc, lo, hi) = if signed {
            let hi = (1i128 << (w - 1)) - 1;
            (sext(acc, op.out_w) as i128, -hi - 1, hi)
        } else {
            (mask(acc, op.out_w) as i128, 0, (1i128 << w) - 1)
        };
        sum.wrapping_add(acc).clamp(lo, hi)
    } else {
        sum
    };
    r[op.dst as usize] = mask(v as u64, op.out_w);
}

/// Lowers a dot-product instruction; false for any other op.
pub fn body(d: &mut Dec, f: &mut Fn, op: S, ops: &[u32]) -> Result<bool, Refusal> {
    let (signed, sat) = match op {
        S::SDot => ((true, true), false),
        S::UDot => ((false, false), false),
        S::SUDot => ((true, false), false),
        S::SDotAccSat => ((true, true), true),
        S::UDotAccSat => ((false, false), true),
        S::SUDotAccSat => ((true, false), true),
        _ => return Ok(false),
    };
    let (ty, id, va, vb) = (word(ops, 0)?, word(ops, 1)?, word(ops, 2)?, word(ops, 3)?);
    let out_w = match scalar_of(&d.types, ty)? {
        (Scalar::Int(w), 1) => w,
        _ => return Err(bad("dot product result is not an integer scalar")),
    };
    let (sa, na) = scalar_of(&d.types, d.type_of(va)?)?;
    if (sa, na) != scalar_of(&d.types, d.type_of(vb)?)? {
        return Err(bad("dot product operands differ in type"));
    }
    let Scalar::Int(aw) = sa else {
        return Err(bad("dot product of non-integer vectors"));
    };
    let nfixed = 4 + sat as usize;
    let packed = na == 1;
    let (w, n) = if packed {
        // A 32-bit scalar operand needs PackedVectorFormat4x8Bit (0), the only format there is.
        if aw != 32 || ops.get(nfixed) != Some(&0) {
            return Err(Refusal::Unsupported(
                "a dot product packed format other than 4x8Bit".into(),
            ));
        }
        (8, 4)
    } else {
        (aw, na as u8)
    };
    if out_w < w {
        return Err(bad("dot product result narrower than its operands"));
    }
    let acc = if sat {
        let a = word(ops, 4)?;
        if d.type_of(a)? != ty {
            return Err(bad("dot product accumulator type differs from the result"));
        }
        d.reg(a)?
    } else {
        ZERO
    };
    let (a, b) = (d.reg(va)?, d.reg(vb)?);
    let dst = d.alloc(id, ty)?;
    f.ops.push(Op::Dot(Box::new(DotOp {
        signed,
        sat,
        w,
        n,
        packed,
        out_w,
        dst,
        a,
        b,
        acc,
    })));
    Ok(true)
}
