//! A last check of the decoded program: every register range an op touches lies inside the
//! register file and every jump target inside the op array.
//!
//! Why: lowering trusts the module's types to size each value; a module whose types disagree
//! with its instructions (which the kit's validation should already reject) would otherwise make
//! the interpreter index past the register file. Checking once here turns that into a
//! `Refusal::Malformed` at pipeline creation instead of a caught panic per dispatch.

use crate::ir::{Edge, Module, Op, Reg};
use crate::vecops::VecFn;
use crate::Refusal;

struct Check {
    regs: u64,
    ops: u64,
    bad: bool,
}

impl Check {
    fn r(&mut self, reg: Reg, n: u64) {
        self.bad |= reg as u64 + n > self.regs;
    }
    fn pc(&mut self, pc: u32) {
        self.bad |= pc as u64 >= self.ops;
    }
    fn edge(&mut self, e: &Edge) {
        self.pc(e.pc);
        for &(d, s, n) in e.copies.iter() {
            self.r(d, n as u64);
            self.r(s, n as u64);
        }
    }
}

fn vec_fn(c: &mut Check, f: VecFn, n: u64, dst: Reg, a: &[Reg; 3]) {
    use VecFn::*;
    let (out, args): (u64, &[(usize, u64)]) = match f {
        Length => (1, &[(0, n)]),
        Any | All => (1, &[(0, n)]),
        Normalize => (n, &[(0, n)]),
        ModfStruct => (2 * n, &[(0, n)]),
        Distance => (1, &[(0, n), (1, n)]),
        Reflect => (n, &[(0, n), (1, n)]),
        Refract => (n, &[(0, n), (1, n), (2, 1)]),
        FaceForward => (n, &[(0, n), (1, n), (2, n)]),
        Cross => (3, &[(0, 3), (1, 3)]),
        PackHalf2x16 | PackUnorm2x16 | PackSnorm2x16 => (1, &[(0, 2)]),
        PackUnorm4x8 | PackSnorm4x8 => (1, &[(0, 4)]),
        UnpackHalf2x16 | UnpackUnorm2x16 | UnpackSnorm2x16 => (2, &[(0, 1)]),
        UnpackUnorm4x8 | UnpackSnorm4x8 => (4, &[(0, 1)]),
    };
    c.r(dst, out);
    for &(k, len) in args {
        c.r(a[k], len);
    }
}

fn op(c: &mut Check, op: &Op) {
    match op {
        Op::Alu {
            n, splat, dst, a, ..
        } => {
            c.r(*dst, *n as u64);
            for (k, &reg) in a.iter().enumerate() {
                c.r(reg, if splat >> k & 1 == 1 { 1 } else { *n as u64 });
            }
        }
        Op::Copy { dst, src, n } => {
            c.r(*dst, *n as u64);
            c.r(*src, *n as u64);
        }
        Op::Gather { dst, src } => {
            c.r(*dst, src.len() as u64);
            src.iter().for_each(|&s| c.r(s, 1));
        }
        Op::Select {
            dst,
            c: cond,
            a,
            b,
            n,
            c_splat,
        } => {
            let n = *n as u64;
            [
                (*dst, n),
                (*a, n),
                (*b, n),
                (*cond, if *c_splat { 1 } else { n }),
            ]
            .iter()
            .for_each(|&(r, k)| c.r(r, k));
        }
        Op::ExtractDyn {
            dst, v, idx, count, ..
        } => [(*dst, 1), (*v, *count as u64), (*idx, 1)]
            .iter()
            .for_each(|&(r, k)| c.r(r, k)),
        Op::InsertDyn {
            dst,
            v,
            val,
            idx,
            count,
            ..
        } => {
            let n = *count as u64;
            [(*dst, n), (*v, n), (*val, 1), (*idx, 1)]
                .iter()
                .for_each(|&(r, k)| c.r(r, k));
        }
        Op::Bitcast {
            dst,
            src,
            from_w,
            from_n,
            to_w,
        } => {
            c.bad |= *from_n as usize * *from_w as usize > 1024 || *to_w < 8;
            c.r(*src, *from_n as u64);
            c.r(
                *dst,
                (*from_w as u64 * *from_n as u64) / (*to_w).max(8) as u64,
            );
        }
        Op::MatMul {
            r,
            k,
            c: cols,
            dst,
            a,
            b,
            ..
        } => {
            let (r, k, cols) = (*r as u64, *k as u64, *cols as u64);
            [(*dst, r * cols), (*a, r * k), (*b, k * cols)]
                .iter()
                .for_each(|&(x, n)| c.r(x, n));
        }
        Op::Vec { f, n, dst, a, .. } => vec_fn(c, *f, *n as u64, *dst, a),
        Op::Carry { n, dst, a, b, .. } => [(*dst, 2 * *n as u64), (*a, *n as u64), (*b, *n as u64)]
            .iter()
            .for_each(|&(r, k)| c.r(r, k)),
        Op::Dot(d) => d.regs().iter().for_each(|&(r, k)| c.r(r, k)),
        Op::Psb(p) => p.regs().iter().for_each(|&(r, k)| c.r(r, k)),
        _ => memory_or_control(c, op),
    }
}

fn memory_or_control(c: &mut Check, op: &Op) {
    match op {
        Op::Access {
            dst,
            base,
            dyns,
            desc,
            ..
        } => {
            [*dst, *base].iter().for_each(|&r| c.r(r, 1));
            dyns.iter().for_each(|d| c.r(d.0, 1));
            if let Some(d) = desc {
                c.r(d.0, 1);
            }
        }
        Op::LoadS { dst: a, ptr: b, .. }
        | Op::StoreS { ptr: a, src: b, .. }
        | Op::ArrayLen { dst: a, ptr: b, .. }
        | Op::Ballot { dst: a, v: b } => {
            c.r(
                *a,
                if matches!(op, Op::Ballot { .. }) {
                    4
                } else {
                    1
                },
            );
            c.r(*b, 1);
        }
        Op::Load { dst: v, ptr, flat } | Op::Store { ptr, src: v, flat } => {
            c.r(*ptr, 1);
            c.r(*v, flat.len() as u64);
        }
        Op::Atomic { dst, ptr, a, b, .. } => [*dst, *ptr, *a, *b].iter().for_each(|&r| c.r(r, 1)),
        Op::Branch(e) => c.edge(e),
        Op::CondBranch { c: cond, t, f } => {
            c.r(*cond, 1);
            c.edge(t);
            c.edge(f);
        }
        Op::Switch {
            sel,
            cases,
            default,
            ..
        } => {
            c.r(*sel, 1);
            c.edge(default);
            cases.iter().for_each(|(_, e)| c.edge(e));
        }
        Op::Call { func, args, dst, n } => {
            c.pc(*func);
            c.r(*dst, *n as u64);
            for &(p, a, k) in args.iter() {
                c.r(p, k as u64);
                c.r(a, k as u64);
            }
        }
        Op::ReturnValue { src, n } => c.r(*src, *n as u64),
        _ => {}
    }
}

/// Whether one value op stays inside a register file of `regs` registers (constant folding).
pub fn fits(o: &Op, regs: usize) -> bool {
    let mut c = Check {
        regs: regs as u64,
        ops: 0,
        bad: false,
    };
    op(&mut c, o);
    !c.bad
}

/// Refuses `m` when any op reaches outside the register file or the op array.
pub fn verify(m: &Module) -> Result<(), Refusal> {
    let mut c = Check {
        regs: m.template.len() as u64,
        ops: m.ops.len() as u64,
        bad: false,
    };
    c.pc(m.entry_pc);
    for o in &m.ops {
        op(&mut c, o);
    }
    if c.bad {
        return Err(Refusal::Malformed(
            "an instruction's operands disagree with their types".into(),
        ));
    }
    Ok(())
}
