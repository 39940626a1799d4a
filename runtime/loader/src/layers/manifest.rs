//! Khronos layer manifests on Linux hosts (not Android, where layers are found by file name
//! only, [`super::discovery`]): explicit layers described by JSON manifests in the dirs (or
//! files) of `VK_LAYER_PATH` and `VK_ADD_LAYER_PATH`, activated by name, by the application or by
//! `VK_INSTANCE_LAYERS` (`:`-separated, in front of the application's list, after the Android
//! property and GPU-debug layers).
//!
//! A manifest's `library_path` is resolved as the Khronos loader does: relative to the
//! manifest's dir when it contains a `/`, otherwise a bare name for `dlopen`'s search. The library
//! is then loaded as Android discovery loads a layer library ([`super::load_layer_library`]) and
//! the manifest's layer taken from what the library enumerates. Android discovery is preferred:
//! a name it already found shadows a manifest's layer. Every skipped manifest or layer is logged
//! with its reason. All variables are read through [`crate::trusted_env`], so a setuid/setgid
//! process ignores them.
//!
//! Not yet: the default explicit dirs and implicit layers (`implicit_layer.d`,
//! `enable_environment`/`disable_environment`).

use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::Layer;

/// `VK_LAYER_PATH`: the explicit layer manifest dirs (or files).
pub const LAYER_PATH_ENV: &str = "VK_LAYER_PATH";
/// `VK_ADD_LAYER_PATH`: more explicit layer manifest dirs (or files), searched after those.
pub const ADD_LAYER_PATH_ENV: &str = "VK_ADD_LAYER_PATH";
/// `VK_INSTANCE_LAYERS`: explicit layers every instance enables.
pub const INSTANCE_LAYERS_ENV: &str = "VK_INSTANCE_LAYERS";

/// What the host's Khronos layer variables say (empty on Android).
#[derive(Debug, Clone, Default)]
pub struct HostLayers {
    /// Where explicit layer manifests are looked for, in order.
    pub manifest_paths: Vec<PathBuf>,
    /// The layers every instance enables (`VK_INSTANCE_LAYERS`), in order.
    pub instance_layers: Vec<CString>,
}

impl HostLayers {
    /// From the environment (nothing on Android).
    pub fn from_env() -> Self {
        if cfg!(target_os = "android") {
            return Self::default();
        }
        let mut manifest_paths = Vec::new();
        for var in [LAYER_PATH_ENV, ADD_LAYER_PATH_ENV] {
            if let Some(v) = crate::trusted_env(var) {
                manifest_paths.extend(crate::split_path_list(&v));
            }
        }
        let instance_layers = crate::trusted_env(INSTANCE_LAYERS_ENV)
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
            manifest_paths,
            instance_layers,
        }
    }
}

/// One layer a manifest describes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestLayer {
    /// The layer's name.
    pub name: String,
    /// The library to `dlopen`: a path, or a bare name for the dynamic linker's search.
    pub library: PathBuf,
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
                log::info!("layer manifest dir {} skipped: {e}", path.display());
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

/// The layers of one manifest (`layer` or `layers`), or why it is unusable.
pub fn parse(manifest: &Path, text: &str) -> Result<Vec<ManifestLayer>, String> {
    let json: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let entries: Vec<&serde_json::Value> = match (json.get("layer"), json.get("layers")) {
        (Some(one), _) => vec![one],
        (None, Some(serde_json::Value::Array(many))) => many.iter().collect(),
        _ => return Err("neither \"layer\" nor a \"layers\" array".into()),
    };
    let dir = manifest.parent().unwrap_or(Path::new("."));
    entries
        .into_iter()
        .map(|e| {
            let field = |key: &str| {
                e.get(key)
                    .and_then(serde_json::Value::as_str)
                    .ok_or_else(|| format!("a layer has no \"{key}\" string"))
            };
            let name = field("name")?.to_owned();
            let library_path = field("library_path")?;
            let library = if library_path.contains('/') {
                dir.join(library_path)
            } else {
                PathBuf::from(library_path)
            };
            Ok(ManifestLayer { name, library })
        })
        .collect()
}

/// Loads the explicit manifest layers of `config` into `layers` (after Android discovery's,
/// which win on a name clash), logging every one skipped.
pub fn discover(config: &HostLayers, layers: &mut Vec<Arc<Layer>>) {
    for manifest in manifest_files(&config.manifest_paths) {
        let parsed = std::fs::read_to_string(&manifest)
            .map_err(|e| e.to_string())
            .and_then(|text| parse(&manifest, &text));
        let entries = match parsed {
            Ok(entries) => entries,
            Err(why) => {
                log::warn!("layer manifest {} skipped: {why}", manifest.display());
                continue;
            }
        };
        for entry in entries {
            if layers
                .iter()
                .any(|l| l.name().to_bytes() == entry.name.as_bytes())
            {
                log::info!(
                    "layer {} of manifest {} skipped: a layer of that name was already found \
                     (Android discovery and earlier manifests are preferred)",
                    entry.name,
                    manifest.display()
                );
                continue;
            }
            match super::load_layer_library(&entry.library) {
                Ok(found) => match found
                    .into_iter()
                    .find(|l| l.name().to_bytes() == entry.name.as_bytes())
                {
                    Some(layer) => {
                        log::debug!(
                            "layer {} found through manifest {}",
                            entry.name,
                            manifest.display()
                        );
                        layers.push(Arc::new(layer));
                    }
                    None => log::warn!(
                        "layer {} of manifest {} skipped: {} does not enumerate it",
                        entry.name,
                        manifest.display(),
                        entry.library.display()
                    ),
                },
                Err(e) => log::warn!(
                    "layer {} of manifest {} skipped: {e}",
                    entry.name,
                    manifest.display()
                ),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifests_name_their_layers_and_libraries() {
        let m = Path::new("/etc/vulkan/explicit_layer.d/x.json");
        let one = r#"{"file_format_version":"1.2.0","layer":{"name":"VK_LAYER_a","type":"GLOBAL",
            "library_path":"libVkLayer_a.so","api_version":"1.3.0"}}"#;
        assert_eq!(
            parse(m, one).unwrap(),
            vec![ManifestLayer {
                name: "VK_LAYER_a".into(),
                library: PathBuf::from("libVkLayer_a.so"),
            }]
        );
        let many = r#"{"file_format_version":"1.0.1","layers":[
            {"name":"VK_LAYER_b","library_path":"./b.so"},
            {"name":"VK_LAYER_c","library_path":"/opt/c.so"}]}"#;
        let layers = parse(m, many).unwrap();
        assert_eq!(
            layers[0].library,
            PathBuf::from("/etc/vulkan/explicit_layer.d/./b.so")
        );
        assert_eq!(layers[1].library, PathBuf::from("/opt/c.so"));
        assert!(parse(m, "{").is_err());
        assert!(parse(m, r#"{"layer":{"name":"x"}}"#).is_err());
        assert!(parse(m, r#"{"nothing":1}"#).is_err());
    }
}
