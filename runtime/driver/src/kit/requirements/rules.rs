//! The rules: the features and limits the registry and the specification require of a device
//! of a version, the `depends=` of its extensions, and the checks of a description against
//! them. Nothing here knows a driver: [`super::report`] applies them to one.

use vkgen_generated::extensions::{self as exts, ExtensionId};
/// Where the limits come from (repository@commit, file, SHA-256), for reports.
pub use vkgen_generated::features::LIMITS_SOURCE;
use vkgen_generated::features::{
    RequiredLimit, FEATURE_ORIGINS, REQUIRED_FEATURES, REQUIRED_LIMITS,
};

use super::super::extensions::ExtensionSet;
use super::super::extensions::{eval_depends, operand_holds};
use super::super::tables::{Features, Properties};
use super::cross;
use super::finding::{Have, Missing};

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
        super::super::defaults::features(),
    );
    cache.push((key, f.clone()));
    f
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
        if !super::super::extensions::depends_hold(info.depends(), &with_instance, api) {
            out.push(Missing::Dependency {
                extension: info.name().to_str().unwrap_or("?"),
                depends: info.depends(),
            });
        }
    }
    out
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
