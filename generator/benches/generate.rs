//! `cargo bench -p vkgen-generator`: wall time and peak memory of a full `generate` (all outputs, formatted)
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

/// Peak RSS of a `vkgen generate` process (the largest child so far, from getrusage), so the
/// number is the tool's own and not this benchmark's bookkeeping.
fn cli_peak_rss_mb(registry: &std::path::Path) -> f64 {
    let out = tempfile_dir();
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_vkgen"))
        .args(["generate", "--registry"])
        .arg(registry)
        .arg("--out")
        .arg(&out)
        .stderr(std::process::Stdio::null())
        .status()
        .expect("vkgen runs");
    assert!(status.success());
    let _ = std::fs::remove_dir_all(&out);
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage fills the struct it is given.
    let usage = unsafe {
        libc::getrusage(libc::RUSAGE_CHILDREN, usage.as_mut_ptr());
        usage.assume_init()
    };
    usage.ru_maxrss as f64 / 1024.0
}

/// User + system CPU time of this process so far.
fn cpu_time() -> Duration {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage fills the struct it is given.
    let u = unsafe {
        libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr());
        usage.assume_init()
    };
    let tv = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
    };
    tv(u.ru_utime) + tv(u.ru_stime)
}

fn tempfile_dir() -> PathBuf {
    std::env::temp_dir().join(format!("vkgen-bench-{}", std::process::id()))
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
    // First, before this process grows: a forked child starts with the parent's resident pages.
    let rss = cli_peak_rss_mb(&reg);
    let opts = vkgen::Options {
        registry: Some(reg.clone()),
        ..Default::default()
    };
    let runs = 7;
    let mut parse = Vec::new();
    let mut full = Vec::new();
    let mut full_cpu = Vec::new();
    for _ in 0..runs {
        let t = Instant::now();
        let loaded = vkgen::load(&opts).expect("registry loads");
        parse.push(t.elapsed());
        drop(loaded);
        let t = Instant::now();
        let c = cpu_time();
        let g = vkgen::generate(&opts).expect("generates");
        full.push(t.elapsed());
        full_cpu.push(cpu_time() - c);
        assert!(g.files.len() >= 10);
    }
    // Per-emitter cost, single-threaded, on the same selection.
    let (loaded, _) = vkgen::load(&opts).expect("registry loads");
    let model = &loaded.registry;
    let ash = vkgen::ash_types::AshTypes::load();
    let t = Instant::now();
    let sel = vkgen::select::select(model, vkgen::select::highest_version(model), &ash);
    let select_time = t.elapsed();
    let cx = vkgen::emit::Ctx::new(&sel, &ash);
    type Emitter = fn(&vkgen::emit::Ctx) -> vkgen::Result<String>;
    let emitters: [(&str, Emitter); 8] = [
        ("vk.rs", vkgen::emit::types::emit),
        ("pfn.rs", vkgen::emit::pfn::emit),
        ("commands.rs", vkgen::emit::commands::emit),
        ("extensions.rs", vkgen::emit::extensions::emit),
        ("dispatch.rs", vkgen::emit::dispatch::emit),
        ("trampolines.rs", vkgen::emit::trampolines::emit),
        ("driver.rs", vkgen::emit::driver::emit),
        ("features.rs", vkgen::emit::requirements::emit),
    ];
    let mut per_emitter = Vec::new();
    for (name, f) in emitters {
        let times: Vec<Duration> = (0..3)
            .map(|_| {
                let t = Instant::now();
                let out = f(&cx).expect("emits");
                assert!(!out.is_empty());
                t.elapsed()
            })
            .collect();
        per_emitter.push((name, median(times)));
    }
    let parse = median(parse);
    let full = median(full);
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
        "| select (version, Android extension set, type closure) | {:.1} |",
        ms(select_time)
    );
    for (name, d) in &per_emitter {
        println!("| emit + format {name} (one thread) | {:.1} |", ms(*d));
    }
    println!(
        "| full generate, CPU time summed over its threads | {:.1} |",
        ms(median(full_cpu.clone()))
    );
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "| (1-minute load average during the run: {}) | |",
        load.split_whitespace().next().unwrap_or("?")
    );
    println!(
        "| full generate (parse + select + all emitters + formatting) | {:.1} |",
        ms(full)
    );
    println!("| peak RSS of `vkgen generate` (MB) | {:.1} |", rss);
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
