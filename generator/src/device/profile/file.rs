//! Reading a profiles file (the Khronos profiles schema): its capabilities and profiles, and the
//! `api-version` strings they carry. Separate from the checker: this is JSON shape, not device
//! questions.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::device::DeviceError;

/// One profile of a profiles file.
#[derive(Debug, Clone)]
pub struct ProfileDef {
    pub name: String,
    pub label: String,
    pub api_version: Option<String>,
    /// Each entry: one capability name, or alternatives.
    pub capabilities: Vec<Vec<String>>,
    /// Other profiles this one requires (`profiles`).
    pub requires: Vec<String>,
}

/// The largest profiles file read (Khronos' largest are a few megabytes).
pub const MAX_PROFILE_BYTES: u64 = 64 << 20;

/// A parsed profiles file.
#[derive(Debug, Clone)]
pub struct ProfileFile {
    pub path: PathBuf,
    pub capabilities: BTreeMap<String, Map<String, Value>>,
    pub profiles: BTreeMap<String, ProfileDef>,
}

impl ProfileFile {
    pub fn read(path: &Path) -> Result<Self, DeviceError> {
        let text = crate::input::read_regular_text(path, MAX_PROFILE_BYTES).map_err(|e| {
            DeviceError::Io {
                path: path.to_owned(),
                source: e,
            }
        })?;
        Self::parse(&text, path)
    }

    pub fn parse(text: &str, path: &Path) -> Result<Self, DeviceError> {
        let bad = |message: String| DeviceError::BadInput {
            path: path.to_owned(),
            message,
        };
        let root: Value = serde_json::from_str(text).map_err(|e| bad(format!("not JSON: {e}")))?;
        let root = root
            .as_object()
            .ok_or_else(|| bad("the top level is not an object".into()))?;
        let mut capabilities = BTreeMap::new();
        match root.get("capabilities") {
            Some(Value::Object(m)) => {
                for (k, v) in m {
                    let o = v
                        .as_object()
                        .ok_or_else(|| bad(format!("capability `{k}` is not an object")))?;
                    capabilities.insert(k.clone(), o.clone());
                }
            }
            // The first schema revisions: a list of objects with a `name`.
            Some(Value::Array(a)) => {
                for v in a {
                    let o = v
                        .as_object()
                        .ok_or_else(|| bad("a capability is not an object".into()))?;
                    let name = o
                        .get("name")
                        .and_then(Value::as_str)
                        .ok_or_else(|| bad("a capability has no `name`".into()))?;
                    capabilities.insert(name.to_owned(), o.clone());
                }
            }
            _ => return Err(bad("no `capabilities` object".into())),
        }
        let profiles_v = root
            .get("profiles")
            .and_then(Value::as_object)
            .ok_or_else(|| bad("no `profiles` object".into()))?;
        let mut profiles = BTreeMap::new();
        for (name, p) in profiles_v {
            let p = p
                .as_object()
                .ok_or_else(|| bad(format!("profile `{name}` is not an object")))?;
            let mut caps = Vec::new();
            for c in p
                .get("capabilities")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let alts: Vec<String> = match c {
                    Value::String(s) => vec![s.clone()],
                    Value::Array(a) => a
                        .iter()
                        .map(|x| {
                            x.as_str().map(str::to_owned).ok_or_else(|| {
                                bad(format!(
                                    "profile `{name}`: a capability alternative is not a string"
                                ))
                            })
                        })
                        .collect::<Result<_, _>>()?,
                    _ => {
                        return Err(bad(format!(
                            "profile `{name}`: a capability entry is not a string or a list"
                        )))
                    }
                };
                for a in &alts {
                    if !capabilities.contains_key(a) {
                        return Err(bad(format!(
                            "profile `{name}` names undefined capability `{a}`"
                        )));
                    }
                }
                caps.push(alts);
            }
            let requires = p
                .get("profiles")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect();
            profiles.insert(
                name.clone(),
                ProfileDef {
                    name: name.clone(),
                    label: p
                        .get("label")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned(),
                    api_version: p
                        .get("api-version")
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                    capabilities: caps,
                    requires,
                },
            );
        }
        if profiles.is_empty() {
            return Err(bad("the file defines no profile".into()));
        }
        Ok(ProfileFile {
            path: path.to_owned(),
            capabilities,
            profiles,
        })
    }
}

/// `"1.3.204"` → `VK_MAKE_API_VERSION(0, 1, 3, 204)`.
pub fn parse_api_version(s: &str) -> Option<u32> {
    let mut it = s.split('.').map(|p| p.parse::<u32>().ok());
    let (ma, mi) = (it.next()??, it.next()??);
    let pa = it.next().flatten().unwrap_or(0);
    if it.next().is_some() || ma > 127 || mi > 1023 || pa > 4095 {
        return None;
    }
    Some(ash::vk::make_api_version(0, ma, mi, pa))
}
