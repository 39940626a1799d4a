//! Bounds-checked memory access through pointer registers (`region << 40 | offset`).
//!
//! Why a region table: one indexed lookup resolves any pointer (push constants, workgroup memory,
//! the invocation's function/private arena, its built-in inputs, each buffer descriptor) to a
//! base and a length, so every access is checked the same way: out of bounds loads read 0 and
//! stores are dropped (robustBufferAccess), region 0 is the null region. Buffer regions are shared
//! between worker threads, so plain accesses to them are relaxed atomics (aligned) or bytewise
//! relaxed atomics (unaligned): racing shaders get unspecified values, never undefined
//! behaviour. Shader atomics on buffers are sequentially consistent hardware atomics.

use crate::decode::{FIRST_BUFFER, REGION_PUSH};
use crate::ir::AtomicOp;
use crate::Trap;
use std::sync::atomic::{
    AtomicI32, AtomicI64, AtomicU16, AtomicU32, AtomicU64, AtomicU8, Ordering,
};

pub const OFF_MASK: u64 = (1 << 40) - 1;

/// (base, len) per region; entries 3 and 4 are re-pointed per invocation.
pub struct Regions<'a> {
    pub r: Vec<(*mut u8, usize)>,
    /// Spans resolved from device addresses, appended after the descriptors (`address`).
    pub psb: crate::address::Dynamic<'a>,
}

const R: Ordering = Ordering::Relaxed;

impl Regions<'_> {
    #[inline]
    fn locate(&self, ptr: u64, extra: u32, size: usize) -> Option<(*mut u8, bool)> {
        let region = (ptr >> 40) as usize;
        let off = ((ptr & OFF_MASK) as usize).checked_add(extra as usize)?;
        let &(base, len) = self.r.get(region)?;
        if off.checked_add(size)? <= len && !base.is_null() {
            // SAFETY: off + size <= len and base..base+len is a live region (a Span the
            // Resources implementor guarantees, or a Vec the worker owns), so the result stays
            // inside it.
            Some((unsafe { base.add(off) }, region >= FIRST_BUFFER as usize))
        } else {
            None
        }
    }

    /// The byte length of `ptr`'s region (OpArrayLength).
    pub fn len(&self, ptr: u64) -> usize {
        self.r.get((ptr >> 40) as usize).map_or(0, |r| r.1)
    }

    #[inline]
    pub fn load(&self, ptr: u64, extra: u32, size: u8) -> u64 {
        let Some((p, shared)) = self.locate(ptr, extra, size as usize) else {
            return 0;
        };
        // SAFETY: `locate` checked p..p+size lies in a live region; shared regions are only
        // accessed atomically (see module docs), private ones only by this thread.
        unsafe {
            if shared {
                shared_load(p, size)
            } else {
                match size {
                    1 => *p as u64,
                    2 => (p as *const u16).read_unaligned() as u64,
                    4 => (p as *const u32).read_unaligned() as u64,
                    _ => (p as *const u64).read_unaligned(),
                }
            }
        }
    }

    #[inline]
    pub fn store(&self, ptr: u64, extra: u32, size: u8, v: u64) {
        if ptr >> 40 == REGION_PUSH {
            return;
        }
        let Some((p, shared)) = self.locate(ptr, extra, size as usize) else {
            return;
        };
        // SAFETY: as in `load`; push constants (read-only host memory) were excluded above.
        unsafe {
            if shared {
                shared_store(p, size, v)
            } else {
                match size {
                    1 => *p = v as u8,
                    2 => (p as *mut u16).write_unaligned(v as u16),
                    4 => (p as *mut u32).write_unaligned(v as u32),
                    _ => (p as *mut u64).write_unaligned(v),
                }
            }
        }
    }

    /// A shader atomic; returns the original value (0 when out of bounds, where nothing changes).
    pub fn atomic(&self, op: AtomicOp, w: u8, ptr: u64, a: u64, b: u64) -> Result<u64, Trap> {
        let size = (w / 8) as usize;
        if ptr >> 40 == REGION_PUSH {
            return Ok(if op == AtomicOp::Load {
                self.load(ptr, 0, w / 8)
            } else {
                0
            });
        }
        let Some((p, shared)) = self.locate(ptr, 0, size) else {
            return Ok(0);
        };
        if !shared {
            // Workgroup and function memory belong to this thread: a plain read-modify-write.
            let old = self.load(ptr, 0, w / 8);
            if let Some(new) = rmw(op, w, old, a, b) {
                self.store(ptr, 0, w / 8, new);
            }
            return Ok(old);
        }
        if !(p as usize).is_multiple_of(size) {
            return Err(Trap::MisalignedAtomic);
        }
        // SAFETY: p is in bounds (locate) and aligned for its width (checked above); buffer
        // memory is only ever accessed atomically by the executor.
        Ok(unsafe {
            if w == 64 {
                atomic64(op, p, a, b)
            } else {
                atomic32(op, p, a as u32, b as u32) as u64
            }
        })
    }
}

/// The new value of an atomic RMW, None for a pure load.
fn rmw(op: AtomicOp, w: u8, old: u64, a: u64, b: u64) -> Option<u64> {
    use crate::alu::{mask, sext};
    Some(match op {
        AtomicOp::Load => return None,
        AtomicOp::Store | AtomicOp::Exchange => a,
        AtomicOp::CompareExchange => {
            if old == b {
                a
            } else {
                return None;
            }
        }
        AtomicOp::IAdd => mask(old.wrapping_add(a), w),
        AtomicOp::ISub => mask(old.wrapping_sub(a), w),
        AtomicOp::SMin => mask(sext(old, w).min(sext(a, w)) as u64, w),
        AtomicOp::SMax => mask(sext(old, w).max(sext(a, w)) as u64, w),
        AtomicOp::UMin => old.min(a),
        AtomicOp::UMax => old.max(a),
        AtomicOp::And => old & a,
        AtomicOp::Or => old | a,
        AtomicOp::Xor => old ^ a,
    })
}

const S: Ordering = Ordering::SeqCst;

/// # Safety
/// `p` must be valid and 4-byte aligned.
unsafe fn atomic32(op: AtomicOp, p: *mut u8, a: u32, b: u32) -> u32 {
    // SAFETY: the caller guarantees validity and alignment.
    let (x, i) = unsafe {
        (
            AtomicU32::from_ptr(p as *mut u32),
            AtomicI32::from_ptr(p as *mut i32),
        )
    };
    match op {
        AtomicOp::Load => x.load(S),
        AtomicOp::Store => {
            x.store(a, S);
            0
        }
        AtomicOp::Exchange => x.swap(a, S),
        AtomicOp::CompareExchange => x.compare_exchange(b, a, S, S).unwrap_or_else(|v| v),
        AtomicOp::IAdd => x.fetch_add(a, S),
        AtomicOp::ISub => x.fetch_sub(a, S),
        AtomicOp::SMin => i.fetch_min(a as i32, S) as u32,
        AtomicOp::SMax => i.fetch_max(a as i32, S) as u32,
        AtomicOp::UMin => x.fetch_min(a, S),
        AtomicOp::UMax => x.fetch_max(a, S),
        AtomicOp::And => x.fetch_and(a, S),
        AtomicOp::Or => x.fetch_or(a, S),
        AtomicOp::Xor => x.fetch_xor(a, S),
    }
}

/// # Safety
/// `p` must be valid and 8-byte aligned.
unsafe fn atomic64(op: AtomicOp, p: *mut u8, a: u64, b: u64) -> u64 {
    // SAFETY: the caller guarantees validity and alignment.
    let (x, i) = unsafe {
        (
            AtomicU64::from_ptr(p as *mut u64),
            AtomicI64::from_ptr(p as *mut i64),
        )
    };
    match op {
        AtomicOp::Load => x.load(S),
        AtomicOp::Store => {
            x.store(a, S);
            0
        }
        AtomicOp::Exchange => x.swap(a, S),
        AtomicOp::CompareExchange => x.compare_exchange(b, a, S, S).unwrap_or_else(|v| v),
        AtomicOp::IAdd => x.fetch_add(a, S),
        AtomicOp::ISub => x.fetch_sub(a, S),
        AtomicOp::SMin => i.fetch_min(a as i64, S) as u64,
        AtomicOp::SMax => i.fetch_max(a as i64, S) as u64,
        AtomicOp::UMin => x.fetch_min(a, S),
        AtomicOp::UMax => x.fetch_max(a, S),
        AtomicOp::And => x.fetch_and(a, S),
        AtomicOp::Or => x.fetch_or(a, S),
        AtomicOp::Xor => x.fetch_xor(a, S),
    }
}

/// # Safety
/// `p..p+size` must be valid shared memory.
unsafe fn shared_load(p: *mut u8, size: u8) -> u64 {
    // SAFETY: (all arms) validity from the caller, alignment checked before each typed view.
    unsafe {
        match size {
            4 if (p as usize).is_multiple_of(4) => {
                AtomicU32::from_ptr(p as *mut u32).load(R) as u64
            }
            8 if (p as usize).is_multiple_of(8) => AtomicU64::from_ptr(p as *mut u64).load(R),
            2 if (p as usize).is_multiple_of(2) => {
                AtomicU16::from_ptr(p as *mut u16).load(R) as u64
            }
            _ => {
                let mut v = 0u64;
                for k in 0..size as usize {
                    v |= (AtomicU8::from_ptr(p.add(k)).load(R) as u64) << (8 * k);
                }
                v
            }
        }
    }
}

/// # Safety
/// `p..p+size` must be valid shared memory.
unsafe fn shared_store(p: *mut u8, size: u8, v: u64) {
    // SAFETY: (all arms) validity from the caller, alignment checked before each typed view.
    unsafe {
        match size {
            4 if (p as usize).is_multiple_of(4) => {
                AtomicU32::from_ptr(p as *mut u32).store(v as u32, R)
            }
            8 if (p as usize).is_multiple_of(8) => AtomicU64::from_ptr(p as *mut u64).store(v, R),
            2 if (p as usize).is_multiple_of(2) => {
                AtomicU16::from_ptr(p as *mut u16).store(v as u16, R)
            }
            _ => {
                for k in 0..size as usize {
                    AtomicU8::from_ptr(p.add(k)).store((v >> (8 * k)) as u8, R);
                }
            }
        }
    }
}
