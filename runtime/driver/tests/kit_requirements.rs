//! Issue 20: the kit's default device is a valid device of the version it claims (every feature
//! vk.xml requires of that version, the minimum limits), and `kit::requirements::check` lists
//! what a description misses: required features, limits, advertised extensions' dependencies.

use vkgen_driver::generated::extensions::ExtensionId;
use vkgen_driver::generated::vk;
use vkgen_driver::kit::requirements::{
    check, with_feature_limits, with_required_features, with_required_limits, Missing,
};
use vkgen_driver::kit::{defaults, ExtensionSet, Features, Properties};

/// The kit's default description of a device of `api` advertising `exts`.
fn default_device(api: u32, exts: &[ExtensionId]) -> (Properties, Features) {
    let props = with_required_limits(defaults::properties(c"test", api));
    let feats = with_required_features(api, &ExtensionSet::from_ids(exts), defaults::features());
    (with_feature_limits(props, &feats), feats)
}

const V14: u32 = vk::make_api_version(0, 1, 4, 0);

const VERSIONS: [u32; 5] = [
    vk::API_VERSION_1_0,
    vk::API_VERSION_1_1,
    vk::API_VERSION_1_2,
    vk::API_VERSION_1_3,
    V14,
];

#[test]
fn default_devices_of_every_version_miss_nothing() {
    for api in VERSIONS {
        let (p, f) = default_device(api, &[]);
        assert_eq!(check(&p, &f, &[]), [], "{}", vk::api_version_minor(api));
    }
    let (p, f) = default_device(vk::API_VERSION_1_3, &[]);
    for name in [
        "timelineSemaphore",
        "synchronization2",
        "dynamicRendering",
        "maintenance4",
        "bufferDeviceAddress",
        "vulkanMemoryModel",
        "multiview",
    ] {
        assert_eq!(f.get(name), Some(true), "{name}");
    }
    assert!(p.subgroup_size >= 1);
    assert!(p.max_memory_allocation_size >= 1 << 30);
    assert!(p.max_per_set_descriptors >= 1024);
    let (_, f14) = default_device(V14, &[]);
    for name in [
        "maintenance5",
        "maintenance6",
        "pushDescriptor",
        "samplerAnisotropy",
    ] {
        assert_eq!(f14.get(name), Some(true), "{name}");
    }
    // 1.2 does not require descriptor indexing of a device without VK_EXT_descriptor_indexing.
    let (_, f12) = default_device(vk::API_VERSION_1_2, &[]);
    assert_eq!(f12.get("descriptorIndexing"), Some(false));
    assert_eq!(f12.get("dynamicRendering"), Some(false));
}

#[test]
fn a_required_feature_turned_off_is_reported() {
    for api in [vk::API_VERSION_1_2, vk::API_VERSION_1_3, V14] {
        let (p, mut f) = default_device(api, &[]);
        f.timeline_semaphore = false;
        assert_eq!(
            check(&p, &f, &[]),
            [Missing::Feature {
                feature: "timelineSemaphore",
                by: "VK_VERSION_1_2"
            }]
        );
    }
    // An advertised extension's required feature.
    let (p, f) = default_device(vk::API_VERSION_1_1, &[]);
    let got = check(&p, &f, &[ExtensionId::KHR_TIMELINE_SEMAPHORE]);
    assert!(got.contains(&Missing::Feature {
        feature: "timelineSemaphore",
        by: "VK_KHR_timeline_semaphore"
    }));
}

#[test]
fn a_limit_below_its_minimum_is_reported() {
    let (mut p, f) = default_device(vk::API_VERSION_1_3, &[]);
    p.max_memory_allocation_size = 0;
    p.subgroup_supported_stages = vk::ShaderStageFlags::empty();
    let got = check(&p, &f, &[]);
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(matches!(
        got[0],
        Missing::Limit {
            limit: "maxMemoryAllocationSize",
            by: "VK_VERSION_1_1",
            ..
        }
    ));
    assert!(matches!(
        got[1],
        Missing::Limit {
            limit: "subgroupSupportedStages",
            ..
        }
    ));
}

#[test]
fn an_extension_without_its_dependency_is_reported() {
    let api = vk::API_VERSION_1_3;
    let alone = [ExtensionId::KHR_ACCELERATION_STRUCTURE];
    let (p, f) = default_device(api, &alone);
    let got = check(&p, &f, &alone);
    assert!(
        got.iter().any(|m| matches!(
            m,
            Missing::Dependency {
                extension: "VK_KHR_acceleration_structure",
                ..
            }
        )),
        "{got:?}"
    );
    let both = [
        ExtensionId::KHR_ACCELERATION_STRUCTURE,
        ExtensionId::KHR_DEFERRED_HOST_OPERATIONS,
    ];
    let (p, f) = default_device(api, &both);
    assert_eq!(check(&p, &f, &both), []);
    assert_eq!(f.get("accelerationStructure"), Some(true));
}

/// Two drivers that advertise `VK_KHR_push_descriptor` at 1.1 and write only `vkCreateBuffer`:
/// one in bring-up (`NULL_OBJECTS`), one past it.
macro_rules! cliff_fixture {
    ($name:ident, $null_objects:expr) => {
        struct $name;
        impl vkgen_driver::export::DriverModule for $name {
            const NAME: &'static std::ffi::CStr = c"cliff fixture";
        }
        impl vkgen_driver::kit::Kit for $name {
            type Instance = ();
            type PhysicalDevice = ();
            type Device = ();
            type Queue = ();
            type CommandBuffer = ();
            type CommandPool = ();
            const NULL_OBJECTS: bool = $null_objects;
            fn device_extensions() -> &'static [ExtensionId] {
                &[ExtensionId::KHR_PUSH_DESCRIPTOR]
            }
        }
        impl vkgen_driver::kit::native_buffer::NativeBuffers for $name {}
        #[vkgen_driver::driver(kit)]
        impl vkgen_driver::generated::driver::Driver for $name {
            const API_VERSION: u32 = vk::API_VERSION_1_1;
            unsafe fn create_buffer(
                _device: vk::Device,
                _info: *const vk::BufferCreateInfo<'_>,
                _allocator: *const vk::AllocationCallbacks<'_>,
                _buffer: *mut vk::Buffer,
            ) -> vk::Result {
                vk::Result::ERROR_OUT_OF_DEVICE_MEMORY
            }
        }
    };
}

cliff_fixture!(PastBringUp, false);
cliff_fixture!(InBringUp, true);

#[test]
fn commands_a_driver_promises_but_lacks_are_named_before_the_cliff() {
    use vkgen_driver::kit::{requirements::missing, PhysicalDeviceDesc};
    let desc = PhysicalDeviceDesc::<PastBringUp>::new(c"cliff", ());
    let got = missing(&desc);
    let command = |command: &'static str, by: &'static str| Missing::Command { command, by };
    // The cliff: an advertised extension's command, and a 1.0 command, both NULL.
    assert!(got.contains(&command(
        "vkCmdPushDescriptorSetKHR",
        "VK_KHR_push_descriptor"
    )));
    assert!(got.contains(&command("vkCreateImage", "VK_VERSION_1_0")));
    assert!(got.contains(&command("vkBindBufferMemory2", "VK_VERSION_1_1")));
    // The vendor's hook, the kit's commons, a later version's commands: not missing.
    for present in [
        "vkCreateBuffer",
        "vkCreateDevice",
        "vkGetPhysicalDeviceFeatures2",
        "vkResetQueryPool",
    ] {
        assert!(
            !got.iter()
                .any(|m| matches!(m, Missing::Command { command, .. } if *command == present)),
            "{present}"
        );
    }
    // Besides the commands, only warnings: the default formats' features, whose commands
    // (copies, blits, clears, draws) are among the NULL ones.
    assert!(
        got.iter()
            .all(|m| matches!(m, Missing::Command { .. } | Missing::FormatFeature { .. })),
        "the description itself is valid: {got:?}"
    );
    assert!(got.contains(&Missing::FormatFeature {
        feature: "BLIT_DST",
        commands: "vkCmdBlitImage/vkCmdBlitImage2".into(),
        count: 125,
        examples: "VK_FORMAT_R4G4_UNORM_PACK8, VK_FORMAT_R4G4B4A4_UNORM_PACK16, \
                   VK_FORMAT_B4G4R4A4_UNORM_PACK16"
            .into(),
    }));
    // In bring-up the null driver answers all of them.
    let bring_up = PhysicalDeviceDesc::<InBringUp>::new(c"cliff", ());
    assert_eq!(missing(&bring_up), []);
}

#[test]
fn limits_come_from_the_profiles_per_version_with_their_kind() {
    use vkgen_driver::generated::features::REQUIRED_LIMITS;
    use vkgen_driver::kit::requirements::LIMITS_SOURCE;
    assert!(
        LIMITS_SOURCE.contains("KhronosGroup/Vulkan-Profiles@")
            && LIMITS_SOURCE.contains("VP_LUNARG_minimum_requirements.json"),
        "{LIMITS_SOURCE}"
    );
    for by in [
        "VK_VERSION_1_0",
        "VK_VERSION_1_1",
        "VK_VERSION_1_2",
        "VK_VERSION_1_3",
        "VK_VERSION_1_4",
    ] {
        assert!(REQUIRED_LIMITS.iter().any(|l| l.by == by), "{by}");
    }
    let kind = |limit: &str| {
        REQUIRED_LIMITS
            .iter()
            .find(|l| l.limit == limit)
            .map(|l| l.kind)
    };
    assert_eq!(kind("maxImageDimension2D"), Some("max"));
    assert_eq!(kind("minUniformBufferOffsetAlignment"), Some("min,pot"));
    assert_eq!(kind("viewportBoundsRange"), Some("range"));
    assert_eq!(kind("framebufferColorSampleCounts"), Some("bitmask"));
    // Vulkan 1.4 raised the 1.0 minimums; the default device moves just far enough.
    let (p13, _) = default_device(vk::API_VERSION_1_3, &[]);
    let (p14, _) = default_device(V14, &[]);
    assert_eq!(p13.max_image_dimension2_d, 4096);
    assert_eq!(p14.max_image_dimension2_d, 8192);
    assert_eq!(p14.max_bound_descriptor_sets, 7);
    assert_eq!(p14.max_push_descriptors, 32);
    assert_eq!(p14.viewport_bounds_range, [-15360.0, 15359.0]);
    assert!(p14.standard_sample_locations && p14.timestamp_compute_and_graphics);
    // A limit better than required is kept.
    let mut better = defaults::properties(c"test", V14);
    better.max_image_dimension2_d = 16384;
    better.min_uniform_buffer_offset_alignment = 16;
    let better = with_required_limits(better);
    assert_eq!(better.max_image_dimension2_d, 16384);
    assert_eq!(better.min_uniform_buffer_offset_alignment, 16);
}

#[test]
fn a_vendor_description_that_lowers_a_limit_is_reported() {
    use vkgen_driver::kit::{requirements::missing, PhysicalDeviceDesc};
    let mut desc = PhysicalDeviceDesc::<InBringUp>::new(c"limits", ());
    assert_eq!(missing(&desc), []);
    desc.properties.max_per_set_descriptors = 512;
    desc.properties.min_uniform_buffer_offset_alignment = 512;
    desc.properties.buffer_image_granularity = 3;
    desc.properties.subgroup_supported_stages = vk::ShaderStageFlags::FRAGMENT;
    let got = missing(&desc);
    let limit = |limit: &'static str, kind: &'static str, required: &'static str, have: &str| {
        Missing::Limit {
            limit,
            by: if limit.starts_with("maxPer") || limit.starts_with("subgroup") {
                "VK_VERSION_1_1"
            } else {
                "VK_VERSION_1_0"
            },
            kind,
            required,
            have: have.to_owned(),
        }
    };
    for want in [
        limit("maxPerSetDescriptors", "max", "1024", "512"),
        limit("minUniformBufferOffsetAlignment", "min,pot", "256", "512"),
        // A granularity must divide the required one.
        limit("bufferImageGranularity", "min,mul", "131072", "3"),
    ] {
        assert!(got.contains(&want), "{want:?} not in {got:?}");
    }
    assert!(got.iter().any(|m| matches!(
        m,
        Missing::Limit {
            limit: "subgroupSupportedStages",
            kind: "bitmask",
            ..
        }
    )));
    assert_eq!(got.len(), 4, "{got:?}");
    // At 1.4 only the strictest row of a raised limit reports.
    let (mut p, f) = default_device(V14, &[]);
    p.max_image_dimension2_d = 4096;
    assert_eq!(
        check(&p, &f, &[]),
        [Missing::Limit {
            limit: "maxImageDimension2D",
            by: "VK_VERSION_1_4",
            kind: "max",
            required: "8192",
            have: "4096".to_owned(),
        }]
    );
}

#[test]
fn features_a_down_bumped_version_cannot_expose_are_reported_dropped() {
    use vkgen_driver::kit::{requirements::missing, PhysicalDeviceDesc};
    // A description written for 1.3, on a driver whose API version is 1.1.
    let mut desc = PhysicalDeviceDesc::<InBringUp>::new(c"down-bump", ());
    desc.features.timeline_semaphore = true;
    desc.features.synchronization2 = true;
    desc.features.multiview = true;
    let got = missing(&desc);
    assert_eq!(
        got,
        [
            Missing::Dropped {
                feature: "timelineSemaphore",
                exposed_by: "VK_VERSION_1_2,VK_KHR_timeline_semaphore",
            },
            Missing::Dropped {
                feature: "synchronization2",
                exposed_by: "VK_VERSION_1_3,VK_KHR_synchronization2",
            },
        ],
        "multiview is core 1.1, so kept"
    );
    // The promoting extension exposes it at the lower version.
    let exts = ExtensionSet::from_ids(&[ExtensionId::KHR_TIMELINE_SEMAPHORE]);
    let (p, mut f) = default_device(vk::API_VERSION_1_1, &[ExtensionId::KHR_TIMELINE_SEMAPHORE]);
    f.timeline_semaphore = true;
    assert!(vkgen_driver::kit::requirements::dropped(p.api_version, &exts, &f).is_empty());
    // The same description at the version it was written for drops nothing.
    let (p13, mut f13) = default_device(vk::API_VERSION_1_3, &[]);
    f13.timeline_semaphore = true;
    f13.synchronization2 = true;
    assert_eq!(check(&p13, &f13, &[]), []);
}

#[test]
fn the_report_checks_every_device_an_instance_enumerates() {
    use vkgen_driver::testing::requirements::{assert_requirements, report};
    let clean = report::<InBringUp>(None).unwrap();
    assert_eq!(clean.devices.len(), 1);
    assert_eq!(clean.devices[0].api_version, vk::API_VERSION_1_1);
    assert_eq!(clean.mandatory().count(), 0, "{clean}");
    assert_requirements::<InBringUp>(None);
    let gaps = report::<PastBringUp>(None).unwrap();
    assert!(gaps.mandatory().any(|m| *m
        == Missing::Command {
            command: "vkCmdPushDescriptorSetKHR",
            by: "VK_KHR_push_descriptor"
        }));
    let text = gaps.to_string();
    assert!(
        text.contains("Vulkan-Profiles")
            && text.contains(
                "missing: VK_VERSION_1_0 requires vkCreateImage, which has no implementation"
            ),
        "{text}"
    );
    let failed = std::panic::catch_unwind(|| assert_requirements::<PastBringUp>(None));
    assert!(failed.is_err(), "mandatory gaps fail the vendor's test");
}

/// A 1.1 driver whose description was written for 1.2: `timelineSemaphore` on, no extension.
struct DownBumped;
impl vkgen_driver::export::DriverModule for DownBumped {
    const NAME: &'static std::ffi::CStr = c"down-bumped fixture";
}
impl vkgen_driver::kit::Kit for DownBumped {
    type Instance = ();
    type PhysicalDevice = ();
    type Device = ();
    type Queue = ();
    type CommandBuffer = ();
    type CommandPool = ();
    const NULL_OBJECTS: bool = true;
    fn physical_devices(
        _instance: &vkgen_driver::kit::Instance<Self>,
    ) -> Result<Vec<vkgen_driver::kit::PhysicalDeviceDesc<Self>>, vk::Result> {
        let mut d = vkgen_driver::kit::PhysicalDeviceDesc::new(c"down-bumped", ());
        d.features.timeline_semaphore = true;
        Ok(vec![d])
    }
}
impl vkgen_driver::kit::native_buffer::NativeBuffers for DownBumped {}
#[vkgen_driver::driver(kit)]
impl vkgen_driver::generated::driver::Driver for DownBumped {
    const API_VERSION: u32 = vk::API_VERSION_1_1;
}

/// Every warning logged in this test binary.
struct Capture(std::sync::Mutex<Vec<String>>);
impl log::Log for Capture {
    fn enabled(&self, m: &log::Metadata<'_>) -> bool {
        m.level() <= log::Level::Warn
    }
    fn log(&self, r: &log::Record<'_>) {
        if self.enabled(r.metadata()) {
            self.0.lock().unwrap().push(r.args().to_string());
        }
    }
    fn flush(&self) {}
}
static CAPTURE: Capture = Capture(std::sync::Mutex::new(Vec::new()));

#[test]
fn the_first_instance_logs_and_the_report_warns_about_dropped_features() {
    use vkgen_driver::testing::requirements::report;
    log::set_logger(&CAPTURE).unwrap();
    log::set_max_level(log::LevelFilter::Warn);
    let r = report::<DownBumped>(None).unwrap();
    let dropped = Missing::Dropped {
        feature: "timelineSemaphore",
        exposed_by: "VK_VERSION_1_2,VK_KHR_timeline_semaphore",
    };
    assert_eq!(r.devices[0].missing, std::slice::from_ref(&dropped));
    assert_eq!(r.mandatory().count(), 0, "a warning, not a gap");
    assert!(
        r.to_string().contains(&format!("warning: {dropped}")),
        "{r}"
    );
    let logged = CAPTURE.0.lock().unwrap().clone();
    assert_eq!(
        logged
            .iter()
            .filter(|l| l.contains(&dropped.to_string()))
            .count(),
        1,
        "{logged:?}"
    );
    // Once per driver type and process, not at every vkCreateInstance.
    report::<DownBumped>(None).unwrap();
    let again = CAPTURE.0.lock().unwrap().clone();
    assert_eq!(
        again
            .iter()
            .filter(|l| l.contains("timelineSemaphore"))
            .count(),
        1
    );
}

#[test]
fn image_formats_answer_the_devices_raised_limits() {
    let info = vk::PhysicalDeviceImageFormatInfo2::default()
        .format(vk::Format::R8G8B8A8_UNORM)
        .ty(vk::ImageType::TYPE_2D)
        .tiling(vk::ImageTiling::OPTIMAL)
        .usage(vk::ImageUsageFlags::SAMPLED);
    let format = defaults::format_properties(info.format);
    let answer = |api| {
        let (p, _) = default_device(api, &[]);
        defaults::image_format_properties(format, &info, &p.properties10().limits).unwrap()
    };
    let v10 = answer(vk::API_VERSION_1_0);
    assert_eq!(
        (
            v10.max_extent.width,
            v10.max_mip_levels,
            v10.max_array_layers
        ),
        (4096, 13, 256)
    );
    let v14 = answer(V14);
    assert_eq!((v14.max_extent.width, v14.max_extent.height), (8192, 8192));
    assert_eq!((v14.max_mip_levels, v14.max_array_layers), (14, 2048));
    let v3d = defaults::image_format_properties(
        format,
        &info.ty(vk::ImageType::TYPE_3D),
        &default_device(V14, &[]).0.properties10().limits,
    )
    .unwrap();
    assert_eq!(
        (
            v3d.max_extent.depth,
            v3d.max_mip_levels,
            v3d.max_array_layers
        ),
        (512, 10, 1)
    );
}

#[test]
fn power_of_two_limits_must_be_powers_of_two() {
    let (mut p, f) = default_device(vk::API_VERSION_1_3, &[]);
    p.min_uniform_buffer_offset_alignment = 96;
    p.non_coherent_atom_size = 64;
    let got = check(&p, &f, &[]);
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(matches!(
        got[0],
        Missing::Limit {
            limit: "minUniformBufferOffsetAlignment",
            kind: "min,pot",
            ..
        }
    ));
    let raised = with_required_limits(p);
    assert_eq!(raised.min_uniform_buffer_offset_alignment, 256);
    assert_eq!(
        raised.non_coherent_atom_size, 64,
        "a better power of two is kept"
    );
}
