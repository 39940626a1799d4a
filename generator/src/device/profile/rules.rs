//! The comparison rules: vk.xml's `limittype=` per member (`max`, `min,mul`, `range`, `bitmask`,
//! …), the fallback for members without one, and [`satisfies`], which compares one profile value
//! with the device's under them. Separate from the checker because these are pure functions of
//! two values and a rule, tested on their own.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::device::layout::{self, Scalar};
use crate::device::DeviceError;
use crate::model::Registry;

/// `limittype=` of struct members in vk.xml, keyed by (struct, member).
#[derive(Debug, Default, Clone)]
pub struct Limittypes(BTreeMap<(String, String), String>);

impl Limittypes {
    /// Reads the `limittype` attributes of `vk_xml` (the model does not keep them).
    pub fn read(vk_xml: &Path) -> Result<Self, DeviceError> {
        let max = crate::registry::MAX_REGISTRY_BYTES as u64;
        let text = crate::input::read_regular_text(vk_xml, max).map_err(|e| DeviceError::Io {
            path: vk_xml.to_owned(),
            source: e,
        })?;
        Self::parse(&text).map_err(|message| DeviceError::BadInput {
            path: vk_xml.to_owned(),
            message,
        })
    }

    pub fn parse(text: &str) -> Result<Self, String> {
        let doc = roxmltree::Document::parse(text).map_err(|e| e.to_string())?;
        let mut map = BTreeMap::new();
        for t in doc
            .descendants()
            .filter(|n| n.has_tag_name("type") && n.attribute("category") == Some("struct"))
        {
            let Some(sname) = t.attribute("name") else {
                continue;
            };
            for m in t.children().filter(|n| n.has_tag_name("member")) {
                let (Some(lt), Some(name)) = (
                    m.attribute("limittype"),
                    m.children()
                        .find(|n| n.has_tag_name("name"))
                        .and_then(|n| n.text()),
                ) else {
                    continue;
                };
                // Members that differ per API (`api="vulkansc"`) keep the first, Vulkan, entry.
                map.entry((sname.to_owned(), name.to_owned()))
                    .or_insert_with(|| lt.to_owned());
            }
        }
        Ok(Limittypes(map))
    }

    pub fn get(&self, structure: &str, member: &str) -> Option<&str> {
        self.0
            .get(&(structure.to_owned(), member.to_owned()))
            .map(String::as_str)
    }
}

fn num_cmp(d: &Value, r: &Value) -> Option<Ordering> {
    let int = |v: &Value| -> Option<i128> {
        v.as_i64()
            .map(i128::from)
            .or_else(|| v.as_u64().map(i128::from))
    };
    match (int(d), int(r)) {
        (Some(a), Some(b)) => Some(a.cmp(&b)),
        _ => d.as_f64()?.partial_cmp(&r.as_f64()?),
    }
}

/// Whether `r` is an integer multiple of `d` (granularities are floats: 1.0 of 0.125).
fn is_multiple(r: &Value, d: &Value) -> bool {
    if let (Some(r), Some(d)) = (r.as_u64(), d.as_u64()) {
        return d != 0 && r % d == 0;
    }
    match (r.as_f64(), d.as_f64()) {
        (Some(r), Some(d)) if d > 0.0 => {
            let q = r / d;
            (q - q.round()).abs() < 1e-6
        }
        _ => false,
    }
}

/// The rule a member without `limittype` gets.
pub(super) fn fallback_limittype(member: &str, scalar: &Scalar) -> &'static str {
    match scalar {
        Scalar::Bool32 | Scalar::Bitmask { .. } => "bitmask",
        Scalar::Int { .. } | Scalar::Float { .. } => {
            if member.starts_with("max") {
                "max"
            } else if member.starts_with("min") {
                "min"
            } else if member.ends_with("Bits") {
                "bits"
            } else if member.ends_with("Range") {
                "range"
            } else {
                "exact"
            }
        }
        _ => "exact",
    }
}

/// Compares one leaf (`required` from the profile, `device` decoded) under `limittype`.
pub fn satisfies(
    reg: &Registry,
    limittype: &str,
    scalar: &Scalar,
    required: &Value,
    device: &Value,
) -> Result<bool, String> {
    match scalar {
        Scalar::Bool32 => {
            let r = required
                .as_bool()
                .ok_or_else(|| format!("{required} is not a boolean"))?;
            let d = device.as_bool().unwrap_or(false);
            Ok(if limittype == "exact" || limittype == "noauto" {
                r == d
            } else {
                !r || d
            })
        }
        Scalar::Bitmask { bits, .. } => {
            let arr = |v: &Value| -> Result<Vec<Value>, String> {
                match v {
                    Value::Array(a) => Ok(a.clone()),
                    Value::String(_) => Ok(vec![v.clone()]),
                    _ => Err(format!("{v} is not a list of flag names")),
                }
            };
            let r = layout::flags_value(reg, bits.as_deref(), &arr(required)?)?;
            let d = layout::flags_value(reg, bits.as_deref(), &arr(device)?)?;
            Ok(if limittype == "exact" || limittype == "noauto" {
                r == d
            } else {
                r & d == r
            })
        }
        Scalar::Enum { group, .. } => {
            let val = |v: &Value| -> Result<i64, String> {
                match v {
                    Value::String(s) => layout::enum_named(reg, group, s)
                        .ok_or_else(|| format!("{s} is not a value of {group}")),
                    Value::Number(n) => n.as_i64().ok_or_else(|| format!("{n} is not an integer")),
                    _ => Err(format!("{v} is not a {group} value")),
                }
            };
            Ok(val(required)? == val(device)?)
        }
        Scalar::Int { .. } | Scalar::Float { .. } => {
            if let (Value::Array(r), Value::Array(d)) = (required, device) {
                if r.len() != d.len() {
                    return Err(format!(
                        "the profile lists {} values, the device {}",
                        r.len(),
                        d.len()
                    ));
                }
                if limittype == "range" {
                    let (Some(rl), Some(rh), Some(dl), Some(dh)) =
                        (r.first(), r.last(), d.first(), d.last())
                    else {
                        return Err("empty range".into());
                    };
                    return Ok(num_cmp(dl, rl).is_some_and(Ordering::is_le)
                        && num_cmp(dh, rh).is_some_and(Ordering::is_ge));
                }
                for (rv, dv) in r.iter().zip(d) {
                    if !satisfies(reg, limittype, scalar, rv, dv)? {
                        return Ok(false);
                    }
                }
                return Ok(true);
            }
            if !required.is_number() {
                return Err(format!("{required} is not a number"));
            }
            let ord = num_cmp(device, required).ok_or("not comparable")?;
            Ok(match limittype {
                "max" | "bits" | "max,pot" | "max,mul" => ord.is_ge(),
                "min" | "min,pot" => ord.is_le(),
                "min,mul" => ord.is_le() && is_multiple(required, device),
                _ => ord.is_eq(),
            })
        }
        Scalar::Char | Scalar::Struct(_) | Scalar::Opaque => Ok(required == device),
    }
}
