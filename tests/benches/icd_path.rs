//! The ICD path (issue 35, item 2): instance + device creation through a Khronos ICD loaded from
//! its JSON manifest, our `libvulkan.so` (with the native-buffer adapter `libvulkan_host.so`
//! beside it, as a Linux user gets it) side by side with Debian's Khronos `libvulkan.so.1`.
//!
//! The ICD is the tests' C fixture driver (`tests/tests/common/mod.rs`) built `ADAPTABLE` (so
//! the adapter takes it) and `ALL_1_0` (so Khronos' loader does). Each loader runs in child processes of this binary (re-executed with
//! `VKGEN_ICD_BENCH_CHILD`), alternated for several rounds, with `VK_DRIVER_FILES` = the
//! fixture's manifest and Khronos implicit layers off; ours also gets an empty `VKGEN_HAL_ROOT`.
//! Each child measures (median of 15 samples of about 40 ms):
//! 1. **create + destroy** of instance + device through the exported entry points
//!    (`vkCreateInstance`, `vkEnumeratePhysicalDevices`, `vkCreateDevice`, `vkDestroyDevice`,
//!    `vkDestroyInstance`), and `vkCreateInstance` + `vkDestroyInstance` alone;
//! 2. **the ICD's lookups** per cycle, in a second child per loader over the same fixture built
//!    with `RECORD_GIPA` / `RECORD_GDPA` (which record every name asked, so are not timed): how
//!    many names the loader (and for ours the adapter) asks the ICD's `vk_icdGetInstanceProcAddr`
//!    and `vkGetDeviceProcAddr` for in one steady-state cycle, per phase;
//! 3. **the ICD alone** (the `floor` child, timed in the same rounds): the fixture loaded without
//!    any loader, its own instance and device created and destroyed, and asked for exactly the
//!    names ours asked in step 2. Any loader that fills its tables when the objects are created
//!    (AOSP's `InitDispatchTable`, Khronos' loader, ours) pays at least this for those names, so
//!    `Khronos / floor` bounds the ratio any such loader can reach on that machine.
//!
//! Prerequisites: `cargo build --release -p vkgen-loader -p vkgen-driver-host`, Debian's
//! `libvulkan1`, and `cc` with `libvulkan-dev` for the fixture (compiled once into the target).
//!
//! Run: `cargo bench -p vkgen-tests --bench icd_path`. `VKGEN_BENCH_ROUNDS` (default 5) sets the
//! child processes per loader; `VKGEN_ICD_BENCH_LIBS` names the directory holding
//! `libvulkan.so` and `libvulkan_host.so` (default: this build's `target/release`);
//! `VKGEN_ICD_BENCH_FIXTURES` a directory holding prebuilt `icd_timed.so` and `icd_counted.so`
//! (a copied binary on a machine without a compiler); `VKGEN_ICD_BENCH_NAMES=1` prints the names
//! each loader asked for. A child run by hand with `VKGEN_ICD_BENCH_CYCLES=N` runs N cycles and
//! measures nothing (for `valgrind --tool=callgrind`).

#[path = "../tests/common/mod.rs"]
mod common;

use std::ffi::{CStr, CString};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ash::vk;
use serde_json::{json, Value};
use vkgen_tests::env::{controlled_command, describe_status, output_with_timeout, Env};
use vkgen_tests::paths;

const CHILD_VAR: &str = "VKGEN_ICD_BENCH_CHILD";
const LIB_VAR: &str = "VKGEN_ICD_BENCH_LIB";
const FIXTURE_VAR: &str = "VKGEN_ICD_BENCH_FIXTURE";
/// The floor child's names (see [`floor_names`]).
const FLOOR_NAMES_VAR: &str = "VKGEN_ICD_BENCH_FLOOR_NAMES";
const RESULT_PREFIX: &str = "ICD_BENCH_RESULT ";
const SAMPLES: usize = 15;
const SAMPLE_TARGET: Duration = Duration::from_millis(40);

/// The fixture's defines: timed (nothing recorded) and counted.
const TIMED: &[&str] = &["ADAPTABLE", "ALL_1_0"];
const COUNTED: &[&str] = &["ADAPTABLE", "ALL_1_0", "RECORD_GIPA", "RECORD_GDPA"];

fn main() {
    match std::env::var(CHILD_VAR) {
        Ok(which) => child(&which),
        Err(_) => parent(),
    }
}

/// The fixture built with `defines`, or its prebuilt copy `name` in `VKGEN_ICD_BENCH_FIXTURES`.
fn fixture(name: &str, defines: &[&str]) -> PathBuf {
    match std::env::var_os("VKGEN_ICD_BENCH_FIXTURES").filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(dir).join(name),
        None => common::fixture_icd(defines),
    }
}

fn parent() {
    let libs = std::env::var_os("VKGEN_ICD_BENCH_LIBS")
        .filter(|v| !v.is_empty())
        .map_or_else(paths::profile_dir, PathBuf::from);
    let ours = libs.join("libvulkan.so");
    for lib in [ours.clone(), libs.join("libvulkan_host.so")] {
        assert!(
            lib.is_file(),
            "{} not built: run `cargo build --release -p vkgen-loader -p vkgen-driver-host`",
            lib.display()
        );
    }
    let khronos = vkgen_tests::require(paths::system_loader());
    let rounds: usize = std::env::var("VKGEN_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(5);
    let dir = tempfile::tempdir().expect("temp dir");
    let empty_root = dir.path().join("empty-hal-root");
    std::fs::create_dir_all(&empty_root).expect("empty HAL root");
    let env_for = |which: &str, lib: &Path, icd: &Path, manifest: &str| {
        let manifest = common::icd_manifest(dir.path(), manifest, icd);
        let env = Env::new()
            .set("VK_DRIVER_FILES", manifest)
            .set(CHILD_VAR, which)
            .set(LIB_VAR, lib)
            .set(FIXTURE_VAR, icd);
        if which.starts_with("ours") {
            env.set("VKGEN_HAL_ROOT", &empty_root)
        } else {
            env
        }
    };
    let timed = fixture("icd_timed.so", TIMED);
    let counted = fixture("icd_counted.so", COUNTED);
    let counts = [
        run_child(&env_for("ours-count", &ours, &counted, "counted.json")),
        run_child(&env_for(
            "khronos-count",
            &khronos,
            &counted,
            "counted.json",
        )),
    ];
    let floor_env = env_for("floor", &timed, &timed, "timed.json")
        .set(FLOOR_NAMES_VAR, floor_names(&counts[0]).to_string());
    eprintln!(
        "icd path bench: {rounds} rounds, ours = {}, Khronos = {}, ICD = {}",
        ours.display(),
        khronos.display(),
        timed.display()
    );
    let mut results = [
        (env_for("ours", &ours, &timed, "timed.json"), Vec::new()),
        (
            env_for("khronos", &khronos, &timed, "timed.json"),
            Vec::new(),
        ),
        (floor_env, Vec::new()),
    ];
    for round in 0..rounds {
        // Alternate which loader goes first, so drifting machine load hits both alike.
        let order = if round % 2 == 0 { [0, 1, 2] } else { [1, 0, 2] };
        for i in order {
            let r = run_child(&results[i].0);
            eprintln!(
                "round {round} {:8} cycle {:.2} us, instance {:.2} us",
                r["loader"].as_str().unwrap_or("?"),
                num(&r, "cycle_us"),
                num(&r, "instance_us")
            );
            results[i].1.push(r);
        }
    }
    print_table(&results[0].1, &results[1].1, &counts, rounds);
    print_floor(&results[0].1, &results[1].1, &results[2].1);
}

/// Every name a counting child's loader asked the ICD for in its steady-state cycle, by lookup:
/// `{"gipa": [...], "gdpa": [...]}`.
fn floor_names(count: &Value) -> Value {
    let mut out = json!({ "gipa": [], "gdpa": [] });
    for phase in count["names"].as_array().into_iter().flatten() {
        let lookup = phase["lookup"].as_str().unwrap_or_default();
        if phase["phase"] == "before" {
            continue;
        }
        if let (Some(list), Some(names)) = (
            out.get_mut(lookup).and_then(Value::as_array_mut),
            phase["names"].as_array(),
        ) {
            list.extend(names.iter().cloned());
        }
    }
    out
}

/// The ICD alone beside both loaders: what the names ours asks cost the ICD itself.
fn print_floor(ours: &[Value], khronos: &[Value], floor: &[Value]) {
    let (o, ..) = over_rounds(ours, "cycle_us");
    let (k, ..) = over_rounds(khronos, "cycle_us");
    let (f, fmin, fmax) = over_rounds(floor, "cycle_us");
    println!();
    println!(
        "| the ICD alone: its create + destroy and the {} + {} names ours asks, no loader, µs | {f:.2} [{fmin:.2}–{fmax:.2}] | Khronos / ICD alone 1/{:.1} | ours beyond it {:.2} µs |",
        floor.first().map_or(0, |r| r["gipa_names"].as_u64().unwrap_or(0)),
        floor.first().map_or(0, |r| r["gdpa_names"].as_u64().unwrap_or(0)),
        k / f,
        o - f,
    );
}

fn run_child(env: &Env) -> Value {
    let exe = std::env::current_exe().expect("current exe");
    let mut cmd = controlled_command(&exe, env);
    let output = output_with_timeout(&mut cmd, Duration::from_secs(600))
        .unwrap_or_else(|e| panic!("child: {e}"));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "child failed ({}):\n--- stdout ---\n{stdout}\n--- stderr ---\n{stderr}",
        describe_status(output.status)
    );
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix(RESULT_PREFIX))
        .unwrap_or_else(|| panic!("child printed no result:\n{stdout}\n{stderr}"));
    serde_json::from_str(line).unwrap_or_else(|e| panic!("child result {line:?}: {e}"))
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

/// Median over the rounds of one per-child value, with its min and max.
fn over_rounds(results: &[Value], key: &str) -> (f64, f64, f64) {
    let mut v: Vec<f64> = results.iter().map(|r| num(r, key)).collect();
    let med = median(&mut v);
    let min = v.iter().copied().fold(f64::INFINITY, f64::min);
    let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (med, min, max)
}

fn print_table(ours: &[Value], khronos: &[Value], counts: &[Value; 2], rounds: usize) {
    println!();
    println!(
        "ICD path: median of {rounds} child processes per loader (each a median of {SAMPLES} \
         samples); [min–max over rounds]"
    );
    println!();
    println!(
        "| measurement | ours | Khronos (Debian libvulkan.so.1) | ours / Khronos | goal | met |"
    );
    println!("|---|---|---|---|---|---|");
    for (what, key, goal) in [
        (
            "**create+destroy instance+device**, µs",
            "cycle_us",
            Some(20.0),
        ),
        ("create+destroy instance alone, µs", "instance_us", None),
        ("device part (cycle − instance), µs", "device_us", None),
    ] {
        let (o, omin, omax) = over_rounds(ours, key);
        let (k, kmin, kmax) = over_rounds(khronos, key);
        let met = match goal {
            Some(f) if o <= k / f => "yes",
            Some(_) => "**no**",
            None => "",
        };
        println!(
            "| {what} | {o:.2} [{omin:.2}–{omax:.2}] | {k:.1} [{kmin:.1}–{kmax:.1}] | 1/{:.1} | {} | {met} |",
            k / o,
            goal.map_or(String::new(), |f| format!("≤ 1/{f}")),
        );
    }
    for (what, key) in [
        ("ICD vk_icdGetInstanceProcAddr calls per cycle", "gipa"),
        ("ICD vkGetDeviceProcAddr calls per cycle", "gdpa"),
    ] {
        let phases = |v: &Value| {
            let p = &v[key];
            format!(
                "{} (instance {}, enumerate {}, device {}, destroy {})",
                p["total"], p["create_instance"], p["enumerate"], p["create_device"], p["destroy"]
            )
        };
        println!(
            "| {what} | {} | {} | | | |",
            phases(&counts[0]),
            phases(&counts[1])
        );
    }
    if std::env::var_os("VKGEN_ICD_BENCH_NAMES").is_some() {
        for c in counts {
            println!("\n{}: {}", c["loader"], c["names"]);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Child: measure one loader.
// ---------------------------------------------------------------------------------------------

/// Median over [`SAMPLES`] samples of the time per call of `body` (which runs `n` iterations).
fn per_iteration(mut body: impl FnMut(u64)) -> f64 {
    body(1);
    let start = Instant::now();
    body(4);
    let one = start.elapsed().as_secs_f64() / 4.0;
    let n = ((SAMPLE_TARGET.as_secs_f64() / one.max(1e-9)) as u64).clamp(4, 10_000_000);
    let mut v: Vec<f64> = (0..SAMPLES)
        .map(|_| {
            let start = Instant::now();
            body(n);
            start.elapsed().as_nanos() as f64 / n as f64
        })
        .collect();
    median(&mut v)
}

/// The exported commands of one cycle.
struct Commands {
    create_instance: vk::PFN_vkCreateInstance,
    destroy_instance: vk::PFN_vkDestroyInstance,
    enumerate: vk::PFN_vkEnumeratePhysicalDevices,
    create_device: vk::PFN_vkCreateDevice,
    destroy_device: vk::PFN_vkDestroyDevice,
}

/// `dlsym` of `name` in the library `handle`, as the function type `F`.
///
/// # Safety
/// `F` is the function-pointer type of `name`.
unsafe fn sym<F: Copy>(handle: *mut std::ffi::c_void, name: &CStr) -> F {
    // SAFETY: a handle from dlopen and a C string.
    let p = unsafe { libc::dlsym(handle, name.as_ptr()) };
    assert!(!p.is_null(), "{name:?} is not exported");
    // SAFETY: `p` is the non-null address of `name`, whose type is `F` (the contract).
    unsafe { std::mem::transmute_copy::<*mut std::ffi::c_void, F>(&p) }
}

/// What a phase of the cycle did to the fixture's counters.
struct Counter {
    count: extern "C" fn() -> i32,
    name: extern "C" fn(i32) -> *const std::ffi::c_char,
    reset: extern "C" fn() -> i32,
}

impl Counter {
    fn names(&self) -> Vec<String> {
        (0..(self.count)())
            .map(|i| {
                let p = (self.name)(i);
                assert!(!p.is_null());
                // SAFETY: the fixture returns its recorded, NUL-terminated name.
                unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
            })
            .collect()
    }
}

fn child(which: &str) {
    if which == "floor" {
        return floor_child();
    }
    let lib_path = PathBuf::from(std::env::var_os(LIB_VAR).expect("loader path"));
    let c = CString::new(lib_path.as_os_str().as_encoded_bytes()).expect("path without NUL");
    // SAFETY: loading the loader under test runs its initialisers, which is the point.
    let handle = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
    assert!(!handle.is_null(), "{} does not load", lib_path.display());
    // SAFETY: each type is the PFN type of the named exported command.
    let cmds = unsafe {
        Commands {
            create_instance: sym(handle, c"vkCreateInstance"),
            destroy_instance: sym(handle, c"vkDestroyInstance"),
            enumerate: sym(handle, c"vkEnumeratePhysicalDevices"),
            create_device: sym(handle, c"vkCreateDevice"),
            destroy_device: sym(handle, c"vkDestroyDevice"),
        }
    };
    let app_info = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_1);
    let instance_info = vk::InstanceCreateInfo::default().application_info(&app_info);
    let priorities = [1.0f32];
    let queue_info = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&priorities)];
    let device_info = vk::DeviceCreateInfo::default().queue_create_infos(&queue_info);

    // SAFETY: a valid create info that outlives the call and a writable handle.
    let create_instance = || unsafe {
        let mut inst = vk::Instance::null();
        let r = (cmds.create_instance)(&instance_info, std::ptr::null(), &mut inst);
        assert_eq!(r, vk::Result::SUCCESS, "{which}: vkCreateInstance");
        inst
    };
    // SAFETY: `inst` is a live instance; the count and array are valid.
    let first_device = |inst| unsafe {
        let mut count = 1u32;
        let mut phys = vk::PhysicalDevice::null();
        let r = (cmds.enumerate)(inst, &mut count, &mut phys);
        assert!(
            r == vk::Result::SUCCESS || r == vk::Result::INCOMPLETE,
            "{r:?}"
        );
        assert_eq!(count, 1, "{which}: one physical device");
        phys
    };
    // SAFETY: a physical device of a live instance and a create info that outlives the call.
    let create_device = |phys| unsafe {
        let mut d = vk::Device::null();
        let r = (cmds.create_device)(phys, &device_info, std::ptr::null(), &mut d);
        assert_eq!(r, vk::Result::SUCCESS, "{which}: vkCreateDevice");
        d
    };
    // SAFETY: objects created above, destroyed once, the device before its instance.
    let destroy = |inst, d| unsafe {
        if d != vk::Device::null() {
            (cmds.destroy_device)(d, std::ptr::null());
        }
        (cmds.destroy_instance)(inst, std::ptr::null());
    };
    let cycle = || {
        let inst = create_instance();
        let d = create_device(first_device(inst));
        destroy(inst, d);
    };

    // Ours must have put the ICD behind the adapter: its devices then have VK_KHR_swapchain.
    // SAFETY: the exported command's type.
    let enumerate_extensions: vk::PFN_vkEnumerateDeviceExtensionProperties =
        unsafe { sym(handle, c"vkEnumerateDeviceExtensionProperties") };
    let inst = create_instance();
    let phys = first_device(inst);
    let mut count = 0u32;
    // SAFETY: a physical device of a live instance; a count query, then an array of `count`.
    let extensions = unsafe {
        let r = enumerate_extensions(phys, std::ptr::null(), &mut count, std::ptr::null_mut());
        assert_eq!(r, vk::Result::SUCCESS, "{which}: device extension count");
        let mut v = vec![vk::ExtensionProperties::default(); count as usize];
        let r = enumerate_extensions(phys, std::ptr::null(), &mut count, v.as_mut_ptr());
        assert_eq!(r, vk::Result::SUCCESS, "{which}: device extensions");
        v.truncate(count as usize);
        v
    };
    destroy(inst, vk::Device::null());
    let swapchain = extensions
        .iter()
        .any(|e| e.extension_name_as_c_str() == Ok(c"VK_KHR_swapchain"));
    assert!(
        swapchain || !which.starts_with("ours"),
        "{which}: the adapter did not take the ICD (no VK_KHR_swapchain)"
    );

    let fixture = PathBuf::from(std::env::var_os(FIXTURE_VAR).expect("fixture path"));
    let mut result = json!({ "loader": which, "swapchain": swapchain });
    if which.ends_with("-count") {
        // Khronos' loader unloads its ICDs with the last instance: one kept alive holds the
        // fixture (and its counters) loaded for both loaders alike.
        let keeper = create_instance();
        cycle(); // steady state: a cycle after the first instance
        let fc = CString::new(fixture.as_os_str().as_encoded_bytes()).expect("path");
        // SAFETY: the fixture is already loaded by the loader (RTLD_NOLOAD runs nothing).
        let fh = unsafe { libc::dlopen(fc.as_ptr(), libc::RTLD_NOW | libc::RTLD_NOLOAD) };
        assert!(!fh.is_null(), "{which}: the ICD is not loaded");
        // SAFETY: the fixture defines these with these types (`RECORD_GIPA` / `RECORD_GDPA`).
        let counter = |prefix: &str| unsafe {
            let n = |s: &str| CString::new(format!("fixture_{prefix}_{s}")).unwrap();
            Counter {
                count: sym(fh, &n("count")),
                name: sym(fh, &n("name")),
                reset: sym(fh, &n("reset")),
            }
        };
        let counters = [("gipa", counter("gipa")), ("gdpa", counter("gdpa"))];
        let mut phases: Vec<(&str, [usize; 2])> = Vec::new();
        let mut names = Vec::new();
        let mut take = |phase: &'static str| {
            let mut n = [0; 2];
            for (k, (prefix, c)) in counters.iter().enumerate() {
                let list = c.names();
                n[k] = list.len();
                names.push(json!({ "phase": phase, "lookup": prefix, "names": list }));
                (c.reset)();
            }
            phases.push((phase, n));
        };
        take("before");
        let inst = create_instance();
        take("create_instance");
        let phys = first_device(inst);
        take("enumerate");
        let d = create_device(phys);
        take("create_device");
        destroy(inst, d);
        take("destroy");
        destroy(keeper, vk::Device::null());
        for (k, (prefix, _)) in counters.iter().enumerate() {
            let mut o = serde_json::Map::new();
            let mut total = 0;
            for (phase, n) in &phases[1..] {
                o.insert((*phase).to_owned(), json!(n[k]));
                total += n[k];
            }
            o.insert("total".to_owned(), json!(total));
            result[*prefix] = Value::Object(o);
        }
        result["names"] = json!(names);
    } else if let Some(n) = std::env::var("VKGEN_ICD_BENCH_CYCLES")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    {
        // A fixed number of cycles, for a profiler's instruction counts.
        (0..n).for_each(|_| cycle());
    } else {
        let cycle_us = per_iteration(|n| (0..n).for_each(|_| cycle())) / 1000.0;
        let instance_us =
            per_iteration(|n| (0..n).for_each(|_| destroy(create_instance(), vk::Device::null())))
                / 1000.0;
        result["cycle_us"] = json!(cycle_us);
        result["instance_us"] = json!(instance_us);
        result["device_us"] = json!(cycle_us - instance_us);
    }
    println!("{RESULT_PREFIX}{result}");
}

/// The `floor` child: the fixture ICD without a loader. Negotiates once, then each cycle creates
/// its instance, asks `vk_icdGetInstanceProcAddr` for the instance names ours asked, enumerates,
/// creates the device, asks its `vkGetDeviceProcAddr` for the device names ours asked, and
/// destroys both.
fn floor_child() {
    let icd = PathBuf::from(std::env::var_os(FIXTURE_VAR).expect("fixture path"));
    let names: Value =
        serde_json::from_str(&std::env::var(FLOOR_NAMES_VAR).expect("the names ours asked"))
            .expect("names JSON");
    let list = |key: &str| -> Vec<CString> {
        names[key]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(|n| CString::new(n).expect("name without NUL"))
            .collect()
    };
    let (gipa_names, gdpa_names) = (list("gipa"), list("gdpa"));
    let c = CString::new(icd.as_os_str().as_encoded_bytes()).expect("path without NUL");
    // SAFETY: loading the fixture ICD runs nothing but its (empty) initialisers.
    let handle = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
    assert!(!handle.is_null(), "{} does not load", icd.display());
    // SAFETY: the ICD interface's exported functions, with their types.
    let (negotiate, gipa) = unsafe {
        (
            sym::<unsafe extern "system" fn(*mut u32) -> vk::Result>(
                handle,
                c"vk_icdNegotiateLoaderICDInterfaceVersion",
            ),
            sym::<vk::PFN_vkGetInstanceProcAddr>(handle, c"vk_icdGetInstanceProcAddr"),
        )
    };
    let mut version = 5;
    // SAFETY: a writable version.
    assert_eq!(unsafe { negotiate(&mut version) }, vk::Result::SUCCESS);
    /// The ICD's function `name` for `instance`, as `F`.
    ///
    /// # Safety
    /// `F` is `name`'s type; `instance` null or the ICD's.
    unsafe fn get<F: Copy>(gipa: vk::PFN_vkGetInstanceProcAddr, i: vk::Instance, name: &CStr) -> F {
        // SAFETY: the caller's contract.
        let f = unsafe { gipa(i, name.as_ptr()) }.unwrap_or_else(|| panic!("{name:?}"));
        // SAFETY: `F` is `name`'s function-pointer type (the contract).
        unsafe { std::mem::transmute_copy(&f) }
    }
    // SAFETY: global and instance commands by their names and types.
    let create_instance: vk::PFN_vkCreateInstance =
        unsafe { get(gipa, vk::Instance::null(), c"vkCreateInstance") };
    let app_info = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_1);
    let instance_info = vk::InstanceCreateInfo::default().application_info(&app_info);
    let priorities = [1.0f32];
    let queue_info = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&priorities)];
    let device_info = vk::DeviceCreateInfo::default().queue_create_infos(&queue_info);
    // The commands the cycle calls, asked once (the fixture answers alike for every instance
    // and device), so that the cycle asks nothing beyond the names ours asked.
    // SAFETY: a valid create info, then the ICD's own commands by name and type on its own
    // objects, destroyed once, the device first.
    let (enumerate, create_device, gdpa, destroy_device, destroy_instance) = unsafe {
        let mut inst = vk::Instance::null();
        let r = create_instance(&instance_info, std::ptr::null(), &mut inst);
        assert_eq!(r, vk::Result::SUCCESS);
        let enumerate: vk::PFN_vkEnumeratePhysicalDevices =
            get(gipa, inst, c"vkEnumeratePhysicalDevices");
        let create_device: vk::PFN_vkCreateDevice = get(gipa, inst, c"vkCreateDevice");
        let gdpa: vk::PFN_vkGetDeviceProcAddr = get(gipa, inst, c"vkGetDeviceProcAddr");
        let destroy_instance: vk::PFN_vkDestroyInstance = get(gipa, inst, c"vkDestroyInstance");
        let (mut count, mut phys) = (1u32, vk::PhysicalDevice::null());
        assert_eq!(enumerate(inst, &mut count, &mut phys), vk::Result::SUCCESS);
        let mut d = vk::Device::null();
        let r = create_device(phys, &device_info, std::ptr::null(), &mut d);
        assert_eq!(r, vk::Result::SUCCESS);
        let destroy_device: vk::PFN_vkDestroyDevice = std::mem::transmute_copy(
            &gdpa(d, c"vkDestroyDevice".as_ptr()).expect("vkDestroyDevice"),
        );
        destroy_device(d, std::ptr::null());
        destroy_instance(inst, std::ptr::null());
        (
            enumerate,
            create_device,
            gdpa,
            destroy_device,
            destroy_instance,
        )
    };
    let mut sink = 0usize;
    let mut cycle = || {
        let mut inst = vk::Instance::null();
        // SAFETY: the ICD's own functions asked above, each with its type, on the instance and
        // device this cycle creates (a valid create info, writable handles), destroyed once.
        unsafe {
            let r = create_instance(&instance_info, std::ptr::null(), &mut inst);
            assert_eq!(r, vk::Result::SUCCESS);
            for n in &gipa_names {
                sink ^= gipa(inst, n.as_ptr()).map_or(0, |f| f as usize);
            }
            let (mut count, mut phys) = (1u32, vk::PhysicalDevice::null());
            assert_eq!(enumerate(inst, &mut count, &mut phys), vk::Result::SUCCESS);
            let mut d = vk::Device::null();
            let r = create_device(phys, &device_info, std::ptr::null(), &mut d);
            assert_eq!(r, vk::Result::SUCCESS);
            for n in &gdpa_names {
                sink ^= gdpa(d, n.as_ptr()).map_or(0, |f| f as usize);
            }
            destroy_device(d, std::ptr::null());
            destroy_instance(inst, std::ptr::null());
        }
    };
    let cycles = std::env::var("VKGEN_ICD_BENCH_CYCLES")
        .ok()
        .and_then(|v| v.parse::<u64>().ok());
    let cycle_us = match cycles {
        // A fixed number of cycles, for a profiler's instruction counts.
        Some(n) => {
            (0..n).for_each(|_| cycle());
            0.0
        }
        None => per_iteration(|n| (0..n).for_each(|_| cycle())) / 1000.0,
    };
    std::hint::black_box(sink);
    let result = json!({
        "loader": "floor",
        "cycle_us": cycle_us,
        "instance_us": 0.0,
        "gipa_names": gipa_names.len(),
        "gdpa_names": gdpa_names.len(),
    });
    println!("{RESULT_PREFIX}{result}");
}
