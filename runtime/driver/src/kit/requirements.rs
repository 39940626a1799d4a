//! What the registry and the specification require of a device of a version: the features vk.xml
//! marks as required (`<require><feature …/>`, generated as
//! [`REQUIRED_FEATURES`](vkgen_generated::features::REQUIRED_FEATURES)) per core version and per
//! extension, the minimum limits the core versions after 1.0 add ([`LIMITS`]), and the
//! `depends=` of every advertised extension.
//!
//! [`PhysicalDeviceDesc::new`](super::PhysicalDeviceDesc::new) starts from a device that meets
//! them ([`with_required_features`], [`with_required_limits`]); [`missing`] lists what a vendor's
//! description misses (call it from a test).

use vkgen_generated::extensions::{self as exts, ExtensionId};
use vkgen_generated::features::REQUIRED_FEATURES;
use vkgen_generated::vk;

use super::extensions::{eval_depends, operand_holds};
use super::{ExtensionSet, Features, Kit, PhysicalDeviceDesc, Properties};

/// Something a device description misses.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Missing {
    /// A feature `by` (a `VK_VERSION_X_Y` or an advertised extension) requires is off.
    #[error("{by} requires feature {feature}")]
    Feature {
        feature: &'static str,
        by: &'static str,
    },
    /// A limit is below the minimum `by` requires (for flags: lacks the required bits).
    #[error("{by} requires {limit} >= {min:#x} (has {have:#x})")]
    Limit {
        limit: &'static str,
        by: &'static str,
        min: u64,
        have: u64,
    },
    /// An advertised extension's `depends=` is not met by the advertised set and the version.
    #[error("{extension} needs {depends}")]
    Dependency {
        extension: &'static str,
        depends: &'static str,
    },
    /// A command of the version or of an advertised extension (`by`) that would get no proc
    /// address: no hook, no kit implementation, no bring-up answer. An application that
    /// trusts the version or the extension would call NULL.
    #[error("{by} requires {command}, which has no implementation")]
    Command {
        command: &'static str,
        by: &'static str,
    },
}

/// Whether a requirement's condition holds: versions against `api_version`, extensions against
/// the advertised set (not promotion: a 1.2 device need not be a `VK_EXT_descriptor_indexing`
/// one), `Struct::feature` operands against `features`.
fn condition_holds(expr: &str, api_version: u32, exts: &ExtensionSet, features: &Features) -> bool {
    eval_depends(expr, &|name| {
        if let Some((_, f)) = name.split_once("::") {
            return features.get(f).unwrap_or(false);
        }
        if name.starts_with("VK_VERSION_") {
            return operand_holds(name, exts, api_version);
        }
        std::ffi::CString::new(name)
            .ok()
            .and_then(|c| exts::lookup(&c))
            .is_some_and(|id| exts.contains(id))
    })
}

/// The feature requirements that apply to a device of `api_version` advertising `exts` with
/// `features` on.
fn applicable<'a>(
    api_version: u32,
    exts: &'a ExtensionSet,
    features: &'a Features,
) -> impl Iterator<Item = &'static vkgen_generated::features::RequiredFeature> + 'a {
    REQUIRED_FEATURES.iter().filter(move |r| {
        condition_holds(r.by, api_version, exts, features)
            && condition_holds(r.depends, api_version, exts, features)
    })
}

/// `features` with every feature the version and the extensions require turned on (repeated
/// until nothing changes: a requirement may depend on a feature another turned on).
pub fn with_required_features(
    api_version: u32,
    exts: &ExtensionSet,
    features: Features,
) -> Features {
    let mut f = features;
    loop {
        let on: Vec<&str> = applicable(api_version, exts, &f)
            .filter(|r| f.get(r.feature) == Some(false))
            .map(|r| r.feature)
            .collect();
        if on.is_empty() {
            return f;
        }
        for name in on {
            f.set(name, true);
        }
    }
}

/// [`with_required_features`] of the kit's default features for `api_version` and the device
/// extensions `extensions`, computed once per pair: a driver describes its devices anew at every
/// `vkCreateInstance`, and the fixpoint over vk.xml's rows costs about 100 µs, which would
/// otherwise be most of an instance's creation.
pub fn default_features(api_version: u32, extensions: &[ExtensionId]) -> Features {
    type Key = (u32, Vec<ExtensionId>);
    static CACHE: std::sync::Mutex<Vec<(Key, Features)>> = std::sync::Mutex::new(Vec::new());
    let key = (api_version, extensions.to_vec());
    let mut cache = CACHE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((_, f)) = cache.iter().find(|(k, _)| *k == key) {
        return f.clone();
    }
    let f = with_required_features(
        api_version,
        &ExtensionSet::from_ids(extensions),
        super::defaults::features(),
    );
    cache.push((key, f.clone()));
    f
}

/// A minimum limit of a core version.
pub struct Limit {
    /// The version that requires it (`VK_VERSION_1_2`).
    pub by: &'static str,
    pub version: u32,
    /// The Vulkan member name.
    pub name: &'static str,
    /// The value (flags: raw bits).
    pub get: fn(&Properties) -> u64,
    /// Sets the minimum.
    pub set: fn(&mut Properties),
    pub min: u64,
    /// A flags limit: the value must contain `min`'s bits.
    pub bits: bool,
}

macro_rules! limits {
    ($($by:ident ($major:literal, $minor:literal) { $(
        $kind:ident $name:literal $field:ident $min:expr;
    )* })*) => {
        &[$($(limits!(@one $kind $by $major $minor $name $field $min)),*),*]
    };
    (@one num $by:ident $major:literal $minor:literal $name:literal $field:ident $min:expr) => {
        Limit {
            by: stringify!($by),
            version: vk::make_api_version(0, $major, $minor, 0),
            name: $name,
            get: |p| p.$field as u64,
            set: |p| p.$field = $min as _,
            min: $min as u64,
            bits: false,
        }
    };
    (@one bits $by:ident $major:literal $minor:literal $name:literal $field:ident $min:expr) => {
        Limit {
            by: stringify!($by),
            version: vk::make_api_version(0, $major, $minor, 0),
            name: $name,
            get: |p| p.$field.as_raw() as u64,
            set: |p| p.$field |= $min,
            min: $min.as_raw() as u64,
            bits: true,
        }
    };
}

/// The minimum limits the core versions after 1.0 add (the specification's "Required Limits";
/// vk.xml has each limit's `limittype` but not these values).
pub const LIMITS: &[Limit] = limits! {
    VK_VERSION_1_1 (1, 1) {
        num "maxMultiviewViewCount" max_multiview_view_count 6;
        num "maxMultiviewInstanceIndex" max_multiview_instance_index (1u32 << 27) - 1;
        num "maxPerSetDescriptors" max_per_set_descriptors 1024;
        num "maxMemoryAllocationSize" max_memory_allocation_size 1u64 << 30;
        num "subgroupSize" subgroup_size 1;
        bits "subgroupSupportedStages" subgroup_supported_stages vk::ShaderStageFlags::COMPUTE;
        bits "subgroupSupportedOperations" subgroup_supported_operations
            vk::SubgroupFeatureFlags::BASIC;
    }
    VK_VERSION_1_2 (1, 2) {
        num "maxTimelineSemaphoreValueDifference" max_timeline_semaphore_value_difference
            (1u64 << 31) - 1;
        bits "framebufferIntegerColorSampleCounts" framebuffer_integer_color_sample_counts
            vk::SampleCountFlags::TYPE_1;
    }
    VK_VERSION_1_3 (1, 3) {
        num "maxInlineUniformBlockSize" max_inline_uniform_block_size 256;
        num "maxPerStageDescriptorInlineUniformBlocks"
            max_per_stage_descriptor_inline_uniform_blocks 4;
        num "maxPerStageDescriptorUpdateAfterBindInlineUniformBlocks"
            max_per_stage_descriptor_update_after_bind_inline_uniform_blocks 4;
        num "maxDescriptorSetInlineUniformBlocks" max_descriptor_set_inline_uniform_blocks 4;
        num "maxDescriptorSetUpdateAfterBindInlineUniformBlocks"
            max_descriptor_set_update_after_bind_inline_uniform_blocks 4;
        num "maxInlineUniformTotalSize" max_inline_uniform_total_size 256;
        num "maxBufferSize" max_buffer_size 1u64 << 30;
        num "minSubgroupSize" min_subgroup_size 1;
        num "maxSubgroupSize" max_subgroup_size 1;
        num "maxComputeWorkgroupSubgroups" max_compute_workgroup_subgroups 1;
    }
    VK_VERSION_1_4 (1, 4) {
        num "maxPushDescriptors" max_push_descriptors 32;
    }
};

fn limit_met(l: &Limit, p: &Properties) -> bool {
    let have = (l.get)(p);
    if l.bits {
        have & l.min == l.min
    } else {
        have >= l.min
    }
}

/// `properties` with every limit of [`LIMITS`] its `apiVersion` requires raised to the minimum.
pub fn with_required_limits(properties: Properties) -> Properties {
    let mut p = properties;
    let api = p.api_version;
    for l in LIMITS.iter().filter(|l| l.version <= api) {
        if !limit_met(l, &p) {
            (l.set)(&mut p);
        }
    }
    p
}

/// Everything a device of `properties.api_version` with these features, limits and advertised
/// extensions misses: required features that are off, limits below their minimum, advertised
/// extensions whose `depends=` is not met (instance extensions count as met: the loader's).
pub fn check(
    properties: &Properties,
    features: &Features,
    extensions: &[ExtensionId],
) -> Vec<Missing> {
    let api = properties.api_version;
    let exts = ExtensionSet::from_ids(extensions);
    let mut out: Vec<Missing> = Vec::new();
    for r in applicable(api, &exts, features) {
        let m = Missing::Feature {
            feature: r.feature,
            by: r.by,
        };
        if features.get(r.feature) != Some(true) && !out.contains(&m) {
            out.push(m);
        }
    }
    for l in LIMITS.iter().filter(|l| l.version <= api) {
        if !limit_met(l, properties) {
            out.push(Missing::Limit {
                limit: l.name,
                by: l.by,
                min: l.min,
                have: (l.get)(properties),
            });
        }
    }
    let with_instance = exts.union(&ExtensionSet::from_ids(
        &(0..exts::EXTENSIONS.len() as u16)
            .map(ExtensionId)
            .filter(|&id| exts::info(id).kind == exts::ExtensionKind::Instance)
            .collect::<Vec<_>>(),
    ));
    for id in exts.iter() {
        let info = exts::info(id);
        if !super::extensions::depends_hold(info.depends(), &with_instance, api) {
            out.push(Missing::Dependency {
                extension: info.name().to_str().unwrap_or("?"),
                depends: info.depends(),
            });
        }
    }
    out
}

/// [`check`] of a vendor's physical-device description plus [`absent_commands`] of the driver
/// for it: empty when the device is a valid device of the version it claims and every command
/// it promises has an implementation. Vendors call it from a test:
/// `assert_eq!(missing(&desc), [])`.
pub fn missing<D: Kit>(desc: &PhysicalDeviceDesc<D>) -> Vec<Missing> {
    let mut out = check(&desc.properties, &desc.features, &desc.extensions);
    let table = super::command_map::<D>();
    out.extend(absent_commands::<D>(
        table,
        desc.properties.api_version,
        &desc.extensions,
    ));
    out
}

/// `VK_VERSION_1_x` of a `VK_MAKE_API_VERSION` value.
fn version_name(v: u32) -> &'static str {
    const NAMES: [&str; 10] = [
        "VK_VERSION_1_0",
        "VK_VERSION_1_1",
        "VK_VERSION_1_2",
        "VK_VERSION_1_3",
        "VK_VERSION_1_4",
        "VK_VERSION_1_5",
        "VK_VERSION_1_6",
        "VK_VERSION_1_7",
        "VK_VERSION_1_8",
        "VK_VERSION_1_9",
    ];
    NAMES
        .get(vk::api_version_minor(v) as usize)
        .copied()
        .unwrap_or("VK_VERSION_1_x")
}

/// Every command core up to `api_version` or of an advertised extension (the device
/// extensions given, and the driver's instance extensions) that driver `D` answers with NULL,
/// given `table`, its command map below the hooks ([`super::entries`]). The get-proc-addr
/// commands are always answered; commands of extensions the loader implements (WSI) are not
/// the driver's unless it advertises them.
pub fn absent_commands<D: Kit>(
    table: &vkgen_generated::entries::EntryTable,
    api_version: u32,
    device_extensions: &[ExtensionId],
) -> Vec<Missing> {
    use vkgen_generated::commands::{self, CommandId, Origin};
    let mut advertised = ExtensionSet::from_ids(device_extensions);
    advertised = advertised.union(&ExtensionSet::from_ids(D::instance_extensions()));
    let mut out = Vec::new();
    for i in 0..commands::COMMANDS.len() {
        let id = CommandId(i as u16);
        let info = commands::info(id);
        let canonical = vkgen_generated::driver::canonical(id);
        if canonical == CommandId::GET_INSTANCE_PROC_ADDR
            || canonical == CommandId::GET_DEVICE_PROC_ADDR
        {
            continue;
        }
        // An alias counts by its own origin (`vkCmdPushDescriptorSetKHR` is promised by
        // `VK_KHR_push_descriptor`, its 1.4 command by the version) and is answered by its
        // command's implementation.
        let by = match info.origin {
            Origin::Core(v) if v <= api_version => version_name(v),
            _ => match info.extensions().iter().find(|&&e| advertised.contains(e)) {
                Some(&e) => exts::info(e).name().to_str().unwrap_or("?"),
                None => continue,
            },
        };
        if !D::implements(canonical) && table.get(canonical).is_none() && !D::STUB_UNIMPLEMENTED {
            out.push(Missing::Command {
                command: info.name().to_str().unwrap_or("?"),
                by,
            });
        }
    }
    out
}
