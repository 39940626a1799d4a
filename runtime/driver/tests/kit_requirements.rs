//! Issue 20: the kit's default device is a valid device of the version it claims (every feature
//! vk.xml requires of that version, the minimum limits), and `kit::requirements::check` lists
//! what a description misses: required features, limits, advertised extensions' dependencies.

use vkgen_driver::generated::extensions::ExtensionId;
use vkgen_driver::generated::vk;
use vkgen_driver::kit::requirements::{
    check, with_required_features, with_required_limits, Missing,
};
use vkgen_driver::kit::{defaults, ExtensionSet, Features, Properties};

/// The kit's default description of a device of `api` advertising `exts`.
fn default_device(api: u32, exts: &[ExtensionId]) -> (Properties, Features) {
    let props = with_required_limits(defaults::properties(c"test", api));
    let feats = with_required_features(api, &ExtensionSet::from_ids(exts), defaults::features());
    (props, feats)
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
