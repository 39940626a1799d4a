//! Subgroup (OpGroupNonUniform*) ops for a subgroup of exactly one invocation.
//!
//! Why this is honest rather than a stub: with SubgroupSize = 1 every invocation is alone in its
//! subgroup, so a reduction or inclusive scan is its own value, an exclusive scan the operation's
//! identity, a ballot bit 0, a broadcast or shuffle the value itself. Quad ops need 4 lanes and are
//! refused, as are partitioned (NV) operations.

use crate::alu::AluOp as A;
use crate::decode::{bad, word, Dec};
use crate::ir::{Op, ZERO};
use crate::layout::{reg_count, scalar_of, Scalar};
use crate::lower::Fn;
use crate::Refusal;
use spirv::Op as S;

fn identity(op: S, s: Scalar) -> u64 {
    let w = s.width();
    let all = crate::alu::mask(!0, w);
    let f = |x: f64| crate::alu::fromf(x, w);
    match op {
        S::GroupNonUniformIMul => 1,
        S::GroupNonUniformFMul => f(1.0),
        S::GroupNonUniformFMin => f(f64::INFINITY),
        S::GroupNonUniformFMax => f(f64::NEG_INFINITY),
        S::GroupNonUniformSMin => all >> 1,
        S::GroupNonUniformSMax => crate::alu::mask(1 << (w - 1), w),
        S::GroupNonUniformUMin | S::GroupNonUniformBitwiseAnd => all,
        S::GroupNonUniformLogicalAnd => 1,
        _ => 0,
    }
}

fn copy(d: &mut Dec, f: &mut Fn, ty: u32, id: u32, src_id: u32) -> Result<(), Refusal> {
    let src = d.reg(src_id)?;
    let n = reg_count(&d.types, ty, 0)?;
    let dst = d.alloc(id, ty)?;
    f.ops.push(Op::Copy { dst, src, n });
    Ok(())
}

fn constant(d: &mut Dec, f: &mut Fn, ty: u32, id: u32, v: u64) -> Result<(), Refusal> {
    let n = reg_count(&d.types, ty, 0)?;
    let src = d.const_regs(&vec![v; n as usize]);
    let dst = d.alloc(id, ty)?;
    f.ops.push(Op::Copy { dst, src, n });
    Ok(())
}

/// Lowers a subgroup op; returns false when `op` is not one this module knows.
pub fn group(d: &mut Dec, f: &mut Fn, op: S, ops: &[u32]) -> Result<bool, Refusal> {
    let (Some(&ty), Some(&id)) = (ops.first(), ops.get(1)) else {
        return Ok(false);
    };
    match op {
        S::GroupNonUniformElect | S::GroupNonUniformAllEqual => constant(d, f, ty, id, 1)?,
        S::GroupNonUniformAll
        | S::GroupNonUniformAny
        | S::GroupNonUniformBroadcast
        | S::GroupNonUniformBroadcastFirst
        | S::GroupNonUniformShuffle
        | S::GroupNonUniformShuffleXor
        | S::GroupNonUniformShuffleUp
        | S::GroupNonUniformShuffleDown => copy(d, f, ty, id, word(ops, 3)?)?,
        S::GroupNonUniformBallot => {
            let v = d.reg(word(ops, 3)?)?;
            let dst = d.alloc(id, ty)?;
            f.ops.push(Op::Ballot { dst, v });
        }
        S::GroupNonUniformInverseBallot | S::GroupNonUniformBallotBitExtract => {
            let v = d.reg(word(ops, 3)?)?;
            let idx = if op == S::GroupNonUniformInverseBallot {
                ZERO
            } else {
                d.reg(word(ops, 4)?)?
            };
            let one = d.const_regs(&[1]);
            let dst = d.alloc(id, ty)?;
            f.ops.push(Op::Alu {
                op: A::BfUExtract,
                w: 32,
                w2: 1,
                n: 1,
                splat: 0,
                dst,
                a: [v, idx, one, ZERO],
            });
        }
        S::GroupNonUniformBallotBitCount => {
            if word(ops, 3)? == spirv::GroupOperation::ExclusiveScan as u32 {
                constant(d, f, ty, id, 0)?;
            } else {
                let v = d.reg(word(ops, 4)?)?;
                let one = d.const_regs(&[1]);
                let dst = d.alloc(id, ty)?;
                f.ops.push(Op::Alu {
                    op: A::And,
                    w: 32,
                    w2: 32,
                    n: 1,
                    splat: 0,
                    dst,
                    a: [v, one, ZERO, ZERO],
                });
            }
        }
        S::GroupNonUniformBallotFindLSB | S::GroupNonUniformBallotFindMSB => {
            let v = d.reg(word(ops, 3)?)?;
            let one = d.const_regs(&[1]);
            let dst = d.alloc(id, ty)?;
            f.ops.push(Op::Alu {
                op: A::And,
                w: 32,
                w2: 32,
                n: 1,
                splat: 0,
                dst,
                a: [v, one, ZERO, ZERO],
            });
            f.ops.push(Op::Alu {
                op: A::FindILsb,
                w: 32,
                w2: 32,
                n: 1,
                splat: 0,
                dst,
                a: [dst, ZERO, ZERO, ZERO],
            });
        }
        S::GroupNonUniformIAdd
        | S::GroupNonUniformFAdd
        | S::GroupNonUniformIMul
        | S::GroupNonUniformFMul
        | S::GroupNonUniformSMin
        | S::GroupNonUniformUMin
        | S::GroupNonUniformFMin
        | S::GroupNonUniformSMax
        | S::GroupNonUniformUMax
        | S::GroupNonUniformFMax
        | S::GroupNonUniformBitwiseAnd
        | S::GroupNonUniformBitwiseOr
        | S::GroupNonUniformBitwiseXor
        | S::GroupNonUniformLogicalAnd
        | S::GroupNonUniformLogicalOr
        | S::GroupNonUniformLogicalXor => {
            let gop = word(ops, 3)?;
            use spirv::GroupOperation as G;
            match G::from_u32(gop) {
                Some(G::Reduce | G::InclusiveScan | G::ClusteredReduce) => {
                    copy(d, f, ty, id, word(ops, 4)?)?
                }
                Some(G::ExclusiveScan) => {
                    let (s, _) = scalar_of(&d.types, ty)?;
                    constant(d, f, ty, id, identity(op, s))?;
                }
                _ => return Err(Refusal::Unsupported(format!("group operation {gop}"))),
            }
        }
        _ => return Ok(false),
    }
    if word(ops, 2).is_err() {
        return Err(bad("subgroup op without a scope"));
    }
    Ok(true)
}
