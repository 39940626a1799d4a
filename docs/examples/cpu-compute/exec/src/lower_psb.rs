//! bufferDeviceAddress lowering: PhysicalStorageBuffer pointers (see `address` for run time).
//!
//! Why a rewrite instead of new load/store/atomic ops: a PSB pointer's register holds the raw
//! device address, so every memory instruction whose pointer operand is one gets a
//! `PsbOp::Resolve` into a fresh synthetic pointer id first, and is then lowered by the ordinary
//! code with that id in place of the address: loads, stores, CopyMemory and atomics stay one
//! implementation. Conversions (OpConvertUToPtr, OpConvertPtrToU, OpBitcast to/from u64 or
//! uvec2) are register copies; access chains are the ordinary walk emitted as 64-bit address
//! arithmetic (`PsbOp::Chain`), OpPtrAccessChain adding Element × the pointer type's ArrayStride.
//! A PSB pointer's pointee layout comes from its type, so it is known wherever the pointer came
//! from (a buffer, a phi, a parameter). Aliased/Restrict(Pointer) decorations need nothing: every
//! access goes to memory.

use crate::address::PsbOp;
use crate::decode::{bad, word, Dec};
use crate::ir::Op;
use crate::layout::{scalar_of, Scalar, Ty};
use crate::lower::Fn;
use crate::Refusal;
use spirv::{Op as S, StorageClass};

/// Synthetic ids (resolved pointers) count up from here, far above any real module's bound.
const SYNTHETIC: u32 = 0xF000_0000;

/// The pointee of `ty` when it is a PhysicalStorageBuffer pointer type.
fn psb_pointee(d: &Dec, ty: u32) -> Option<u32> {
    match d.types.get(&ty) {
        Some(Ty::Pointer {
            class: StorageClass::PhysicalStorageBuffer,
            pointee,
        }) => Some(*pointee),
        _ => None,
    }
}

/// Whether value `id` is a (not yet resolved) PSB pointer.
fn is_psb(d: &Dec, id: u32) -> bool {
    id < SYNTHETIC
        && d.id_ty
            .get(&id)
            .is_some_and(|&t| psb_pointee(d, t).is_some())
}

/// Records the pointee layout of PSB pointer `id` (of type `ty`).
fn note(d: &mut Dec, id: u32, ty: u32) -> Result<(), Refusal> {
    if let Some(p) = psb_pointee(d, ty) {
        let l = d.layout_of(p)?;
        d.ptr_layout.insert(id, l);
    }
    Ok(())
}

/// OpTypeForwardPointer: a placeholder so structs can name the pointer before OpTypePointer.
pub fn forward_pointer(d: &mut Dec, ops: &[u32]) -> Result<(), Refusal> {
    let (id, c) = (word(ops, 0)?, word(ops, 1)?);
    if c != StorageClass::PhysicalStorageBuffer as u32 {
        return Err(Refusal::Unsupported(
            "OpTypeForwardPointer outside PhysicalStorageBuffer".into(),
        ));
    }
    d.types.entry(id).or_insert(Ty::Pointer {
        class: StorageClass::PhysicalStorageBuffer,
        pointee: 0,
    });
    Ok(())
}

/// Emits the resolve of PSB pointer `p`; returns the synthetic id of the region pointer.
fn resolved(d: &mut Dec, f: &mut Fn, p: u32) -> Result<u32, Refusal> {
    let ty = d.type_of(p)?;
    let syn = SYNTHETIC + d.regs.len() as u32;
    let dst = d.alloc(syn, ty)?;
    note(d, syn, ty)?;
    let addr = d.reg(p)?;
    f.ops.push(Op::Psb(PsbOp::Resolve { dst, addr }));
    Ok(syn)
}

/// Operand positions of the pointers a memory instruction dereferences.
fn pointer_slots(op: S) -> &'static [usize] {
    match op {
        S::Load => &[2],
        S::Store | S::AtomicStore => &[0],
        S::CopyMemory | S::CopyMemorySized => &[0, 1],
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
        | S::AtomicXor => &[2],
        _ => &[],
    }
}

/// Lowers an instruction that involves PSB pointers; false when it involves none.
pub fn body(d: &mut Dec, f: &mut Fn, op: S, code: u16, ops: &[u32]) -> Result<bool, Refusal> {
    let slots = pointer_slots(op);
    if slots
        .iter()
        .any(|&k| ops.get(k).is_some_and(|&p| is_psb(d, p)))
    {
        let mut new = ops.to_vec();
        for &k in slots {
            if is_psb(d, new[k]) {
                new[k] = resolved(d, f, new[k])?;
            }
        }
        crate::lower::body(d, f, op, code, &new)?;
        if op == S::Load {
            note(d, word(ops, 1)?, word(ops, 0)?)?;
        }
        return Ok(true);
    }
    match op {
        S::Load if psb_pointee(d, word(ops, 0)?).is_some() => {
            // A PSB pointer read from ordinary memory (a buffer_reference block member).
            crate::lower::load(d, f, ops)?;
            note(d, word(ops, 1)?, word(ops, 0)?)?;
        }
        S::ConvertUToPtr | S::ConvertPtrToU | S::Bitcast => return convert(d, f, op, ops),
        // The length of memory behind a raw address is unknown (and not valid SPIR-V for Vulkan).
        S::ArrayLength if is_psb(d, word(ops, 2)?) => {
            return Err(Refusal::Unsupported(
                "OpArrayLength on a PhysicalStorageBuffer pointer".into(),
            ))
        }
        S::AccessChain | S::InBoundsAccessChain if is_psb(d, word(ops, 2)?) => {
            chain(d, f, ops, None)?
        }
        S::PtrAccessChain | S::InBoundsPtrAccessChain => {
            let base = word(ops, 2)?;
            if !is_psb(d, base) {
                return Err(Refusal::Unsupported(
                    "OpPtrAccessChain outside PhysicalStorageBuffer (variable pointers)".into(),
                ));
            }
            let mut rest = ops[..3].to_vec();
            rest.extend_from_slice(ops.get(4..).unwrap_or(&[]));
            chain(d, f, &rest, Some(word(ops, 3)?))?
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// An access chain on a PSB base; `element` is OpPtrAccessChain's Element operand.
fn chain(d: &mut Dec, f: &mut Fn, ops: &[u32], element: Option<u32>) -> Result<(), Refusal> {
    let base_id = word(ops, 2)?;
    let base_ty = d.type_of(base_id)?;
    note(d, base_id, base_ty)?;
    let at = f.ops.len();
    crate::lower::access_chain(d, f, ops)?;
    // A chain on a constant (null) base folds to nothing: refused rather than guessed.
    let last = if f.ops.len() == at + 1 {
        f.ops.pop()
    } else {
        None
    };
    let Some(Op::Access {
        dst,
        base,
        off,
        dyns,
        desc: None,
    }) = last
    else {
        return Err(bad("PhysicalStorageBuffer access chain"));
    };
    let (mut off, mut dyns) = (off, dyns.into_vec());
    if let Some(e) = element {
        let stride = *d.dec.array_stride.get(&base_ty).ok_or_else(|| {
            bad("OpPtrAccessChain on a pointer type without an ArrayStride decoration")
        })? as u64;
        let (s, _) = scalar_of(&d.types, d.type_of(e)?)?;
        if d.consts.contains(&e) {
            let i = crate::alu::sext(d.const_value(e)?, s.width()) as u64;
            off = off.wrapping_add(i.wrapping_mul(stride));
        } else {
            dyns.push((d.reg(e)?, s.width(), stride));
        }
    }
    f.ops.push(Op::Psb(PsbOp::Chain {
        dst,
        base,
        off,
        dyns: dyns.into(),
    }));
    Ok(())
}

/// OpConvertUToPtr, OpConvertPtrToU and OpBitcast between PSB pointers and u64 / uvec2.
fn convert(d: &mut Dec, f: &mut Fn, op: S, ops: &[u32]) -> Result<bool, Refusal> {
    let (ty, id, src_id) = (word(ops, 0)?, word(ops, 1)?, word(ops, 2)?);
    let (to_ptr, from_ptr) = (psb_pointee(d, ty).is_some(), is_psb(d, src_id));
    if !(to_ptr || from_ptr) {
        if op == S::Bitcast {
            return Ok(false);
        }
        return Err(Refusal::Unsupported(format!(
            "Op{op:?} outside PhysicalStorageBuffer"
        )));
    }
    // The integer side: a 64-bit scalar, or (OpBitcast only) a 2-vector of 32-bit integers.
    let int_ty = if to_ptr { d.type_of(src_id)? } else { ty };
    let lanes = match scalar_of(&d.types, int_ty) {
        _ if to_ptr && from_ptr => 1,
        Ok((Scalar::Int(64), 1)) => 1,
        Ok((Scalar::Int(32), 2)) if op == S::Bitcast => 2,
        _ => {
            return Err(Refusal::Unsupported(format!(
                "Op{op:?} between a pointer and a type other than a 64-bit integer or uvec2"
            )))
        }
    };
    let src = d.reg(src_id)?;
    let dst = d.alloc(id, ty)?;
    f.ops.push(match (lanes, to_ptr) {
        (1, _) => Op::Copy { dst, src, n: 1 },
        (_, true) => Op::Bitcast {
            dst,
            src,
            from_w: 32,
            from_n: 2,
            to_w: 64,
        },
        (_, false) => Op::Bitcast {
            dst,
            src,
            from_w: 64,
            from_n: 1,
            to_w: 32,
        },
    });
    note(d, id, ty)?;
    Ok(true)
}
