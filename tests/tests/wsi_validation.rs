//! Acceptance 4: the pixel test of `wsi_host.rs` with Debian's Khronos validation layer
//! enabled through `VKGEN_APP_LAYER_PATH` (our loader's Android-style app layer directory) and
//! a `VK_EXT_debug_utils` messenger: no validation error may be reported, from instance creation
//! to instance destruction, and the frames still match. A deliberate misuse afterwards (a
//! zero-extent swapchain) must be reported, proving the layer sees the loader's surfaces.

mod wsi_support;

use std::ffi::c_void;
use std::sync::Mutex;

use ash::vk;
use vkgen_tests::env::in_child;
use vkgen_tests::validation::{app_layer_dir, VALIDATION_LAYER};
use vkgen_tests::{compute, paths, require};
use wsi_support::{check_triangle_frame, hal_env, render_triangle_frames, window, Wsi};

type Collected = Mutex<Vec<String>>;

/// Collects ERROR messages (and WARNING ones, reported but not failed on).
unsafe extern "system" fn collect(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user: *mut c_void,
) -> vk::Bool32 {
    if data.is_null() || user.is_null() {
        return vk::FALSE;
    }
    // SAFETY: `user` is the test's live `Collected`; `data` is valid for the call.
    let (collected, data) = unsafe { (&*(user as *const Collected), &*data) };
    // SAFETY: NUL-terminated strings valid for the call, when non-null.
    let message = unsafe { data.message_as_c_str() }
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tag = if severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::ERROR) {
        "ERROR"
    } else {
        "WARNING"
    };
    collected
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .push(format!("{tag}: {message}"));
    vk::FALSE
}

#[test]
fn validation_layer_reports_no_error_on_the_triangle() {
    triangle_under_validation(
        "validation_layer_reports_no_error_on_the_triangle",
        "host",
        true,
    );
}

/// The same client on the null driver, whose shader modules, pipeline layouts, graphics
/// pipelines, render passes, framebuffers, descriptor objects and command recording are the
/// driver kit's own components (issue 30's dogfood): the layer sees every kit object the
/// triangle makes and reports no error. The null driver renders nothing, so no pixel is checked.
#[test]
fn validation_layer_reports_no_error_on_the_null_driver_s_kit_objects() {
    triangle_under_validation(
        "validation_layer_reports_no_error_on_the_null_driver_s_kit_objects",
        "null",
        false,
    );
}

/// 8 triangle frames on `driver` with the validation layer on: no ERROR message from instance
/// creation to destruction (frames checked when `pixels`), and a deliberate misuse reported.
fn triangle_under_validation(test: &str, driver: &str, pixels: bool) {
    let loader = require(paths::loader_under_test());
    let layers = require(app_layer_dir());
    let (env, _root) = hal_env(driver, "");
    let env = env.set("VKGEN_APP_LAYER_PATH", layers.path());
    in_child(test, &env, || {
        let collected: Box<Collected> = Box::new(Mutex::new(Vec::new()));
        let wsi = Wsi::new(
            &loader,
            &[ash::ext::debug_utils::NAME],
            &[],
            &[VALIDATION_LAYER],
        )
        .expect("instance and device with the validation layer");
        let debug = ash::ext::debug_utils::Instance::new(&wsi.entry, &wsi.instance);
        let info = messenger_info(&collected);
        // SAFETY: the instance enables VK_EXT_debug_utils; `collected` outlives the messenger.
        let messenger = unsafe { debug.create_debug_utils_messenger(&info, None) }.unwrap();
        let win = window(96, 64);
        let mut checked = 0;
        render_triangle_frames(&wsi, &win, 8, |i, frame, clear, tri| {
            if pixels {
                if let Err(e) = check_triangle_frame(frame, clear, tri) {
                    panic!("frame {i}: {e}");
                }
            }
            checked += 1;
        })
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(checked, 8);
        let take = || std::mem::take(&mut *collected.lock().unwrap());
        let messages = take();
        // The layer does watch the loader's surfaces: a swapchain with a zero extent is caught.
        let surface = wsi.create_surface(&win).unwrap();
        let bad = wsi.swapchain_info(surface).image_extent(vk::Extent2D {
            width: 0,
            height: 0,
        });
        let r = wsi.create_swapchain(&bad);
        if let Ok(sc) = r {
            wsi.destroy_swapchain(sc);
        }
        wsi.destroy_surface(surface);
        let misuse = take();
        assert!(
            misuse
                .iter()
                .any(|m| m.starts_with("ERROR") && m.contains("imageExtent")),
            "the validation layer did not see the zero-extent swapchain ({r:?}): {misuse:?}"
        );
        // SAFETY: created above, destroyed once before the instance.
        unsafe { debug.destroy_debug_utils_messenger(messenger, None) };
        drop(wsi);
        let mut messages = messages;
        messages.extend(take());
        assert_no_errors(&messages, &format!("{driver}: 8 frames"));
    });
}

/// A messenger create info for ERROR and WARNING messages of every type into `collected`.
fn messenger_info(collected: &Collected) -> vk::DebugUtilsMessengerCreateInfoEXT<'_> {
    vk::DebugUtilsMessengerCreateInfoEXT::default()
        .message_severity(
            vk::DebugUtilsMessageSeverityFlagsEXT::ERROR
                | vk::DebugUtilsMessageSeverityFlagsEXT::WARNING,
        )
        .message_type(
            vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                | vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
        )
        .pfn_user_callback(Some(collect))
        .user_data(std::ptr::from_ref(collected).cast_mut().cast())
}

/// Prints every collected message and fails on any ERROR one.
fn assert_no_errors(messages: &[String], what: &str) {
    for m in messages {
        println!("{m}");
    }
    let errors: Vec<&str> = messages
        .iter()
        .filter(|m| m.starts_with("ERROR"))
        .map(String::as_str)
        .collect();
    assert!(
        errors.is_empty(),
        "{what}: {} validation errors:\n{}",
        errors.len(),
        errors.join("\n")
    );
    println!(
        "validation layer, {what}: 0 errors, {} warnings",
        messages.len()
    );
}

/// The project's ash compute client (`fill.comp`: a storage buffer, a descriptor set, a
/// compute pipeline, a dispatch, a fence) on the null driver's kit objects, with the
/// validation layer on: every call succeeds and the layer reports no error. (The null engine
/// executes nothing, so the buffer's contents are not checked.)
#[test]
fn validation_layer_reports_no_error_on_the_fill_compute_on_the_null_driver() {
    let loader = require(paths::loader_under_test());
    let layers = require(app_layer_dir());
    let (env, _root) = hal_env("null", "");
    let env = env.set("VKGEN_APP_LAYER_PATH", layers.path());
    in_child(
        "validation_layer_reports_no_error_on_the_fill_compute_on_the_null_driver",
        &env,
        || {
            let collected: Box<Collected> = Box::new(Mutex::new(Vec::new()));
            let entry = compute::load_entry(&loader).unwrap();
            let instance = compute::create_instance(
                &entry,
                &[VALIDATION_LAYER],
                &[ash::ext::debug_utils::NAME],
            )
            .expect("an instance with the validation layer");
            let debug = ash::ext::debug_utils::Instance::new(&entry, instance.raw());
            // SAFETY: the instance enables VK_EXT_debug_utils; `collected` outlives the messenger.
            let messenger =
                unsafe { debug.create_debug_utils_messenger(&messenger_info(&collected), None) }
                    .unwrap();
            let (pd, _) = compute::pick_compute_device(instance.raw()).unwrap();
            let got = compute::run_fill_compute_on(instance.raw(), pd, 4096, 3).unwrap();
            assert_eq!(got.len(), 4096);
            // SAFETY: created above, destroyed once before the instance.
            unsafe { debug.destroy_debug_utils_messenger(messenger, None) };
            drop(instance);
            let messages = std::mem::take(&mut *collected.lock().unwrap());
            assert_no_errors(&messages, "null: fill compute");
        },
    );
}
