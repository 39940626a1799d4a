//! Mutated modules never panic: each is refused, or runs (with a small branch budget) to a
//! result or a trap. A panic hook counts panics the executor's own backstops caught, so a
//! decoder or interpreter bug hidden behind `catch_unwind` still fails the test.
mod common;
use common::*;
use cpu_compute_exec::Program;
use std::sync::atomic::{AtomicUsize, Ordering};

static CAUGHT: AtomicUsize = AtomicUsize::new(0);

#[test]
fn garbage_operands_never_panic() {
    std::panic::set_hook(Box::new(|info| {
        if CAUGHT.fetch_add(1, Ordering::SeqCst) < 5 {
            eprintln!("panic: {info}");
        }
    }));
    let mut base = vec![];
    for s in [
        "saxpy.comp",
        "reduce.comp",
        "control.comp",
        "math.comp",
        "structs.comp",
        "scan.comp",
        "subgroup.comp",
        "wide.comp",
        "extras.comp",
        "oob.comp",
    ] {
        base.push(spirv(s, "vulkan1.1"));
    }
    base.extend(wgsl("particles.wgsl", &[]));
    let env = |k: &str, d: u64| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    let mut g = Lcg(env("CCE_FUZZ_SEED", 42));
    let (mut refused, mut ran) = (0, 0);
    for round in 0..env("CCE_FUZZ_ROUNDS", 4000) as usize {
        let mut w = base[round % base.len()].clone();
        for _ in 0..1 + g.next() % 3 {
            let i = 5 + g.next() as usize % (w.len() - 5);
            w[i] = match g.next() % 4 {
                0 => g.next(),
                1 => w[i] ^ (1 << (g.next() % 32)),
                2 => g.next() % 64,
                _ => w[i].wrapping_add(1),
            };
        }
        if std::env::var_os("CCE_FUZZ_TRACE").is_some() {
            eprintln!("round {round}");
        }
        let out = std::panic::catch_unwind(|| match Program::from_words(&w, "main", &[]) {
            Err(_) => false,
            Ok(mut p) => {
                p.set_branch_budget(10_000);
                let mut bufs: Vec<Vec<u32>> = (0..4).map(|k| vec![k as u32 + 1; 1024]).collect();
                let mut res = Res::new().push(&[7u32, 100, 3, 4]);
                for (k, b) in bufs.iter_mut().enumerate() {
                    res = res.buf(0, k as u32, b);
                }
                let _ = p.dispatch(&res, [0; 3], [2, 1, 1], 1);
                true
            }
        });
        match out {
            Ok(true) => ran += 1,
            Ok(false) => refused += 1,
            Err(_) => panic!("round {round} panicked out of the API"),
        }
    }
    let _ = std::panic::take_hook();
    assert_eq!(
        CAUGHT.load(Ordering::SeqCst),
        0,
        "internal panics caught by the backstops"
    );
    assert!(refused > 100 && ran > 100, "refused {refused}, ran {ran}");
}
