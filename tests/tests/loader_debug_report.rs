//! AOSP rule (issue 10, rule 1): the loader provides `VK_EXT_debug_report` itself
//! (`debug_report.cpp`), so it works on a driver without the extension: always advertised,
//! callbacks kept by the loader, `vkDebugReportMessageEXT` delivered to them when no driver has
//! the extension, and the loader's own errors about the instance routed to them. With it,
//! `vulkaninfo` (which calls `vkCreateDebugReportCallbackEXT` unconditionally) runs on
//! `vulkan.null.so`, which has no debug extension (tests/tests/vulkaninfo_drivers.rs).

#![allow(deprecated)] // VK_EXT_debug_report: deprecated for applications, still required here.

mod wsi_support;

use std::ffi::{c_char, c_void, CStr};
use std::sync::Mutex;

use ash::vk;
use vkgen_tests::env::in_child;
use vkgen_tests::{paths, require};

static MESSAGES: Mutex<Vec<(u32, String)>> = Mutex::new(Vec::new());
/// Each message's object type, object and layer prefix, in [`MESSAGES`]' order.
static ABOUT: Mutex<Vec<(vk::DebugReportObjectTypeEXT, u64, String)>> = Mutex::new(Vec::new());

unsafe extern "system" fn record(
    flags: vk::DebugReportFlagsEXT,
    ty: vk::DebugReportObjectTypeEXT,
    object: u64,
    _location: usize,
    _code: i32,
    prefix: *const c_char,
    message: *const c_char,
    _user: *mut c_void,
) -> vk::Bool32 {
    // SAFETY: the loader passes a C string.
    let text = unsafe { CStr::from_ptr(message) }
        .to_string_lossy()
        .into_owned();
    let prefix = if prefix.is_null() {
        String::new()
    } else {
        // SAFETY: non-null, a C string the caller passes.
        unsafe { CStr::from_ptr(prefix) }
            .to_string_lossy()
            .into_owned()
    };
    ABOUT.lock().unwrap().push((ty, object, prefix));
    MESSAGES.lock().unwrap().push((flags.as_raw(), text));
    vk::FALSE
}

#[test]
fn debug_report_is_provided_by_the_loader_on_a_driver_without_it() {
    let loader = require(paths::loader_under_test());
    let (env, _root) = wsi_support::hal_env("null", "");
    in_child(
        "debug_report_is_provided_by_the_loader_on_a_driver_without_it",
        &env,
        || {
            let entry = require(vkgen_tests::compute::load_entry(&loader));
            // SAFETY: a plain enumeration.
            let exts = unsafe { entry.enumerate_instance_extension_properties(None) }.unwrap();
            let report = exts
                .iter()
                .find(|e| e.extension_name_as_c_str() == Ok(ash::ext::debug_report::NAME))
                .expect("VK_EXT_debug_report advertised by the loader");
            assert_eq!(
                report.spec_version, 10,
                "the registry's spec (no driver has it)"
            );
            let instance =
                vkgen_tests::compute::create_instance(&entry, &[], &[ash::ext::debug_report::NAME])
                    .expect("vkCreateInstance with VK_EXT_debug_report");
            let dr = ash::ext::debug_report::Instance::new(&entry, &instance);
            let info = vk::DebugReportCallbackCreateInfoEXT::default()
                .flags(vk::DebugReportFlagsEXT::ERROR | vk::DebugReportFlagsEXT::WARNING)
                .pfn_callback(Some(record));
            // SAFETY: valid objects of this instance; the callback is a static function.
            unsafe {
                let cb = dr.create_debug_report_callback(&info, None).unwrap();
                let message = dr.fp().debug_report_message_ext;
                message(
                    instance.handle(),
                    vk::DebugReportFlagsEXT::WARNING,
                    vk::DebugReportObjectTypeEXT::INSTANCE,
                    0,
                    0,
                    1,
                    c"app".as_ptr(),
                    c"from the application".as_ptr(),
                );
                message(
                    instance.handle(),
                    vk::DebugReportFlagsEXT::INFORMATION,
                    vk::DebugReportObjectTypeEXT::INSTANCE,
                    0,
                    0,
                    1,
                    c"app".as_ptr(),
                    c"filtered by flags".as_ptr(),
                );
                // A loader error about this instance: an extension no one provides.
                let pd = instance.enumerate_physical_devices().unwrap()[0];
                let prio = [1.0f32];
                let q = [vk::DeviceQueueCreateInfo::default()
                    .queue_family_index(0)
                    .queue_priorities(&prio)];
                let bogus = [c"VK_KHR_bogus".as_ptr()];
                let dinfo = vk::DeviceCreateInfo::default()
                    .queue_create_infos(&q)
                    .enabled_extension_names(&bogus);
                assert_eq!(
                    instance.create_device(pd, &dinfo, None).err(),
                    Some(vk::Result::ERROR_EXTENSION_NOT_PRESENT)
                );
                dr.destroy_debug_report_callback(cb, None);
                message(
                    instance.handle(),
                    vk::DebugReportFlagsEXT::ERROR,
                    vk::DebugReportObjectTypeEXT::INSTANCE,
                    0,
                    0,
                    1,
                    c"app".as_ptr(),
                    c"after destroy".as_ptr(),
                );
            }
            let got = MESSAGES.lock().unwrap().clone();
            assert_eq!(got.len(), 2, "{got:?}");
            assert_eq!(
                got[0],
                (
                    vk::DebugReportFlagsEXT::WARNING.as_raw(),
                    "from the application".into()
                )
            );
            assert_eq!(got[1].0, vk::DebugReportFlagsEXT::ERROR.as_raw());
            assert!(got[1].1.contains("VK_KHR_bogus"), "{got:?}");
        },
    );
}

/// AOSP `debug.vulkan.enable_callback` on a debuggable build: the loader enables
/// `VK_EXT_debug_report` for itself (the app asked for no extension) and its callback logs every
/// ERROR and WARNING report — here the loader's own error about an unknown device extension.
/// Not on a release build.
#[test]
fn enable_callback_property_logs_reports_on_debuggable_builds() {
    const SCENARIO: &str = "enable_callback_property_logs_reports_on_debuggable_builds";
    if vkgen_tests::env::child_scenario().is_some() {
        let loader = require(paths::loader_under_test());
        let entry = require(vkgen_tests::compute::load_entry(&loader));
        let instance = vkgen_tests::compute::create_instance(&entry, &[], &[]).unwrap();
        // SAFETY: plain Vulkan use of a live instance.
        unsafe {
            let pd = instance.enumerate_physical_devices().unwrap()[0];
            let prio = [1.0f32];
            let q = [vk::DeviceQueueCreateInfo::default().queue_priorities(&prio)];
            let bogus = [c"VK_KHR_bogus_for_the_callback".as_ptr()];
            let dinfo = vk::DeviceCreateInfo::default()
                .queue_create_infos(&q)
                .enabled_extension_names(&bogus);
            assert!(instance.create_device(pd, &dinfo, None).is_err());
        }
        drop(instance);
        println!("\n{} {SCENARIO}", vkgen_tests::env::DONE_MARKER);
        return;
    }
    for (debuggable, logged) in [(true, true), (false, false)] {
        let props = format!(
            "ro.debuggable={}\ndebug.vulkan.enable_callback=1\n",
            u8::from(debuggable)
        );
        let (env, _root) = wsi_support::hal_env("null", &props);
        // Only errors, so the message can only have come through the callback's log line.
        let out = vkgen_tests::env::run_child(SCENARIO, &env.set("VKGEN_LOG", "error"));
        require(vkgen_tests::env::check_child(SCENARIO, &out));
        let stderr = String::from_utf8_lossy(&out.stderr);
        let via_callback = stderr
            .lines()
            .any(|l| l.contains("code ") && l.contains("VK_KHR_bogus_for_the_callback"));
        assert_eq!(via_callback, logged, "debuggable={debuggable}:\n{stderr}");
    }
}

/// AOSP's `DebugReportLogger(const VkInstanceCreateInfo&)`: the loader's errors while creating an
/// instance (a layer nobody has, an extension nobody provides) reach the
/// `VkDebugReportCallbackCreateInfoEXT` chained to the create info; the device-layer mismatch
/// warning reaches the instance's callbacks.
#[test]
fn instance_creation_errors_reach_the_create_infos_callbacks() {
    let loader = require(paths::loader_under_test());
    let (env, _root) = wsi_support::hal_env("null", "");
    in_child(
        "instance_creation_errors_reach_the_create_infos_callbacks",
        &env,
        || {
            let entry = require(vkgen_tests::compute::load_entry(&loader));
            let mut cb = vk::DebugReportCallbackCreateInfoEXT::default()
                .flags(vk::DebugReportFlagsEXT::ERROR | vk::DebugReportFlagsEXT::WARNING)
                .pfn_callback(Some(record));
            let layers = [c"VK_LAYER_nobody_has_this".as_ptr()];
            let info = vk::InstanceCreateInfo::default()
                .enabled_layer_names(&layers)
                .push_next(&mut cb);
            // SAFETY: a valid create info whose arrays and chain outlive the call.
            let r = unsafe { entry.create_instance(&info, None) };
            assert_eq!(r.err(), Some(vk::Result::ERROR_LAYER_NOT_PRESENT));
            let mut cb = vk::DebugReportCallbackCreateInfoEXT::default()
                .flags(vk::DebugReportFlagsEXT::ERROR)
                .pfn_callback(Some(record));
            let exts = [c"VK_KHR_nobody_provides_this".as_ptr()];
            let info = vk::InstanceCreateInfo::default()
                .enabled_extension_names(&exts)
                .push_next(&mut cb);
            // SAFETY: a create info whose extension array and callback chain are locals that
            // outlive the call.
            let r = unsafe { entry.create_instance(&info, None) };
            assert_eq!(r.err(), Some(vk::Result::ERROR_EXTENSION_NOT_PRESENT));
            // Only WARNING wanted: the ERROR is not delivered.
            let mut cb = vk::DebugReportCallbackCreateInfoEXT::default()
                .flags(vk::DebugReportFlagsEXT::WARNING)
                .pfn_callback(Some(record));
            let info = vk::InstanceCreateInfo::default()
                .enabled_extension_names(&exts)
                .push_next(&mut cb);
            // SAFETY: a create info whose extension array and callback chain are locals that
            // outlive the call.
            let r = unsafe { entry.create_instance(&info, None) };
            assert_eq!(r.err(), Some(vk::Result::ERROR_EXTENSION_NOT_PRESENT));
            let got = std::mem::take(&mut *MESSAGES.lock().unwrap());
            let error = vk::DebugReportFlagsEXT::ERROR.as_raw();
            assert_eq!(
                got,
                [
                    (
                        error,
                        "Failed to find layer VK_LAYER_nobody_has_this".into()
                    ),
                    (
                        error,
                        "Failed to enable missing instance extension VK_KHR_nobody_provides_this"
                            .into()
                    ),
                ]
            );
            // A device layer list that differs from the instance's: a warning to its callbacks.
            ABOUT.lock().unwrap().clear();
            let instance =
                vkgen_tests::compute::create_instance(&entry, &[], &[ash::ext::debug_report::NAME])
                    .expect("vkCreateInstance with VK_EXT_debug_report");
            let dr = ash::ext::debug_report::Instance::new(&entry, &instance);
            let info = vk::DebugReportCallbackCreateInfoEXT::default()
                .flags(vk::DebugReportFlagsEXT::WARNING | vk::DebugReportFlagsEXT::ERROR)
                .pfn_callback(Some(record));
            // SAFETY: valid objects of this instance; the callback is a static function.
            unsafe {
                let handle = dr.create_debug_report_callback(&info, None).unwrap();
                let pd = instance.enumerate_physical_devices().unwrap()[0];
                let prio = [1.0f32];
                let q = [vk::DeviceQueueCreateInfo::default()
                    .queue_family_index(0)
                    .queue_priorities(&prio)];
                let layers = [c"VK_LAYER_not_the_instances".as_ptr()];
                #[allow(deprecated)] // device layers: what the rule is about
                let dinfo = vk::DeviceCreateInfo::default()
                    .queue_create_infos(&q)
                    .enabled_layer_names(&layers);
                let device = instance.create_device(pd, &dinfo, None).unwrap();
                device.destroy_device(None);
                // A device extension nobody has: AOSP's error, about the physical device.
                let missing = [c"VK_EXT_not_an_extension".as_ptr()];
                let dinfo = vk::DeviceCreateInfo::default()
                    .queue_create_infos(&q)
                    .enabled_extension_names(&missing);
                assert_eq!(
                    instance.create_device(pd, &dinfo, None).err(),
                    Some(vk::Result::ERROR_EXTENSION_NOT_PRESENT)
                );
                dr.destroy_debug_report_callback(handle, None);
                let got = MESSAGES.lock().unwrap().clone();
                assert_eq!(
                    got,
                    [
                        (
                            vk::DebugReportFlagsEXT::WARNING.as_raw(),
                            "Device layers disagree with instance layers and are overridden by \
                             instance layers"
                                .into()
                        ),
                        (
                            vk::DebugReportFlagsEXT::ERROR.as_raw(),
                            "Failed to enable missing device extension VK_EXT_not_an_extension"
                                .into()
                        )
                    ]
                );
                // As AOSP's `DebugReportLogger`: about the physical device, prefix `vulkan`.
                let about = (
                    vk::DebugReportObjectTypeEXT::PHYSICAL_DEVICE,
                    vk::Handle::as_raw(pd),
                    "vulkan".to_owned(),
                );
                assert_eq!(*ABOUT.lock().unwrap(), [about.clone(), about]);
                instance.destroy_instance(None);
            }
        },
    );
}
