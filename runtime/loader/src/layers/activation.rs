//! Which layers an instance activates, and in what order (`api.cpp`'s `OverrideLayerNames`).
//!
//! The GPU debug settings' layers ([`super::gpu_debug`]) come first when there are any; only
//! when there are none, the `debug.vulkan.layers` property (`:`-separated, priorities from
//! `-PROPERTY_VALUE_MAX` upward) and the `debug.vulkan.layer.<N>` properties (priority `N`; `0..=9`
//! are always read, then `10, 11, ...` until one is missing) name implicit layers, stably sorted
//! by priority — on any build, as AOSP since 2020 (the debuggable gate applies only to the debug
//! layer dir), and read afresh at every `vkCreateInstance` (a zygote that preloaded the loader
//! must not fix a child's layers). The app's `ppEnabledLayerNames` follow, skipping names
//! already present. Index 0 of the result is the layer closest to the application.
//!
//! Only discovered layers can be activated: a name that is not in the registry, or that contains a
//! `/` (an attempt to load by path), fails with `VK_ERROR_LAYER_NOT_PRESENT`. Nothing else (no
//! `LD_LIBRARY_PATH`) ever adds a layer. On Linux hosts the Khronos manifest layers join in the
//! Khronos loader's order ([`super::host`]): active implicit layers after Android's implicit
//! ones, `VK_INSTANCE_LAYERS` and the explicit layers `VK_LOADER_LAYERS_ENABLE` names before the
//! app's; a manifest layer's library is opened here, when first activated, and one that cannot
//! be loaded fails the instance as a missing layer does. `VK_INSTANCE_LAYERS` and the
//! `VK_LOADER_LAYERS_*` filters ([`LayerEnv`]) are read afresh at every `vkCreateInstance` too.

use std::collections::HashSet;
use std::ffi::{CStr, CString};
use std::sync::Arc;

use super::filters::LayerFilters;
use super::{HostLayer, Layer, LayerEnv, LayerError, LayerRegistry};
use crate::{LoaderConfig, Properties};

/// `PROPERTY_VALUE_MAX`: `debug.vulkan.layers` priorities start at its negation.
const PROPERTY_VALUE_MAX: i64 = 92;

/// The implicit layer names the `debug.vulkan.*` properties request, in priority order, without
/// duplicates.
pub fn property_layer_names(properties: &Properties) -> Vec<CString> {
    let mut prioritised: Vec<(i64, &str)> = Vec::new();
    if let Some(list) = properties.get("debug.vulkan.layers") {
        prioritised.extend(
            list.split(':')
                .map(str::trim)
                .filter(|n| !n.is_empty())
                .enumerate()
                .map(|(i, name)| (i as i64 - PROPERTY_VALUE_MAX, name)),
        );
    }
    for n in 0u32.. {
        match properties.get(&format!("debug.vulkan.layer.{n}")) {
            Some(name) if !name.trim().is_empty() => prioritised.push((i64::from(n), name.trim())),
            Some(_) => {}
            None if n >= 10 => break,
            None => {}
        }
    }
    // Stable: equal priorities keep their property order.
    prioritised.sort_by_key(|&(priority, _)| priority);
    // A hash set keeps de-duplication linear: the property is attacker-sized on debuggable builds.
    let mut seen: HashSet<&str> = HashSet::with_capacity(prioritised.len());
    let mut names: Vec<CString> = Vec::new();
    for (_, name) in prioritised {
        if !seen.insert(name) {
            continue;
        }
        match CString::new(name) {
            Ok(c) => names.push(c),
            Err(_) => log::warn!("layer name {name:?} from properties contains NUL; ignored"),
        }
    }
    names
}

/// All layer names to activate, in order: the settings' layers, or when they name none the
/// `properties`' (the current `debug.vulkan.*` values), then `VK_INSTANCE_LAYERS` (Linux hosts),
/// then the app's; duplicates dropped (the first occurrence keeps its place).
pub fn requested_layer_names(
    config: &LoaderConfig,
    properties: &Properties,
    app_layers: &[&CStr],
) -> Vec<CString> {
    let env = LayerEnv::current();
    ordered_names(
        config,
        properties,
        &env.instance_layers,
        &[],
        &[],
        app_layers,
    )
}

/// [`requested_layer_names`] with the Linux host's manifest layers: the active implicit ones
/// right after Android's implicit layers, the explicit ones `VK_LOADER_LAYERS_ENABLE` names
/// right after `VK_INSTANCE_LAYERS` (the Khronos loader's order: implicit, environment, app).
fn ordered_names(
    config: &LoaderConfig,
    properties: &Properties,
    instance_layers: &[CString],
    host_implicit: &[CString],
    host_enabled: &[CString],
    app_layers: &[&CStr],
) -> Vec<CString> {
    let implicit = if config.gpu_debug.layers.is_empty() {
        property_layer_names(properties)
    } else {
        config.gpu_debug.layers.clone()
    };
    let mut seen: HashSet<CString> = HashSet::with_capacity(implicit.len() + app_layers.len());
    let mut names = Vec::with_capacity(implicit.len() + app_layers.len());
    for name in implicit
        .iter()
        .chain(host_implicit)
        .chain(instance_layers)
        .chain(host_enabled)
        .map(CString::as_c_str)
        .chain(app_layers.iter().copied())
    {
        if seen.insert(name.to_owned()) {
            names.push(name.to_owned());
        }
    }
    names
}

/// The names of the host's active implicit layers and of the explicit layers
/// `VK_LOADER_LAYERS_ENABLE` names.
fn host_names(registry: &LayerRegistry, filters: &LayerFilters) -> (Vec<CString>, Vec<CString>) {
    let name_of = |l: &Arc<HostLayer>| CString::new(l.name()).ok();
    let implicit = registry
        .active_implicit_host(filters)
        .into_iter()
        .filter_map(name_of)
        .collect();
    let enabled = registry
        .host_layers()
        .iter()
        .filter(|l| !l.is_implicit() && filters.enabled(l.name()))
        .filter_map(name_of)
        .collect();
    (implicit, enabled)
}

/// Resolves one requested name: Android's layer, else a manifest layer (loaded now); `Ok(None)`
/// for a manifest layer `VK_LOADER_LAYERS_DISABLE` disables (dropped, as the Khronos loader
/// does).
fn resolve(
    registry: &LayerRegistry,
    filters: &LayerFilters,
    name: &CStr,
) -> Result<Option<Arc<Layer>>, LayerError> {
    let display = name.to_string_lossy().into_owned();
    if name.to_bytes().contains(&b'/') {
        return Err(LayerError::PathInName { name: display });
    }
    if let Some(layer) = registry.find(name) {
        return Ok(Some(Arc::clone(layer)));
    }
    let Some(host) = registry.find_host(name) else {
        return Err(LayerError::NotPresent { name: display });
    };
    if let Some(why) = host.disabled_reason(filters) {
        log::warn!("layer {display} requested but not activated: {why}");
        return Ok(None);
    }
    host.load().map(Some)
}

/// Resolves [`requested_layer_names`] against the registry. Fails on the first name that is
/// absent or contains a path separator (`VK_ERROR_LAYER_NOT_PRESENT`).
///
/// `no_drivers`: the loader found no driver, so the instance will have no physical device.
/// The host's implicit manifest layers are then left out: the Khronos loader never creates such
/// an instance (it fails `vkCreateInstance` first), so implicit layers are not written for one,
/// and Mesa's `VK_LAYER_MESA_device_select` crashes in `vkEnumeratePhysicalDevices` there.
pub fn activate(
    registry: &LayerRegistry,
    config: &LoaderConfig,
    properties: &Properties,
    app_layers: &[&CStr],
    no_drivers: bool,
) -> Result<Vec<Arc<Layer>>, LayerError> {
    // Read now, as the Khronos loader does: a process may change them between instances.
    let env = LayerEnv::current();
    let (mut host_implicit, host_enabled) = host_names(registry, &env.filters);
    if no_drivers && !host_implicit.is_empty() {
        log::info!("no driver: implicit manifest layers {host_implicit:?} are not activated");
        host_implicit.clear();
    }
    let names = ordered_names(
        config,
        properties,
        &env.instance_layers,
        &host_implicit,
        &host_enabled,
        app_layers,
    );
    let mut active = Vec::with_capacity(names.len());
    for name in names {
        match resolve(registry, &env.filters, &name) {
            Ok(Some(layer)) => active.push(layer),
            Ok(None) => {}
            // An implicit layer nobody asked for by name must not break the instance: the
            // Khronos loader skips one whose library cannot be loaded.
            Err(e @ LayerError::HostLoad { .. }) if host_implicit.contains(&name) => {
                log::warn!("implicit {e}; skipped");
            }
            Err(e) => {
                log::warn!("{e}");
                return Err(e);
            }
        }
    }
    if !active.is_empty() {
        let list: Vec<String> = active
            .iter()
            .map(|l| l.name().to_string_lossy().into_owned())
            .collect();
        log::info!("active layers (app side first): {}", list.join(", "));
    }
    Ok(active)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layers::discovery::tests::{build_layer, Fixture};
    use crate::testutil::isolated_config;
    use ash::vk;
    use std::path::Path;

    fn strings(names: &[CString]) -> Vec<&str> {
        names.iter().map(|n| n.to_str().unwrap()).collect()
    }

    #[test]
    fn property_layers_sort_by_priority() {
        let p = Properties::from_pairs([
            ("debug.vulkan.layers", "A::D:A"),
            ("debug.vulkan.layer.3", "C"),
            ("debug.vulkan.layer.0", "B"),
            ("debug.vulkan.layer.7", "D"),
        ]);
        // "A:D" get priorities -92, -91 and go first; duplicates keep their first place.
        assert_eq!(strings(&property_layer_names(&p)), ["A", "D", "B", "C"]);
    }

    #[test]
    fn numbered_properties_read_0_to_9_then_consecutive() {
        let p = Properties::from_pairs([
            ("debug.vulkan.layer.9", "nine"),
            ("debug.vulkan.layer.10", "ten"),
            ("debug.vulkan.layer.11", "eleven"),
            // 12 is missing, so 13 is never read.
            ("debug.vulkan.layer.13", "thirteen"),
            ("debug.vulkan.layer.2", "two"),
        ]);
        assert_eq!(
            strings(&property_layer_names(&p)),
            ["two", "nine", "ten", "eleven"]
        );
        // Without 10, nothing above 9 is read.
        let p = Properties::from_pairs([
            ("debug.vulkan.layer.11", "x"),
            ("debug.vulkan.layer.5", "y"),
        ]);
        assert_eq!(strings(&property_layer_names(&p)), ["y"]);
    }

    /// AOSP dropped the debuggable gate on `debug.vulkan.layers` in 2020: the properties count
    /// on a release build too, ahead of the app's names.
    #[test]
    fn debug_vulkan_layers_apply_on_any_build_and_app_names_follow() {
        let props = Properties::from_pairs([("debug.vulkan.layers", "P1:P2")]);
        let release = isolated_config(Path::new("/"));
        assert!(!release.debuggable);
        let app = [c"X", c"P2", c"X", c"Y"];
        assert_eq!(
            strings(&requested_layer_names(&release, &props, &app)),
            ["P1", "P2", "X", "Y"]
        );
    }

    /// `gpu_debug_layers` (Settings.Global) wins: with it, the properties are not read.
    #[test]
    fn gpu_debug_layers_setting_takes_priority_over_properties() {
        let props = Properties::from_pairs([("debug.vulkan.layers", "P1")]);
        let config = LoaderConfig {
            gpu_debug: crate::layers::GpuDebug {
                layers: vec![c"S1".to_owned(), c"S2".to_owned(), c"S1".to_owned()],
                layer_dirs: Vec::new(),
            },
            ..isolated_config(Path::new("/"))
        };
        assert_eq!(
            strings(&requested_layer_names(&config, &props, &[c"A", c"S2"])),
            ["S1", "S2", "A"]
        );
    }

    #[test]
    fn activation_resolves_in_order_and_rejects_unknown_or_paths() {
        let dir = tempfile::tempdir().unwrap();
        build_layer(
            dir.path(),
            "libVkLayer_four.so",
            &Fixture {
                layers: &["VK_LAYER_a", "VK_LAYER_b", "VK_LAYER_c", "VK_LAYER_d"],
                generic_gpa: true,
                ..Fixture::default()
            },
        );
        let config = LoaderConfig {
            app_layer_path: vec![dir.path().to_path_buf()],
            debuggable: true,
            properties: Properties::from_pairs([
                ("debug.vulkan.layer.1", "VK_LAYER_c"),
                ("debug.vulkan.layers", "VK_LAYER_b"),
            ]),
            ..isolated_config(Path::new("/nonexistent-root"))
        };
        let registry = LayerRegistry::discover(&config);
        assert_eq!(registry.len(), 4);
        let props = config.properties.clone();
        let active = activate(
            &registry,
            &config,
            &props,
            &[c"VK_LAYER_a", c"VK_LAYER_c"],
            false,
        )
        .unwrap();
        let names: Vec<&CStr> = active.iter().map(|l| l.name()).collect();
        assert_eq!(names, [c"VK_LAYER_b", c"VK_LAYER_c", c"VK_LAYER_a"]);

        let e = activate(&registry, &config, &props, &[c"VK_LAYER_missing"], false).unwrap_err();
        assert!(matches!(&e, LayerError::NotPresent { name } if name == "VK_LAYER_missing"));
        assert_eq!(
            crate::layers::map_layer_err(&e),
            vk::Result::ERROR_LAYER_NOT_PRESENT
        );

        let lib_path = dir.path().join("libVkLayer_four.so");
        let by_path = CString::new(lib_path.to_str().unwrap()).unwrap();
        let e = activate(&registry, &config, &props, &[by_path.as_c_str()], false).unwrap_err();
        assert!(matches!(e, LayerError::PathInName { .. }), "{e}");
        assert_eq!(
            crate::layers::map_layer_err(&e),
            vk::Result::ERROR_LAYER_NOT_PRESENT
        );

        // A property naming an absent layer fails too, on any build.
        let bad_prop = Properties::from_pairs([("debug.vulkan.layer.0", "VK_LAYER_gone")]);
        assert!(activate(&registry, &config, &bad_prop, &[], false).is_err());
        let release = LoaderConfig {
            debuggable: false,
            ..config.clone()
        };
        assert!(activate(&registry, &release, &bad_prop, &[], false).is_err());
    }

    #[test]
    fn debug_vulkan_layers_dedup_is_linear() {
        // 100k names (half of them repeats) took ≈50 s with the quadratic scan.
        let list: Vec<String> = (0..100_000)
            .map(|i| format!("VK_LAYER_{}", i % 50_000))
            .collect();
        let props = Properties::from_pairs([("debug.vulkan.layers", list.join(":"))]);
        let t = std::time::Instant::now();
        let names = property_layer_names(&props);
        assert_eq!(names.len(), 50_000);
        assert_eq!(names[0].to_str().unwrap(), "VK_LAYER_0");
        assert_eq!(names[49_999].to_str().unwrap(), "VK_LAYER_49999");
        assert!(
            t.elapsed() < std::time::Duration::from_secs(5),
            "{:?}",
            t.elapsed()
        );
    }
}
