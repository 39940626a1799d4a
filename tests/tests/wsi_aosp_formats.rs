//! Issue 10, rules 6 and 7: the loader's surface formats and image compression control against
//! AOSP android16 `swapchain.cpp` / `driver.cpp`, one test per AOSP behaviour. The expected
//! lists are transcribed here from AOSP's source (not computed by the loader's tables), so a
//! change on either side shows.
//!
//! Drivers: the null driver (native buffer spec 11 with image compression control, which
//! `VKGEN_NULL_IMAGE_COMPRESSION=0` takes away) and the WSI fixture C driver
//! (`wsi_support/fixture_driver.rs`: native buffer spec, the feature and the GrallocUsage
//! queries switchable, what reaches the driver counted).

mod common;
#[path = "wsi_support/fixture_driver.rs"]
mod fixture_driver;
mod wsi_support;

use std::path::{Path, PathBuf};

use ash::vk;
use fixture_driver::{counter, wsi_driver};
use vkgen_tests::env::in_child;
use vkgen_tests::{paths, require};
use wsi_support::{hal_env, window, Wsi};

/// AIDL `Dataspace` values the window is expected to get (the tests crate does not depend on
/// the ABI mirror): `STANDARD_* | TRANSFER_* | RANGE_FULL`.
const BT2020_PQ: i32 = (6 << 16) | (7 << 22) | (1 << 27);
const ADOBE_RGB_LINEAR: i32 = (11 << 16) | (1 << 22) | (1 << 27);
const ADOBE_RGB: i32 = (11 << 16) | (4 << 22) | (1 << 27);

fn loader() -> PathBuf {
    require(paths::loader_under_test())
}

/// AOSP's `colorSpaceSupportedByVkEXTSwapchainColorspace`, as written there (its last entry,
/// `VK_COLOR_SPACE_DCI_P3_LINEAR_EXT`, has the value of `DISPLAY_P3_LINEAR_EXT`).
const AOSP_COLOR_SPACES: [vk::ColorSpaceKHR; 12] = [
    vk::ColorSpaceKHR::DISPLAY_P3_NONLINEAR_EXT,
    vk::ColorSpaceKHR::DISPLAY_P3_LINEAR_EXT,
    vk::ColorSpaceKHR::DCI_P3_NONLINEAR_EXT,
    vk::ColorSpaceKHR::BT709_LINEAR_EXT,
    vk::ColorSpaceKHR::BT709_NONLINEAR_EXT,
    vk::ColorSpaceKHR::BT2020_LINEAR_EXT,
    vk::ColorSpaceKHR::HDR10_ST2084_EXT,
    vk::ColorSpaceKHR::HDR10_HLG_EXT,
    vk::ColorSpaceKHR::ADOBERGB_LINEAR_EXT,
    vk::ColorSpaceKHR::ADOBERGB_NONLINEAR_EXT,
    vk::ColorSpaceKHR::PASS_THROUGH_EXT,
    vk::ColorSpaceKHR::DISPLAY_P3_LINEAR_EXT,
];

/// AOSP's `GetPhysicalDeviceSurfaceFormatsKHR` on vkgen's gralloc (it allocates RGB565, FP16,
/// RGBA_1010102, R8 and RGBA_10101010), every colour space of the table mapping to a dataspace;
/// `rgba10x6_ext`: the driver lists `VK_EXT_rgba10x6_formats`.
fn aosp_formats(colorspace_ext: bool, rgba10x6_ext: bool) -> Vec<vk::SurfaceFormatKHR> {
    use vk::ColorSpaceKHR as C;
    use vk::Format as F;
    let sf = |format, color_space| vk::SurfaceFormatKHR {
        format,
        color_space,
    };
    let mut out = vec![
        sf(F::R8G8B8A8_UNORM, C::SRGB_NONLINEAR),
        sf(F::R8G8B8A8_SRGB, C::SRGB_NONLINEAR),
    ];
    if colorspace_ext {
        for cs in AOSP_COLOR_SPACES {
            out.push(sf(F::R8G8B8A8_UNORM, cs));
            out.push(sf(F::R8G8B8A8_SRGB, cs));
        }
    }
    for format in [
        F::R5G6B5_UNORM_PACK16,
        F::R16G16B16A16_SFLOAT,
        F::A2B10G10R10_UNORM_PACK32,
    ] {
        out.push(sf(format, C::SRGB_NONLINEAR));
        if colorspace_ext {
            out.extend(AOSP_COLOR_SPACES.map(|cs| sf(format, cs)));
            if format == F::R16G16B16A16_SFLOAT {
                out.push(sf(format, C::EXTENDED_SRGB_LINEAR_EXT));
                out.push(sf(format, C::EXTENDED_SRGB_NONLINEAR_EXT));
            }
        }
    }
    if colorspace_ext {
        out.push(sf(F::R8_UNORM, C::PASS_THROUGH_EXT));
    }
    if rgba10x6_ext {
        let format = F::R10X6G10X6B10X6A10X6_UNORM_4PACK16;
        out.push(sf(format, C::SRGB_NONLINEAR));
        if colorspace_ext {
            out.extend(AOSP_COLOR_SPACES.map(|cs| sf(format, cs)));
        }
    }
    out
}

#[test]
fn surface_formats_follow_aosp_order() {
    let loader = loader();
    let (env, _root) = hal_env("null", "");
    in_child("surface_formats_follow_aosp_order", &env, || {
        for colorspace_ext in [false, true] {
            let exts: &[&std::ffi::CStr] = if colorspace_ext {
                &[ash::ext::swapchain_colorspace::NAME]
            } else {
                &[]
            };
            let wsi = Wsi::new(&loader, exts, &[], &[]).unwrap();
            let win = window(16, 16);
            let surface = wsi.create_surface(&win).unwrap();
            // SAFETY: a live surface of this instance.
            let formats = unsafe {
                wsi.surface_fns
                    .get_physical_device_surface_formats(wsi.pd, surface)
            }
            .unwrap();
            let expected = aosp_formats(colorspace_ext, false);
            assert_eq!(
                formats, expected,
                "VK_EXT_swapchain_colorspace {colorspace_ext}"
            );
            // 2 + 3 without the extension; with it 26 RGBA8 + 13 + 15 + 13 + 1.
            assert_eq!(formats.len(), if colorspace_ext { 68 } else { 5 });
            // The wide-colour spaces only with VK_EXT_swapchain_colorspace.
            assert_eq!(
                formats
                    .iter()
                    .any(|f| f.color_space != vk::ColorSpaceKHR::SRGB_NONLINEAR),
                colorspace_ext
            );
            wsi.destroy_surface(surface);
        }
        println!("surface formats are AOSP's list in AOSP's order");
    });
}

#[test]
fn formats_are_offered_as_ahardwarebuffer_is_supported_decides() {
    let loader = loader();
    let (env, _root) = hal_env("null", "");
    in_child(
        "formats_are_offered_as_ahardwarebuffer_is_supported_decides",
        &env,
        || {
            let wsi = Wsi::new(&loader, &[ash::ext::swapchain_colorspace::NAME], &[], &[]).unwrap();
            let win = window(16, 16);
            // AOSP asks only AHardwareBuffer_isSupported (the allocator), not the driver.
            let surface = wsi.create_surface(&win).unwrap();
            // SAFETY: a live surface.
            let formats = unsafe {
                wsi.surface_fns
                    .get_physical_device_surface_formats(wsi.pd, surface)
            }
            .unwrap();
            let has = |f: vk::Format| formats.iter().any(|s| s.format == f);
            assert!(has(vk::Format::R8_UNORM), "the allocator has R_8");
            assert!(has(vk::Format::R5G6B5_UNORM_PACK16));
            // The R10X6 rule also needs VK_EXT_rgba10x6_formats, which the null driver lacks.
            assert!(!has(vk::Format::R10X6G10X6B10X6A10X6_UNORM_4PACK16));
            // A swapchain of an offered optional format gets the allocator's pixel format.
            let info = wsi
                .swapchain_info(surface)
                .image_format(vk::Format::A2B10G10R10_UNORM_PACK32);
            let sc = wsi.create_swapchain(&info).unwrap();
            assert_eq!(win.producer_state().format, 0x2b /* RGBA_1010102 */);
            wsi.destroy_swapchain(sc);
            wsi.destroy_surface(surface);
            println!("formats follow the allocator");
        },
    );
}

#[test]
fn dolbyvision_maps_to_bt2020_pq() {
    let loader = loader();
    let (env, _root) = hal_env("null", "");
    in_child("dolbyvision_maps_to_bt2020_pq", &env, || {
        let wsi = Wsi::new(&loader, &[ash::ext::swapchain_colorspace::NAME], &[], &[]).unwrap();
        let win = window(16, 16);
        let surface = wsi.create_surface(&win).unwrap();
        for (cs, dataspace) in [
            (vk::ColorSpaceKHR::DOLBYVISION_EXT, BT2020_PQ),
            (vk::ColorSpaceKHR::HDR10_ST2084_EXT, BT2020_PQ),
            (vk::ColorSpaceKHR::ADOBERGB_LINEAR_EXT, ADOBE_RGB_LINEAR),
            (vk::ColorSpaceKHR::ADOBERGB_NONLINEAR_EXT, ADOBE_RGB),
        ] {
            let info = wsi.swapchain_info(surface).image_color_space(cs);
            let sc = wsi.create_swapchain(&info).unwrap();
            assert_eq!(win.producer_state().dataspace, dataspace, "{cs:?}");
            wsi.destroy_swapchain(sc);
        }
        wsi.destroy_surface(surface);
        println!("DOLBYVISION → BT2020_PQ, ADOBERGB_LINEAR → ADOBE_RGB_LINEAR");
    });
}

fn has_extension(wsi: &Wsi, name: &std::ffi::CStr) -> bool {
    // SAFETY: a live physical device.
    unsafe { wsi.instance.enumerate_device_extension_properties(wsi.pd) }
        .unwrap()
        .iter()
        .any(|e| e.extension_name_as_c_str() == Ok(name))
}

/// `imageCompressionControlSwapchain` as the loader reports it (queried alone, so the loader
/// asks the driver for `imageCompressionControl` itself).
fn swapchain_feature(wsi: &Wsi) -> bool {
    let mut swapchain = vk::PhysicalDeviceImageCompressionControlSwapchainFeaturesEXT::default();
    let mut features = vk::PhysicalDeviceFeatures2::default().push_next(&mut swapchain);
    // SAFETY: a live physical device and a valid chain.
    unsafe {
        wsi.instance
            .get_physical_device_features2(wsi.pd, &mut features)
    };
    swapchain.image_compression_control_swapchain == vk::TRUE
}

const COMPRESSION: &std::ffi::CStr = ash::ext::image_compression_control::NAME;
const COMPRESSION_SWAPCHAIN: &std::ffi::CStr = ash::ext::image_compression_control_swapchain::NAME;

#[test]
fn image_compression_control_needs_native_buffer_spec_9_and_the_feature() {
    const SCENARIO: &str = "image_compression_control_needs_native_buffer_spec_9_and_the_feature";
    if let Some(s) = vkgen_tests::env::child_scenario() {
        if s == SCENARIO {
            let expected = std::env::var("VKGEN_TEST_EXPECT").unwrap() == "1";
            let wsi = Wsi::new(&loader(), &[], &[], &[]).unwrap();
            assert_eq!(has_extension(&wsi, COMPRESSION), expected);
            assert_eq!(has_extension(&wsi, COMPRESSION_SWAPCHAIN), expected);
            if std::env::var_os("VKGEN_TEST_FIXTURE").is_some() {
                // AOSP's quirk: the fixture says imageCompressionControlSwapchain = FALSE, the
                // loader reports its imageCompressionControl instead.
                let feature = std::env::var("VKGEN_TEST_FEATURE").unwrap() == "1";
                assert_eq!(swapchain_feature(&wsi), feature);
            }
            println!("\n{} {SCENARIO}", vkgen_tests::env::DONE_MARKER);
        }
        return;
    }
    // The fixture: (native buffer spec, feature) → offered.
    for (spec, feature, offered) in [(8, true, false), (9, false, false), (9, true, true)] {
        let spec_define = format!("ANB_SPEC={spec}");
        let mut defines = vec!["GRALLOC4", spec_define.as_str()];
        if feature {
            defines.push("COMPRESSION");
        }
        let lib = wsi_driver(&defines);
        let root = tempfile::tempdir().unwrap();
        let env = common::hal_env(&root, &lib, "")
            .set("VKGEN_TEST_EXPECT", if offered { "1" } else { "0" })
            .set("VKGEN_TEST_FEATURE", if feature { "1" } else { "0" })
            .set("VKGEN_TEST_FIXTURE", &lib);
        let out = vkgen_tests::env::run_child(SCENARIO, &env);
        require(vkgen_tests::env::check_child(SCENARIO, &out));
    }
    // The null driver (spec 11): offered with the feature, not once it is switched off.
    for on in [true, false] {
        let (env, _root) = hal_env("null", "");
        let env = env
            .set("VKGEN_NULL_IMAGE_COMPRESSION", if on { "1" } else { "0" })
            .set("VKGEN_TEST_EXPECT", if on { "1" } else { "0" });
        let out = vkgen_tests::env::run_child(SCENARIO, &env);
        require(vkgen_tests::env::check_child(SCENARIO, &out));
    }
}

/// `vkGetPhysicalDeviceSurfaceFormats2KHR` with a `VkImageCompressionPropertiesEXT` on every
/// element, pre-filled with junk; returns the formats and what each structure holds after.
fn formats2_with_compression(
    wsi: &Wsi,
    surface: vk::SurfaceKHR,
) -> Vec<(
    vk::SurfaceFormatKHR,
    vk::ImageCompressionPropertiesEXT<'static>,
)> {
    let caps2 = ash::khr::get_surface_capabilities2::Instance::new(&wsi.entry, &wsi.instance);
    let info = vk::PhysicalDeviceSurfaceInfo2KHR::default().surface(surface);
    // SAFETY: a live surface.
    let n = unsafe { caps2.get_physical_device_surface_formats2_len(wsi.pd, &info) }.unwrap();
    let junk = vk::ImageCompressionPropertiesEXT {
        image_compression_flags: vk::ImageCompressionFlagsEXT::from_raw(0x40),
        image_compression_fixed_rate_flags: vk::ImageCompressionFixedRateFlagsEXT::from_raw(
            0x0080_0000,
        ),
        ..Default::default()
    };
    let mut props = vec![junk; n];
    let mut out: Vec<vk::SurfaceFormat2KHR<'_>> = props
        .iter_mut()
        .map(|p| vk::SurfaceFormat2KHR::default().push_next(p))
        .collect();
    // SAFETY: `out` has `n` elements with valid chains.
    unsafe { caps2.get_physical_device_surface_formats2(wsi.pd, &info, &mut out) }.unwrap();
    let formats: Vec<_> = out.iter().map(|f| f.surface_format).collect();
    drop(out);
    formats
        .into_iter()
        .zip(props)
        .map(|(f, p)| {
            (
                f,
                vk::ImageCompressionPropertiesEXT {
                    p_next: std::ptr::null_mut(),
                    ..p
                },
            )
        })
        .collect()
}

#[test]
fn compression_properties_in_surface_formats2() {
    const SCENARIO: &str = "compression_properties_in_surface_formats2";
    if let Some(s) = vkgen_tests::env::child_scenario() {
        if s == SCENARIO {
            let on = std::env::var("VKGEN_NULL_IMAGE_COMPRESSION").unwrap() == "1";
            let wsi = Wsi::new(
                &loader(),
                &[ash::khr::get_surface_capabilities2::NAME],
                &[],
                &[],
            )
            .unwrap();
            let win = window(16, 16);
            let surface = wsi.create_surface(&win).unwrap();
            let list = formats2_with_compression(&wsi, surface);
            assert_eq!(list.len(), 5);
            for (format, props) in &list {
                if on {
                    // The null driver's answer to GPDIFP2 + VkImageCompressionControlEXT
                    // (FIXED_RATE_DEFAULT), per format.
                    assert_eq!(
                        props.image_compression_flags,
                        vk::ImageCompressionFlagsEXT::FIXED_RATE_EXPLICIT,
                        "{format:?}"
                    );
                    assert_eq!(
                        props.image_compression_fixed_rate_flags,
                        vk::ImageCompressionFixedRateFlagsEXT::TYPE_2BPC
                            | vk::ImageCompressionFixedRateFlagsEXT::TYPE_4BPC,
                        "{format:?}"
                    );
                } else {
                    // A driver without compression control answers none: the junk is
                    // overwritten with its DEFAULT / no fixed rates.
                    assert_eq!(
                        props.image_compression_flags,
                        vk::ImageCompressionFlagsEXT::DEFAULT
                    );
                    assert_eq!(
                        props.image_compression_fixed_rate_flags,
                        vk::ImageCompressionFixedRateFlagsEXT::NONE
                    );
                }
            }
            wsi.destroy_surface(surface);
            println!("\n{} {SCENARIO}", vkgen_tests::env::DONE_MARKER);
        }
        return;
    }
    for on in ["1", "0"] {
        let (env, _root) = hal_env("null", "");
        let env = env.set("VKGEN_NULL_IMAGE_COMPRESSION", on);
        let out = vkgen_tests::env::run_child(SCENARIO, &env);
        require(vkgen_tests::env::check_child(SCENARIO, &out));
    }
}

/// Creates a swapchain with `VkImageCompressionControlEXT(FIXED_RATE_EXPLICIT, 4 BPC)` on the
/// fixture at `lib` and checks what the driver and the window got.
fn compression_child(lib: &Path, gralloc: u32) {
    let wsi = Wsi::new(&loader(), &[], &[COMPRESSION, COMPRESSION_SWAPCHAIN], &[]).unwrap();
    let win = window(16, 16);
    win.set_consumer_usage(0);
    let surface = wsi.create_surface(&win).unwrap();
    let mut rates = [vk::ImageCompressionFixedRateFlagsEXT::TYPE_4BPC];
    let mut control = vk::ImageCompressionControlEXT::default()
        .flags(vk::ImageCompressionFlagsEXT::FIXED_RATE_EXPLICIT)
        .fixed_rate_flags(&mut rates);
    let info = wsi.swapchain_info(surface).push_next(&mut control);
    let before = counter(lib, "compressed_images");
    let created_before = counter(lib, "images_created");
    let sc = wsi.create_swapchain(&info).unwrap();
    // getProducerUsage: GPDIFP2 first (this driver refuses it) with the structure chained
    // after the AHB external info, then GrallocUsage4/3 with it as the usage info's pNext.
    assert_eq!(
        counter(lib, "gpdifp2_compression_flags"),
        vk::ImageCompressionFlagsEXT::FIXED_RATE_EXPLICIT.as_raw() as i32
    );
    assert_eq!(counter(lib, "gralloc_version"), gralloc as i32);
    assert_eq!(
        counter(lib, "gralloc_compression_flags"),
        vk::ImageCompressionFlagsEXT::FIXED_RATE_EXPLICIT.as_raw() as i32
    );
    // The driver's vendor bits for 4 BPC (bit 3) reach the window's usage.
    let usage = win.producer_state().usage;
    assert_eq!(usage & (0xffff << 48), 8 << 48, "usage {usage:#x}");
    // Every swapchain image was created with the structure after VkSwapchainImageCreateInfo.
    let images = counter(lib, "images_created") - created_before;
    assert!(images >= 2, "{images} images");
    assert_eq!(counter(lib, "compressed_images") - before, images);
    assert_eq!(
        counter(lib, "image_compression_flags"),
        vk::ImageCompressionFlagsEXT::FIXED_RATE_EXPLICIT.as_raw() as i32
    );
    assert_eq!(
        counter(lib, "image_compression_rate"),
        vk::ImageCompressionFixedRateFlagsEXT::TYPE_4BPC.as_raw() as i32
    );
    wsi.destroy_swapchain(sc);
    // Without the structure, no vendor bits and no structure on the images.
    let before = counter(lib, "compressed_images");
    let sc = wsi.create_swapchain(&wsi.swapchain_info(surface)).unwrap();
    assert_eq!(win.producer_state().usage & (0xffff << 48), 0);
    assert_eq!(counter(lib, "compressed_images"), before);
    wsi.destroy_swapchain(sc);
    wsi.destroy_surface(surface);
}

#[test]
fn swapchain_compression_reaches_gralloc_usage_and_the_image() {
    const SCENARIO: &str = "swapchain_compression_reaches_gralloc_usage_and_the_image";
    if let Some(s) = vkgen_tests::env::child_scenario() {
        if s == SCENARIO {
            let lib = PathBuf::from(std::env::var_os("VKGEN_TEST_FIXTURE").unwrap());
            let gralloc: u32 = std::env::var("VKGEN_TEST_GRALLOC")
                .unwrap()
                .parse()
                .unwrap();
            compression_child(&lib, gralloc);
            println!("\n{} {SCENARIO}", vkgen_tests::env::DONE_MARKER);
        }
        return;
    }
    for (gralloc, define) in [(4, "GRALLOC4"), (3, "GRALLOC3")] {
        let lib = wsi_driver(&[define, "COMPRESSION", "ANB_SPEC=9"]);
        let root = tempfile::tempdir().unwrap();
        let env = common::hal_env(&root, &lib, "")
            .set("VKGEN_TEST_FIXTURE", &lib)
            .set("VKGEN_TEST_GRALLOC", gralloc.to_string());
        let out = vkgen_tests::env::run_child(SCENARIO, &env);
        require(vkgen_tests::env::check_child(SCENARIO, &out));
    }
}

#[test]
fn r10x6_needs_rgba10x6_formats_and_the_allocators_rgba_10101010() {
    const SCENARIO: &str = "r10x6_needs_rgba10x6_formats_and_the_allocators_rgba_10101010";
    if let Some(s) = vkgen_tests::env::child_scenario() {
        if s == SCENARIO {
            let lib = PathBuf::from(std::env::var_os("VKGEN_TEST_FIXTURE").unwrap());
            let ext = std::env::var("VKGEN_TEST_RGBA10X6").unwrap() == "1";
            let r10x6 = vk::Format::R10X6G10X6B10X6A10X6_UNORM_4PACK16;
            for colorspace_ext in [false, true] {
                let exts: &[&std::ffi::CStr] = if colorspace_ext {
                    &[ash::ext::swapchain_colorspace::NAME]
                } else {
                    &[]
                };
                let wsi = Wsi::new(&loader(), exts, &[], &[]).unwrap();
                let win = window(16, 16);
                let surface = wsi.create_surface(&win).unwrap();
                // SAFETY: a live surface.
                let formats = unsafe {
                    wsi.surface_fns
                        .get_physical_device_surface_formats(wsi.pd, surface)
                }
                .unwrap();
                assert_eq!(formats, aosp_formats(colorspace_ext, ext));
                let offered = formats.iter().filter(|f| f.format == r10x6).count();
                assert_eq!(
                    offered,
                    match (ext, colorspace_ext) {
                        (false, _) => 0,
                        (true, false) => 1,
                        (true, true) => 13,
                    }
                );
                if ext {
                    // The allocator's RGBA_10101010 buffers back an R10X6 swapchain.
                    let before = counter(&lib, "r10x6_images");
                    let info = wsi.swapchain_info(surface).image_format(r10x6);
                    let sc = wsi.create_swapchain(&info).unwrap();
                    assert_eq!(win.producer_state().format, 0x3b /* RGBA_10101010 */);
                    assert!(counter(&lib, "r10x6_images") > before);
                    wsi.destroy_swapchain(sc);
                }
                wsi.destroy_surface(surface);
            }
            println!("\n{} {SCENARIO}", vkgen_tests::env::DONE_MARKER);
        }
        return;
    }
    for ext in [false, true] {
        let defines: &[&str] = if ext {
            &["GRALLOC4", "RGBA10X6"]
        } else {
            &["GRALLOC4"]
        };
        let lib = wsi_driver(defines);
        let root = tempfile::tempdir().unwrap();
        let env = common::hal_env(&root, &lib, "")
            .set("VKGEN_TEST_FIXTURE", &lib)
            .set("VKGEN_TEST_RGBA10X6", if ext { "1" } else { "0" });
        let out = vkgen_tests::env::run_child(SCENARIO, &env);
        require(vkgen_tests::env::check_child(SCENARIO, &out));
    }
}
