//! Lowering of value ops: arithmetic, composites, conversions (`pure`, shared with
//! OpSpecConstantOp folding), and GLSL.std.450, atomics, barriers and subgroup ops (`extended`).
//!
//! Why subgroup ops are this simple: the device reports subgroup size 1, so every reduction and
//! inclusive scan is the value itself, exclusive scans the identity, ballots bit 0.

use crate::alu::AluOp as A;
use crate::decode::{bad, word, Dec};
use crate::ir::{AtomicOp, CarryOp, Op, Reg, ZERO};
use crate::layout::{reg_count, scalar_of, Scalar, Ty};
use crate::lower::Fn;
use crate::vecops::VecFn;
use crate::Refusal;
use spirv::{GLOp, Op as S};

fn core_alu(op: S) -> Option<A> {
    Some(match op {
        S::SNegate => A::SNeg,
        S::FNegate => A::FNeg,
        S::IAdd => A::IAdd,
        S::FAdd => A::FAdd,
        S::ISub => A::ISub,
        S::FSub => A::FSub,
        S::IMul => A::IMul,
        S::FMul | S::VectorTimesScalar | S::MatrixTimesScalar => A::FMul,
        S::UDiv => A::UDiv,
        S::SDiv => A::SDiv,
        S::FDiv => A::FDiv,
        S::UMod => A::UMod,
        S::SRem => A::SRem,
        S::SMod => A::SMod,
        S::FRem => A::FRem,
        S::FMod => A::FMod,
        S::ShiftLeftLogical => A::Shl,
        S::ShiftRightLogical => A::ShrL,
        S::ShiftRightArithmetic => A::ShrA,
        S::BitwiseAnd => A::And,
        S::BitwiseOr => A::Or,
        S::BitwiseXor => A::Xor,
        S::Not => A::Not,
        S::BitReverse => A::BitReverse,
        S::BitCount => A::BitCount,
        S::BitFieldInsert => A::BfInsert,
        S::BitFieldSExtract => A::BfSExtract,
        S::BitFieldUExtract => A::BfUExtract,
        S::IEqual => A::IEq,
        S::INotEqual => A::INe,
        S::UGreaterThan => A::UGt,
        S::SGreaterThan => A::SGt,
        S::UGreaterThanEqual => A::UGe,
        S::SGreaterThanEqual => A::SGe,
        S::ULessThan => A::ULt,
        S::SLessThan => A::SLt,
        S::ULessThanEqual => A::ULe,
        S::SLessThanEqual => A::SLe,
        S::LogicalNot => A::LNot,
        S::LogicalAnd => A::LAnd,
        S::LogicalOr => A::LOr,
        S::LogicalEqual => A::LEq,
        S::LogicalNotEqual => A::LNe,
        S::FOrdEqual => A::FOrdEq,
        S::FOrdNotEqual => A::FOrdNe,
        S::FOrdLessThan => A::FOrdLt,
        S::FOrdGreaterThan => A::FOrdGt,
        S::FOrdLessThanEqual => A::FOrdLe,
        S::FOrdGreaterThanEqual => A::FOrdGe,
        S::FUnordEqual => A::FUnordEq,
        S::FUnordNotEqual => A::FUnordNe,
        S::FUnordLessThan => A::FUnordLt,
        S::FUnordGreaterThan => A::FUnordGt,
        S::FUnordLessThanEqual => A::FUnordLe,
        S::FUnordGreaterThanEqual => A::FUnordGe,
        S::IsNan => A::IsNan,
        S::IsInf => A::IsInf,
        S::ConvertFToU => A::FToU,
        S::ConvertFToS => A::FToS,
        S::ConvertSToF => A::SToF,
        S::ConvertUToF => A::UToF,
        S::UConvert => A::UConvert,
        S::SConvert => A::SConvert,
        S::FConvert => A::FConvert,
        _ => return None,
    })
}

/// Emits a component-wise op: result `ty`/`id`, operand ids `args`; scalar operands of a vector
/// op are splatted.
pub fn alu(d: &mut Dec, f: &mut Fn, op: A, ty: u32, id: u32, args: &[u32]) -> Result<(), Refusal> {
    let (rs, n) = scalar_of(&d.types, ty)?;
    let (s0, _) = scalar_of(
        &d.types,
        d.type_of(*args.first().ok_or_else(|| bad("missing operand"))?)?,
    )?;
    let mut a = [ZERO; 4];
    let mut splat = 0u8;
    for (k, slot) in a.iter_mut().enumerate() {
        match args.get(k) {
            Some(&arg) => {
                *slot = d.reg(arg)?;
                if reg_count(&d.types, d.type_of(arg)?, 0)? < n {
                    splat |= 1 << k;
                }
            }
            None => splat |= 1 << k,
        }
    }
    let dst = d.alloc(id, ty)?;
    f.ops.push(Op::Alu {
        op,
        w: s0.width(),
        w2: rs.width(),
        n: n as u16,
        splat,
        dst,
        a,
    });
    Ok(())
}

fn regs_of(d: &mut Dec, id: u32) -> Result<(Reg, u32), Refusal> {
    Ok((d.reg(id)?, reg_count(&d.types, d.type_of(id)?, 0)?))
}

/// Register offset and count of the sub-value at `path` inside a value of type `ty`.
fn sub_value(d: &Dec, mut ty: u32, path: &[u32]) -> Result<(u32, u32), Refusal> {
    let mut off = 0;
    for &i in path {
        let t = crate::layout::ty(&d.types, ty)?.clone();
        let (next, before) = match t {
            Ty::Struct(m) => {
                let next = *m.get(i as usize).ok_or_else(|| bad("composite index"))?;
                let mut before = 0;
                for &x in &m[..i as usize] {
                    before += reg_count(&d.types, x, 0)?;
                }
                (next, before)
            }
            Ty::Array { elem, len } if i < len => (elem, i * reg_count(&d.types, elem, 0)?),
            Ty::Matrix { col, cols } if i < cols => (col, i * reg_count(&d.types, col, 0)?),
            Ty::Vector(_, n) if i < n => return Ok((off + i, 1)),
            _ => return Err(bad("composite index out of range")),
        };
        off += before;
        ty = next;
    }
    Ok((off, reg_count(&d.types, ty, 0)?))
}

/// Value ops with no memory or control effect. Returns false when `op` is not one.
pub fn pure(d: &mut Dec, f: &mut Fn, op: S, ops: &[u32]) -> Result<bool, Refusal> {
    if let Some(a) = core_alu(op) {
        let (ty, id) = (word(ops, 0)?, word(ops, 1)?);
        alu(d, f, a, ty, id, &ops[2..])?;
        return Ok(true);
    }
    let (Some(&ty), Some(&id)) = (ops.first(), ops.get(1)) else {
        return Ok(false);
    };
    match op {
        S::CompositeConstruct => {
            let mut src = Vec::new();
            for &c in &ops[2..] {
                let (r, n) = regs_of(d, c)?;
                src.extend(r..r + n);
            }
            let dst = d.alloc(id, ty)?;
            if src.len() as u32 != reg_count(&d.types, ty, 0)? {
                return Err(bad("OpCompositeConstruct constituent count"));
            }
            f.ops.push(Op::Gather {
                dst,
                src: src.into(),
            });
        }
        S::CompositeExtract => {
            let c = word(ops, 2)?;
            let (off, n) = sub_value(d, d.type_of(c)?, &ops[3..])?;
            let src = d.reg(c)? + off;
            let dst = d.alloc(id, ty)?;
            f.ops.push(Op::Copy { dst, src, n });
        }
        S::CompositeInsert => {
            let (obj, c) = (word(ops, 2)?, word(ops, 3)?);
            let (off, n) = sub_value(d, d.type_of(c)?, &ops[4..])?;
            let ((cr, cn), (or, _)) = (regs_of(d, c)?, regs_of(d, obj)?);
            let dst = d.alloc(id, ty)?;
            f.ops.push(Op::Copy {
                dst,
                src: cr,
                n: cn,
            });
            f.ops.push(Op::Copy {
                dst: dst + off,
                src: or,
                n,
            });
        }
        S::VectorShuffle => {
            let ((a, an), (b, _)) = (regs_of(d, word(ops, 2)?)?, regs_of(d, word(ops, 3)?)?);
            let src: Vec<Reg> = ops[4..]
                .iter()
                .map(|&c| {
                    if c == u32::MAX {
                        ZERO
                    } else if c < an {
                        a + c
                    } else {
                        b + (c - an)
                    }
                })
                .collect();
            let dst = d.alloc(id, ty)?;
            f.ops.push(Op::Gather {
                dst,
                src: src.into(),
            });
        }
        S::CopyObject | S::CopyLogical => {
            let (src, n) = regs_of(d, word(ops, 2)?)?;
            if let Some(&l) = d.ptr_layout.get(&word(ops, 2)?) {
                d.ptr_layout.insert(id, l);
            }
            let dst = d.alloc(id, ty)?;
            f.ops.push(Op::Copy { dst, src, n });
        }
        S::Select => {
            let (c, cn) = regs_of(d, word(ops, 2)?)?;
            let (a, n) = regs_of(d, word(ops, 3)?)?;
            let b = d.reg(word(ops, 4)?)?;
            if let Some(&l) = d.ptr_layout.get(&word(ops, 3)?) {
                d.ptr_layout.insert(id, l);
            }
            let dst = d.alloc(id, ty)?;
            f.ops.push(Op::Select {
                dst,
                c,
                a,
                b,
                n,
                c_splat: cn == 1,
            });
        }
        S::Bitcast => bitcast(d, f, ty, id, word(ops, 2)?)?,
        _ => return pure_vector(d, f, op, ty, id, ops),
    }
    Ok(true)
}

fn bitcast(d: &mut Dec, f: &mut Fn, ty: u32, id: u32, src_id: u32) -> Result<(), Refusal> {
    let (ts, tn) = scalar_of(&d.types, ty)
        .map_err(|_| Refusal::Unsupported("OpBitcast of pointers".into()))?;
    let (ss, sn) = scalar_of(&d.types, d.type_of(src_id)?)?;
    if ts.width() as u32 * tn != ss.width() as u32 * sn {
        return Err(bad("OpBitcast size mismatch"));
    }
    let src = d.reg(src_id)?;
    let dst = d.alloc(id, ty)?;
    f.ops.push(if ts.width() == ss.width() {
        Op::Copy { dst, src, n: tn }
    } else {
        Op::Bitcast {
            dst,
            src,
            from_w: ss.width(),
            from_n: sn as u8,
            to_w: ts.width(),
        }
    });
    Ok(())
}

fn pure_vector(
    d: &mut Dec,
    f: &mut Fn,
    op: S,
    ty: u32,
    id: u32,
    ops: &[u32],
) -> Result<bool, Refusal> {
    let dims = |d: &Dec, t: u32| -> Result<(u32, u32), Refusal> {
        match crate::layout::ty(&d.types, t)? {
            Ty::Matrix { col, cols } => Ok((scalar_of(&d.types, *col)?.1, *cols)),
            Ty::Vector(_, n) => Ok((*n, 1)),
            _ => Ok((1, 1)),
        }
    };
    if matches!(
        op,
        S::IAddCarry | S::ISubBorrow | S::UMulExtended | S::SMulExtended
    ) {
        return carry(d, f, op, ty, id, ops);
    }
    let (w, _) = match scalar_of(&d.types, ty) {
        Ok(v) => v,
        Err(_) => return Ok(false),
    };
    let w = w.width();
    let (ra, ca, rb, cb) = match op {
        S::MatrixTimesVector
        | S::VectorTimesMatrix
        | S::MatrixTimesMatrix
        | S::OuterProduct
        | S::Dot => {
            let (a, b) = (
                dims(d, d.type_of(word(ops, 2)?)?)?,
                dims(d, d.type_of(word(ops, 3)?)?)?,
            );
            (a.0, a.1, b.0, b.1)
        }
        S::Any | S::All => {
            let (a, n) = regs_of(d, word(ops, 2)?)?;
            let dst = d.alloc(id, ty)?;
            let vf = if op == S::Any { VecFn::Any } else { VecFn::All };
            f.ops.push(Op::Vec {
                f: vf,
                w,
                n: n as u16,
                dst,
                a: [a, ZERO, ZERO],
            });
            return Ok(true);
        }
        S::VectorExtractDynamic | S::VectorInsertDynamic => {
            let ins = op == S::VectorInsertDynamic;
            let (v, count) = regs_of(d, word(ops, 2)?)?;
            let idx_id = word(ops, if ins { 4 } else { 3 })?;
            let idx = d.reg(idx_id)?;
            let idx_w = scalar_of(&d.types, d.type_of(idx_id)?)?.0.width();
            let val = if ins { d.reg(word(ops, 3)?)? } else { ZERO };
            let dst = d.alloc(id, ty)?;
            f.ops.push(if ins {
                Op::InsertDyn {
                    dst,
                    v,
                    val,
                    idx,
                    idx_w,
                    count,
                }
            } else {
                Op::ExtractDyn {
                    dst,
                    v,
                    idx,
                    idx_w,
                    count,
                }
            });
            return Ok(true);
        }
        S::Transpose => {
            let (a, (rows, cols)) = (d.reg(word(ops, 2)?)?, dims(d, d.type_of(word(ops, 2)?)?)?);
            let src: Vec<Reg> = (0..rows)
                .flat_map(|r| (0..cols).map(move |c| a + c * rows + r))
                .collect();
            let dst = d.alloc(id, ty)?;
            f.ops.push(Op::Gather {
                dst,
                src: src.into(),
            });
            return Ok(true);
        }
        _ => return Ok(false),
    };
    // (r x k) * (k x c), vectors as columns; row-vector operands are 1 x k.
    let (r, k, c) = match op {
        S::MatrixTimesVector | S::MatrixTimesMatrix => (ra, ca, cb),
        S::VectorTimesMatrix => (1, ra, cb),
        S::OuterProduct => (ra, 1, rb),
        _ => (1, ra, 1),
    };
    let (a, b) = (d.reg(word(ops, 2)?)?, d.reg(word(ops, 3)?)?);
    let dst = d.alloc(id, ty)?;
    if r * c != reg_count(&d.types, ty, 0)? || k > 16 {
        return Err(bad("matrix product dimensions"));
    }
    f.ops.push(Op::MatMul {
        w,
        r: r as u16,
        k: k as u16,
        c: c as u16,
        dst,
        a,
        b,
    });
    Ok(true)
}

fn carry(d: &mut Dec, f: &mut Fn, op: S, ty: u32, id: u32, ops: &[u32]) -> Result<bool, Refusal> {
    let (a, n) = regs_of(d, word(ops, 2)?)?;
    let b = d.reg(word(ops, 3)?)?;
    let (s, _) = scalar_of(&d.types, d.type_of(word(ops, 2)?)?)?;
    let dst = d.alloc(id, ty)?;
    let op = match op {
        S::IAddCarry => CarryOp::IAddCarry,
        S::ISubBorrow => CarryOp::ISubBorrow,
        S::UMulExtended => CarryOp::UMulExtended,
        _ => CarryOp::SMulExtended,
    };
    f.ops.push(Op::Carry {
        op,
        w: s.width(),
        n: n as u16,
        dst,
        a,
        b,
    });
    Ok(true)
}

fn glsl_alu(g: GLOp) -> Option<A> {
    use GLOp as G;
    Some(match g {
        G::Round => A::Round,
        G::RoundEven => A::RoundEven,
        G::Trunc => A::Trunc,
        G::FAbs => A::FAbs,
        G::SAbs => A::SAbs,
        G::FSign => A::FSign,
        G::SSign => A::SSign,
        G::Floor => A::Floor,
        G::Ceil => A::Ceil,
        G::Fract => A::Fract,
        G::Radians => A::Radians,
        G::Degrees => A::Degrees,
        G::Sin => A::Sin,
        G::Cos => A::Cos,
        G::Tan => A::Tan,
        G::Asin => A::Asin,
        G::Acos => A::Acos,
        G::Atan => A::Atan,
        G::Sinh => A::Sinh,
        G::Cosh => A::Cosh,
        G::Tanh => A::Tanh,
        G::Asinh => A::Asinh,
        G::Acosh => A::Acosh,
        G::Atanh => A::Atanh,
        G::Atan2 => A::Atan2,
        G::Pow => A::Pow,
        G::Exp => A::Exp,
        G::Log => A::Log,
        G::Exp2 => A::Exp2,
        G::Log2 => A::Log2,
        G::Sqrt => A::Sqrt,
        G::InverseSqrt => A::InverseSqrt,
        G::FMin => A::FMin,
        G::UMin => A::UMin,
        G::SMin => A::SMin,
        G::FMax => A::FMax,
        G::UMax => A::UMax,
        G::SMax => A::SMax,
        G::FClamp => A::FClamp,
        G::UClamp => A::UClamp,
        G::SClamp => A::SClamp,
        G::FMix => A::FMix,
        G::Step => A::Step,
        G::SmoothStep => A::SmoothStep,
        G::Fma => A::Fma,
        G::Ldexp => A::Ldexp,
        G::FindILsb => A::FindILsb,
        G::FindSMsb => A::FindSMsb,
        G::FindUMsb => A::FindUMsb,
        G::NMin => A::NMin,
        G::NMax => A::NMax,
        G::NClamp => A::NClamp,
        _ => return None,
    })
}

fn glsl_vec(g: GLOp) -> Option<VecFn> {
    use GLOp as G;
    Some(match g {
        G::Length => VecFn::Length,
        G::Distance => VecFn::Distance,
        G::Normalize => VecFn::Normalize,
        G::Cross => VecFn::Cross,
        G::Reflect => VecFn::Reflect,
        G::Refract => VecFn::Refract,
        G::FaceForward => VecFn::FaceForward,
        G::PackHalf2x16 => VecFn::PackHalf2x16,
        G::UnpackHalf2x16 => VecFn::UnpackHalf2x16,
        G::PackUnorm4x8 => VecFn::PackUnorm4x8,
        G::PackSnorm4x8 => VecFn::PackSnorm4x8,
        G::UnpackUnorm4x8 => VecFn::UnpackUnorm4x8,
        G::UnpackSnorm4x8 => VecFn::UnpackSnorm4x8,
        G::PackUnorm2x16 => VecFn::PackUnorm2x16,
        G::PackSnorm2x16 => VecFn::PackSnorm2x16,
        G::UnpackUnorm2x16 => VecFn::UnpackUnorm2x16,
        G::UnpackSnorm2x16 => VecFn::UnpackSnorm2x16,
        G::ModfStruct => VecFn::ModfStruct,
        _ => return None,
    })
}

fn ext_inst(d: &mut Dec, f: &mut Fn, ops: &[u32]) -> Result<(), Refusal> {
    let (ty, id, set, inst) = (word(ops, 0)?, word(ops, 1)?, word(ops, 2)?, word(ops, 3)?);
    if d.ignored_sets.contains(&set) {
        return Ok(());
    }
    if d.glsl_set != Some(set) {
        return Err(bad("OpExtInst of an unknown set"));
    }
    let g =
        GLOp::from_u32(inst).ok_or_else(|| Refusal::Instruction(format!("GLSL.std.450 {inst}")))?;
    let args = &ops[4..];
    if let Some(a) = glsl_alu(g) {
        return alu(d, f, a, ty, id, args);
    }
    if matches!(g, GLOp::PackDouble2x32 | GLOp::UnpackDouble2x32) {
        return bitcast(d, f, ty, id, word(args, 0)?);
    }
    let vf = glsl_vec(g).ok_or_else(|| Refusal::Instruction(format!("GLSL.std.450 {g:?}")))?;
    let a0 = word(args, 0)?;
    let (s, n) = scalar_of(&d.types, d.type_of(a0)?)?;
    let mut a = [ZERO; 3];
    for (k, &arg) in args.iter().enumerate().take(3) {
        a[k] = d.reg(arg)?;
    }
    let dst = d.alloc(id, ty)?;
    f.ops.push(Op::Vec {
        f: vf,
        w: s.width(),
        n: n as u16,
        dst,
        a,
    });
    Ok(())
}

/// GLSL.std.450, atomics, barriers and subgroup ops. Returns false when `op` is none of them.
pub fn extended(d: &mut Dec, f: &mut Fn, op: S, ops: &[u32]) -> Result<bool, Refusal> {
    match op {
        S::ExtInst => ext_inst(d, f, ops)?,
        S::ControlBarrier => {
            let scope = d.const_value(word(ops, 0)?)?;
            f.ops.push(
                if scope == spirv::Scope::Subgroup as u64
                    || scope == spirv::Scope::Invocation as u64
                {
                    Op::Fence
                } else {
                    Op::Barrier
                },
            );
        }
        S::MemoryBarrier => f.ops.push(Op::Fence),
        S::AtomicStore => {
            let (p, v) = (word(ops, 0)?, word(ops, 3)?);
            let (ptr, a) = (d.reg(p)?, d.reg(v)?);
            let w = atomic_width(d, d.type_of(v)?)?;
            f.ops.push(Op::Atomic {
                op: AtomicOp::Store,
                w,
                dst: ZERO,
                ptr,
                a,
                b: ZERO,
            });
        }
        S::AtomicLoad
        | S::AtomicExchange
        | S::AtomicCompareExchange
        | S::AtomicIIncrement
        | S::AtomicIDecrement
        | S::AtomicIAdd
        | S::AtomicISub
        | S::AtomicSMin
        | S::AtomicUMin
        | S::AtomicSMax
        | S::AtomicUMax
        | S::AtomicAnd
        | S::AtomicOr
        | S::AtomicXor => atomic(d, f, op, ops)?,
        _ => return crate::lower_group::group(d, f, op, ops),
    }
    Ok(true)
}

fn atomic_width(d: &Dec, ty: u32) -> Result<u8, Refusal> {
    match scalar_of(&d.types, ty)? {
        (Scalar::Int(w @ (32 | 64)), 1) => Ok(w),
        _ => Err(Refusal::Unsupported(
            "atomics on a type other than 32/64-bit integers".into(),
        )),
    }
}

fn atomic(d: &mut Dec, f: &mut Fn, op: S, ops: &[u32]) -> Result<(), Refusal> {
    let (ty, id, p) = (word(ops, 0)?, word(ops, 1)?, word(ops, 2)?);
    let w = atomic_width(d, ty)?;
    let ptr = d.reg(p)?;
    let one = d.const_regs(&[1]);
    let (aop, a, b) = match op {
        S::AtomicLoad => (AtomicOp::Load, ZERO, ZERO),
        S::AtomicIIncrement => (AtomicOp::IAdd, one, ZERO),
        S::AtomicIDecrement => (AtomicOp::ISub, one, ZERO),
        S::AtomicCompareExchange => (
            AtomicOp::CompareExchange,
            d.reg(word(ops, 6)?)?,
            d.reg(word(ops, 7)?)?,
        ),
        _ => {
            let v = d.reg(word(ops, 5)?)?;
            let k = match op {
                S::AtomicExchange => AtomicOp::Exchange,
                S::AtomicIAdd => AtomicOp::IAdd,
                S::AtomicISub => AtomicOp::ISub,
                S::AtomicSMin => AtomicOp::SMin,
                S::AtomicUMin => AtomicOp::UMin,
                S::AtomicSMax => AtomicOp::SMax,
                S::AtomicUMax => AtomicOp::UMax,
                S::AtomicAnd => AtomicOp::And,
                S::AtomicOr => AtomicOp::Or,
                _ => AtomicOp::Xor,
            };
            (k, v, ZERO)
        }
    };
    let dst = d.alloc(id, ty)?;
    f.ops.push(Op::Atomic {
        op: aop,
        w,
        dst,
        ptr,
        a,
        b,
    });
    Ok(())
}
