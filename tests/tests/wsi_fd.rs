//! Acceptance 3: 100 000 acquire/present cycles through the loader's swapchain on the null
//! driver leave `/proc/self/fd` unchanged, with the error paths mixed in (exhausted images with
//! timeout 0 and with a short timeout, presenting a retired swapchain's image after
//! `oldSwapchain` recreation, stale handles, two swapchains in one present with wait
//! semaphores). A shorter run on the host driver does the same with real fence fds (the host's
//! release fences are eventfds that travel through the window back to the next acquire).

mod wsi_support;

use ash::vk;
use ash::vk::Handle as _;
use vkgen_tests::env::in_child;
use vkgen_tests::{paths, require};
use wsi_support::{hal_env, render_triangle_frames, window, Wsi};

/// What `/proc/self/fd` holds: the number of fds and what each points at (sorted, without the
/// fd numbers: the window's gralloc memfds are reallocated when a swapchain is recreated, so
/// their numbers may move, but their count and everything else must stay).
fn open_fds() -> Vec<String> {
    let mut fds: Vec<String> = std::fs::read_dir("/proc/self/fd")
        .expect("/proc/self/fd")
        .filter_map(|e| e.ok())
        .map(|e| {
            std::fs::read_link(e.path())
                .map(|t| t.to_string_lossy().into_owned())
                .unwrap_or_else(|_| "(closed while listing)".into())
        })
        // The directory being listed.
        .filter(|t| !t.ends_with("/fd") && t != "(closed while listing)")
        .collect();
    fds.sort();
    fds
}

/// [`open_fds`] once the set stops changing (two samples 50 ms apart agree; 3 s at most): the
/// host driver's release fences are eventfds its worker closes a moment after the frame, so a
/// sample taken right after a frame may still hold the last one.
fn settled_fds() -> Vec<String> {
    let start = std::time::Instant::now();
    let mut last = open_fds();
    loop {
        std::thread::sleep(std::time::Duration::from_millis(50));
        let now = open_fds();
        if now == last || start.elapsed() > std::time::Duration::from_secs(3) {
            return now;
        }
        last = now;
    }
}

/// Total cycles of the null run.
const CYCLES: u32 = 100_000;

#[test]
fn null_100k_cycles_leak_no_fds() {
    let loader = require(paths::loader_under_test());
    let (env, _root) = hal_env("null", "");
    in_child("null_100k_cycles_leak_no_fds", &env, || {
        let wsi = Wsi::new(&loader, &[], &[], &[]).unwrap();
        let win = window(32, 32);
        let win2 = window(16, 16);
        let surface = wsi.create_surface(&win).unwrap();
        let surface2 = wsi.create_surface(&win2).unwrap();
        let mut sc = wsi.create_swapchain(&wsi.swapchain_info(surface)).unwrap();
        let sc2 = wsi.create_swapchain(&wsi.swapchain_info(surface2)).unwrap();
        let fence = wsi.fence();
        // SAFETY: valid create infos.
        let (sem_a, sem_b) = unsafe {
            (
                wsi.device
                    .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)
                    .unwrap(),
                wsi.device
                    .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)
                    .unwrap(),
            )
        };
        let cycle = |sc: vk::SwapchainKHR| {
            let (i, _) = wsi.acquire(sc, fence, u64::MAX).expect("acquire");
            assert_eq!(wsi.present(sc, i), vk::Result::SUCCESS);
        };
        // Warm up (lazy allocations, the window's buffers) before counting.
        for _ in 0..50 {
            cycle(sc);
            drop(win.acquire_latest());
        }
        let before = open_fds();
        let mut errors = 0u32;
        let mut recreations = 0u32;
        for n in 0..CYCLES {
            cycle(sc);
            if n % 64 == 0 {
                drop(win.acquire_latest());
            }
            match n % 1000 {
                // Exhaust the images: NOT_READY at timeout 0, TIMEOUT at 1 µs.
                100 => {
                    let mut held = Vec::new();
                    loop {
                        match wsi.acquire(sc, fence, 0) {
                            Ok((i, _)) => held.push(i),
                            Err(vk::Result::NOT_READY) => break,
                            Err(e) => panic!("cycle {n}: {e:?}"),
                        }
                    }
                    assert_eq!(
                        wsi.acquire(sc, fence, 1_000).err(),
                        Some(vk::Result::TIMEOUT)
                    );
                    for i in held {
                        assert_eq!(wsi.present(sc, i), vk::Result::SUCCESS);
                    }
                    errors += 2;
                }
                // Recreate while holding an image, then present it on the retired swapchain.
                300 => {
                    let (held, _) = wsi.acquire(sc, fence, u64::MAX).unwrap();
                    let next = wsi
                        .create_swapchain(&wsi.swapchain_info(surface).old_swapchain(sc))
                        .unwrap();
                    assert_eq!(wsi.present(sc, held), vk::Result::ERROR_OUT_OF_DATE_KHR);
                    assert_eq!(
                        wsi.acquire(sc, fence, 0).err(),
                        Some(vk::Result::ERROR_OUT_OF_DATE_KHR)
                    );
                    wsi.destroy_swapchain(sc);
                    sc = next;
                    recreations += 1;
                    errors += 2;
                }
                // Stale and bogus handles.
                500 => {
                    let bogus = vk::SwapchainKHR::from_raw(0x5357_0000_dead_0001);
                    assert_eq!(wsi.present(bogus, 0), vk::Result::ERROR_SURFACE_LOST_KHR);
                    assert_eq!(
                        wsi.acquire(bogus, fence, 0).err(),
                        Some(vk::Result::ERROR_SURFACE_LOST_KHR)
                    );
                    errors += 2;
                }
                // Two swapchains in one present, acquired with semaphores.
                700 => {
                    // SAFETY: live objects of this device.
                    unsafe {
                        let (a, _) = wsi
                            .swapchain_fns
                            .acquire_next_image(sc, u64::MAX, sem_a, vk::Fence::null())
                            .unwrap();
                        let (b, _) = wsi
                            .swapchain_fns
                            .acquire_next_image(sc2, u64::MAX, sem_b, vk::Fence::null())
                            .unwrap();
                        let waits = [sem_a, sem_b];
                        let swapchains = [sc, sc2];
                        let indices = [a, b];
                        let mut results = [vk::Result::ERROR_UNKNOWN; 2];
                        let info = vk::PresentInfoKHR::default()
                            .wait_semaphores(&waits)
                            .swapchains(&swapchains)
                            .image_indices(&indices)
                            .results(&mut results);
                        let r = (wsi.swapchain_fns.fp().queue_present_khr)(wsi.queue, &info);
                        assert_eq!(r, vk::Result::SUCCESS);
                        assert_eq!(results, [vk::Result::SUCCESS; 2]);
                    }
                    drop(win2.acquire_latest());
                }
                _ => {}
            }
        }
        drop(win.acquire_latest());
        let after = open_fds();
        assert_eq!(
            before, after,
            "file descriptors changed over {CYCLES} cycles"
        );
        // SAFETY: the device is idle; nothing uses these any more.
        unsafe {
            wsi.device.destroy_semaphore(sem_a, None);
            wsi.device.destroy_semaphore(sem_b, None);
            wsi.device.destroy_fence(fence, None);
        }
        wsi.destroy_swapchain(sc);
        wsi.destroy_swapchain(sc2);
        wsi.destroy_surface(surface);
        wsi.destroy_surface(surface2);
        let counters = win.counters();
        println!(
            "{CYCLES} cycles, {recreations} recreations, {errors} error results: {} fds before \
             and after (window: {counters:?})",
            before.len()
        );
    });
}

#[test]
fn host_frames_leak_no_fds() {
    let loader = require(paths::loader_under_test());
    let (env, _root) = hal_env("host", "");
    in_child("host_frames_leak_no_fds", &env, || {
        let wsi = Wsi::new(&loader, &[], &[], &[]).unwrap();
        let win = window(64, 64);
        // A first run creates the host driver's worker thread and pools.
        render_triangle_frames(&wsi, &win, 10, |_, _, _, _| {}).unwrap();
        let before = settled_fds();
        render_triangle_frames(&wsi, &win, 200, |_, _, _, _| {}).unwrap();
        let after = settled_fds();
        assert_eq!(
            before, after,
            "file descriptors changed over 200 host frames"
        );
        println!(
            "200 host frames (surface, swapchain, renderer rebuilt): {} fds before and after",
            before.len()
        );
    });
}
