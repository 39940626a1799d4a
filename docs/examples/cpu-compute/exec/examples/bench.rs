//! Times SAXPY over 16 Mi floats and the shared-memory reduction on the executor alone
//! (`cargo run --release --example bench [threads]`); the driver's BENCHMARKS.md compares the
//! whole device with lavapipe.
#[path = "../tests/common/mod.rs"]
mod common;
use common::*;
use std::time::Instant;

fn main() {
    if let Some(dir) = std::env::var_os("CCE_EMIT_SPV") {
        for name in ["saxpy.comp", "reduce.comp"] {
            let words = spirv(name, "vulkan1.1");
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            let path = std::path::Path::new(&dir).join(format!("{name}-vulkan1.1.spv"));
            std::fs::write(path, bytes).unwrap();
        }
        return;
    }
    let threads: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1);
    let n: u32 = std::env::var("N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(16 << 20);
    let prog = program("saxpy.comp", "vulkan1.1", &[]).unwrap();
    if std::env::var_os("DUMP").is_some() {
        println!("{prog:?}");
    }
    let mut x: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let mut y = vec![1.0f32; n as usize];
    let res = Res::new()
        .buf(0, 0, &mut x)
        .buf(0, 1, &mut y)
        .push(&[2.0f32.to_bits(), n]);
    let t = Instant::now();
    prog.dispatch(&res, [0; 3], [n / 256, 1, 1], threads)
        .unwrap();
    let s = t.elapsed();
    drop(res);
    assert_eq!(y[12345], 2.0 * 12345.0 + 1.0);
    println!(
        "saxpy 16Mi: {:?} on {threads} threads, {:.1} ns/invocation",
        s,
        s.as_nanos() as f64 / n as f64
    );

    if std::env::var_os("SAXPY_ONLY").is_some() {
        return;
    }
    let local = 256u32;
    let prog = program(
        "reduce.comp",
        "vulkan1.1",
        &[spec_u32(0, local), spec_u32(1, 1)],
    )
    .unwrap();
    let groups = n / local;
    let mut data = vec![1u32; n as usize];
    let mut out = vec![0u32; 1 + groups as usize];
    let res = Res::new()
        .buf(0, 0, &mut data)
        .buf(0, 1, &mut out)
        .push(&[n, 0u32]);
    let t = Instant::now();
    prog.dispatch(&res, [0; 3], [groups, 1, 1], threads)
        .unwrap();
    let s = t.elapsed();
    drop(res);
    assert_eq!(out[0], n);
    println!(
        "reduction 16Mi ({groups} groups of {local}): {:?}, {:.1} ns/invocation",
        s,
        s.as_nanos() as f64 / n as f64
    );
}
