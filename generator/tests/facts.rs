//! Known facts about the registries, asserted through the generator's model and output.

mod common;

use std::mem::{offset_of, size_of};

use vkgen::select::Level;
use vkgen_generated::{commands, extensions, pfn, vk};

/// (name, core version, extensions, exported, level) of each selected command.
type CommandFacts = Vec<(String, Option<(u32, u32)>, Vec<String>, bool, Level)>;

fn selection_facts(version: &str) -> (CommandFacts, vkgen::Generated) {
    let opts = common::options(version);
    let (loaded, _) = vkgen::load(&opts).unwrap();
    let reg = &loaded.registry;
    let sel = vkgen::select::select(
        reg,
        vkgen::select::highest_version(reg),
        &vkgen::ash_types::AshTypes::load(),
    );
    let cmds = sel
        .commands
        .iter()
        .map(|c| {
            (
                c.name.clone(),
                c.core,
                c.extensions.clone(),
                c.exported,
                c.level,
            )
        })
        .collect();
    (cmds, vkgen::generate(&opts).unwrap())
}

#[test]
fn dynamic_rendering_is_core_in_1_3_and_aliased() {
    for v in ["1.3.239", "1.4.359"] {
        let (cmds, _) = selection_facts(v);
        let core = cmds.iter().find(|c| c.0 == "vkCmdBeginRendering").unwrap();
        assert_eq!(core.1, Some((1, 3)), "{v}");
        assert!(core.3, "core commands are exported");
        let khr = cmds
            .iter()
            .find(|c| c.0 == "vkCmdBeginRenderingKHR")
            .unwrap();
        assert!(khr.2.contains(&"VK_KHR_dynamic_rendering".to_owned()));
        assert!(!khr.3, "the KHR alias is not exported");
    }
    let id = commands::lookup(c"vkCmdBeginRenderingKHR").unwrap();
    let canonical = commands::info(id).alias_of.map(commands::info).unwrap();
    assert_eq!(canonical.name(), c"vkCmdBeginRendering");
    assert_eq!(
        canonical.origin,
        commands::Origin::Core(vk::API_VERSION_1_3)
    );
}

#[test]
fn promotions() {
    let ext = |n: &std::ffi::CStr| extensions::info(extensions::lookup(n).unwrap());
    assert_eq!(
        ext(c"VK_KHR_dynamic_rendering").promoted_to,
        Some(vk::API_VERSION_1_3)
    );
    assert_eq!(
        ext(c"VK_KHR_timeline_semaphore").promoted_to,
        Some(vk::API_VERSION_1_2)
    );
    let (loaded, _) = vkgen::load(&common::options("1.4.359")).unwrap();
    let m5 = loaded.registry.extension("VK_KHR_maintenance5").unwrap();
    assert_eq!(m5.promoted_to.as_deref(), Some("VK_VERSION_1_4"));
    // promotedto can name an extension (1.4.x): it must not be taken for a version.
    let sm1 = loaded
        .registry
        .extension("VK_EXT_surface_maintenance1")
        .unwrap();
    assert_eq!(
        sm1.promoted_to.as_deref(),
        Some("VK_KHR_surface_maintenance1")
    );
}

#[test]
fn native_buffer_layout_is_spec_11() {
    assert_eq!(size_of::<vk::NativeBufferANDROID>(), 72);
    assert_eq!(offset_of!(vk::NativeBufferANDROID, handle), 16);
    assert_eq!(offset_of!(vk::NativeBufferANDROID, stride), 24);
    assert_eq!(offset_of!(vk::NativeBufferANDROID, usage2), 40);
    assert_eq!(offset_of!(vk::NativeBufferANDROID, usage3), 56);
    assert_eq!(offset_of!(vk::NativeBufferANDROID, ahb), 64);
    assert_eq!(size_of::<vk::SwapchainImageCreateInfoANDROID>(), 24);
    assert_eq!(size_of::<vk::GrallocUsageInfoANDROID>(), 24);
    assert_eq!(size_of::<vk::GrallocUsageInfo2ANDROID>(), 32);
    assert_eq!(
        size_of::<vk::PhysicalDevicePresentationPropertiesANDROID>(),
        24
    );
    use vk::StructureTypeExt;
    assert_eq!(
        vk::StructureType::GRALLOC_USAGE_INFO_ANDROID.as_raw(),
        1_000_010_003
    );
    assert_eq!(
        vk::StructureType::GRALLOC_USAGE_INFO_2_ANDROID.as_raw(),
        1_000_010_004
    );
    let anb = extensions::info(extensions::ExtensionId::ANDROID_NATIVE_BUFFER);
    assert_eq!(anb.spec_version, 11);
    assert!(anb.policy.internal);
}

#[test]
fn gralloc_usage_signatures_are_exact() {
    use std::ffi::c_int;
    let _: pfn::PFN_vkGetSwapchainGrallocUsageANDROID = u1;
    let _: pfn::PFN_vkGetSwapchainGrallocUsage2ANDROID = u2;
    let _: pfn::PFN_vkGetSwapchainGrallocUsage3ANDROID = u3;
    let _: pfn::PFN_vkGetSwapchainGrallocUsage4ANDROID = u4;
    let _: pfn::PFN_vkAcquireImageANDROID = acquire;
    let _: pfn::PFN_vkQueueSignalReleaseImageANDROID = release;
    for n in [
        c"vkGetSwapchainGrallocUsageANDROID",
        c"vkGetSwapchainGrallocUsage2ANDROID",
        c"vkGetSwapchainGrallocUsage3ANDROID",
        c"vkGetSwapchainGrallocUsage4ANDROID",
    ] {
        let info = commands::info(commands::lookup(n).unwrap());
        assert_eq!(info.level, commands::Level::Device);
        assert!(!info.exported);
    }

    unsafe extern "system" fn u1(
        _: vk::Device,
        _: vk::Format,
        _: vk::ImageUsageFlags,
        _: *mut c_int,
    ) -> vk::Result {
        vk::Result::SUCCESS
    }
    unsafe extern "system" fn u2(
        _: vk::Device,
        _: vk::Format,
        _: vk::ImageUsageFlags,
        _: vk::SwapchainImageUsageFlagsANDROID,
        _: *mut u64,
        _: *mut u64,
    ) -> vk::Result {
        vk::Result::SUCCESS
    }
    unsafe extern "system" fn u3(
        _: vk::Device,
        _: *const vk::GrallocUsageInfoANDROID,
        _: *mut u64,
    ) -> vk::Result {
        vk::Result::SUCCESS
    }
    unsafe extern "system" fn u4(
        _: vk::Device,
        _: *const vk::GrallocUsageInfo2ANDROID,
        _: *mut u64,
    ) -> vk::Result {
        vk::Result::SUCCESS
    }
    unsafe extern "system" fn acquire(
        _: vk::Device,
        _: vk::Image,
        _: c_int,
        _: vk::Semaphore,
        _: vk::Fence,
    ) -> vk::Result {
        vk::Result::SUCCESS
    }
    unsafe extern "system" fn release(
        _: vk::Queue,
        _: u32,
        _: *const vk::Semaphore,
        _: vk::Image,
        _: *mut c_int,
    ) -> vk::Result {
        vk::Result::SUCCESS
    }
}

/// Android's rule: every core command plus VK_KHR_surface, VK_KHR_swapchain,
/// VK_KHR_android_surface and the AHB extension. Android 16's map has 251 entries for 1.4.
#[test]
fn exported_trampoline_count_follows_androids_rule() {
    for (v, expected) in [("1.3.239", 215 + 17), ("1.4.359", 234 + 17)] {
        let (cmds, generated) = selection_facts(v);
        let exported: Vec<_> = cmds.iter().filter(|c| c.3).collect();
        assert_eq!(exported.len(), expected, "{v}");
        for c in &exported {
            let ok = c.1.is_some()
                || c.2
                    .iter()
                    .any(|e| vkgen::policy::EXPORTED_EXTENSIONS.contains(&e.as_str()));
            assert!(ok, "{} exported without reason", c.0);
        }
        let map = &generated
            .files
            .iter()
            .find(|f| f.path == "libvulkan.map")
            .unwrap()
            .contents;
        assert_eq!(
            map.lines()
                .filter(|l| l.trim_start().starts_with("vk"))
                .count(),
            expected,
            "{v} map"
        );
    }
}

#[test]
fn dispatch_levels_follow_the_first_parameter() {
    let (cmds, _) = selection_facts("1.4.359");
    let level = |n: &str| cmds.iter().find(|c| c.0 == n).map(|c| c.4);
    assert_eq!(level("vkCreateInstance"), Some(Level::Global));
    assert_eq!(level("vkGetInstanceProcAddr"), Some(Level::Global));
    assert_eq!(level("vkGetDeviceProcAddr"), Some(Level::Device));
    assert_eq!(level("vkEnumeratePhysicalDevices"), Some(Level::Instance));
    assert_eq!(
        level("vkGetPhysicalDeviceProperties"),
        Some(Level::PhysicalDevice)
    );
    assert_eq!(level("vkCmdDraw"), Some(Level::Device));
    // 1.4.x: a dispatchable handle created from a device (Android's generator calls it Global).
    if let Some(l) = level("vkGetExternalComputeQueueDataNV") {
        assert_eq!(l, Level::Device);
    }
}

#[test]
fn lookup_is_exact() {
    for c in commands::COMMANDS.iter() {
        let id = commands::lookup(c.name()).unwrap();
        assert_eq!(commands::info(id).name(), c.name());
    }
    for bad in [
        c"",
        c"vk",
        c"vkCreateImag",
        c"vkCreateImageX",
        c"VKCREATEIMAGE",
        c"vkMadeUpCommandKHR",
    ] {
        assert!(commands::lookup(bad).is_none());
    }
    for e in extensions::EXTENSIONS.iter() {
        assert_eq!(
            extensions::info(extensions::lookup(e.name()).unwrap()).name(),
            e.name()
        );
    }
    assert!(
        extensions::lookup(c"VK_KHR_xcb_surface").is_none(),
        "blocked on Android"
    );
}
