//! Workgroup scheduling: scoped worker threads pull workgroup indices from one atomic counter.
//!
//! Why one thread per workgroup: barriers and workgroup memory then need no cross-thread
//! synchronisation (each worker owns its workgroup memory, register files and arenas, allocated
//! once and reused for every group it runs). A panic inside a group (a decoder bug, never an
//! input the decoder accepted) is caught and reported as `Trap::Internal`.

use crate::address::Dynamic;
use crate::decode::{FIRST_BUFFER, REGION_ARENA, REGION_INPUT, REGION_PUSH, REGION_WG};
use crate::ir::{BuiltinKind, Module};
use crate::memory::Regions;
use crate::run::{run, Inv, Stop};
use crate::{Resources, Span, Trap};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

struct Worker<'a> {
    m: &'a Module,
    regions: Regions<'a>,
    regs: Vec<u64>,
    arenas: Vec<u8>,
    inputs: Vec<u8>,
    wg: Vec<u8>,
    invs: Vec<Inv>,
    scratch: Vec<u64>,
    invocations: usize,
}

impl<'a> Worker<'a> {
    fn new(m: &'a Module, buffers: &[Span], push: &[u8], res: &'a dyn Resources) -> Self {
        let n = m.local_size.iter().product::<u32>() as usize;
        let mut regions = vec![(std::ptr::null_mut(), 0); buffers.len().max(FIRST_BUFFER as usize)];
        regions[REGION_PUSH as usize] = (push.as_ptr() as *mut u8, push.len());
        for (i, s) in buffers.iter().enumerate().skip(FIRST_BUFFER as usize) {
            regions[i] = (s.ptr, s.len);
        }
        let mut regs = Vec::with_capacity(n * m.template.len());
        for _ in 0..n {
            regs.extend_from_slice(&m.template);
        }
        let invs = (0..n)
            .map(|_| Inv {
                pc: 0,
                stack: Vec::new(),
                done: true,
                budget: 0,
            })
            .collect();
        Worker {
            m,
            regions: Regions {
                psb: Dynamic::new(Some(res), regions.len()),
                r: regions,
            },
            regs,
            arenas: vec![0; n * m.arena_init.len()],
            inputs: vec![0; n * m.input_size],
            wg: vec![0; m.wg_init.len()],
            invs,
            scratch: Vec::new(),
            invocations: n,
        }
    }

    fn fill_inputs(&mut self, group: [u32; 3], num: [u32; 3]) {
        let [sx, sy, _] = self.m.local_size;
        let size = self.m.input_size;
        for i in 0..self.invocations {
            let l = [i as u32 % sx, (i as u32 / sx) % sy, i as u32 / (sx * sy)];
            let input = &mut self.inputs[i * size..(i + 1) * size];
            for &(off, kind) in &self.m.builtins {
                let v: [u32; 4] = match kind {
                    BuiltinKind::GlobalId => {
                        let g = |k: usize| {
                            group[k]
                                .wrapping_mul(self.m.local_size[k])
                                .wrapping_add(l[k])
                        };
                        [g(0), g(1), g(2), 0]
                    }
                    BuiltinKind::LocalId => [l[0], l[1], l[2], 0],
                    BuiltinKind::LocalIndex | BuiltinKind::SubgroupId => [i as u32, 0, 0, 0],
                    BuiltinKind::WorkgroupId => [group[0], group[1], group[2], 0],
                    BuiltinKind::NumWorkgroups => [num[0], num[1], num[2], 0],
                    BuiltinKind::WorkgroupSize => [sx, sy, self.m.local_size[2], 0],
                    BuiltinKind::SubgroupSize => [1, 0, 0, 0],
                    BuiltinKind::SubgroupLocalId => [0, 0, 0, 0],
                    BuiltinKind::NumSubgroups => [self.invocations as u32, 0, 0, 0],
                    BuiltinKind::Mask(set) => [set as u32, 0, 0, 0],
                };
                for (k, x) in v.iter().enumerate() {
                    let at = off as usize + 4 * k;
                    input[at..at + 4].copy_from_slice(&x.to_le_bytes());
                }
            }
        }
    }

    fn run_group(&mut self, group: [u32; 3], num: [u32; 3]) -> Result<(), Trap> {
        self.wg.copy_from_slice(&self.m.wg_init);
        self.regions.r[REGION_WG as usize] = (self.wg.as_mut_ptr(), self.wg.len());
        let a = self.m.arena_init.len();
        for i in 0..self.invocations {
            self.arenas[i * a..(i + 1) * a].copy_from_slice(&self.m.arena_init);
            let inv = &mut self.invs[i];
            inv.pc = self.m.entry_pc;
            inv.stack.clear();
            inv.done = false;
            inv.budget = self.m.branch_budget;
        }
        self.fill_inputs(group, num);
        let (rn, isz) = (self.m.template.len(), self.m.input_size);
        loop {
            let mut waiting = 0;
            for i in 0..self.invocations {
                if self.invs[i].done {
                    continue;
                }
                // SAFETY: i < invocations, and arenas/inputs hold `invocations` slices of a and
                // isz bytes, so both offsets stay inside their Vecs.
                let (arena, input) = unsafe {
                    (
                        self.arenas.as_mut_ptr().add(i * a),
                        self.inputs.as_mut_ptr().add(i * isz),
                    )
                };
                self.regions.r[REGION_ARENA as usize] = (arena, a);
                self.regions.r[REGION_INPUT as usize] = (input, isz);
                let regs = &mut self.regs[i * rn..(i + 1) * rn];
                if let Stop::Barrier = run(
                    self.m,
                    &mut self.invs[i],
                    regs,
                    &mut self.regions,
                    &mut self.scratch,
                )? {
                    waiting += 1;
                }
            }
            if waiting == 0 {
                return Ok(());
            }
        }
    }
}

/// Runs groups `base..base+count` of `m` on `threads` workers.
pub fn dispatch(
    m: &Module,
    res: &dyn Resources,
    base: [u32; 3],
    count: [u32; 3],
    threads: usize,
) -> Result<(), Trap> {
    let total = count.iter().map(|&c| c as u64).product::<u64>();
    if total == 0 {
        return Ok(());
    }
    let mut buffers = Vec::new();
    for (i, &(set, binding, n)) in m.bindings.iter().enumerate() {
        let start = m.binding_regions[i] as usize;
        if buffers.len() < start + n as usize {
            buffers.resize(
                start + n as usize,
                Span {
                    ptr: std::ptr::null_mut(),
                    len: 0,
                },
            );
        }
        for e in 0..n {
            if let Some(s) = res.buffer(set, binding, e) {
                buffers[start + e as usize] = s;
            }
        }
    }
    let push = res.push_constants();
    let next = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let failure: Mutex<Option<Trap>> = Mutex::new(None);
    let work = || {
        let mut w = Worker::new(m, &buffers, push, res);
        loop {
            let g = next.fetch_add(1, Ordering::Relaxed);
            if g >= total || stop.load(Ordering::Relaxed) {
                return;
            }
            let (x, y, z) = (
                g % count[0] as u64,
                (g / count[0] as u64) % count[1] as u64,
                g / (count[0] as u64 * count[1] as u64),
            );
            let group = [
                base[0].wrapping_add(x as u32),
                base[1].wrapping_add(y as u32),
                base[2].wrapping_add(z as u32),
            ];
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                w.run_group(group, count)
            }));
            let err = match outcome {
                Ok(Ok(())) => continue,
                Ok(Err(t)) => t,
                Err(_) => Trap::Internal("executor panic".into()),
            };
            stop.store(true, Ordering::Relaxed);
            let mut f = failure.lock().unwrap_or_else(|p| p.into_inner());
            f.get_or_insert(err);
            return;
        }
    };
    let threads = threads.clamp(1, 256).min(total as usize);
    if threads == 1 {
        work();
    } else {
        std::thread::scope(|s| {
            for _ in 0..threads {
                s.spawn(work);
            }
        });
    }
    match failure.into_inner().unwrap_or_else(|p| p.into_inner()) {
        Some(t) => Err(t),
        None => Ok(()),
    }
}
