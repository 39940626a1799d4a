//! Which layers an instance activates, and in what order (`api.cpp`'s `OverrideLayerNames`).
//!
//! The GPU debug settings' layers ([`super::gpu_debug`]) come first when there are any; only
//! when there are none, the `debug.vulkan.layers` property (`:`-separated, priorities from
//! `-PROPERTY_VALUE_MAX` upward) and the `debug.vulkan.layer.<N>` properties (priority `N`; `0..=9`
//! are always read, then `10, 11, ...` until one is empty) name implicit layers, as written
//! (neither trimmed nor de-duplicated, as AOSP), stably sorted by priority — on any build, as AOSP since 2020 (the debuggable gate applies only to the debug
//! layer dir), and read afresh at every `vkCreateInstance` (a zygote that preloaded the loader
//! must not fix a child's layers). The app's `ppEnabledLayerNames` follow, skipping names
//! that are implicit (its own repeats stay, as AOSP). This whole list is what the layers see as
//! `ppEnabledLayerNames`. Index 0 of the result is the layer closest to the application.
//!
//! Only discovered layers can be activated: a name that is not in the registry, or that contains a
//! `/` (an attempt to load by path), fails with `VK_ERROR_LAYER_NOT_PRESENT`. Nothing else (no
//! `LD_LIBRARY_PATH`) ever adds a layer. On Linux hosts the Khronos manifest layers join in the
//! Khronos loader's order ([`super::host`]): active implicit layers after Android's implicit
//! ones, `VK_INSTANCE_LAYERS` and the explicit layers `VK_LOADER_LAYERS_ENABLE` names before the
//! app's; a manifest layer's library is opened here, when first activated, and one that cannot
//! be loaded fails the instance as a missing layer does — unless only the environment asked for
//! it (`VK_INSTANCE_LAYERS`, `VK_LOADER_LAYERS_ENABLE`): such a layer that is absent or cannot be
//! loaded is skipped with a warning, as the Khronos loader does, so that one stale manifest or a
//! typo in a variable does not break every application (issue 36). `VK_INSTANCE_LAYERS` and the
//! `VK_LOADER_LAYERS_*` filters ([`LayerEnv`]) are read afresh at every `vkCreateInstance` too.

use std::collections::HashSet;
use std::ffi::{CStr, CString};
use std::sync::Arc;

use super::error::LayerError;
use super::filters::LayerFilters;
use super::gpu_debug::GpuDebug;
use super::host::HostLayer;
use super::library::Layer;
use super::manifest::LayerEnv;
use super::registry::LayerRegistry;
use crate::properties::Properties;

/// `PROPERTY_VALUE_MAX`: `debug.vulkan.layers` priorities start at its negation.
const PROPERTY_VALUE_MAX: i64 = 92;
/// `kFixedRangeEndInclusive`: `debug.vulkan.layer.0` to `.9` are always read; from 9 on, the
/// first empty value ends the scan.
const LAST_FIXED_PRIORITY: u32 = 9;

/// The implicit layer names the `debug.vulkan.*` properties request, in priority order, as
/// AOSP's `ParseDebugVulkanLayers` / `ParseDebugVulkanLayer` read them: names are taken as
/// written (not trimmed: `" A"` is a layer nobody has, so the instance fails) and repeats stay
/// (AOSP chains such a layer twice). In `debug.vulkan.layers` an empty segment names nothing
/// but still takes a priority; `debug.vulkan.layer.<N>` is read from 0 and the scan stops at the
/// first empty or missing value whose `N` is 9 or more.
pub fn property_layer_names(properties: &Properties) -> Vec<CString> {
    let mut prioritised: Vec<(i64, &str)> = Vec::new();
    if let Some(list) = properties.get("debug.vulkan.layers") {
        prioritised.extend(
            list.split(':')
                .enumerate()
                .filter(|(_, n)| !n.is_empty())
                .map(|(i, name)| (i as i64 - PROPERTY_VALUE_MAX, name)),
        );
    }
    // The fixed priorities' names are made once: every vkCreateInstance reads them.
    static FIXED: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    let fixed = FIXED.get_or_init(|| {
        (0..=LAST_FIXED_PRIORITY)
            .map(|n| format!("debug.vulkan.layer.{n}"))
            .collect()
    });
    for n in 0u32.. {
        let key = match fixed.get(n as usize) {
            Some(key) => std::borrow::Cow::Borrowed(key.as_str()),
            None => std::borrow::Cow::Owned(format!("debug.vulkan.layer.{n}")),
        };
        match properties.get(&key) {
            Some(name) if !name.is_empty() => prioritised.push((i64::from(n), name)),
            _ if n >= LAST_FIXED_PRIORITY => break,
            _ => {}
        }
    }
    // Stable: equal priorities keep their property order (AOSP's `std::sort` is not stable,
    // but equal priorities only arise from the same property, read in order).
    prioritised.sort_by_key(|&(priority, _)| priority);
    prioritised
        .into_iter()
        .filter_map(|(_, name)| match CString::new(name) {
            Ok(c) => Some(c),
            Err(_) => {
                log::warn!("layer name {name:?} from properties contains NUL; ignored");
                None
            }
        })
        .collect()
}

/// All layer names to activate, in order: the settings' layers, or when they name none the
/// `properties`' (the current `debug.vulkan.*` values), then `VK_INSTANCE_LAYERS` (Linux hosts),
/// then the app's; only the app's names already named before are dropped (`ordered_names`).
pub fn requested_layer_names(
    gpu_debug: &GpuDebug,
    properties: &Properties,
    app_layers: &[&CStr],
) -> Vec<CString> {
    let env = LayerEnv::current();
    ordered_names(
        gpu_debug,
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
    gpu_debug: &GpuDebug,
    properties: &Properties,
    instance_layers: &[CString],
    host_implicit: &[CString],
    host_enabled: &[CString],
    app_layers: &[&CStr],
) -> Vec<CString> {
    let implicit = if gpu_debug.layers.is_empty() {
        property_layer_names(properties)
    } else {
        gpu_debug.layers.clone()
    };
    // AOSP's `OverrideLayerNames::Parse`: the implicit list as it is (repeats included), then
    // the app's names except those already implicit (the app's own repeats stay). The Linux
    // host's manifest and environment layers (no AOSP counterpart) go between them, each once,
    // as the Khronos loader adds them. A hash set keeps this linear: the properties are
    // attacker-sized on debuggable builds.
    let mut seen: HashSet<&CStr> = implicit.iter().map(CString::as_c_str).collect();
    let mut names = implicit.clone();
    for name in host_implicit
        .iter()
        .chain(instance_layers)
        .chain(host_enabled)
    {
        if seen.insert(name.as_c_str()) {
            names.push(name.clone());
        }
    }
    names.extend(
        app_layers
            .iter()
            .filter(|name| !seen.contains(*name))
            .map(|&name| name.to_owned()),
    );
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
        // Opened for this instance; closed again when its last user is gone.
        return layer.open().map(Some);
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
    gpu_debug: &GpuDebug,
    properties: &Properties,
    app_layers: &[&CStr],
    no_drivers: bool,
) -> Result<Vec<Arc<Layer>>, LayerError> {
    // Read now, as the Khronos loader does: a process may change them between instances.
    activate_with(
        registry,
        gpu_debug,
        properties,
        app_layers,
        no_drivers,
        &LayerEnv::current(),
    )
}

/// [`activate`] with the environment's layer variables given.
fn activate_with(
    registry: &LayerRegistry,
    gpu_debug: &GpuDebug,
    properties: &Properties,
    app_layers: &[&CStr],
    no_drivers: bool,
    env: &LayerEnv,
) -> Result<Vec<Arc<Layer>>, LayerError> {
    let (mut host_implicit, host_enabled) = host_names(registry, &env.filters);
    if no_drivers && !host_implicit.is_empty() {
        log::info!("no driver: implicit manifest layers {host_implicit:?} are not activated");
        host_implicit.clear();
    }
    let names = ordered_names(
        gpu_debug,
        properties,
        &env.instance_layers,
        &host_implicit,
        &host_enabled,
        app_layers,
    );
    // Names only the environment requested: failing to find or load one is not fatal.
    let from_env = |name: &CStr| {
        !app_layers.contains(&name)
            && env
                .instance_layers
                .iter()
                .chain(&host_enabled)
                .any(|n| n.as_c_str() == name)
    };
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
            Err(e) if from_env(name.as_c_str()) => {
                log::warn!("{e}; requested by the environment only, so skipped");
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
    use crate::layers::{GpuDebug, LayerSettings};
    use crate::testutil::isolated_layers;
    use ash::vk;
    use std::path::Path;

    fn strings(names: &[CString]) -> Vec<&str> {
        names.iter().map(|n| n.to_str().unwrap()).collect()
    }

    /// AOSP's `ParseDebugVulkanLayers`: every segment takes a priority (empty ones too), repeats
    /// stay, nothing is trimmed.
    #[test]
    fn property_layers_sort_by_priority_untrimmed_with_repeats() {
        let p = Properties::from_pairs([
            ("debug.vulkan.layers", "A::D:A: E"),
            ("debug.vulkan.layer.3", "C"),
            ("debug.vulkan.layer.0", "B "),
            ("debug.vulkan.layer.7", "D"),
        ]);
        assert_eq!(
            strings(&property_layer_names(&p)),
            ["A", "D", "A", " E", "B ", "C", "D"]
        );
    }

    /// AOSP's `ParseDebugVulkanLayer`: 0 to 9 always, then on until the first empty value;
    /// an empty value at 9 or above stops the scan as a missing one does.
    #[test]
    fn numbered_properties_stop_at_the_first_empty_value_from_9() {
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
        // 9 missing: 10 is never read (the scan stops at 9).
        let p = Properties::from_pairs([
            ("debug.vulkan.layer.10", "x"),
            ("debug.vulkan.layer.5", "y"),
        ]);
        assert_eq!(strings(&property_layer_names(&p)), ["y"]);
        // An empty value below 9 is skipped; one at 10 stops the scan.
        let p = Properties::from_pairs([
            ("debug.vulkan.layer.1", ""),
            ("debug.vulkan.layer.2", "two"),
            ("debug.vulkan.layer.9", "nine"),
            ("debug.vulkan.layer.10", ""),
            ("debug.vulkan.layer.11", "eleven"),
        ]);
        assert_eq!(strings(&property_layer_names(&p)), ["two", "nine"]);
    }

    /// AOSP dropped the debuggable gate on `debug.vulkan.layers` in 2020: the properties count
    /// on a release build too, ahead of the app's names.
    #[test]
    fn debug_vulkan_layers_apply_on_any_build_and_app_names_follow() {
        let props = Properties::from_pairs([("debug.vulkan.layers", "P1:P2")]);
        // No GPU debug layers; activation reads no build flag.
        let release = GpuDebug::default();
        // The app's names that are implicit are dropped; its own repeats stay (AOSP).
        let app = [c"X", c"P2", c"X", c"Y"];
        assert_eq!(
            strings(&requested_layer_names(&release, &props, &app)),
            ["P1", "P2", "X", "X", "Y"]
        );
    }

    /// `gpu_debug_layers` (Settings.Global) wins: with it, the properties are not read. Its
    /// repeats stay, as AOSP chains them.
    #[test]
    fn gpu_debug_layers_setting_takes_priority_over_properties() {
        let props = Properties::from_pairs([("debug.vulkan.layers", "P1")]);
        let gpu_debug = GpuDebug {
            layers: vec![c"S1".to_owned(), c"S2".to_owned(), c"S1".to_owned()],
        };
        assert_eq!(
            strings(&requested_layer_names(&gpu_debug, &props, &[c"A", c"S2"])),
            ["S1", "S2", "S1", "A"]
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
        let settings = LayerSettings {
            app_layer_path: vec![dir.path().to_path_buf()],
            debuggable: true,
            ..isolated_layers(Path::new("/nonexistent-root"))
        };
        let registry = LayerRegistry::discover(&settings);
        assert_eq!(registry.len(), 4);
        let props = Properties::from_pairs([
            ("debug.vulkan.layer.1", "VK_LAYER_c"),
            ("debug.vulkan.layers", "VK_LAYER_b"),
        ]);
        let none = GpuDebug::default();
        let active = activate(
            &registry,
            &none,
            &props,
            &[c"VK_LAYER_a", c"VK_LAYER_c"],
            false,
        )
        .unwrap();
        let names: Vec<&CStr> = active.iter().map(|l| l.name()).collect();
        assert_eq!(names, [c"VK_LAYER_b", c"VK_LAYER_c", c"VK_LAYER_a"]);

        let e = activate(&registry, &none, &props, &[c"VK_LAYER_missing"], false).unwrap_err();
        assert!(matches!(&e, LayerError::NotPresent { name } if name == "VK_LAYER_missing"));
        assert_eq!(
            crate::layers::map_layer_err(&e),
            vk::Result::ERROR_LAYER_NOT_PRESENT
        );

        let lib_path = dir.path().join("libVkLayer_four.so");
        let by_path = CString::new(lib_path.to_str().unwrap()).unwrap();
        let e = activate(&registry, &none, &props, &[by_path.as_c_str()], false).unwrap_err();
        assert!(matches!(e, LayerError::PathInName { .. }), "{e}");
        assert_eq!(
            crate::layers::map_layer_err(&e),
            vk::Result::ERROR_LAYER_NOT_PRESENT
        );

        // A property naming an absent layer fails too, on any build (activation reads no
        // build flag).
        let bad_prop = Properties::from_pairs([("debug.vulkan.layer.0", "VK_LAYER_gone")]);
        assert!(activate(&registry, &none, &bad_prop, &[], false).is_err());
    }

    /// Issue 36: a layer only the environment names (`VK_INSTANCE_LAYERS`) that is absent or
    /// named by path is skipped with a warning; the same name requested by the app still fails.
    #[test]
    fn environment_layers_that_cannot_load_are_skipped_app_ones_fail() {
        let dir = tempfile::tempdir().unwrap();
        build_layer(
            dir.path(),
            "libVkLayer_one.so",
            &Fixture {
                layers: &["VK_LAYER_a"],
                generic_gpa: true,
                ..Fixture::default()
            },
        );
        let settings = LayerSettings {
            app_layer_path: vec![dir.path().to_path_buf()],
            ..isolated_layers(Path::new("/nonexistent-root"))
        };
        let registry = LayerRegistry::discover(&settings);
        let props = Properties::empty();
        let none = GpuDebug::default();
        let env = LayerEnv {
            instance_layers: vec![
                c"VK_LAYER_missing".to_owned(),
                c"/tmp/libVkLayer_by_path.so".to_owned(),
                c"VK_LAYER_a".to_owned(),
            ],
            ..LayerEnv::default()
        };
        let active = activate_with(&registry, &none, &props, &[], false, &env).unwrap();
        let names: Vec<&CStr> = active.iter().map(|l| l.name()).collect();
        assert_eq!(
            names,
            [c"VK_LAYER_a"],
            "the loadable environment layer stays"
        );
        let e = activate_with(
            &registry,
            &none,
            &props,
            &[c"VK_LAYER_missing"],
            false,
            &env,
        )
        .unwrap_err();
        assert!(matches!(&e, LayerError::NotPresent { name } if name == "VK_LAYER_missing"));
    }

    #[test]
    fn app_names_against_a_long_property_list_is_linear() {
        // 100k property names and 100k app names, half of which are implicit: a quadratic scan
        // took ≈50 s.
        let list: Vec<String> = (0..100_000)
            .map(|i| format!("VK_LAYER_{}", i % 50_000))
            .collect();
        let props = Properties::from_pairs([("debug.vulkan.layers", list.join(":"))]);
        let app: Vec<CString> = (25_000..125_000)
            .map(|i| CString::new(format!("VK_LAYER_{i}")).unwrap())
            .collect();
        let app: Vec<&CStr> = app.iter().map(CString::as_c_str).collect();
        let release = GpuDebug::default();
        let t = std::time::Instant::now();
        let names = requested_layer_names(&release, &props, &app);
        assert_eq!(names.len(), 100_000 + 75_000);
        assert_eq!(names[0].to_str().unwrap(), "VK_LAYER_0");
        assert_eq!(names[100_000].to_str().unwrap(), "VK_LAYER_50000");
        assert!(
            t.elapsed() < std::time::Duration::from_secs(5),
            "{:?}",
            t.elapsed()
        );
    }
}
