//! WSI benchmark: the loader's swapchain on vkgen's reference drivers (installed as the HAL
//! module, as in the WSI tests) and a `vkgen-window` `BufferQueue`.
//!
//! 1. **Null backend, CPU cost per frame**: `vkAcquireNextImageKHR` (signalling a semaphore) +
//!    `vkQueuePresentKHR` (waiting on it), nothing else, on a 64×64 FIFO swapchain whose window
//!    drops unconsumed frames. Timed in samples of [`NULL_CYCLES_PER_SAMPLE`] cycles; acquire
//!    and present are also timed separately (with `Instant` around each call, so their sum
//!    carries the timer's own cost). The window's `dequeueBuffer`/`queueBuffer` are inside
//!    these numbers: they are what an app pays per frame. The same window driven directly
//!    through the `ANativeWindow` ABI (no Vulkan) gives the window's own share.
//! 2. **Host backend (lavapipe), frames per second of the pixel test**: the triangle renderer
//!    of `wsi_host.rs` (acquire, record, submit, present) with the consumer acquiring every
//!    frame (fence wait + copy out as RGBA8), at the test's 160×120 and at 512×512; the
//!    surface, swapchain and pipeline are created before the timed frames.
//!
//! Each backend runs in its own child process (this binary re-executed with
//! `VKGEN_WSI_BENCH_CHILD`), since the loader reads its HAL configuration once per process. The
//! table goes to stdout; each child also prints one JSON line.
//!
//! Prerequisites: `cargo build --release --workspace`. Run:
//! `cargo bench -p vkgen-tests --bench wsi`. `VKGEN_BENCH_ROUNDS` (default 5) sets the number of
//! samples.

#[path = "../tests/wsi_support/mod.rs"]
mod wsi_support;

use std::ffi::{c_int, c_void};
use std::time::{Duration, Instant};

use ash::vk;
use serde_json::{json, Value};
use vkgen_tests::env::{controlled_command, describe_status, output_with_timeout};
use vkgen_tests::paths;
use wsi_support::{hal_env, window, TriangleSession, Wsi};

const CHILD_VAR: &str = "VKGEN_WSI_BENCH_CHILD";
const RESULT_PREFIX: &str = "WSI_BENCH_RESULT ";
/// Cycles per timed sample on the null backend.
const NULL_CYCLES_PER_SAMPLE: u32 = 50_000;
/// Frames per timed sample on lavapipe.
const HOST_FRAMES_PER_SAMPLE: u32 = 120;

fn main() {
    // libtest-style arguments (`--bench`) are ignored.
    match std::env::var(CHILD_VAR) {
        Ok(which) => child(&which),
        Err(_) => parent(),
    }
}

fn rounds() -> usize {
    std::env::var("VKGEN_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(5)
}

fn parent() {
    let exe = std::env::current_exe().expect("the bench binary");
    let mut results = Vec::new();
    for backend in ["null", "host"] {
        let (env, _root) = hal_env(backend, "");
        let env = env
            .set(CHILD_VAR, backend)
            .set("VKGEN_BENCH_ROUNDS", rounds().to_string());
        let mut cmd = controlled_command(&exe, &env);
        let out = output_with_timeout(&mut cmd, Duration::from_secs(600))
            .unwrap_or_else(|e| panic!("{backend} child: {e}"));
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let Some(line) = stdout.lines().find_map(|l| l.strip_prefix(RESULT_PREFIX)) else {
            panic!(
                "{backend} child failed ({}):\n{stdout}\n{stderr}",
                describe_status(out.status)
            );
        };
        results.push(serde_json::from_str::<Value>(line).expect("child JSON"));
    }
    let null = &results[0];
    let host = &results[1];
    let f = |v: &Value, k: &str| v[k].as_f64().unwrap_or(f64::NAN);
    println!();
    println!("WSI benchmark (median of {} samples)", rounds());
    println!();
    println!("| measurement | value |");
    println!("|---|---|");
    println!(
        "| null: acquire + present per frame | **{:.2} µs** |",
        f(null, "cycle_us")
    );
    println!(
        "| null: of which vkAcquireNextImageKHR | {:.2} µs |",
        f(null, "acquire_us")
    );
    println!(
        "| null: of which vkQueuePresentKHR | {:.2} µs |",
        f(null, "present_us")
    );
    println!(
        "| null: the window alone (dequeueBuffer + queueBuffer through the ABI) | {:.2} µs |",
        f(null, "window_only_us")
    );
    println!(
        "| null: loader + null driver on top of the window | {:.2} µs |",
        f(null, "loader_overhead_us")
    );
    println!(
        "| lavapipe: pixel test (160×120), frames per second | **{:.0}** |",
        f(host, "fps_small")
    );
    println!(
        "| lavapipe: 512×512, frames per second | {:.0} |",
        f(host, "fps_large")
    );
    println!(
        "| lavapipe: loader acquire + present CPU per frame (160×120) | {:.1} µs |",
        f(host, "wsi_us_small")
    );
    println!();
    println!("null: {null}");
    println!("host: {host}");
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn child(which: &str) {
    let loader = vkgen_tests::require(paths::loader_under_test());
    let result = match which {
        "null" => bench_null(&loader),
        "host" => bench_host(&loader),
        other => panic!("unknown backend {other}"),
    };
    println!("{RESULT_PREFIX}{result}");
}

fn bench_null(loader: &std::path::Path) -> Value {
    let wsi = Wsi::new(loader, &[], &[], &[]).expect("null instance and device");
    let win = window(64, 64);
    let surface = wsi.create_surface(&win).expect("surface");
    let sc = wsi
        .create_swapchain(&wsi.swapchain_info(surface))
        .expect("swapchain");
    // SAFETY: a valid create info.
    let sem = unsafe {
        wsi.device
            .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)
    }
    .unwrap();
    let acquire = wsi.swapchain_fns.fp().acquire_next_image_khr;
    let present = wsi.swapchain_fns.fp().queue_present_khr;
    let device = wsi.device.handle();
    let waits = [sem];
    let swapchains = [sc];
    let mut index = 0u32;
    let mut indices = [0u32];
    let run = |n: u32, split: bool, index: &mut u32, indices: &mut [u32; 1]| {
        let (mut a_ns, mut p_ns) = (0u128, 0u128);
        let start = Instant::now();
        for _ in 0..n {
            let t0 = split.then(Instant::now);
            // SAFETY: live objects; the semaphore is waited on by the present below.
            let r = unsafe { acquire(device, sc, u64::MAX, sem, vk::Fence::null(), index) };
            assert_eq!(r, vk::Result::SUCCESS);
            let t1 = split.then(Instant::now);
            indices[0] = *index;
            let info = vk::PresentInfoKHR::default()
                .wait_semaphores(&waits)
                .swapchains(&swapchains)
                .image_indices(&indices[..]);
            // SAFETY: a valid present of the acquired image.
            let r = unsafe { present(wsi.queue, &info) };
            assert_eq!(r, vk::Result::SUCCESS);
            if let (Some(t0), Some(t1)) = (t0, t1) {
                a_ns += (t1 - t0).as_nanos();
                p_ns += t1.elapsed().as_nanos();
            }
        }
        (start.elapsed(), a_ns, p_ns)
    };
    run(5_000, false, &mut index, &mut indices);
    let mut cycle = Vec::new();
    let mut acq = Vec::new();
    let mut pres = Vec::new();
    for _ in 0..rounds() {
        let (t, _, _) = run(NULL_CYCLES_PER_SAMPLE, false, &mut index, &mut indices);
        cycle.push(t.as_nanos() as f64 / f64::from(NULL_CYCLES_PER_SAMPLE) / 1000.0);
        let (_, a, p) = run(NULL_CYCLES_PER_SAMPLE, true, &mut index, &mut indices);
        acq.push(a as f64 / f64::from(NULL_CYCLES_PER_SAMPLE) / 1000.0);
        pres.push(p as f64 / f64::from(NULL_CYCLES_PER_SAMPLE) / 1000.0);
    }
    // SAFETY: idle device; unused objects.
    unsafe {
        let _ = wsi.device.device_wait_idle();
        wsi.device.destroy_semaphore(sem, None);
    }
    wsi.destroy_swapchain(sc);
    // The window alone (still connected through the surface): what the loader adds on top.
    let raw = raw_window_cycle_us(&win);
    wsi.destroy_surface(surface);
    let cycle = median(cycle);
    json!({
        "cycle_us": cycle,
        "acquire_us": median(acq),
        "present_us": median(pres),
        "window_only_us": raw,
        "loader_overhead_us": cycle - raw,
        "cycles_per_sample": NULL_CYCLES_PER_SAMPLE,
        "window_frames": win.frame_count(),
    })
}

/// `dequeueBuffer` + `queueBuffer` straight through the `ANativeWindow` ABI, no Vulkan: the
/// window's own cost per frame (µs, median of the rounds).
fn raw_window_cycle_us(win: &std::sync::Arc<vkgen_window::BufferQueue>) -> f64 {
    type Dequeue = unsafe extern "C" fn(*mut c_void, *mut *mut c_void, *mut c_int) -> c_int;
    type Queue = unsafe extern "C" fn(*mut c_void, *mut c_void, c_int) -> c_int;
    const _: () = assert!(
        std::mem::size_of::<usize>() == 8,
        "LP64 ANativeWindow offsets"
    );
    let w = win.window().cast::<c_void>();
    // SAFETY: `ANativeWindow` on LP64: `dequeueBuffer` at 168, `queueBuffer` at 176 (locked by
    // the ABI mirror's layout tests); the window is live.
    let (dequeue, queue) = unsafe {
        (
            *w.cast::<u8>().add(168).cast::<Option<Dequeue>>(),
            *w.cast::<u8>().add(176).cast::<Option<Queue>>(),
        )
    };
    let (dequeue, queue) = (dequeue.expect("dequeueBuffer"), queue.expect("queueBuffer"));
    let cycle = || {
        let mut buffer = std::ptr::null_mut();
        let mut fd: c_int = -1;
        // SAFETY: the window's own functions with valid out-pointers; the fence is closed.
        unsafe {
            assert_eq!(dequeue(w, &mut buffer, &mut fd), 0);
            if fd >= 0 {
                libc::close(fd);
            }
            assert_eq!(queue(w, buffer, -1), 0);
        }
    };
    for _ in 0..5_000 {
        cycle();
    }
    let mut samples = Vec::new();
    for _ in 0..rounds() {
        let start = Instant::now();
        for _ in 0..NULL_CYCLES_PER_SAMPLE {
            cycle();
        }
        samples
            .push(start.elapsed().as_nanos() as f64 / f64::from(NULL_CYCLES_PER_SAMPLE) / 1000.0);
    }
    median(samples)
}

/// Frames per second of the pixel-test loop at `w`×`h`.
fn host_fps(wsi: &Wsi, w: u32, h: u32) -> f64 {
    let win = window(w, h);
    let session = TriangleSession::new(wsi, &win).expect("session");
    for i in 0..10 {
        drop(session.frame(i).expect("warm-up"));
    }
    let mut fps = Vec::new();
    for _ in 0..rounds() {
        let start = Instant::now();
        for i in 0..HOST_FRAMES_PER_SAMPLE {
            let f = session.frame(i).expect("frame");
            std::hint::black_box(f.pixels.len());
        }
        fps.push(f64::from(HOST_FRAMES_PER_SAMPLE) / start.elapsed().as_secs_f64());
    }
    median(fps)
}

/// The loader's share on lavapipe: acquire + present of a cleared image, timed around the two
/// calls only (the GPU work is waited for outside the timed region).
fn host_wsi_us(wsi: &Wsi) -> f64 {
    let win = window(160, 120);
    let surface = wsi.create_surface(&win).unwrap();
    let sc = wsi.create_swapchain(&wsi.swapchain_info(surface)).unwrap();
    let fence = wsi.fence();
    let mut samples = Vec::new();
    for _ in 0..rounds() {
        let mut total = Duration::ZERO;
        let n = 200;
        for _ in 0..n {
            let t0 = Instant::now();
            // SAFETY: live objects of this device.
            let (i, _) = unsafe {
                wsi.swapchain_fns
                    .acquire_next_image(sc, u64::MAX, vk::Semaphore::null(), fence)
            }
            .unwrap();
            total += t0.elapsed();
            // SAFETY: the live device and swapchain of this rig; the image index was just acquired.
            unsafe {
                wsi.device
                    .wait_for_fences(&[fence], true, u64::MAX)
                    .unwrap();
                wsi.device.reset_fences(&[fence]).unwrap();
            }
            let t1 = Instant::now();
            assert_eq!(wsi.present(sc, i), vk::Result::SUCCESS);
            total += t1.elapsed();
            drop(win.acquire_latest());
        }
        samples.push(total.as_nanos() as f64 / f64::from(n) / 1000.0);
    }
    // SAFETY: unused.
    unsafe { wsi.device.destroy_fence(fence, None) };
    wsi.destroy_swapchain(sc);
    wsi.destroy_surface(surface);
    median(samples)
}

fn bench_host(loader: &std::path::Path) -> Value {
    let wsi = Wsi::new(loader, &[], &[], &[]).expect("host instance and device");
    let fps_small = host_fps(&wsi, 160, 120);
    let fps_large = host_fps(&wsi, 512, 512);
    let wsi_us_small = host_wsi_us(&wsi);
    json!({
        "fps_small": fps_small,
        "fps_large": fps_large,
        "wsi_us_small": wsi_us_small,
        "frames_per_sample": HOST_FRAMES_PER_SAMPLE,
    })
}
