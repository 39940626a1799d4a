//! Issue 30, item 7: the kit's default device is valid at every version beyond its tables —
//! timestamps agree with every queue family, the limits its enabled features require are
//! met, `driverID` is a real `VkDriverId` — and the requirements report names each failed
//! cross-check.

use vkgen_driver::generated::extensions::ExtensionId;
use vkgen_driver::generated::vk;
use vkgen_driver::kit::requirements::{
    check, cross_check, with_feature_limits, with_required_features, with_required_limits, Missing,
};
use vkgen_driver::kit::{defaults, ExtensionSet, Features, Properties};

const V14: u32 = vk::make_api_version(0, 1, 4, 0);

/// The kit's default description at `api` (what `PhysicalDeviceDesc::new` builds).
fn default_device(api: u32, exts: &[ExtensionId]) -> (Properties, Features) {
    let props = with_required_limits(defaults::properties(c"test", api));
    let feats = with_required_features(api, &ExtensionSet::from_ids(exts), defaults::features());
    (with_feature_limits(props, &feats), feats)
}

/// Every finding of `check` and `cross_check` for a one-family device.
fn findings(p: &Properties, f: &Features, family: vk::QueueFamilyProperties) -> Vec<Missing> {
    let mut out = check(p, f, &[]);
    out.extend(cross_check(p, &[family]));
    out
}

#[test]
fn the_default_device_passes_every_cross_check_at_every_version() {
    for api in [
        vk::API_VERSION_1_0,
        vk::API_VERSION_1_1,
        vk::API_VERSION_1_2,
        vk::API_VERSION_1_3,
        V14,
    ] {
        let (p, f) = default_device(api, &[]);
        assert_eq!(
            findings(&p, &f, defaults::queue_family()),
            [],
            "1.{}",
            vk::api_version_minor(api)
        );
        assert_eq!(p.driver_id, defaults::DRIVER_ID);
    }
    let family = defaults::queue_family();
    assert_eq!(family.timestamp_valid_bits, 64);
    let (p14, f14) = default_device(V14, &[]);
    assert!(p14.timestamp_compute_and_graphics && p14.timestamp_period > 0.0);
    // The features 1.4 requires come with the limits they make non-zero.
    assert!(f14.bresenham_lines && p14.line_sub_pixel_precision_bits >= 4);
    assert!(f14.vertex_attribute_instance_rate_divisor && p14.max_vertex_attrib_divisor >= 65535);
    assert!(f14.sampler_anisotropy && p14.max_sampler_anisotropy >= 16.0);
    assert!(f14.full_draw_index_uint32 && p14.max_draw_indexed_index_value == u32::MAX);
}

#[test]
fn timestamps_without_valid_bits_are_reported() {
    let (p, f) = default_device(V14, &[]);
    let silent = vk::QueueFamilyProperties {
        timestamp_valid_bits: 0,
        ..defaults::queue_family()
    };
    let got = findings(&p, &f, silent);
    assert!(
        matches!(&got[..], [Missing::Timestamps { family: Some(0), detail }]
            if detail.contains("timestampComputeAndGraphics")),
        "{got:?}"
    );
    // A transfer-only family need not have timestamps even then.
    let transfer = vk::QueueFamilyProperties {
        queue_flags: vk::QueueFlags::TRANSFER,
        ..silent
    };
    assert_eq!(cross_check(&p, &[defaults::queue_family(), transfer]), []);
    // Out of the spec's 36..=64, and a zero period.
    let odd = vk::QueueFamilyProperties {
        timestamp_valid_bits: 20,
        ..defaults::queue_family()
    };
    assert!(matches!(
        &cross_check(&p, &[odd])[..],
        [Missing::Timestamps {
            family: Some(0),
            ..
        }]
    ));
    let mut zero = p.clone();
    zero.timestamp_period = 0.0;
    let got = cross_check(&zero, &[defaults::queue_family()]);
    assert!(
        matches!(&got[..], [Missing::Timestamps { family: None, detail }] if detail.contains("timestampPeriod")),
        "{got:?}"
    );
    // A 1.0 device without timestampComputeAndGraphics may leave a family without them.
    let (p10, f10) = default_device(vk::API_VERSION_1_0, &[]);
    assert_eq!(findings(&p10, &f10, silent), []);
}

#[test]
fn a_feature_on_without_its_limits_is_named() {
    let (p, mut f) = default_device(vk::API_VERSION_1_3, &[]);
    f.tessellation_shader = true;
    let got = check(&p, &f, &[]);
    assert!(
        got.contains(&Missing::Limit {
            limit: "maxTessellationGenerationLevel",
            by: "feature tessellationShader",
            kind: "max",
            required: "64",
            have: "0".into(),
        }),
        "{got:?}"
    );
    assert!(got.iter().all(|m| matches!(
        m,
        Missing::Limit {
            by: "feature tessellationShader",
            ..
        }
    )));
    assert_eq!(check(&with_feature_limits(p, &f), &f, &[]), []);

    // 1.4's line-rasterization and divisor features, with their limits back at 0.
    let (mut p, f) = default_device(V14, &[]);
    p.line_sub_pixel_precision_bits = 0;
    p.max_vertex_attrib_divisor = 0;
    let got = check(&p, &f, &[]);
    let named: Vec<(&str, &str)> = got
        .iter()
        .filter_map(|m| match m {
            Missing::Limit { limit, by, .. } => Some((*limit, *by)),
            _ => None,
        })
        .collect();
    assert_eq!(
        named,
        [
            (
                "lineSubPixelPrecisionBits",
                "feature bresenhamLines, rectangularLines or smoothLines"
            ),
            (
                "maxVertexAttribDivisor",
                "feature vertexAttributeInstanceRateDivisor"
            ),
        ],
        "{got:?}"
    );
    let text = got[0].to_string();
    assert!(
        text.contains("requires lineSubPixelPrecisionBits 4"),
        "{text}"
    );
}

#[test]
fn a_driver_id_that_is_no_vk_driver_id_is_named() {
    for api in [vk::API_VERSION_1_2, vk::API_VERSION_1_3, V14] {
        for bad in [0, 9999] {
            let (mut p, f) = default_device(api, &[]);
            p.driver_id = vk::DriverId::from_raw(bad);
            let got = check(&p, &f, &[]);
            assert_eq!(got, [Missing::DriverId { have: bad }]);
            assert!(got[0].to_string().contains("set properties.driver_id"));
        }
    }
    // Not visible to a 1.1 application unless the device advertises VK_KHR_driver_properties.
    let (mut p, f) = default_device(vk::API_VERSION_1_1, &[]);
    p.driver_id = vk::DriverId::from_raw(0);
    assert_eq!(check(&p, &f, &[]), []);
    let exts = [ExtensionId::KHR_DRIVER_PROPERTIES];
    assert_eq!(check(&p, &f, &exts), [Missing::DriverId { have: 0 }]);
}

/// A driver at the generated registry's version whose only family lost its timestamps.
struct NoTimestamps;
impl vkgen_driver::export::DriverModule for NoTimestamps {
    const NAME: &'static std::ffi::CStr = c"no-timestamps fixture";
}
impl vkgen_driver::kit::Kit for NoTimestamps {
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
        let mut d = vkgen_driver::kit::PhysicalDeviceDesc::new(c"no timestamps", ());
        d.queue_families[0].timestamp_valid_bits = 0;
        d.properties.timestamp_compute_and_graphics = true;
        d.properties.driver_id = vk::DriverId::from_raw(0);
        Ok(vec![d])
    }
}
impl vkgen_driver::kit::native_buffer::NativeBuffers for NoTimestamps {}
#[vkgen_driver::driver(kit)]
impl vkgen_driver::generated::driver::Driver for NoTimestamps {
    const API_VERSION: u32 = vk::API_VERSION_1_3;
}

#[test]
fn the_report_prints_each_failed_cross_check() {
    use vkgen_driver::testing::requirements::report;
    let r = report::<NoTimestamps>(None).unwrap();
    let text = r.to_string();
    assert!(
        text.contains("missing: timestamps: timestampComputeAndGraphics is on but graphics/compute queue family 0")
            && text.contains("missing: driverID 0 is not a VkDriverId"),
        "{text}"
    );
    assert_eq!(r.mandatory().count(), 2, "{text}");
}
