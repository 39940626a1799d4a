//! Khronos layer manifests on Linux hosts (not Android, where layers are found by file name
//! only, [`super::discovery`]): where they are and what they say, by the Khronos loader's rules
//! (`LoaderLayerInterface.md`). [`super::host`] turns them into layers.
//!
//! * Explicit manifests: the dirs (or files) of `VK_LAYER_PATH`, else the standard
//!   `…/vulkan/explicit_layer.d` dirs under `$XDG_CONFIG_HOME` (`~/.config`), `$XDG_CONFIG_DIRS`
//!   (`/etc/xdg`), `/etc`, `$XDG_DATA_HOME` (`~/.local/share`) and `$XDG_DATA_DIRS`
//!   (`/usr/local/share:/usr/share`); then `VK_ADD_LAYER_PATH`'s.
//! * Implicit manifests: `VK_IMPLICIT_LAYER_PATH`, else the standard `…/vulkan/implicit_layer.d`
//!   dirs; then `VK_ADD_IMPLICIT_LAYER_PATH`'s.
//! * `file_format_version` 1.0.0 to 1.2.x; `layer` or `layers`; `library_path` relative to the
//!   manifest's dir when it contains a `/` (absolute stays absolute; `$LIB` is left to `dlopen`),
//!   otherwise a bare name for `dlopen`'s search; `functions` renames of `vkGetInstanceProcAddr`,
//!   `vkGetDeviceProcAddr` and `vkNegotiateLoaderLayerInterfaceVersion`; `instance_extensions`,
//!   `device_extensions`; `enable_environment` / `disable_environment` for implicit layers.
//!   Meta layers (`component_layers`) and the override layer are not supported (logged).
//!
//! All variables are read through [`crate::host_env::trusted_env`], so a setuid/setgid
//! process ignores them (and, without `$HOME`, the home dirs).

use std::ffi::{c_char, CString, OsString};
use std::path::{Path, PathBuf};

use ash::vk;
use serde_json::Value;

use super::filters::LayerFilters;
#[cfg(not(target_os = "android"))]
use crate::driver::icd::IcdSearchConfig;

/// `VK_LAYER_PATH`: the explicit layer manifest dirs (or files); replaces the standard dirs.
pub const LAYER_PATH_ENV: &str = "VK_LAYER_PATH";
/// `VK_ADD_LAYER_PATH`: more explicit layer manifest dirs (or files), searched after those.
pub const ADD_LAYER_PATH_ENV: &str = "VK_ADD_LAYER_PATH";
/// `VK_IMPLICIT_LAYER_PATH`: the implicit layer manifest dirs; replaces the standard dirs.
pub const IMPLICIT_LAYER_PATH_ENV: &str = "VK_IMPLICIT_LAYER_PATH";
/// `VK_ADD_IMPLICIT_LAYER_PATH`: more implicit layer manifest dirs, searched after those.
pub const ADD_IMPLICIT_LAYER_PATH_ENV: &str = "VK_ADD_IMPLICIT_LAYER_PATH";
/// `VK_INSTANCE_LAYERS`: explicit layers every instance enables.
pub const INSTANCE_LAYERS_ENV: &str = "VK_INSTANCE_LAYERS";

/// Where the host's Khronos layer manifests are (empty on Android): read once, at loader start.
#[derive(Debug, Clone, Default)]
pub struct HostLayers {
    /// Where explicit layer manifests are looked for, in order.
    pub manifest_paths: Vec<PathBuf>,
    /// Where implicit layer manifests are looked for, in order.
    pub implicit_paths: Vec<PathBuf>,
}

/// The host's layer variables that every `vkCreateInstance` (and every global query) reads
/// afresh, as the Khronos loader does (empty on Android).
#[derive(Debug, Clone, Default)]
pub struct LayerEnv {
    /// The layers every instance enables (`VK_INSTANCE_LAYERS`), in order.
    pub instance_layers: Vec<CString>,
    /// `VK_LOADER_LAYERS_ENABLE` / `VK_LOADER_LAYERS_DISABLE` / `VK_LOADER_LAYERS_ALLOW`.
    pub filters: LayerFilters,
}

impl LayerEnv {
    /// Nothing on Android: the Khronos variables are a host feature, and an Android build reads
    /// no environment variable.
    #[cfg(target_os = "android")]
    pub fn current() -> Self {
        Self::default()
    }

    /// The variables' values now (setuid-safe).
    #[cfg(not(target_os = "android"))]
    pub fn current() -> Self {
        let instance_layers = crate::host_env::trusted_env(INSTANCE_LAYERS_ENV)
            .map(|v| {
                v.to_string_lossy()
                    .split(':')
                    .map(str::trim)
                    .filter(|n| !n.is_empty())
                    .filter_map(|n| CString::new(n).ok())
                    .collect()
            })
            .unwrap_or_default();
        Self {
            instance_layers,
            filters: LayerFilters::from_env(),
        }
    }
}

/// `replacing` (if set) else `standard`, then `adding`'s entries.
#[cfg(not(target_os = "android"))]
fn search_paths(replacing: &str, adding: &str, standard: Vec<PathBuf>) -> Vec<PathBuf> {
    let mut paths = match crate::host_env::trusted_env(replacing) {
        Some(v) => crate::host_env::split_path_list(&v),
        None => standard,
    };
    if let Some(v) = crate::host_env::trusted_env(adding) {
        paths.extend(crate::host_env::split_path_list(&v));
    }
    paths
}

impl HostLayers {
    /// From the environment (hosts only: Android has no Khronos layer manifests).
    #[cfg(not(target_os = "android"))]
    pub fn from_env() -> Self {
        let standard = IcdSearchConfig::from_env();
        Self {
            manifest_paths: search_paths(
                LAYER_PATH_ENV,
                ADD_LAYER_PATH_ENV,
                standard.standard_vulkan_dirs("vulkan/explicit_layer.d"),
            ),
            implicit_paths: search_paths(
                IMPLICIT_LAYER_PATH_ENV,
                ADD_IMPLICIT_LAYER_PATH_ENV,
                standard.standard_vulkan_dirs("vulkan/implicit_layer.d"),
            ),
        }
    }
}

/// The entry points a manifest's `functions` renames (`None`: the standard name).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Functions {
    /// `vkGetInstanceProcAddr`'s symbol.
    pub get_instance_proc_addr: Option<CString>,
    /// `vkGetDeviceProcAddr`'s symbol.
    pub get_device_proc_addr: Option<CString>,
    /// `vkNegotiateLoaderLayerInterfaceVersion`'s symbol.
    pub negotiate: Option<CString>,
}

/// A manifest's `pre_instance_functions` (format 1.1.2+, implicit layers): the symbols the
/// loader calls, through a chain, for the three pre-instance commands.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PreInstanceFunctions {
    /// `vkEnumerateInstanceExtensionProperties`'s symbol.
    pub enumerate_instance_extension_properties: Option<CString>,
    /// `vkEnumerateInstanceLayerProperties`'s symbol.
    pub enumerate_instance_layer_properties: Option<CString>,
    /// `vkEnumerateInstanceVersion`'s symbol.
    pub enumerate_instance_version: Option<CString>,
}

/// One layer a manifest describes.
#[derive(Debug, Clone)]
pub struct ManifestLayer {
    /// The layer's name.
    pub name: String,
    /// The library to `dlopen`: a path, or a bare name for the dynamic linker's search.
    pub library: PathBuf,
    /// Name, `api_version`, `implementation_version` and `description`.
    pub properties: vk::LayerProperties,
    /// `instance_extensions`.
    pub instance_extensions: Vec<vk::ExtensionProperties>,
    /// `device_extensions`.
    pub device_extensions: Vec<vk::ExtensionProperties>,
    /// `functions`.
    pub functions: Functions,
    /// `pre_instance_functions` (kept only for format 1.1.2+; the loader calls them only for
    /// implicit layers, as the Khronos loader does).
    pub pre_instance: PreInstanceFunctions,
    /// `enable_environment`: (variable, value).
    pub enable_environment: Option<(String, String)>,
    /// `disable_environment`: (variable, value).
    pub disable_environment: Option<(String, String)>,
}

impl ManifestLayer {
    /// For an implicit layer: `None` when active, else why not. `enable_environment` (when
    /// present) must be set to its value and `disable_environment` must be unset, unless
    /// `VK_LOADER_LAYERS_ENABLE` names the layer; `env` reads a variable.
    pub fn implicit_inactive_reason(
        &self,
        filters: &LayerFilters,
        env: &dyn Fn(&str) -> Option<OsString>,
    ) -> Option<String> {
        if filters.enabled(&self.name) {
            return None;
        }
        if let Some((var, _)) = &self.disable_environment {
            if env(var).is_some() {
                return Some(format!("its disable_environment {var} is set"));
            }
        }
        match &self.enable_environment {
            Some((var, value)) if env(var).is_none_or(|v| v != value.as_str()) => {
                Some(format!("its enable_environment {var}={value} is not set"))
            }
            _ => None,
        }
    }
}

/// The `*.json` manifests of `paths` (each a dir, read in name order, or a manifest file).
pub fn manifest_files(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_file() {
            files.push(path.clone());
            continue;
        }
        let entries = match std::fs::read_dir(path) {
            Ok(e) => e,
            Err(e) => {
                log::debug!("layer manifest dir {} skipped: {e}", path.display());
                continue;
            }
        };
        let mut found: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "json") && p.is_file())
            .collect();
        found.sort();
        files.extend(found);
    }
    files
}

/// `"1.2.3"` as its numbers (missing parts are 0).
fn version_parts(text: &str) -> Option<[u32; 3]> {
    let mut parts = [0u32; 3];
    for (i, p) in text.trim().split('.').enumerate() {
        *parts.get_mut(i)? = p.parse().ok()?;
    }
    Some(parts)
}

/// Copies `text` into a fixed C string array, truncated so the NUL always fits.
fn fill_c_array<const N: usize>(dst: &mut [c_char; N], text: &str) {
    for (d, &b) in dst.iter_mut().zip(text.as_bytes().iter().take(N - 1)) {
        *d = b as c_char;
    }
}

/// A string field, or a number written as one (`"spec_version": 2` appears in the wild).
fn text_or_number(value: Option<&Value>) -> Option<String> {
    match value? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn extensions(entry: &Value, key: &str) -> Vec<vk::ExtensionProperties> {
    let Some(Value::Array(list)) = entry.get(key) else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|e| {
            let name = e.get("name")?.as_str()?;
            let mut ext = vk::ExtensionProperties {
                spec_version: text_or_number(e.get("spec_version"))
                    .and_then(|v| v.trim().parse().ok())
                    .unwrap_or(0),
                ..Default::default()
            };
            fill_c_array(&mut ext.extension_name, name);
            Some(ext)
        })
        .collect()
}

fn env_pair(entry: &Value, key: &str) -> Option<(String, String)> {
    let (var, value) = entry.get(key)?.as_object()?.iter().next()?;
    Some((var.clone(), text_or_number(Some(value)).unwrap_or_default()))
}

fn function(entry: &Value, key: &str) -> Option<CString> {
    named(entry, "functions", key)
}

fn named(entry: &Value, object: &str, key: &str) -> Option<CString> {
    CString::new(entry.get(object)?.get(key)?.as_str()?).ok()
}

/// `pre_instance_functions`, ignored (with a warning) before format 1.1.2.
fn pre_instance(e: &Value, version: [u32; 3]) -> PreInstanceFunctions {
    const KEY: &str = "pre_instance_functions";
    if e.get(KEY).is_none() {
        return PreInstanceFunctions::default();
    }
    if version < [1, 1, 2] {
        log::warn!("{KEY} needs manifest format 1.1.2 or later: ignored");
        return PreInstanceFunctions::default();
    }
    PreInstanceFunctions {
        enumerate_instance_extension_properties: named(
            e,
            KEY,
            "vkEnumerateInstanceExtensionProperties",
        ),
        enumerate_instance_layer_properties: named(e, KEY, "vkEnumerateInstanceLayerProperties"),
        enumerate_instance_version: named(e, KEY, "vkEnumerateInstanceVersion"),
    }
}

/// One `layer` entry of a manifest in `dir`, of format `version`.
fn parse_layer(dir: &Path, e: &Value, version: [u32; 3]) -> Result<ManifestLayer, String> {
    let field = |key: &str| {
        e.get(key)
            .and_then(Value::as_str)
            .ok_or_else(|| format!("a layer has no \"{key}\" string"))
    };
    let name = field("name")?.to_owned();
    if e.get("component_layers").is_some() {
        return Err(format!(
            "{name} is a meta layer (component_layers): not supported"
        ));
    }
    let library_path = field("library_path")?;
    let library = if library_path.contains('/') {
        dir.join(library_path)
    } else {
        PathBuf::from(library_path)
    };
    let api = e
        .get("api_version")
        .and_then(Value::as_str)
        .and_then(version_parts)
        .unwrap_or([1, 0, 0]);
    let mut properties = vk::LayerProperties {
        spec_version: vk::make_api_version(0, api[0], api[1], api[2]),
        implementation_version: text_or_number(e.get("implementation_version"))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0),
        ..Default::default()
    };
    fill_c_array(&mut properties.layer_name, &name);
    fill_c_array(
        &mut properties.description,
        e.get("description").and_then(Value::as_str).unwrap_or(""),
    );
    Ok(ManifestLayer {
        name,
        library,
        properties,
        instance_extensions: extensions(e, "instance_extensions"),
        device_extensions: extensions(e, "device_extensions"),
        functions: Functions {
            get_instance_proc_addr: function(e, "vkGetInstanceProcAddr"),
            get_device_proc_addr: function(e, "vkGetDeviceProcAddr"),
            negotiate: function(e, "vkNegotiateLoaderLayerInterfaceVersion"),
        },
        pre_instance: pre_instance(e, version),
        enable_environment: env_pair(e, "enable_environment"),
        disable_environment: env_pair(e, "disable_environment"),
    })
}

/// The layers of one manifest (`layer` or `layers`), or why it is unusable. An unusable layer
/// entry makes the whole manifest unusable, as a malformed file would.
pub fn parse(manifest: &Path, text: &str) -> Result<Vec<ManifestLayer>, String> {
    let json: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let version = json
        .get("file_format_version")
        .and_then(Value::as_str)
        .ok_or("no \"file_format_version\" string")?;
    let version = match version_parts(version) {
        Some(parts @ [1, minor, _]) if minor <= 2 => parts,
        _ => {
            return Err(format!(
                "file_format_version {version} is not supported (1.0.0 to 1.2.x)"
            ))
        }
    };
    let entries: Vec<&Value> = match (json.get("layer"), json.get("layers")) {
        (Some(one), _) => vec![one],
        (None, Some(Value::Array(many))) => many.iter().collect(),
        _ => return Err("neither \"layer\" nor a \"layers\" array".into()),
    };
    let dir = manifest.parent().unwrap_or(Path::new("."));
    entries
        .into_iter()
        .map(|e| parse_layer(dir, e, version))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifests_name_their_layers_and_libraries() {
        let m = Path::new("/etc/vulkan/explicit_layer.d/x.json");
        let one = r#"{"file_format_version":"1.2.0","layer":{"name":"VK_LAYER_a","type":"GLOBAL",
            "library_path":"libVkLayer_a.so","api_version":"1.3.211",
            "implementation_version":"7","description":"the a layer",
            "instance_extensions":[{"name":"VK_EXT_debug_utils","spec_version":"2"}],
            "device_extensions":[{"name":"VK_EXT_tooling_info","spec_version":1,
                "entrypoints":["vkGetPhysicalDeviceToolPropertiesEXT"]}],
            "functions":{"vkGetInstanceProcAddr":"a_GIPA","vkGetDeviceProcAddr":"a_GDPA"},
            "enable_environment":{"ENABLE_A":"1"},"disable_environment":{"DISABLE_A":"1"}}}"#;
        let a = &parse(m, one).unwrap()[0];
        assert_eq!(a.name, "VK_LAYER_a");
        assert_eq!(a.library, PathBuf::from("libVkLayer_a.so"));
        assert_eq!(a.properties.layer_name_as_c_str().unwrap(), c"VK_LAYER_a");
        assert_eq!(a.properties.description_as_c_str().unwrap(), c"the a layer");
        assert_eq!(
            a.properties.spec_version,
            vk::make_api_version(0, 1, 3, 211)
        );
        assert_eq!(a.properties.implementation_version, 7);
        assert_eq!(a.instance_extensions.len(), 1);
        assert_eq!(a.instance_extensions[0].spec_version, 2);
        assert_eq!(
            a.device_extensions[0].extension_name_as_c_str().unwrap(),
            c"VK_EXT_tooling_info"
        );
        assert_eq!(
            a.functions.get_instance_proc_addr.as_deref(),
            Some(c"a_GIPA")
        );
        assert_eq!(a.functions.get_device_proc_addr.as_deref(), Some(c"a_GDPA"));
        assert_eq!(a.functions.negotiate, None);
        assert_eq!(a.enable_environment, Some(("ENABLE_A".into(), "1".into())));

        let many = r#"{"file_format_version":"1.0.1","layers":[
            {"name":"VK_LAYER_b","library_path":"./b.so"},
            {"name":"VK_LAYER_c","library_path":"/usr/$LIB/c.so"}]}"#;
        let layers = parse(m, many).unwrap();
        assert_eq!(
            layers[0].library,
            PathBuf::from("/etc/vulkan/explicit_layer.d/./b.so")
        );
        assert_eq!(layers[1].library, PathBuf::from("/usr/$LIB/c.so"));
        assert!(parse(m, "{").is_err());
        assert!(parse(m, r#"{"file_format_version":"1.0.0","layer":{"name":"x"}}"#).is_err());
        assert!(parse(m, r#"{"file_format_version":"1.0.0","nothing":1}"#).is_err());
        let layer_b = r#""layer":{"name":"b","library_path":"b.so"}"#;
        for bad in ["2.0.0", "1.3.0", "x"] {
            let text = format!(r#"{{"file_format_version":"{bad}",{layer_b}}}"#);
            assert!(parse(m, &text).unwrap_err().contains("file_format_version"));
        }
        assert!(parse(m, &format!("{{{layer_b}}}")).is_err());
        let meta = r#"{"file_format_version":"1.1.1","layer":{"name":"m","library_path":"m.so",
            "component_layers":["VK_LAYER_a"]}}"#;
        assert!(parse(m, meta).unwrap_err().contains("meta layer"));
    }

    #[test]
    fn implicit_layers_follow_their_environment() {
        let m = Path::new("/x/implicit_layer.d/l.json");
        let text = r#"{"file_format_version":"1.0.0","layer":{"name":"VK_LAYER_i",
            "library_path":"i.so","enable_environment":{"ENABLE_I":"1"},
            "disable_environment":{"DISABLE_I":"1"}}}"#;
        let layer = &parse(m, text).unwrap()[0];
        let none = LayerFilters::default();
        let env_of = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| OsString::from(*v))
            }
        };
        assert!(layer
            .implicit_inactive_reason(&none, &env_of(&[]))
            .is_some());
        assert!(layer
            .implicit_inactive_reason(&none, &env_of(&[("ENABLE_I", "0")]))
            .is_some());
        assert!(layer
            .implicit_inactive_reason(&none, &env_of(&[("ENABLE_I", "1")]))
            .is_none());
        let both = env_of(&[("ENABLE_I", "1"), ("DISABLE_I", "0")]);
        assert!(layer.implicit_inactive_reason(&none, &both).is_some());
        let forced = LayerFilters::parse(Some("VK_LAYER_i"), None);
        assert!(layer.implicit_inactive_reason(&forced, &both).is_none());
    }

    #[test]
    fn pre_instance_functions_need_format_1_1_2() {
        let m = Path::new("/m/pre.json");
        let text = |version: &str| {
            format!(
                r#"{{"file_format_version":"{version}","layer":{{"name":"p","library_path":"p.so",
                "pre_instance_functions":{{"vkEnumerateInstanceVersion":"PreVersion",
                "vkEnumerateInstanceLayerProperties":"PreLayers"}}}}}}"#
            )
        };
        let new = &parse(m, &text("1.1.2")).unwrap()[0].pre_instance;
        assert_eq!(
            new.enumerate_instance_version.as_deref(),
            Some(c"PreVersion")
        );
        assert_eq!(
            new.enumerate_instance_layer_properties.as_deref(),
            Some(c"PreLayers")
        );
        assert_eq!(new.enumerate_instance_extension_properties, None);
        let old = &parse(m, &text("1.1.1")).unwrap()[0].pre_instance;
        assert_eq!(*old, PreInstanceFunctions::default());
    }
}
