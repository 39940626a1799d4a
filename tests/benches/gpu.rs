//! GPU run: our loader + `vulkan.host.so` (HAL) over a real ICD, against Debian's Khronos loader
//! over the same ICD directly. Meant for the NVIDIA machine; runs the same way (smaller sizes)
//! over lavapipe here.
//!
//! Each measurement runs in a child process per loader (this binary re-executed with
//! `VKGEN_GPU_BENCH_CHILD`), alternating ours / Khronos for several rounds:
//! 1. **Correctness**: `fill.comp` through [`vkgen_tests::compute::run_fill_compute`] over `n`
//!    elements (64 Mi on a GPU), every value compared with the reference.
//! 2. **Throughput**: one large dispatch of an integer-ALU shader (`ALU_GLSL`, `iters` rounds of
//!    an LCG + xorshift per element) writing a device-local buffer (256 MiB on a GPU), timed with
//!    GPU timestamps and by the host (submit → fence), median of several runs; the result is read
//!    back and every element checked.
//! 3. **Per-submit cost**: an empty command buffer submitted many times, through the loader's
//!    exported `vkQueueSubmit` (the trampoline) and through the `vkGetDeviceProcAddr` pointer:
//!    pipelined (fence on the last submit only; host time of the submit loop per submit) and
//!    round trip (submit with a fence, wait, reset). Measured in each loader's child and, the
//!    figure to read, in `pair` children that load **both** loaders into one process and
//!    interleave the four (loader, entry point) configurations block by block, so that drift in
//!    the GPU's or the host's state between processes cancels out.
//!
//! Configuration (environment; `cargo bench` passes only `--bench`):
//! * `VKGEN_GPU_LIBS`: directory with `libvulkan.so` and `libvulkan_host.so` (default: the
//!   profile directory of this build, i.e. `target/release`);
//! * `VKGEN_GPU_HOST_ICD`: the ICD manifest both loaders use (default: lavapipe's);
//! * `VKGEN_GPU_SYSTEM_LOADER`: Debian's loader (default `/usr/lib/<arch>-linux-gnu/libvulkan.so.1`);
//! * `VKGEN_GPU_SPIRV`: the compiled `ALU_GLSL` (default: compiled now with `glslangValidator`);
//! * `VKGEN_BENCH_ROUNDS`: child processes per loader (default 3);
//! * `VKGEN_GPU_OURS_PATH=icd`: our loader takes the ICD through its manifest (the native-buffer
//!   adapter) rather than `vulkan.host.so` as the HAL module;
//! * `VKGEN_GPU_LOG` / `VKGEN_GPU_LOADER_DEBUG`: passed to the children as `VKGEN_LOG` (ours) /
//!   `VK_LOADER_DEBUG` (Khronos).
//!
//! Run here: `cargo build --release -p vkgen-loader -p vkgen-driver-host && cargo bench -p
//! vkgen-tests --bench gpu`. On the GPU machine see BENCHMARKS.md ("GPU").

use std::ffi::{c_void, CStr, CString};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ash::vk;
use serde_json::{json, Value};
use vkgen_tests::compute;
use vkgen_tests::env::{controlled_command, describe_status, output_with_timeout, Env};
use vkgen_tests::paths;

const CHILD_VAR: &str = "VKGEN_GPU_BENCH_CHILD";
const LIB_VAR: &str = "VKGEN_GPU_BENCH_LIB";
const SPIRV_VAR: &str = "VKGEN_GPU_BENCH_SPIRV";
const RESULT_PREFIX: &str = "GPU_BENCH_RESULT ";
/// The two loaders of a `pair` child.
const OURS_LIB_VAR: &str = "VKGEN_GPU_BENCH_OURS";
const KHRONOS_LIB_VAR: &str = "VKGEN_GPU_BENCH_KHRONOS";

/// The throughput shader: integer ALU work per element, result depends on every round.
const ALU_GLSL: &str = r#"#version 450
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) buffer Out { uint data[]; } out_buf;
layout(push_constant) uniform Push { uint n; uint iters; uint seed; } pc;
void main() {
    uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 256u
        + gl_LocalInvocationID.x;
    if (i >= pc.n) {
        return;
    }
    uint x = i * 0x9E3779B9u + pc.seed;
    for (uint k = 0u; k < pc.iters; ++k) {
        x = x * 1664525u + 1013904223u;
        x ^= x >> 15u;
    }
    out_buf.data[i] = x;
}
"#;
const ALU_LOCAL_SIZE: u32 = 256;

/// The host reference of `ALU_GLSL`.
fn alu_reference(i: u32, iters: u32, seed: u32) -> u32 {
    let mut x = i.wrapping_mul(0x9E37_79B9).wrapping_add(seed);
    for _ in 0..iters {
        x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        x ^= x >> 15;
    }
    x
}

fn main() {
    match std::env::var(CHILD_VAR) {
        Ok(which) if which == "pair" => pair_child(),
        Ok(which) => child(&which),
        Err(_) => parent(),
    }
}

// ---------------------------------------------------------------------------------------------
// Parent.
// ---------------------------------------------------------------------------------------------

fn env_path(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

fn parent() {
    let libs = env_path("VKGEN_GPU_LIBS").unwrap_or_else(paths::profile_dir);
    let ours = libs.join("libvulkan.so");
    let host = libs.join("libvulkan_host.so");
    for lib in [&ours, &host] {
        assert!(
            lib.is_file(),
            "{} missing: run `cargo build --release -p vkgen-loader -p vkgen-driver-host` \
             (or set VKGEN_GPU_LIBS)",
            lib.display()
        );
    }
    let icd = env_path("VKGEN_GPU_HOST_ICD")
        .unwrap_or_else(|| vkgen_tests::require(paths::lavapipe_manifest()));
    let khronos = env_path("VKGEN_GPU_SYSTEM_LOADER")
        .unwrap_or_else(|| vkgen_tests::require(paths::system_loader()));
    let rounds: usize = std::env::var("VKGEN_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(3);

    let dir = tempfile::tempdir().expect("temp dir");
    let spirv = env_path("VKGEN_GPU_SPIRV").unwrap_or_else(|| compile_alu(dir.path()));

    // Our loader: the host driver as the HAL module `vulkan.host.so`, no ICD manifest visible.
    let hw = dir.path().join("vendor/lib64/hw");
    std::fs::create_dir_all(&hw).expect("HAL dir");
    std::os::unix::fs::symlink(&host, hw.join("vulkan.host.so")).expect("HAL module link");
    let props = dir.path().join("build.prop");
    std::fs::write(&props, "ro.hardware.vulkan=host\n").expect("build.prop");
    let no_icds = dir.path().join("no-icds");
    std::fs::create_dir_all(&no_icds).expect("empty ICD dir");
    // `VKGEN_GPU_OURS_PATH=icd`: our loader opens the ICD through its manifest instead (no HAL
    // module), i.e. through the native-buffer adapter.
    let icd_path = std::env::var("VKGEN_GPU_OURS_PATH").is_ok_and(|v| v == "icd");
    let ours_env = if icd_path {
        Env::new()
            .set("VKGEN_HAL_ROOT", &no_icds)
            .set("VK_DRIVER_FILES", &icd)
    } else {
        Env::new()
            .set("VKGEN_HAL_ROOT", dir.path())
            .set("VKGEN_PROPERTIES", &props)
            .set("VK_DRIVER_FILES", &no_icds)
            .set("VKGEN_HOST_ICD", &icd)
    };
    let ours_env = ours_env
        .set(CHILD_VAR, "ours")
        .set(LIB_VAR, &ours)
        .set(SPIRV_VAR, &spirv);
    let khronos_env = Env::new()
        .set("VK_DRIVER_FILES", &icd)
        .set(CHILD_VAR, "khronos")
        .set(LIB_VAR, &khronos)
        .set(SPIRV_VAR, &spirv);

    // Diagnostics: `VKGEN_GPU_LOG` becomes our loader's `VKGEN_LOG`, `VKGEN_GPU_LOADER_DEBUG`
    // the Khronos loader's `VK_LOADER_DEBUG` (children otherwise get no `VK*` variables).
    let (mut ours_env, mut khronos_env) = (ours_env, khronos_env);
    if let Some(v) = std::env::var_os("VKGEN_GPU_LOG") {
        ours_env = ours_env.set("VKGEN_LOG", v);
    }
    if let Some(v) = std::env::var_os("VKGEN_GPU_LOADER_DEBUG") {
        khronos_env = khronos_env.set("VK_LOADER_DEBUG", v);
    }
    probe_icd(&icd);
    eprintln!(
        "gpu bench: {rounds} rounds; ours = {} + {}; Khronos = {}; ICD manifest {}",
        ours.display(),
        if icd_path {
            "the ICD through the native-buffer adapter".to_string()
        } else {
            format!("HAL {}", host.display())
        },
        khronos.display(),
        icd.display()
    );
    let (mut ours_results, mut khronos_results) = (Vec::new(), Vec::new());
    let mut failures: Vec<String> = Vec::new();
    for round in 0..rounds {
        let order = if round % 2 == 0 {
            [("ours", &ours_env), ("khronos", &khronos_env)]
        } else {
            [("khronos", &khronos_env), ("ours", &ours_env)]
        };
        for (name, env) in order {
            match run_child(name, env) {
                Ok(r) => {
                    eprintln!("round {round} {name:8} {r}");
                    if name == "ours" {
                        ours_results.push(r);
                    } else {
                        khronos_results.push(r);
                    }
                }
                // Keep going: the other loader's numbers are still worth having.
                Err(e) => failures.push(format!("round {round} {name}: {e}")),
            }
        }
    }
    // Per-submit cost with both loaders in one process, interleaved (no drift between
    // processes). `VK_DRIVER_FILES` is for the Khronos loader; ours takes the HAL module, which
    // when present is its only driver.
    let pair_env = Env::new()
        .set("VKGEN_HAL_ROOT", dir.path())
        .set("VKGEN_PROPERTIES", &props)
        .set("VKGEN_HOST_ICD", &icd)
        .set("VK_DRIVER_FILES", &icd)
        .set(CHILD_VAR, "pair")
        .set(OURS_LIB_VAR, &ours)
        .set(KHRONOS_LIB_VAR, &khronos);
    let mut pair_results = Vec::new();
    for round in 0..rounds {
        match run_child("pair", &pair_env) {
            Ok(r) => {
                eprintln!("round {round} pair     {r}");
                pair_results.push(r);
            }
            Err(e) => failures.push(format!("round {round} pair: {e}")),
        }
    }
    for f in &failures {
        println!("FAILED {f}");
    }
    if ours_results.is_empty() || khronos_results.is_empty() {
        for (name, results) in [("ours", &ours_results), ("khronos", &khronos_results)] {
            for r in results.iter() {
                println!("{name}: {r}");
            }
        }
        panic!("no complete comparison: a loader failed in every round (see FAILED above)");
    }
    print_report(&ours_results, &khronos_results, rounds);
    if !pair_results.is_empty() {
        print_pair_report(&pair_results);
    }
    assert!(failures.is_empty(), "{} child runs failed", failures.len());
}

fn compile_alu(dir: &Path) -> PathBuf {
    let src = dir.join("alu.comp");
    let spv = dir.join("alu.comp.spv");
    std::fs::write(&src, ALU_GLSL).expect("write alu.comp");
    let out = std::process::Command::new("glslangValidator")
        .arg("-V")
        .arg(&src)
        .arg("-o")
        .arg(&spv)
        .output()
        .expect("glslangValidator (apt-get install glslang-tools), or set VKGEN_GPU_SPIRV");
    assert!(
        out.status.success(),
        "glslangValidator failed: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    spv
}

fn run_child(name: &str, env: &Env) -> Result<Value, String> {
    let exe = std::env::current_exe().expect("current exe");
    let mut cmd = controlled_command(&exe, env);
    let output = output_with_timeout(&mut cmd, Duration::from_secs(300))
        .map_err(|e| format!("{name} child: {e}"))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        return Err(format!(
            "{name} child failed ({}):\n--- stdout ---\n{stdout}\n--- stderr ---\n{stderr}",
            describe_status(output.status)
        ));
    }
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix(RESULT_PREFIX))
        .ok_or_else(|| format!("{name} child printed no result:\n{stdout}\n{stderr}"))?;
    serde_json::from_str(line).map_err(|e| format!("{name} child result {line:?}: {e}"))
}

/// Opens the ICD the way `vulkan.host.so` does (manifest → `dlopen(RTLD_NOW | RTLD_LOCAL)` →
/// `vk_icd*` symbols → negotiation → an apiVersion 1.1 instance) and prints every step, so a
/// host-driver failure, which the driver itself cannot log, can be pinned down.
fn probe_icd(manifest: &Path) {
    let text = match std::fs::read_to_string(manifest) {
        Ok(t) => t,
        Err(e) => return eprintln!("probe: cannot read {}: {e}", manifest.display()),
    };
    let json: Value = match serde_json::from_str(&text) {
        Ok(j) => j,
        Err(e) => return eprintln!("probe: {} is not JSON: {e}", manifest.display()),
    };
    let Some(lib) = json.pointer("/ICD/library_path").and_then(Value::as_str) else {
        return eprintln!("probe: no ICD.library_path");
    };
    let lib_path = if lib.starts_with('/') || !lib.contains('/') {
        PathBuf::from(lib)
    } else {
        manifest.parent().unwrap_or(Path::new(".")).join(lib)
    };
    let c = CString::new(lib_path.as_os_str().as_encoded_bytes()).expect("no NUL");
    // SAFETY: loading the ICD named by the manifest, as any loader does; kept loaded.
    let handle = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
    if handle.is_null() {
        // SAFETY: dlerror returns null or a C string owned by libc.
        let err = unsafe { libc::dlerror() };
        let msg = if err.is_null() {
            "?".into()
        } else {
            // SAFETY: non-null C string from dlerror.
            unsafe { CStr::from_ptr(err) }.to_string_lossy()
        };
        return eprintln!("probe: dlopen({}) failed: {msg}", lib_path.display());
    }
    // SAFETY: a dlopen handle and C strings.
    let sym = |name: &CStr| unsafe { libc::dlsym(handle, name.as_ptr()) };
    let hmi = sym(c"HMI");
    let gipa = sym(c"vk_icdGetInstanceProcAddr");
    let negotiate = sym(c"vk_icdNegotiateLoaderICDInterfaceVersion");
    let gpdpa = sym(c"vk_icdGetPhysicalDeviceProcAddr");
    eprintln!(
        "probe: {} loaded; HMI {:?}, vk_icdGetInstanceProcAddr {:?}, vk_icdNegotiate… {:?}, \
         vk_icdGetPhysicalDeviceProcAddr {:?}",
        lib_path.display(),
        hmi,
        gipa,
        negotiate,
        gpdpa
    );
    if gipa.is_null() {
        return;
    }
    // SAFETY: the ICD's vk_icdGetInstanceProcAddr.
    let gipa = unsafe { std::mem::transmute::<*mut c_void, vk::PFN_vkGetInstanceProcAddr>(gipa) };
    if !negotiate.is_null() {
        // SAFETY: the ICD's negotiation entry point.
        let negotiate = unsafe {
            std::mem::transmute::<*mut c_void, unsafe extern "system" fn(*mut u32) -> vk::Result>(
                negotiate,
            )
        };
        let mut v = 7u32;
        // SAFETY: a valid in/out pointer.
        let r = unsafe { negotiate(&mut v) };
        eprintln!("probe: negotiate(7) = {r:?}, version {v}");
    }
    // SAFETY: global queries through the ICD's own lookup, with the right function types.
    unsafe {
        if let Some(f) = gipa(vk::Instance::null(), c"vkEnumerateInstanceVersion".as_ptr()) {
            let f = std::mem::transmute::<
                unsafe extern "system" fn(),
                vk::PFN_vkEnumerateInstanceVersion,
            >(f);
            let mut v = 0;
            let r = f(&mut v);
            eprintln!(
                "probe: vkEnumerateInstanceVersion = {r:?}, {}.{}.{}",
                vk::api_version_major(v),
                vk::api_version_minor(v),
                vk::api_version_patch(v)
            );
        }
        let Some(create) = gipa(vk::Instance::null(), c"vkCreateInstance".as_ptr()) else {
            return eprintln!("probe: no vkCreateInstance");
        };
        let create =
            std::mem::transmute::<unsafe extern "system" fn(), vk::PFN_vkCreateInstance>(create);
        let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_1);
        let ci = vk::InstanceCreateInfo::default().application_info(&app);
        let mut instance = vk::Instance::null();
        let r = create(&ci, std::ptr::null(), &mut instance);
        eprintln!("probe: vkCreateInstance(apiVersion 1.1) = {r:?}");
        if r != vk::Result::SUCCESS {
            return;
        }
        if let Some(f) = gipa(instance, c"vkEnumeratePhysicalDevices".as_ptr()) {
            let f = std::mem::transmute::<
                unsafe extern "system" fn(),
                vk::PFN_vkEnumeratePhysicalDevices,
            >(f);
            let mut n = 0;
            let r = f(instance, &mut n, std::ptr::null_mut());
            eprintln!("probe: vkEnumeratePhysicalDevices = {r:?}, {n} device(s)");
        }
        if let Some(f) = gipa(instance, c"vkDestroyInstance".as_ptr()) {
            let f =
                std::mem::transmute::<unsafe extern "system" fn(), vk::PFN_vkDestroyInstance>(f);
            f(instance, std::ptr::null());
        }
    }
}

fn num(v: &Value, key: &str) -> f64 {
    v.get(key)
        .and_then(Value::as_f64)
        .unwrap_or_else(|| panic!("result lacks {key}: {v}"))
}

fn median(v: &mut [f64]) -> f64 {
    assert!(!v.is_empty());
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn over_rounds(results: &[Value], key: &str) -> (f64, f64, f64) {
    let mut v: Vec<f64> = results.iter().map(|r| num(r, key)).collect();
    let med = median(&mut v);
    (med, v[0], v[v.len() - 1])
}

fn print_report(ours: &[Value], khronos: &[Value], rounds: usize) {
    let k0 = &khronos[0];
    let o0 = &ours[0];
    let s = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("?").to_owned();
    println!();
    println!(
        "Device (Khronos path): {} | driver {} ({}) {} | Vulkan {}",
        s(k0, "device_name"),
        s(k0, "driver_name"),
        s(k0, "driver_version"),
        s(k0, "driver_info"),
        s(k0, "api_version")
    );
    println!(
        "Device (our path):     {} | driver {} ({}) {} | Vulkan {}",
        s(o0, "device_name"),
        s(o0, "driver_name"),
        s(o0, "driver_version"),
        s(o0, "driver_info"),
        s(o0, "api_version")
    );
    println!(
        "Correctness: fill.comp over {} elements, every value checked: ours {}, Khronos {}; \
         ALU result ({} elements × {} rounds) checked: ours {}, Khronos {}",
        num(o0, "fill_n"),
        if ours.iter().all(|r| r["fill_ok"] == true) {
            "PASS"
        } else {
            "FAIL"
        },
        if khronos.iter().all(|r| r["fill_ok"] == true) {
            "PASS"
        } else {
            "FAIL"
        },
        num(o0, "alu_n"),
        num(o0, "alu_iters"),
        if ours.iter().all(|r| r["alu_ok"] == true) {
            "PASS"
        } else {
            "FAIL"
        },
        if khronos.iter().all(|r| r["alu_ok"] == true) {
            "PASS"
        } else {
            "FAIL"
        },
    );
    println!();
    println!(
        "Median of {rounds} child processes per loader (each a median of its own runs); \
         [min–max over rounds]"
    );
    println!();
    println!("| measurement | unit | ours (vkgen + vulkan.host.so) | Khronos (Debian libvulkan.so.1) | ours − Khronos | ours / Khronos | goal | met |");
    println!("|---|---|---|---|---|---|---|---|");
    struct Row {
        what: &'static str,
        key: &'static str,
        unit: &'static str,
        digits: usize,
        goal: &'static str,
        met: Option<fn(f64, f64) -> bool>,
    }
    let rows = [
        Row {
            what: "large dispatch, GPU time (timestamps)",
            key: "alu_gpu_ms",
            unit: "ms",
            digits: 3,
            goal: "throughput ≥ 0.99 of Khronos",
            met: Some(|o, k| k / o >= 0.99),
        },
        Row {
            what: "large dispatch, host time (submit → fence)",
            key: "alu_wall_ms",
            unit: "ms",
            digits: 3,
            goal: "throughput ≥ 0.99 of Khronos",
            met: Some(|o, k| k / o >= 0.99),
        },
        Row {
            what: "vkQueueSubmit (exported), pipelined, host time [separate processes]",
            key: "submit_exported_pipelined_us",
            unit: "µs/submit",
            digits: 3,
            goal: "≤ +1 µs",
            met: Some(|o, k| o - k <= 1.0),
        },
        Row {
            what: "vkQueueSubmit (exported), submit + wait + reset [separate processes]",
            key: "submit_exported_roundtrip_us",
            unit: "µs/submit",
            digits: 2,
            goal: "≤ +1 µs",
            met: Some(|o, k| o - k <= 1.0),
        },
        Row {
            what: "vkQueueSubmit (GDPA pointer), pipelined, host time [separate processes]",
            key: "submit_gdpa_pipelined_us",
            unit: "µs/submit",
            digits: 3,
            goal: "≤ +1 µs",
            met: Some(|o, k| o - k <= 1.0),
        },
        Row {
            what: "vkQueueSubmit (GDPA pointer), submit + wait + reset [separate processes]",
            key: "submit_gdpa_roundtrip_us",
            unit: "µs/submit",
            digits: 2,
            goal: "≤ +1 µs",
            met: Some(|o, k| o - k <= 1.0),
        },
    ];
    for row in rows {
        let (o, omin, omax) = over_rounds(ours, row.key);
        let (k, kmin, kmax) = over_rounds(khronos, row.key);
        let met = match row.met {
            Some(f) if f(o, k) => "yes",
            Some(_) => "**no**",
            None => "",
        };
        println!(
            "| {} | {} | {:.d$} [{:.d$}–{:.d$}] | {:.d$} [{:.d$}–{:.d$}] | {:+.d$} | {:.4} | {} | {} |",
            row.what,
            row.unit,
            o,
            omin,
            omax,
            k,
            kmin,
            kmax,
            o - k,
            o / k,
            row.goal,
            met,
            d = row.digits,
        );
    }
    let (o, _, _) = over_rounds(ours, "alu_gpu_ms");
    let (k, _, _) = over_rounds(khronos, "alu_gpu_ms");
    let (ow, _, _) = over_rounds(ours, "alu_wall_ms");
    let (kw, _, _) = over_rounds(khronos, "alu_wall_ms");
    let ops = num(o0, "alu_n") * num(o0, "alu_iters");
    println!();
    println!(
        "Throughput (element-rounds/s): GPU time ours {:.3e}, Khronos {:.3e} → ours/Khronos = {:.4}; \
         host time ours {:.3e}, Khronos {:.3e} → {:.4}",
        ops / (o * 1e-3),
        ops / (k * 1e-3),
        k / o,
        ops / (ow * 1e-3),
        ops / (kw * 1e-3),
        kw / ow
    );
}

// ---------------------------------------------------------------------------------------------
// Child.
// ---------------------------------------------------------------------------------------------

struct Lib(*mut c_void);

impl Lib {
    fn open(path: &Path) -> Self {
        let c = CString::new(path.as_os_str().as_encoded_bytes()).expect("path without NUL");
        // SAFETY: `c` names a library already loaded (by ash): only a new reference is taken.
        let handle = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_NOLOAD) };
        assert!(!handle.is_null(), "{} is not loaded", path.display());
        Self(handle)
    }

    /// # Safety
    /// `F` must be the function-pointer type of the command `name`.
    unsafe fn sym<F: Copy>(&self, name: &CStr) -> F {
        assert_eq!(std::mem::size_of::<F>(), std::mem::size_of::<*mut c_void>());
        // SAFETY: a dlopen handle and a C string.
        let p = unsafe { libc::dlsym(self.0, name.as_ptr()) };
        assert!(!p.is_null(), "{name:?} is not exported");
        // SAFETY: the non-null address of the exported function `name`, of type `F` per the
        // contract; function and data pointers have the same size (checked).
        unsafe { std::mem::transmute_copy::<*mut c_void, F>(&p) }
    }
}

fn check(r: vk::Result, what: &str) {
    assert_eq!(r, vk::Result::SUCCESS, "{what}");
}

fn memory_type(
    props: &vk::PhysicalDeviceMemoryProperties,
    bits: u32,
    want: vk::MemoryPropertyFlags,
    prefer: vk::MemoryPropertyFlags,
) -> u32 {
    let types = props.memory_types_as_slice();
    let ok = |i: usize, flags: vk::MemoryPropertyFlags| {
        bits & (1 << i) != 0 && types[i].property_flags.contains(flags)
    };
    (0..types.len())
        .find(|&i| ok(i, want | prefer))
        .or_else(|| (0..types.len()).find(|&i| ok(i, want)))
        .map(|i| i as u32)
        .unwrap_or_else(|| panic!("no memory type {want:?} in bits {bits:#x}"))
}

/// A buffer with its own memory.
struct Buf {
    buffer: vk::Buffer,
    memory: vk::DeviceMemory,
}

impl Buf {
    fn new(
        device: &ash::Device,
        mem_props: &vk::PhysicalDeviceMemoryProperties,
        size: u64,
        usage: vk::BufferUsageFlags,
        want: vk::MemoryPropertyFlags,
        prefer: vk::MemoryPropertyFlags,
    ) -> Self {
        // SAFETY: a live device and valid create/allocate infos; the buffer is bound once.
        unsafe {
            let buffer = device
                .create_buffer(
                    &vk::BufferCreateInfo::default()
                        .size(size)
                        .usage(usage)
                        .sharing_mode(vk::SharingMode::EXCLUSIVE),
                    None,
                )
                .expect("vkCreateBuffer");
            let req = device.get_buffer_memory_requirements(buffer);
            let memory = device
                .allocate_memory(
                    &vk::MemoryAllocateInfo::default()
                        .allocation_size(req.size)
                        .memory_type_index(memory_type(
                            mem_props,
                            req.memory_type_bits,
                            want,
                            prefer,
                        )),
                    None,
                )
                .expect("vkAllocateMemory");
            device
                .bind_buffer_memory(buffer, memory, 0)
                .expect("vkBindBufferMemory");
            Self { buffer, memory }
        }
    }

    /// # Safety
    /// The device must be idle with respect to this buffer.
    unsafe fn destroy(self, device: &ash::Device) {
        // SAFETY: the caller promises these objects were created from `device` and are unused.
        unsafe {
            device.destroy_buffer(self.buffer, None);
            device.free_memory(self.memory, None);
        }
    }
}

/// Checks every element of an ALU result with the host reference, on all cores.
fn verify_alu(got: &[u32], iters: u32, seed: u32) -> Result<(), String> {
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let chunk = got.len().div_ceil(threads).max(1);
    let bad: Vec<(usize, u32, u32)> = std::thread::scope(|s| {
        let handles: Vec<_> = got
            .chunks(chunk)
            .enumerate()
            .map(|(c, part)| {
                s.spawn(move || {
                    part.iter()
                        .enumerate()
                        .filter_map(|(j, &v)| {
                            let i = c * chunk + j;
                            let want = alu_reference(i as u32, iters, seed);
                            (v != want).then_some((i, v, want))
                        })
                        .take(8)
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("verify thread"))
            .collect()
    });
    if bad.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "ALU result wrong, e.g. {:?}",
            &bad[..bad.len().min(8)]
        ))
    }
}

fn driver_version_string(vendor: u32, v: u32) -> String {
    if vendor == 0x10de {
        format!(
            "{}.{}.{}.{}",
            v >> 22,
            (v >> 14) & 0xff,
            (v >> 6) & 0xff,
            v & 0x3f
        )
    } else {
        format!(
            "{}.{}.{}",
            vk::api_version_major(v),
            vk::api_version_minor(v),
            vk::api_version_patch(v)
        )
    }
}

fn child(which: &str) {
    let lib_path = PathBuf::from(std::env::var_os(LIB_VAR).expect("loader path"));
    let spirv_path = PathBuf::from(std::env::var_os(SPIRV_VAR).expect("SPIR-V path"));
    let entry = vkgen_tests::require(compute::load_entry(&lib_path));
    let lib = Lib::open(&lib_path);
    // SAFETY: the type is PFN_vkQueueSubmit's.
    let exported_submit = unsafe { lib.sym::<vk::PFN_vkQueueSubmit>(c"vkQueueSubmit") };

    let instance = compute::create_instance(&entry, &[], &[])
        .unwrap_or_else(|e| panic!("{which}: vkCreateInstance: {e:?}"));
    let (pd, family) = vkgen_tests::require(compute::pick_compute_device(&instance));
    // SAFETY: `pd` belongs to the live instance.
    let (props, mem_props, families, exts) = unsafe {
        (
            instance.get_physical_device_properties(pd),
            instance.get_physical_device_memory_properties(pd),
            instance.get_physical_device_queue_family_properties(pd),
            instance
                .enumerate_device_extension_properties(pd)
                .expect("vkEnumerateDeviceExtensionProperties"),
        )
    };
    let device_name = props
        .device_name_as_c_str()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let is_cpu = props.device_type == vk::PhysicalDeviceType::CPU;
    let (mut driver_name, mut driver_info) = (String::new(), String::new());
    if exts
        .iter()
        .any(|e| e.extension_name_as_c_str() == Ok(c"VK_KHR_driver_properties"))
    {
        let mut drv = vk::PhysicalDeviceDriverProperties::default();
        let mut p2 = vk::PhysicalDeviceProperties2::default().push_next(&mut drv);
        // SAFETY: the device supports VK_KHR_driver_properties; the chain outlives the call.
        unsafe { instance.get_physical_device_properties2(pd, &mut p2) };
        driver_name = drv
            .driver_name_as_c_str()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        driver_info = drv
            .driver_info_as_c_str()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
    }

    // 1. Correctness through the harness's fill round trip (its own instance and device).
    let fill_n: u32 = if is_cpu { 4_000_000 } else { 1 << 26 };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let multiplier = (now.subsec_nanos() ^ std::process::id().wrapping_mul(0x9E37_79B9)) | 1;
    let fill_ok = match compute::run_fill_compute(&entry, fill_n, multiplier)
        .and_then(|got| compute::verify_fill(&got, fill_n, multiplier))
    {
        Ok(()) => true,
        Err(e) => {
            eprintln!("{which}: fill compute FAILED: {e}");
            false
        }
    };

    let device = vkgen_tests::require(compute::create_device(&instance, pd, family));
    // SAFETY: the queue family and index exist (one queue was requested).
    let queue = unsafe { device.get_device_queue(family, 0) };
    let gdpa_submit = device.fp_v1_0().queue_submit;

    // 2. Throughput.
    let (alu_n, iters): (u32, u32) = if is_cpu {
        (1 << 20, 64)
    } else {
        (1 << 26, 1024)
    };
    let seed = multiplier.rotate_left(7);
    let size = u64::from(alu_n) * 4;
    let out = Buf::new(
        &device,
        &mem_props,
        size,
        vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::TRANSFER_SRC,
        vk::MemoryPropertyFlags::DEVICE_LOCAL,
        vk::MemoryPropertyFlags::empty(),
    );
    let readback = Buf::new(
        &device,
        &mem_props,
        size,
        vk::BufferUsageFlags::TRANSFER_DST,
        vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT,
        vk::MemoryPropertyFlags::HOST_CACHED,
    );
    let spirv_bytes = std::fs::read(&spirv_path).expect("read SPIR-V");
    let code: Vec<u32> = spirv_bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let timestamps = families[family as usize].timestamp_valid_bits > 0;
    let groups = alu_n.div_ceil(ALU_LOCAL_SIZE);
    let gx = groups.min(32_768);
    let gy = groups.div_ceil(gx);
    let push: [u32; 3] = [alu_n, iters, seed];
    let push_bytes: Vec<u8> = push.iter().flat_map(|w| w.to_ne_bytes()).collect();

    // SAFETY: (this whole block) every handle is created from `device` here, used by this
    // thread only, and destroyed at the end of the block after the device is idle; create infos
    // and the arrays they point to outlive their calls.
    let (alu_gpu_ms, alu_wall_ms, alu_ok, submit) = unsafe {
        let set_layout = device
            .create_descriptor_set_layout(
                &vk::DescriptorSetLayoutCreateInfo::default().bindings(&[
                    vk::DescriptorSetLayoutBinding::default()
                        .binding(0)
                        .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                        .descriptor_count(1)
                        .stage_flags(vk::ShaderStageFlags::COMPUTE),
                ]),
                None,
            )
            .expect("vkCreateDescriptorSetLayout");
        let pool = device
            .create_descriptor_pool(
                &vk::DescriptorPoolCreateInfo::default()
                    .max_sets(1)
                    .pool_sizes(&[vk::DescriptorPoolSize::default()
                        .ty(vk::DescriptorType::STORAGE_BUFFER)
                        .descriptor_count(1)]),
                None,
            )
            .expect("vkCreateDescriptorPool");
        let set = device
            .allocate_descriptor_sets(
                &vk::DescriptorSetAllocateInfo::default()
                    .descriptor_pool(pool)
                    .set_layouts(&[set_layout]),
            )
            .expect("vkAllocateDescriptorSets")[0];
        device.update_descriptor_sets(
            &[vk::WriteDescriptorSet::default()
                .dst_set(set)
                .dst_binding(0)
                .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                .buffer_info(&[vk::DescriptorBufferInfo::default()
                    .buffer(out.buffer)
                    .offset(0)
                    .range(size)])],
            &[],
        );
        let layout = device
            .create_pipeline_layout(
                &vk::PipelineLayoutCreateInfo::default()
                    .set_layouts(&[set_layout])
                    .push_constant_ranges(&[vk::PushConstantRange::default()
                        .stage_flags(vk::ShaderStageFlags::COMPUTE)
                        .offset(0)
                        .size(12)]),
                None,
            )
            .expect("vkCreatePipelineLayout");
        let module = device
            .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&code), None)
            .expect("vkCreateShaderModule");
        let pipeline = device
            .create_compute_pipelines(
                vk::PipelineCache::null(),
                &[vk::ComputePipelineCreateInfo::default()
                    .stage(
                        vk::PipelineShaderStageCreateInfo::default()
                            .stage(vk::ShaderStageFlags::COMPUTE)
                            .module(module)
                            .name(c"main"),
                    )
                    .layout(layout)],
                None,
            )
            .map_err(|(_, e)| e)
            .expect("vkCreateComputePipelines")[0];
        let query_pool = device
            .create_query_pool(
                &vk::QueryPoolCreateInfo::default()
                    .query_type(vk::QueryType::TIMESTAMP)
                    .query_count(2),
                None,
            )
            .expect("vkCreateQueryPool");
        let cmd_pool = device
            .create_command_pool(
                &vk::CommandPoolCreateInfo::default().queue_family_index(family),
                None,
            )
            .expect("vkCreateCommandPool");
        let cbs = device
            .allocate_command_buffers(
                &vk::CommandBufferAllocateInfo::default()
                    .command_pool(cmd_pool)
                    .level(vk::CommandBufferLevel::PRIMARY)
                    .command_buffer_count(3),
            )
            .expect("vkAllocateCommandBuffers");
        let (alu_cb, copy_cb, empty_cb) = (cbs[0], cbs[1], cbs[2]);
        let fence = device
            .create_fence(&vk::FenceCreateInfo::default(), None)
            .expect("vkCreateFence");

        // The dispatch, between two timestamps.
        device
            .begin_command_buffer(alu_cb, &vk::CommandBufferBeginInfo::default())
            .expect("begin");
        if timestamps {
            device.cmd_reset_query_pool(alu_cb, query_pool, 0, 2);
            device.cmd_write_timestamp(alu_cb, vk::PipelineStageFlags::TOP_OF_PIPE, query_pool, 0);
        }
        device.cmd_bind_pipeline(alu_cb, vk::PipelineBindPoint::COMPUTE, pipeline);
        device.cmd_bind_descriptor_sets(
            alu_cb,
            vk::PipelineBindPoint::COMPUTE,
            layout,
            0,
            &[set],
            &[],
        );
        device.cmd_push_constants(
            alu_cb,
            layout,
            vk::ShaderStageFlags::COMPUTE,
            0,
            &push_bytes,
        );
        device.cmd_dispatch(alu_cb, gx, gy, 1);
        if timestamps {
            device.cmd_write_timestamp(
                alu_cb,
                vk::PipelineStageFlags::BOTTOM_OF_PIPE,
                query_pool,
                1,
            );
        }
        device.end_command_buffer(alu_cb).expect("end");

        // The read-back copy.
        device
            .begin_command_buffer(copy_cb, &vk::CommandBufferBeginInfo::default())
            .expect("begin");
        device.cmd_pipeline_barrier(
            copy_cb,
            vk::PipelineStageFlags::COMPUTE_SHADER,
            vk::PipelineStageFlags::TRANSFER,
            vk::DependencyFlags::empty(),
            &[vk::MemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::SHADER_WRITE)
                .dst_access_mask(vk::AccessFlags::TRANSFER_READ)],
            &[],
            &[],
        );
        device.cmd_copy_buffer(
            copy_cb,
            out.buffer,
            readback.buffer,
            &[vk::BufferCopy::default().size(size)],
        );
        device.cmd_pipeline_barrier(
            copy_cb,
            vk::PipelineStageFlags::TRANSFER,
            vk::PipelineStageFlags::HOST,
            vk::DependencyFlags::empty(),
            &[vk::MemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                .dst_access_mask(vk::AccessFlags::HOST_READ)],
            &[],
            &[],
        );
        device.end_command_buffer(copy_cb).expect("end");

        // The empty command buffer for the submit measurements.
        device
            .begin_command_buffer(
                empty_cb,
                &vk::CommandBufferBeginInfo::default()
                    .flags(vk::CommandBufferUsageFlags::SIMULTANEOUS_USE),
            )
            .expect("begin");
        device.end_command_buffer(empty_cb).expect("end");

        let submit_wait = |cb: vk::CommandBuffer| {
            let cbs = [cb];
            let info = [vk::SubmitInfo::default().command_buffers(&cbs)];
            let t = Instant::now();
            device
                .queue_submit(queue, &info, fence)
                .expect("vkQueueSubmit");
            device
                .wait_for_fences(&[fence], true, 60_000_000_000)
                .expect("vkWaitForFences");
            let wall = t.elapsed();
            device.reset_fences(&[fence]).expect("vkResetFences");
            wall
        };

        // Warm-up, then timed runs.
        let runs = if is_cpu { 5 } else { 11 };
        for _ in 0..2 {
            submit_wait(alu_cb);
        }
        let (mut gpu, mut wall) = (Vec::new(), Vec::new());
        for _ in 0..runs {
            let w = submit_wait(alu_cb);
            wall.push(w.as_secs_f64() * 1e3);
            if timestamps {
                let mut ts = [0u64; 2];
                device
                    .get_query_pool_results(
                        query_pool,
                        0,
                        &mut ts,
                        vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
                    )
                    .expect("vkGetQueryPoolResults");
                let bits = families[family as usize].timestamp_valid_bits;
                let mask = if bits >= 64 {
                    u64::MAX
                } else {
                    (1u64 << bits) - 1
                };
                let ticks = ts[1].wrapping_sub(ts[0]) & mask;
                gpu.push(ticks as f64 * f64::from(props.limits.timestamp_period) * 1e-6);
            }
        }
        let alu_wall_ms = median(&mut wall);
        let alu_gpu_ms = if gpu.is_empty() {
            alu_wall_ms
        } else {
            median(&mut gpu)
        };

        // Read back and check every element.
        submit_wait(copy_cb);
        let ptr = device
            .map_memory(readback.memory, 0, size, vk::MemoryMapFlags::empty())
            .expect("vkMapMemory");
        let got = std::slice::from_raw_parts(ptr.cast::<u32>(), alu_n as usize);
        let alu_ok = match verify_alu(got, iters, seed) {
            Ok(()) => true,
            Err(e) => {
                eprintln!("{which}: {e}");
                false
            }
        };
        device.unmap_memory(readback.memory);

        // 3. Per-submit cost, through both entry points.
        let batch: usize = if is_cpu { 500 } else { 2000 };
        let samples = if is_cpu { 5 } else { 9 };
        let cbs_empty = [empty_cb];
        let info = vk::SubmitInfo::default().command_buffers(&cbs_empty);
        let mut submit = Vec::new();
        for (path, f) in [("exported", exported_submit), ("gdpa", gdpa_submit)] {
            let pipelined_once = || {
                let t = Instant::now();
                for i in 0..batch {
                    let fence_i = if i + 1 == batch {
                        fence
                    } else {
                        vk::Fence::null()
                    };
                    check(f(queue, 1, &info, fence_i), "vkQueueSubmit");
                }
                let submit_time = t.elapsed();
                device
                    .wait_for_fences(&[fence], true, 60_000_000_000)
                    .expect("vkWaitForFences");
                device.reset_fences(&[fence]).expect("vkResetFences");
                submit_time.as_secs_f64() * 1e6 / batch as f64
            };
            let roundtrip_once = || {
                let t = Instant::now();
                for _ in 0..batch {
                    check(f(queue, 1, &info, fence), "vkQueueSubmit");
                    device
                        .wait_for_fences(&[fence], true, 60_000_000_000)
                        .expect("vkWaitForFences");
                    device.reset_fences(&[fence]).expect("vkResetFences");
                }
                t.elapsed().as_secs_f64() * 1e6 / batch as f64
            };
            pipelined_once();
            roundtrip_once();
            let mut p: Vec<f64> = (0..samples).map(|_| pipelined_once()).collect();
            let mut r: Vec<f64> = (0..samples).map(|_| roundtrip_once()).collect();
            submit.push((path, median(&mut p), median(&mut r)));
        }

        device.device_wait_idle().expect("vkDeviceWaitIdle");
        device.destroy_fence(fence, None);
        device.destroy_command_pool(cmd_pool, None);
        device.destroy_query_pool(query_pool, None);
        device.destroy_pipeline(pipeline, None);
        device.destroy_shader_module(module, None);
        device.destroy_pipeline_layout(layout, None);
        device.destroy_descriptor_pool(pool, None);
        device.destroy_descriptor_set_layout(set_layout, None);
        (alu_gpu_ms, alu_wall_ms, alu_ok, submit)
    };
    // SAFETY: the device is idle and nothing uses the buffers any more.
    unsafe {
        out.destroy(&device);
        readback.destroy(&device);
    }
    drop(device);
    drop(instance);

    let mut result = json!({
        "loader": which,
        "device_name": device_name,
        "driver_name": driver_name,
        "driver_info": driver_info,
        "driver_version": driver_version_string(props.vendor_id, props.driver_version),
        "api_version": format!(
            "{}.{}.{}",
            vk::api_version_major(props.api_version),
            vk::api_version_minor(props.api_version),
            vk::api_version_patch(props.api_version)
        ),
        "timestamps": timestamps,
        "fill_n": fill_n,
        "fill_ok": fill_ok,
        "alu_n": alu_n,
        "alu_iters": iters,
        "alu_ok": alu_ok,
        "alu_gpu_ms": alu_gpu_ms,
        "alu_wall_ms": alu_wall_ms,
    });
    for (path, pipelined, roundtrip) in submit {
        result[format!("submit_{path}_pipelined_us")] = json!(pipelined);
        result[format!("submit_{path}_roundtrip_us")] = json!(roundtrip);
    }
    println!("{RESULT_PREFIX}{result}");
    assert!(fill_ok && alu_ok, "{which}: wrong results (see above)");
}

/// Per-submit cost, both loaders in one process: medians over the pair children of each
/// configuration's median and of the per-repetition differences ours − Khronos.
fn print_pair_report(results: &[Value]) {
    println!();
    println!(
        "Per-submit cost, both loaders in one process, configurations interleaved block by block \
         (median of {} processes; [min–max]):",
        results.len()
    );
    println!();
    println!("| vkQueueSubmit of an empty command buffer | ours µs/submit | Khronos µs/submit | ours − Khronos (median of paired blocks) | goal ≤ +1 µs |");
    println!("|---|---|---|---|---|");
    for (mode, label) in [
        (
            "pipelined",
            "pipelined (fence on the last of each block), host time of the submits",
        ),
        ("roundtrip", "submit + vkWaitForFences + vkResetFences"),
    ] {
        for path in ["exported", "gdpa"] {
            let (o, omin, omax) = over_rounds(results, &format!("{mode}_{path}_ours_us"));
            let (k, kmin, kmax) = over_rounds(results, &format!("{mode}_{path}_khronos_us"));
            let (d, dmin, dmax) = over_rounds(results, &format!("{mode}_{path}_diff_us"));
            let how = if path == "exported" {
                "exported symbol (trampoline)"
            } else {
                "vkGetDeviceProcAddr pointer"
            };
            println!(
                "| {label}, {how} | {o:.3} [{omin:.3}–{omax:.3}] | {k:.3} [{kmin:.3}–{kmax:.3}] | {d:+.3} [{dmin:+.3}–{dmax:+.3}] | {} |",
                if d <= 1.0 { "yes" } else { "**no**" }
            );
        }
    }
}

/// One loader's device set up for the submit measurements.
struct SubmitSide {
    // Dropped in this order: device, instance, then the loader library.
    device: compute::OwnedDevice,
    instance: compute::OwnedInstance,
    _entry: ash::Entry,
    queue: vk::Queue,
    pool: vk::CommandPool,
    cb: vk::CommandBuffer,
    fence: vk::Fence,
    exported: vk::PFN_vkQueueSubmit,
    gdpa: vk::PFN_vkQueueSubmit,
}

impl SubmitSide {
    fn new(lib_path: &Path) -> Self {
        let entry = vkgen_tests::require(compute::load_entry(lib_path));
        let lib = Lib::open(lib_path);
        // SAFETY: the type is PFN_vkQueueSubmit's.
        let exported = unsafe { lib.sym::<vk::PFN_vkQueueSubmit>(c"vkQueueSubmit") };
        let instance = compute::create_instance(&entry, &[], &[])
            .unwrap_or_else(|e| panic!("{}: vkCreateInstance: {e:?}", lib_path.display()));
        let (pd, family) = vkgen_tests::require(compute::pick_compute_device(&instance));
        let device = vkgen_tests::require(compute::create_device(&instance, pd, family));
        let gdpa = device.fp_v1_0().queue_submit;
        // SAFETY: a live device; the objects are destroyed in `Drop` before it.
        let (queue, pool, cb, fence) = unsafe {
            let queue = device.get_device_queue(family, 0);
            let pool = device
                .create_command_pool(
                    &vk::CommandPoolCreateInfo::default().queue_family_index(family),
                    None,
                )
                .expect("vkCreateCommandPool");
            let cb = device
                .allocate_command_buffers(
                    &vk::CommandBufferAllocateInfo::default()
                        .command_pool(pool)
                        .level(vk::CommandBufferLevel::PRIMARY)
                        .command_buffer_count(1),
                )
                .expect("vkAllocateCommandBuffers")[0];
            device
                .begin_command_buffer(
                    cb,
                    &vk::CommandBufferBeginInfo::default()
                        .flags(vk::CommandBufferUsageFlags::SIMULTANEOUS_USE),
                )
                .expect("begin");
            device.end_command_buffer(cb).expect("end");
            let fence = device
                .create_fence(&vk::FenceCreateInfo::default(), None)
                .expect("vkCreateFence");
            (queue, pool, cb, fence)
        };
        Self {
            device,
            instance,
            _entry: entry,
            queue,
            pool,
            cb,
            fence,
            exported,
            gdpa,
        }
    }

    /// µs per submit of one block of `n` submits through `f`.
    fn block(&self, f: vk::PFN_vkQueueSubmit, roundtrip: bool, n: usize) -> f64 {
        let cbs = [self.cb];
        let info = vk::SubmitInfo::default().command_buffers(&cbs);
        let d = &self.device;
        // SAFETY: a live queue, a fully recorded SIMULTANEOUS_USE command buffer and an
        // unsignalled fence of this device, used by this thread only.
        unsafe {
            let t = Instant::now();
            let mut submit_time = Duration::ZERO;
            for i in 0..n {
                let fence = if roundtrip || i + 1 == n {
                    self.fence
                } else {
                    vk::Fence::null()
                };
                check(f(self.queue, 1, &info, fence), "vkQueueSubmit");
                if roundtrip {
                    d.wait_for_fences(&[self.fence], true, 60_000_000_000)
                        .expect("vkWaitForFences");
                    d.reset_fences(&[self.fence]).expect("vkResetFences");
                }
            }
            if !roundtrip {
                submit_time = t.elapsed();
                d.wait_for_fences(&[self.fence], true, 60_000_000_000)
                    .expect("vkWaitForFences");
                d.reset_fences(&[self.fence]).expect("vkResetFences");
            }
            let total = if roundtrip { t.elapsed() } else { submit_time };
            total.as_secs_f64() * 1e6 / n as f64
        }
    }
}

impl Drop for SubmitSide {
    fn drop(&mut self) {
        // SAFETY: objects of this live device, idle after the wait.
        unsafe {
            let _ = self.device.device_wait_idle();
            self.device.destroy_fence(self.fence, None);
            self.device.destroy_command_pool(self.pool, None);
        }
    }
}

/// Both loaders in this process; the four (loader, entry point) configurations measured in
/// interleaved blocks, rotating the order every repetition.
fn pair_child() {
    let ours_path = PathBuf::from(std::env::var_os(OURS_LIB_VAR).expect("our loader"));
    let khronos_path = PathBuf::from(std::env::var_os(KHRONOS_LIB_VAR).expect("Khronos loader"));
    let ours = SubmitSide::new(&ours_path);
    let khronos = SubmitSide::new(&khronos_path);
    let is_cpu = {
        // SAFETY: a live instance; its first device is the one in use.
        let pds = unsafe { ours.instance.enumerate_physical_devices() }.expect("devices");
        // SAFETY: a physical device the live instance just enumerated.
        let props = unsafe { ours.instance.get_physical_device_properties(pds[0]) };
        props.device_type == vk::PhysicalDeviceType::CPU
    };
    let reps = if is_cpu { 10 } else { 40 };
    let mut result = json!({ "reps": reps });
    for (mode, roundtrip, n) in [("pipelined", false, 500), ("roundtrip", true, 200)] {
        let n = if is_cpu { n / 5 } else { n };
        let configs: [(&str, &SubmitSide, vk::PFN_vkQueueSubmit, &str); 4] = [
            ("exported", &ours, ours.exported, "ours"),
            ("exported", &khronos, khronos.exported, "khronos"),
            ("gdpa", &ours, ours.gdpa, "ours"),
            ("gdpa", &khronos, khronos.gdpa, "khronos"),
        ];
        for &(_, side, f, _) in &configs {
            side.block(f, roundtrip, n);
        }
        let mut samples: [Vec<f64>; 4] = Default::default();
        for rep in 0..reps {
            for k in 0..4 {
                let c = (k + rep) % 4;
                let (_, side, f, _) = configs[c];
                samples[c].push(side.block(f, roundtrip, n));
            }
        }
        for (path, o, k) in [("exported", 0, 1), ("gdpa", 2, 3)] {
            let mut diff: Vec<f64> = samples[o]
                .iter()
                .zip(&samples[k])
                .map(|(a, b)| a - b)
                .collect();
            result[format!("{mode}_{path}_diff_us")] = json!(median(&mut diff));
            result[format!("{mode}_{path}_ours_us")] = json!(median(&mut samples[o].clone()));
            result[format!("{mode}_{path}_khronos_us")] = json!(median(&mut samples[k].clone()));
        }
    }
    drop(khronos);
    drop(ours);
    println!("{RESULT_PREFIX}{result}");
}
