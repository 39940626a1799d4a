//! bufferDeviceAddress: PhysicalStorageBuffer pointers at run time.
//!
//! Why raw addresses in registers: a PhysicalStorageBuffer pointer is a 64-bit device address
//! that shaders convert to and from integers, store in buffers and offset freely, so its register
//! holds exactly that address (the driver's device address is the buffer's host address) and
//! pointer arithmetic on it is plain 64-bit arithmetic (`PsbOp::Chain`). It is never dereferenced
//! as such: right before each load, store or atomic through it, `PsbOp::Resolve` asks
//! [`Resources::address_range`] for the live buffer holding the address and turns it into an
//! ordinary `region << 40 | offset` pointer into a per-worker dynamic region, so the access is
//! bounds-checked (and shared-memory atomic) exactly like a descriptor's. An address nothing
//! resolves becomes the null region: loads read 0, stores are dropped. Resolved spans are cached
//! per worker (a small table, the last hit checked first); a resolved pointer lives only in the
//! temporary register the very next op consumes, so a full table can recycle a slot safely.

use crate::ir::Reg;
use crate::memory::{Regions, OFF_MASK};
use crate::Resources;

/// Dynamic regions one worker keeps; past this, slots are recycled round-robin.
const MAX_SPANS: usize = 64;

#[derive(Clone, Debug)]
pub enum PsbOp {
    /// dst = the region pointer of device address `addr` (0, the null region, if unresolved).
    Resolve { dst: Reg, addr: Reg },
    /// dst = base + off + Σ sext(index)·stride, in wrapping 64-bit address arithmetic.
    Chain {
        dst: Reg,
        base: Reg,
        off: u64,
        dyns: Box<[(Reg, u8, u64)]>,
    },
}

impl PsbOp {
    /// (register, count) of every operand, for `verify`.
    pub fn regs(&self) -> Vec<(Reg, u64)> {
        match self {
            PsbOp::Resolve { dst, addr } => vec![(*dst, 1), (*addr, 1)],
            PsbOp::Chain {
                dst, base, dyns, ..
            } => {
                let mut v = vec![(*dst, 1), (*base, 1)];
                v.extend(dyns.iter().map(|d| (d.0, 1)));
                v
            }
        }
    }
}

/// The per-worker cache of resolved spans: slot k is region `first + k` of `Regions::r`.
pub struct Dynamic<'a> {
    res: Option<&'a dyn Resources>,
    first: usize,
    spans: Vec<(u64, u64)>,
    last: usize,
    recycle: usize,
}

impl<'a> Dynamic<'a> {
    /// `first` is the region table's length before any dynamic region is added.
    pub fn new(res: Option<&'a dyn Resources>, first: usize) -> Self {
        Dynamic {
            res,
            first,
            spans: Vec::new(),
            last: 0,
            recycle: 0,
        }
    }
}

impl Regions<'_> {
    /// The region pointer of device address `addr`, or 0 where no live buffer holds it.
    pub fn resolve(&mut self, addr: u64) -> u64 {
        let d = &mut self.psb;
        let hit = |s: &(u64, u64)| s.0 <= addr && addr < s.1;
        let k = if d.spans.get(d.last).is_some_and(hit) {
            d.last
        } else if let Some(k) = d.spans.iter().position(hit) {
            k
        } else {
            let Some(span) = d.res.and_then(|r| r.address_range(addr)) else {
                return 0;
            };
            let lo = span.ptr as u64;
            let len = (span.len as u64).min(OFF_MASK);
            // An implementor's span that does not contain `addr` resolves nothing.
            if span.ptr.is_null() || addr < lo || addr - lo >= len || d.first + MAX_SPANS >= 1 << 24
            {
                return 0;
            }
            let entry = (lo, lo + len);
            if d.spans.len() < MAX_SPANS {
                d.spans.push(entry);
                self.r.push((span.ptr, len as usize));
                d.spans.len() - 1
            } else {
                let k = d.recycle;
                d.recycle = (k + 1) % MAX_SPANS;
                d.spans[k] = entry;
                self.r[d.first + k] = (span.ptr, len as usize);
                k
            }
        };
        d.last = k;
        ((d.first + k) as u64) << 40 | (addr - d.spans[k].0)
    }
}

/// Runs one PhysicalStorageBuffer op.
#[inline]
pub fn exec(op: &PsbOp, r: &mut [u64], mem: &mut Regions) {
    match op {
        PsbOp::Resolve { dst, addr } => r[*dst as usize] = mem.resolve(r[*addr as usize]),
        PsbOp::Chain {
            dst,
            base,
            off,
            dyns,
        } => {
            let mut a = r[*base as usize].wrapping_add(*off);
            for &(reg, w, stride) in dyns.iter() {
                let i = crate::alu::sext(r[reg as usize], w) as u64;
                a = a.wrapping_add(i.wrapping_mul(stride));
            }
            r[*dst as usize] = a;
        }
    }
}
