//! What the registry and the specification require of a device of a version: the features vk.xml
//! marks as required (`<require><feature …/>`, generated as
//! [`REQUIRED_FEATURES`]) per core version and per
//! extension, the limits the specification requires per core version
//! ([`REQUIRED_LIMITS`], from Khronos'
//! Vulkan-Profiles), the `depends=` of every advertised extension, and which features a
//! version and its extensions can expose at all
//! ([`FEATURE_ORIGINS`]).
//!
//! [`PhysicalDeviceDesc::new`](super::PhysicalDeviceDesc::new) starts from a device that meets
//! them ([`with_required_features`], [`with_required_limits`], [`with_feature_limits`]);
//! [`missing`] lists what a vendor's description misses (call it from a test).
//!
//! Beyond the tables, the [`cross`] checks relate values the tables cannot: the limits a
//! supported feature makes non-zero (`REQUIRED_LIMITS` rows with `features`, from the
//! specification's tables via `registry/limits/feature_limits.json`), timestamps against every
//! queue family's `timestampValidBits` and `timestampPeriod`, and `driverID` against the
//! registry's `VkDriverId` values.

pub mod cross;

pub use cross::{cross_check, with_feature_limits};

use vkgen_generated::extensions::{self as exts, ExtensionId};
/// Where the limits come from (repository@commit, file, SHA-256), for reports.
pub use vkgen_generated::features::LIMITS_SOURCE;
use vkgen_generated::features::{
    RequiredLimit, FEATURE_ORIGINS, REQUIRED_FEATURES, REQUIRED_LIMITS,
};
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
    /// A limit misses what `by` requires: `kind` is vk.xml's `limittype` (`max`: at least
    /// `required`; `min`: at most; `range`: covering it; `bitmask`: holding its bits).
    #[error("{by} requires {limit} {required} ({kind}), has {have}")]
    Limit {
        limit: &'static str,
        by: &'static str,
        kind: &'static str,
        required: &'static str,
        have: String,
    },
    /// A feature the description turns on that its API version and advertised extensions
    /// cannot expose (none of `exposed_by` holds): an application never sees it. What a
    /// down-bump (`vkgen driver --api-version` lower than the description was written for)
    /// silently loses.
    #[error("feature {feature} is on but dropped: only {exposed_by} expose it")]
    Dropped {
        feature: &'static str,
        exposed_by: &'static str,
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
    /// A format feature the device advertises (on `count` formats, `examples` the first)
    /// while the driver runs none of the commands that use it (`commands`: e.g. `BLIT_DST`
    /// without `vkCmdBlitImage`/`vkCmdBlitImage2` in the engine's `Execute::implements`).
    /// Known only where the engine's list is given (a recording driver) or the command has
    /// no implementation at all. A command the kit runs for the engine
    /// ([`Kit::HOST_TRANSFERS`]) counts on the formats the kit
    /// serves ([`super::transfer::runs_on`]).
    #[error("format feature {feature} is advertised on {count} formats ({examples}) but the driver runs none of {commands}")]
    FormatFeature {
        feature: &'static str,
        commands: String,
        count: usize,
        examples: String,
    },
    /// Timestamps that contradict each other: `timestampComputeAndGraphics` with a graphics
    /// or compute family of no valid bits, valid bits outside 36–64, a period of 0 (`family`:
    /// the queue family, if one is at fault).
    #[error("timestamps: {detail}")]
    Timestamps { family: Option<u32>, detail: String },
    /// `driverID` is not one of the registry's `VkDriverId` values (0 is none): the vendor
    /// sets `properties.driver_id` to the ID Khronos registered for its driver.
    #[error("driverID {have} is not a VkDriverId of the registry: set properties.driver_id (PhysicalDeviceDesc) to your driver's registered ID")]
    DriverId { have: i32 },
    /// A `vkCmd*` of the version or of an advertised extension (`by`) that the kit records
    /// but neither a hook, the engine nor the kit at replay runs
    /// ([`super::command::kit_applies`]: events, timestamps, with `HOST_TRANSFERS` the
    /// transfers): its replay reaches `Execute::unimplemented`.
    #[error("{by} requires {command}, which is recorded but not executed by the engine")]
    Unexecuted {
        command: &'static str,
        by: &'static str,
    },
}

impl Missing {
    /// Whether the device breaks the specification or the promise of an extension: a
    /// required feature or limit, a dependency, a NULL command. A dropped feature or an
    /// unexecuted recorded command is a warning: the device is valid, it does less.
    pub fn is_mandatory(&self) -> bool {
        !matches!(
            self,
            Missing::Dropped { .. } | Missing::Unexecuted { .. } | Missing::FormatFeature { .. }
        )
    }
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

/// A limit's value in `properties`, as its row writes it.
pub(crate) struct Have<'a>(pub &'a RequiredLimit, pub &'a Properties);

impl std::fmt::Display for Have<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (self.0.have)(self.1, f)
    }
}

/// The version rows of [`REQUIRED_LIMITS`] a device of `api_version` must meet, in version
/// order (the feature rows are [`cross`]'s).
fn applicable_limits(api_version: u32) -> impl Iterator<Item = &'static RequiredLimit> {
    let none = ExtensionSet::from_ids(&[]);
    REQUIRED_LIMITS
        .iter()
        .filter(move |l| l.features.is_empty() && operand_holds(l.by, &none, api_version))
}

/// `properties` with every limit its `apiVersion` requires ([`REQUIRED_LIMITS`], from Khronos'
/// Vulkan-Profiles: [`LIMITS_SOURCE`]) moved just far enough to meet it; limits already better
/// are kept.
pub fn with_required_limits(properties: Properties) -> Properties {
    let mut p = properties;
    for l in applicable_limits(p.api_version) {
        if !(l.met)(&p) {
            (l.raise)(&mut p);
        }
    }
    p
}

/// Every feature `features` turns on that neither `api_version` nor the advertised extensions
/// expose ([`FEATURE_ORIGINS`]).
pub fn dropped(api_version: u32, exts: &ExtensionSet, features: &Features) -> Vec<Missing> {
    // From the features that are on: a description turns on few, and the origin table is long.
    Features::NAMES
        .iter()
        .zip(features.as_slice())
        .filter(|(_, on)| **on)
        .filter_map(|(name, _)| FEATURE_ORIGINS.iter().find(|(f, _)| f == name))
        .filter(|(_, by)| !by.is_empty() && !condition_holds(by, api_version, exts, features))
        .map(|&(feature, exposed_by)| Missing::Dropped {
            feature,
            exposed_by,
        })
        .collect()
}

/// The load-time report of the descriptions: the first instance of each driver type logs, as
/// warnings, the features its devices turn on but cannot expose ([`dropped`]) — once per
/// process, since a driver describes its devices anew at every `vkCreateInstance`.
pub fn report_dropped<D: Kit>(descs: &[PhysicalDeviceDesc<D>]) {
    use std::any::TypeId;
    static REPORTED: std::sync::Mutex<Vec<TypeId>> = std::sync::Mutex::new(Vec::new());
    {
        let mut reported = REPORTED
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if reported.contains(&TypeId::of::<D>()) {
            return;
        }
        reported.push(TypeId::of::<D>());
    }
    for d in descs {
        let exts = ExtensionSet::from_ids(&d.extensions);
        for m in dropped(d.properties.api_version, &exts, &d.features) {
            log::warn!("{}: {m}", std::any::type_name::<D>());
        }
    }
}

/// Everything a device of `properties.api_version` with these features, limits and advertised
/// extensions misses: required features that are off, limits that miss their requirement (the
/// version's, and those of the features that are on), a `driverID` that is no `VkDriverId`,
/// features on that the version and extensions cannot expose, advertised extensions whose
/// `depends=` is not met (instance extensions count as met: the loader's).
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
    // A later version may raise a limit an earlier one set: only the strictest row reports.
    let mut limits: Vec<&RequiredLimit> = Vec::new();
    for l in applicable_limits(api).collect::<Vec<_>>().into_iter().rev() {
        if !limits.iter().any(|k| k.limit == l.limit) {
            limits.push(l);
        }
    }
    for l in limits.into_iter().rev().filter(|l| !(l.met)(properties)) {
        out.push(Missing::Limit {
            limit: l.limit,
            by: l.by,
            kind: l.kind,
            required: l.required,
            have: Have(l, properties).to_string(),
        });
    }
    // A feature the application cannot see (dropped) asks nothing of the limits.
    let dropped = dropped(api, &exts, features);
    let mut visible = features.clone();
    for d in &dropped {
        if let Missing::Dropped { feature, .. } = d {
            visible.set(feature, false);
        }
    }
    out.extend(cross::feature_limits_missed(properties, &visible));
    out.extend(cross::driver_id_missed(properties, &exts));
    out.extend(dropped);
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

/// [`check`] of a vendor's physical-device description plus [`unimplemented_commands`] of the
/// driver for it: empty when the device is a valid device of the version it claims and every
/// command it promises has an implementation. Vendors call it from a test:
/// `assert_eq!(missing(&desc), [])` (or run the whole report,
/// [`crate::testing::requirements`]).
pub fn missing<D: Kit>(desc: &PhysicalDeviceDesc<D>) -> Vec<Missing> {
    let mut out = check(&desc.properties, &desc.features, &desc.extensions);
    out.extend(cross_check(&desc.properties, &desc.queue_families));
    let table = super::command_map::<D>();
    out.extend(unimplemented_commands::<D>(
        table,
        desc.properties.api_version,
        &desc.extensions,
        None,
    ));
    out.extend(format_findings::<D>(desc.formats.iter(), table, None));
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
/// extensions given, and the driver's instance extensions) that driver `D` does not implement,
/// given `table`, its command map below the hooks ([`super::entries`]): [`Missing::Command`]
/// where it answers NULL (the entry-table view), and with `executes` (the engine's
/// `Execute::implements`) [`Missing::Unexecuted`] where the kit records a `vkCmd*` the engine
/// does not run (the recorder view). The get-proc-addr commands are always answered; commands
/// of extensions the loader implements (WSI) are not the driver's unless it advertises them.
pub fn unimplemented_commands<D: Kit>(
    table: &vkgen_generated::entries::EntryTable,
    api_version: u32,
    device_extensions: &[ExtensionId],
    executes: Option<fn(vkgen_generated::commands::CommandId) -> bool>,
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
        let command = info.name().to_str().unwrap_or("?");
        if D::implements(canonical) {
            continue;
        }
        if table.get(canonical).is_none() && !D::STUB_UNIMPLEMENTED {
            out.push(Missing::Command { command, by });
        } else if let Some(executes) = executes {
            // A command the kit applies itself at replay (events, timestamps, with
            // `HOST_TRANSFERS` the transfers) is run without the engine.
            if D::RECORD_COMMANDS
                && super::command::COMMANDS.contains(&canonical)
                && !executes(canonical)
                && !super::command::kit_applies::<D>(canonical)
            {
                out.push(Missing::Unexecuted { command, by });
            }
        }
    }
    out
}

/// [`Missing::FormatFeature`] for every format feature device `physical` answers
/// ([`Kit::format_properties`], over every format of the table) whose commands driver `D`
/// does not run: no hook and no entry in `table`, or — for a recording driver, with
/// `executes` (the engine's `Execute::implements`) given — recorded but not executed. A
/// recording driver without `executes` is not judged (what its engine runs is not known).
pub fn unrunnable_format_features<D: Kit>(
    physical: &super::PhysicalDevice<D>,
    table: &vkgen_generated::entries::EntryTable,
    executes: Option<fn(vkgen_generated::commands::CommandId) -> bool>,
) -> Vec<Missing> {
    let advertised = super::format::all()
        .iter()
        .map(|f| (f.format, D::format_properties(physical, f.format)));
    format_findings::<D>(advertised, table, executes)
}

/// [`unrunnable_format_features`] of formats `advertised` (a device's answers, or a
/// description's declarations).
pub fn format_findings<D: Kit>(
    advertised: impl IntoIterator<Item = (vk::Format, vk::FormatProperties)>,
    table: &vkgen_generated::entries::EntryTable,
    executes: Option<fn(vkgen_generated::commands::CommandId) -> bool>,
) -> Vec<Missing> {
    use vkgen_generated::commands;
    let runs = |name: &str, format: vk::Format| {
        let Some(id) = std::ffi::CString::new(name)
            .ok()
            .and_then(|c| commands::lookup(&c))
        else {
            return false; // not in these tables: nothing can run it
        };
        let canonical = vkgen_generated::driver::canonical(id);
        if D::implements(canonical) {
            return true;
        }
        if table.get(canonical).is_none() {
            return false;
        }
        if D::RECORD_COMMANDS && super::command::COMMANDS.contains(&canonical) {
            // The engine's method serves every format; without it, the kit's host transfer
            // serves the formats it lays out.
            return executes.is_none_or(|e| e(canonical))
                || (super::transfer::provides::<D>(canonical)
                    && super::transfer::runs_on(canonical, format));
        }
        true
    };
    super::format::support::unrunnable(advertised, runs)
        .into_iter()
        .map(|u| Missing::FormatFeature {
            feature: u.feature,
            commands: u.commands.join("/"),
            count: u.count,
            examples: u.examples.join(", "),
        })
        .collect()
}

/// `properties` with every update-after-bind descriptor limit raised to at least its plain
/// counterpart. A layout without `UPDATE_AFTER_BIND_POOL` counts against both (the
/// validation layer checks VUID-VkPipelineLayoutCreateInfo-pSetLayouts-03036 to -03042 and
/// their set-level twins on every pipeline layout), so a device that leaves them 0 — the
/// registry's default without descriptor indexing — fails every application that uses a
/// descriptor. A device with descriptor indexing sets them higher; this only lifts a floor.
pub fn with_update_after_bind_floor(mut p: Properties) -> Properties {
    macro_rules! floor {
        ($($uab:ident = $plain:ident),+ $(,)?) => {
            $(p.$uab = p.$uab.max(p.$plain);)+
        };
    }
    floor!(
        max_per_stage_descriptor_update_after_bind_samplers = max_per_stage_descriptor_samplers,
        max_per_stage_descriptor_update_after_bind_uniform_buffers =
            max_per_stage_descriptor_uniform_buffers,
        max_per_stage_descriptor_update_after_bind_storage_buffers =
            max_per_stage_descriptor_storage_buffers,
        max_per_stage_descriptor_update_after_bind_sampled_images =
            max_per_stage_descriptor_sampled_images,
        max_per_stage_descriptor_update_after_bind_storage_images =
            max_per_stage_descriptor_storage_images,
        max_per_stage_descriptor_update_after_bind_input_attachments =
            max_per_stage_descriptor_input_attachments,
        max_per_stage_update_after_bind_resources = max_per_stage_resources,
        max_descriptor_set_update_after_bind_samplers = max_descriptor_set_samplers,
        max_descriptor_set_update_after_bind_uniform_buffers = max_descriptor_set_uniform_buffers,
        max_descriptor_set_update_after_bind_uniform_buffers_dynamic =
            max_descriptor_set_uniform_buffers_dynamic,
        max_descriptor_set_update_after_bind_storage_buffers = max_descriptor_set_storage_buffers,
        max_descriptor_set_update_after_bind_storage_buffers_dynamic =
            max_descriptor_set_storage_buffers_dynamic,
        max_descriptor_set_update_after_bind_sampled_images = max_descriptor_set_sampled_images,
        max_descriptor_set_update_after_bind_storage_images = max_descriptor_set_storage_images,
        max_descriptor_set_update_after_bind_input_attachments =
            max_descriptor_set_input_attachments,
    );
    p
}
