//! `cargo bench -p vkgen`: wall time and peak memory of a full `generate` (all outputs, formatted)
//! on vk-1.4.359, per phase, against the reference generators measured on this machine class
//! (shared/reference: Android 1.19 s, Mesa's four runtime generators 1.04 s, Khronos loader 6.8 s,
//! ash 1.6 s). Prints a table; goal ≤ 100 ms wall, ≤ 50 MB peak RSS.

use std::path::PathBuf;
use std::time::{Duration, Instant};

fn registry() -> PathBuf {
    let dir = std::env::var_os("VKGEN_REGISTRY_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/registry"));
    dir.join("vk-1.4.359.xml")
}

fn peak_rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .map(|kb| kb / 1024.0)
        .unwrap_or(f64::NAN)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let reg = registry();
    if !reg.is_file() {
        eprintln!(
            "benchmark registry {} missing (set VKGEN_REGISTRY_DIR)",
            reg.display()
        );
        std::process::exit(1);
    }
    let opts = vkgen::Options {
        registry: Some(reg.clone()),
        ..Default::default()
    };
    let runs = 7;
    let mut parse = Vec::new();
    let mut full = Vec::new();
    for _ in 0..runs {
        let t = Instant::now();
        let loaded = vkgen::load(&opts).expect("registry loads");
        parse.push(t.elapsed());
        drop(loaded);
        let t = Instant::now();
        let g = vkgen::generate(&opts).expect("generates");
        full.push(t.elapsed());
        assert!(g.files.len() >= 10);
    }
    let parse = median(parse);
    let full = median(full);
    let rss = peak_rss_mb();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "vkgen generate on {} ({} runs, median)",
        reg.display(),
        runs
    );
    println!("| phase | wall ms |");
    println!("|---|---|");
    println!(
        "| parse (roxmltree → model, overlay, checks) | {:.1} |",
        ms(parse)
    );
    println!(
        "| full generate (parse + select + all emitters + formatting) | {:.1} |",
        ms(full)
    );
    println!("| peak RSS (MB) | {:.1} |", rss);
    println!();
    println!("| reference (same registry class, this machine class) | wall ms | vkgen speed-up |");
    println!("|---|---|---|");
    for (name, ref_ms) in [
        ("Android frameworks/native/vulkan/scripts", 1190.0),
        ("Mesa's four runtime generators", 1040.0),
        ("ash generator", 1600.0),
        ("Khronos Vulkan-Loader generator", 6800.0),
    ] {
        println!("| {name} | {ref_ms:.0} | {:.1}x |", ref_ms / ms(full));
    }
    println!();
    println!(
        "goal: ≤ 100 ms wall ({}), ≤ 50 MB peak ({})",
        if ms(full) <= 100.0 { "met" } else { "NOT met" },
        if rss <= 50.0 { "met" } else { "NOT met" }
    );
}
