//! `vkgen profile check PROFILE.json`: a device against a Khronos profiles-schema file
//! (`https://schema.khronos.org/vulkan/profiles-*.json`, e.g. Debian's
//! `/usr/share/vulkan/registry/profiles/VP_KHR_roadmap_2022.json`).
//!
//! Each profile's `api-version`, the `profiles` it requires (when defined in the same file) and its
//! `capabilities` are checked; `optionals` are not requirements and are skipped. A `capabilities`
//! entry that is a list is a set of alternatives: one of them passing is enough. Within a
//! capability, every leaf is one requirement:
//!
//! * `extensions`: the extension is exposed by the device or the instance (the spec version in
//!   the profile is reported next to the device's, not compared, as the Khronos profiles library
//!   does).
//! * `features`: a `true` member must be `true` on the device (`false` asks nothing).
//! * `properties`: compared by the member's `limittype` in vk.xml: `max`, `bits` (and `max,pot`)
//!   → device ≥ profile; `min` (and `min,pot`) → device ≤ profile; `min,mul` → device ≤ profile
//!   and the profile's value a multiple of the device's; `range` → the device's `[lo, hi]` covers
//!   the profile's; `bitmask` → the profile's bits are a subset of the device's (for `VkBool32`:
//!   `true` needs `true`); `exact`/`noauto` → equal; `struct` → member by member. Arrays compare
//!   element-wise. Without a `limittype` (older registries, feature structures), booleans and
//!   flags use the `bitmask` rule and numbers the `max`/`min` rule by name prefix, else equality.
//! * `formats`: `VkFormatProperties` (also inside `VkFormatProperties2`) and `VkFormatProperties3`
//!   flags must be subsets of the device's.
//! * `queueFamiliesProperties`: some device queue family must meet every member of the entry's
//!   `VkQueueFamilyProperties` by the rules above.
//!
//! Structure names may be aliases (`VkPhysicalDeviceMaintenance4FeaturesKHR`); they are resolved to
//! their core definitions. A structure the device cannot be asked about (its version or extension
//! is missing) fails every member it lists, with the reason.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use serde::Serialize;
use serde_json::{Map, Value};

use super::layout::{self, Layout, Scalar};
use super::session::{Availability, Device, Session};
use super::{version_string, DeviceError};
use crate::model::Registry;

mod file;
mod rules;

pub use file::{parse_api_version, ProfileDef, ProfileFile};
use rules::fallback_limittype;
pub use rules::{satisfies, Limittypes};

/// Where a group of requirements comes from, and why the device cannot be asked (if so).
struct Site<'a> {
    capability: &'a str,
    kind: &'static str,
    unavailable: Option<&'a str>,
}

/// One checked requirement.
#[derive(Debug, Clone, Serialize)]
pub struct Requirement {
    /// The capability it comes from (`-` for the profile's own `api-version`).
    pub capability: String,
    /// `api-version`, `profile`, `extension`, `feature`, `property`, `format`, `queue-family`.
    pub kind: &'static str,
    /// `VkPhysicalDeviceProperties.limits.maxImageDimension2D`, `VK_KHR_swapchain`, …
    pub name: String,
    pub required: Value,
    /// What the device reports (`null` when it reports nothing).
    pub device: Value,
    pub ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A capability entry (one name, or alternatives) and whether it holds.
#[derive(Debug, Clone, Serialize)]
pub struct Group {
    pub capabilities: Vec<String>,
    pub ok: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct ProfileReport {
    pub profile: String,
    pub label: String,
    pub device: usize,
    pub device_name: String,
    pub device_api_version: String,
    pub supported: bool,
    pub requirements: usize,
    pub failed: usize,
    pub groups: Vec<Group>,
    pub results: Vec<Requirement>,
}

struct Checker<'a, 'r> {
    s: &'a Session<'r>,
    dev: &'a Device,
    lt: &'a Limittypes,
    features: BTreeMap<String, Map<String, Value>>,
    properties: BTreeMap<String, Map<String, Value>>,
    queues: Vec<Map<String, Value>>,
}

fn reg_of<'r>(c: &Checker<'_, 'r>) -> &'r Registry {
    c.s.reg
}

/// Canonical structure name (aliases resolved) or the name itself.
fn canonical(reg: &Registry, name: &str) -> String {
    reg.resolve_type(name)
        .map_or(name.to_owned(), |t| t.name.clone())
}

impl Checker<'_, '_> {
    /// Checks `required` (an object of members) against `device` for structure `layout`.
    fn members(
        &self,
        out: &mut Vec<Requirement>,
        site: &Site<'_>,
        prefix: &str,
        layout: &Layout,
        required: &Map<String, Value>,
        device: Option<&Map<String, Value>>,
    ) {
        let (cap, kind, unavailable) = (site.capability, site.kind, site.unavailable);
        let reg = reg_of(self);
        for (member, req) in required {
            let name = format!("{prefix}.{member}");
            let dev = device.and_then(|d| d.get(member));
            let Some(m) = layout.member(member) else {
                out.push(Requirement {
                    capability: cap.to_owned(),
                    kind,
                    name,
                    required: req.clone(),
                    device: Value::Null,
                    ok: false,
                    note: Some(format!(
                        "{} has no member `{member}` in this registry",
                        layout.name
                    )),
                });
                continue;
            };
            if let (Scalar::Struct(inner), true, Value::Object(r)) =
                (&m.scalar, m.dims.is_empty(), req)
            {
                let d = dev.and_then(Value::as_object);
                self.members(out, site, &name, inner, r, d);
                continue;
            }
            let (ok, note) = match (unavailable, dev) {
                (Some(why), _) => (false, Some(why.to_owned())),
                (None, None) => (false, Some("the device does not report it".to_owned())),
                (None, Some(d)) => {
                    let lt = self
                        .lt
                        .get(&layout.name, member)
                        .unwrap_or_else(|| fallback_limittype(member, &m.scalar));
                    match satisfies(reg, lt, &m.scalar, req, d) {
                        Ok(ok) => (
                            ok,
                            (!ok && lt != "bitmask").then(|| format!("limittype {lt}")),
                        ),
                        Err(e) => (false, Some(e)),
                    }
                }
            };
            out.push(Requirement {
                capability: cap.to_owned(),
                kind,
                name,
                required: req.clone(),
                device: dev.cloned().unwrap_or(Value::Null),
                ok,
                note,
            });
        }
    }

    /// `features` / `properties` sections: structure name → members.
    fn structs(
        &self,
        out: &mut Vec<Requirement>,
        cap: &str,
        kind: &'static str,
        section: &Map<String, Value>,
        data: &BTreeMap<String, Map<String, Value>>,
    ) {
        let reg = reg_of(self);
        for (sname, members) in section {
            let canon = canonical(reg, sname);
            let Some(members) = members.as_object() else {
                out.push(bad_row(
                    cap,
                    kind,
                    sname,
                    members,
                    "not an object of members",
                ));
                continue;
            };
            let l = match layout::layout(reg, &canon) {
                Ok(l) => l,
                Err(e) => {
                    let why = format!("{}; a newer --registry may know it", e.0);
                    for (m, v) in members {
                        out.push(bad_row(cap, kind, &format!("{sname}.{m}"), v, &why));
                    }
                    continue;
                }
            };
            let unavailable = match self.s.availability(self.dev, &canon) {
                _ if canon == "VkPhysicalDeviceFeatures"
                    || canon == "VkPhysicalDeviceProperties" =>
                {
                    None
                }
                Availability::Yes => None,
                Availability::No(why) => Some(why),
            };
            let site = Site {
                capability: cap,
                kind,
                unavailable: unavailable.as_deref(),
            };
            self.members(out, &site, sname, &l, members, data.get(&canon));
        }
    }

    fn extensions(&self, out: &mut Vec<Requirement>, cap: &str, section: &Map<String, Value>) {
        for (name, spec) in section {
            let found = self
                .dev
                .extensions
                .iter()
                .chain(&self.s.instance_extensions)
                .find(|e| &e.extension_name == name);
            out.push(Requirement {
                capability: cap.to_owned(),
                kind: "extension",
                name: name.clone(),
                required: spec.clone(),
                device: found.map_or(Value::Null, |e| Value::from(e.spec_version)),
                ok: found.is_some(),
                note: found
                    .is_none()
                    .then(|| "not exposed by the device or the instance".to_owned()),
            });
        }
    }

    fn formats(
        &self,
        out: &mut Vec<Requirement>,
        cap: &str,
        section: &Map<String, Value>,
    ) -> Result<(), DeviceError> {
        let reg = reg_of(self);
        for (fname, structs) in section {
            let Some(structs) = structs.as_object() else {
                out.push(bad_row(
                    cap,
                    "format",
                    fname,
                    structs,
                    "not an object of structures",
                ));
                continue;
            };
            let Some(value) = layout::enum_named(reg, "VkFormat", fname) else {
                out.push(bad_row(
                    cap,
                    "format",
                    fname,
                    &Value::Object(structs.clone()),
                    "not a VkFormat in this registry",
                ));
                continue;
            };
            let wanted: Vec<String> = structs.keys().map(|k| canonical(reg, k)).collect();
            let data = self.s.format_properties2(self.dev, value as i32, &wanted)?;
            for (sname, req) in structs {
                let canon = canonical(reg, sname);
                // VkFormatProperties2 { formatProperties } is checked as VkFormatProperties.
                let (target, req) = match (canon.as_str(), req.get("formatProperties")) {
                    ("VkFormatProperties2", Some(inner)) => {
                        ("VkFormatProperties".to_owned(), inner)
                    }
                    _ => (canon.clone(), req),
                };
                let Some(req) = req.as_object() else {
                    out.push(bad_row(
                        cap,
                        "format",
                        &format!("{fname}.{sname}"),
                        req,
                        "not an object of members",
                    ));
                    continue;
                };
                let l = match layout::layout(reg, &target) {
                    Ok(l) => l,
                    Err(e) => {
                        out.push(bad_row(
                            cap,
                            "format",
                            &format!("{fname}.{sname}"),
                            &Value::Object(req.clone()),
                            &e.0,
                        ));
                        continue;
                    }
                };
                let unavailable = match self.s.availability(self.dev, &target) {
                    _ if target == "VkFormatProperties" => None,
                    Availability::Yes => None,
                    Availability::No(why) => Some(why),
                };
                let site = Site {
                    capability: cap,
                    kind: "format",
                    unavailable: unavailable.as_deref(),
                };
                let prefix = format!("{fname}.{sname}");
                self.members(out, &site, &prefix, &l, req, data.get(&target));
            }
        }
        Ok(())
    }

    fn queue_families(&self, out: &mut Vec<Requirement>, cap: &str, list: &[Value]) {
        let reg = reg_of(self);
        let Ok(l) = layout::layout(reg, "VkQueueFamilyProperties") else {
            return;
        };
        for (i, entry) in list.iter().enumerate() {
            let name = format!("queueFamiliesProperties[{i}]");
            let Some(req) = entry
                .get("VkQueueFamilyProperties")
                .and_then(Value::as_object)
            else {
                out.push(bad_row(
                    cap,
                    "queue-family",
                    &name,
                    entry,
                    "only VkQueueFamilyProperties is checked",
                ));
                continue;
            };
            let mut best: Option<(usize, usize)> = None;
            for (qi, q) in self.queues.iter().enumerate() {
                let mut rows = Vec::new();
                let site = Site {
                    capability: cap,
                    kind: "queue-family",
                    unavailable: None,
                };
                self.members(&mut rows, &site, &name, &l, req, Some(q));
                let failed = rows.iter().filter(|r| !r.ok).count();
                if !matches!(best, Some((_, f)) if f <= failed) {
                    best = Some((qi, failed));
                }
            }
            let (ok, device, note) = match best {
                Some((qi, 0)) => (true, Value::from(qi), Some(format!("family {qi}"))),
                Some((qi, f)) => (
                    false,
                    Value::Null,
                    Some(format!("closest family {qi} misses {f} member(s)")),
                ),
                None => (
                    false,
                    Value::Null,
                    Some("the device has no queue families".into()),
                ),
            };
            out.push(Requirement {
                capability: cap.to_owned(),
                kind: "queue-family",
                name,
                required: Value::Object(req.clone()),
                device,
                ok,
                note,
            });
        }
    }

    fn capability(
        &self,
        cap: &str,
        body: &Map<String, Value>,
    ) -> Result<Vec<Requirement>, DeviceError> {
        let mut out = Vec::new();
        for (section, v) in body {
            match (section.as_str(), v) {
                ("extensions", Value::Object(m)) => self.extensions(&mut out, cap, m),
                ("features", Value::Object(m)) => {
                    self.structs(&mut out, cap, "feature", m, &self.features)
                }
                ("properties", Value::Object(m)) => {
                    self.structs(&mut out, cap, "property", m, &self.properties)
                }
                ("formats", Value::Object(m)) => self.formats(&mut out, cap, m)?,
                ("queueFamiliesProperties", Value::Array(a)) => {
                    self.queue_families(&mut out, cap, a)
                }
                ("name", _) => {}
                (other, v) => out.push(bad_row(
                    cap,
                    "unknown",
                    other,
                    v,
                    "section not understood by vkgen",
                )),
            }
        }
        Ok(out)
    }
}

fn bad_row(cap: &str, kind: &'static str, name: &str, required: &Value, why: &str) -> Requirement {
    Requirement {
        capability: cap.to_owned(),
        kind,
        name: name.to_owned(),
        required: required.clone(),
        device: Value::Null,
        ok: false,
        note: Some(why.to_owned()),
    }
}

/// The feature and property structures a set of capabilities names (canonical).
fn named_structs(
    reg: &Registry,
    file: &ProfileFile,
    caps: &BTreeSet<String>,
    section: &str,
) -> Vec<String> {
    let mut out = BTreeSet::new();
    for c in caps {
        if let Some(Value::Object(m)) = file.capabilities.get(c).and_then(|b| b.get(section)) {
            out.extend(m.keys().map(|k| canonical(reg, k)));
        }
    }
    out.into_iter().collect()
}

/// Checks `profile` (and the profiles it requires) on `dev`.
pub fn check(
    s: &Session,
    dev: &Device,
    lt: &Limittypes,
    file: &ProfileFile,
    profile: &str,
) -> Result<ProfileReport, DeviceError> {
    let def = file
        .profiles
        .get(profile)
        .ok_or_else(|| DeviceError::BadInput {
            path: file.path.clone(),
            message: format!(
                "no profile `{profile}` (the file defines {})",
                file.profiles.keys().cloned().collect::<Vec<_>>().join(", ")
            ),
        })?;
    // This profile and the required ones defined in the file, depth first, each once.
    let mut order: Vec<&ProfileDef> = Vec::new();
    let mut missing: Vec<String> = Vec::new();
    let mut stack = vec![def];
    while let Some(p) = stack.pop() {
        if order.iter().any(|q| q.name == p.name) {
            continue;
        }
        order.push(p);
        for r in &p.requires {
            match file.profiles.get(r) {
                Some(q) => stack.push(q),
                None => missing.push(r.clone()),
            }
        }
    }
    let all_caps: BTreeSet<String> = order
        .iter()
        .flat_map(|p| p.capabilities.iter().flatten().cloned())
        .collect();
    let checker = Checker {
        s,
        dev,
        lt,
        features: s.features(dev, &named_structs(s.reg, file, &all_caps, "features"))?,
        properties: s.properties(dev, &named_structs(s.reg, file, &all_caps, "properties"))?,
        queues: s.queue_families(dev)?,
    };
    let mut results = Vec::new();
    let mut groups = Vec::new();
    for p in &order {
        if let Some(v) = &p.api_version {
            let req = parse_api_version(v);
            results.push(Requirement {
                capability: p.name.clone(),
                kind: "api-version",
                name: "apiVersion".into(),
                required: Value::from(v.clone()),
                device: Value::from(version_string(dev.api_version)),
                ok: req.is_some_and(|r| dev.api_version >= r),
                note: req.is_none().then(|| format!("`{v}` is not a version")),
            });
        }
        for alts in &p.capabilities {
            let mut any = false;
            for cap in alts {
                let rows = checker.capability(cap, &file.capabilities[cap])?;
                any |= rows.iter().all(|r| r.ok);
                results.extend(rows);
            }
            groups.push(Group {
                capabilities: alts.clone(),
                ok: any,
            });
        }
    }
    for m in missing {
        results.push(Requirement {
            capability: profile.to_owned(),
            kind: "profile",
            name: m.clone(),
            required: Value::Bool(true),
            device: Value::Null,
            ok: false,
            note: Some(format!(
                "required profile `{m}` is not defined in this file"
            )),
        });
    }
    let api_ok = results
        .iter()
        .filter(|r| r.kind == "api-version" || r.kind == "profile")
        .all(|r| r.ok);
    let failed_groups: BTreeSet<&String> = groups
        .iter()
        .filter(|g| !g.ok)
        .flat_map(|g| &g.capabilities)
        .collect();
    let failed = results
        .iter()
        .filter(|r| {
            !r.ok
                && (failed_groups.contains(&r.capability)
                    || r.kind == "api-version"
                    || r.kind == "profile")
        })
        .count();
    Ok(ProfileReport {
        profile: profile.to_owned(),
        label: def.label.clone(),
        device: dev.index,
        device_name: dev.name.clone(),
        device_api_version: version_string(dev.api_version),
        supported: api_ok && groups.iter().all(|g| g.ok),
        requirements: results.len(),
        failed,
        groups,
        results,
    })
}

fn short(v: &Value) -> String {
    match v {
        Value::Null => "-".into(),
        Value::Array(a) if a.is_empty() => "(none)".into(),
        Value::String(s) => s.clone(),
        Value::Array(a) if a.iter().all(Value::is_string) => a
            .iter()
            .filter_map(Value::as_str)
            .map(|s| s.trim_start_matches("VK_"))
            .collect::<Vec<_>>()
            .join("|"),
        other => other.to_string(),
    }
}

/// The readable report; `only_failed` leaves out the requirements that are met.
pub fn table(reports: &[ProfileReport], only_failed: bool) -> String {
    let mut s = String::new();
    for r in reports {
        let _ = writeln!(
            s,
            "{} ({}) on device {} \"{}\" (Vulkan {})",
            r.profile, r.label, r.device, r.device_name, r.device_api_version
        );
        let _ = writeln!(
            s,
            "{:<6} {:<36} {:<12} {:<64} {:<24} {:<24} note",
            "result", "capability", "kind", "requirement", "required", "device"
        );
        for q in r.results.iter().filter(|q| !only_failed || !q.ok) {
            let line = format!(
                "{:<6} {:<36} {:<12} {:<64} {:<24} {:<24} {}",
                if q.ok { "ok" } else { "FAIL" },
                q.capability,
                q.kind,
                q.name,
                short(&q.required),
                short(&q.device),
                q.note.as_deref().unwrap_or("")
            );
            let _ = writeln!(s, "{}", line.trim_end());
        }
        for g in r.groups.iter().filter(|g| g.capabilities.len() > 1) {
            let _ = writeln!(
                s,
                "alternatives {}: {}",
                g.capabilities.join(" | "),
                if g.ok { "one holds" } else { "none holds" }
            );
        }
        let _ = writeln!(
            s,
            "{}: {} — {} requirements, {} not met\n",
            r.profile,
            if r.supported {
                "supported"
            } else {
                "NOT supported"
            },
            r.requirements,
            r.failed
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use serde_json::json;

    use super::*;

    fn registry() -> Registry {
        crate::load(&crate::Options {
            registry: Some(crate::registry::DEBIAN_REGISTRY.into()),
            ..Default::default()
        })
        .expect("Debian's vk.xml")
        .0
        .registry
    }

    fn member_scalar(reg: &Registry, s: &str, m: &str) -> Scalar {
        let l = layout::layout(reg, s).unwrap();
        l.member(m).unwrap().scalar.clone()
    }

    #[test]
    fn limittype_rules() {
        let reg = registry();
        let lim = |m: &str| {
            let l = layout::layout(&reg, "VkPhysicalDeviceLimits").unwrap();
            l.member(m).unwrap().scalar.clone()
        };
        let u = lim("maxImageDimension2D");
        assert_eq!(
            satisfies(&reg, "max", &u, &json!(8192), &json!(16384)),
            Ok(true)
        );
        assert_eq!(
            satisfies(&reg, "max", &u, &json!(8192), &json!(4096)),
            Ok(false)
        );
        assert_eq!(
            satisfies(&reg, "min", &u, &json!(256), &json!(64)),
            Ok(true)
        );
        assert_eq!(
            satisfies(&reg, "min", &u, &json!(64), &json!(256)),
            Ok(false)
        );
        assert_eq!(satisfies(&reg, "bits", &u, &json!(4), &json!(8)), Ok(true));
        assert_eq!(
            satisfies(&reg, "min,mul", &u, &json!(256), &json!(64)),
            Ok(true)
        );
        assert_eq!(
            satisfies(&reg, "min,mul", &u, &json!(256), &json!(96)),
            Ok(false)
        );
        let f = lim("pointSizeGranularity");
        assert_eq!(
            satisfies(&reg, "min,mul", &f, &json!(1), &json!(0.125)),
            Ok(true)
        );
        assert_eq!(
            satisfies(&reg, "min,mul", &f, &json!(0.5), &json!(0.3)),
            Ok(false)
        );
        let range = lim("pointSizeRange");
        assert_eq!(
            satisfies(
                &reg,
                "range",
                &range,
                &json!([1.0, 64.0]),
                &json!([1.0, 255.875])
            ),
            Ok(true)
        );
        assert_eq!(
            satisfies(
                &reg,
                "range",
                &range,
                &json!([0.5, 64.0]),
                &json!([1.0, 255.875])
            ),
            Ok(false)
        );
        let arr = lim("maxComputeWorkGroupSize");
        assert_eq!(
            satisfies(
                &reg,
                "max",
                &arr,
                &json!([128, 128, 64]),
                &json!([1024, 1024, 64])
            ),
            Ok(true)
        );
        assert_eq!(
            satisfies(
                &reg,
                "max",
                &arr,
                &json!([128, 128, 64]),
                &json!([1024, 64, 64])
            ),
            Ok(false)
        );
        let neg = lim("minTexelOffset");
        assert_eq!(
            satisfies(&reg, "min", &neg, &json!(-8), &json!(-32)),
            Ok(true)
        );
        let flags = lim("framebufferColorSampleCounts");
        let one_four = json!(["VK_SAMPLE_COUNT_1_BIT", "VK_SAMPLE_COUNT_4_BIT"]);
        assert_eq!(
            satisfies(
                &reg,
                "bitmask",
                &flags,
                &one_four,
                &json!([
                    "VK_SAMPLE_COUNT_1_BIT",
                    "VK_SAMPLE_COUNT_4_BIT",
                    "VK_SAMPLE_COUNT_8_BIT"
                ])
            ),
            Ok(true)
        );
        assert_eq!(
            satisfies(
                &reg,
                "bitmask",
                &flags,
                &one_four,
                &json!(["VK_SAMPLE_COUNT_1_BIT"])
            ),
            Ok(false)
        );
        assert!(satisfies(&reg, "bitmask", &flags, &json!(["VK_NOT_A_BIT"]), &one_four).is_err());
        let b = lim("standardSampleLocations");
        assert_eq!(
            satisfies(&reg, "bitmask", &b, &json!(true), &json!(false)),
            Ok(false)
        );
        assert_eq!(
            satisfies(&reg, "bitmask", &b, &json!(false), &json!(false)),
            Ok(true)
        );
        assert_eq!(
            satisfies(&reg, "exact", &b, &json!(false), &json!(true)),
            Ok(false)
        );
        let e = member_scalar(
            &reg,
            "VkPhysicalDeviceVulkan11Properties",
            "pointClippingBehavior",
        );
        assert_eq!(
            satisfies(
                &reg,
                "exact",
                &e,
                &json!("VK_POINT_CLIPPING_BEHAVIOR_ALL_CLIP_PLANES_KHR"),
                &json!("VK_POINT_CLIPPING_BEHAVIOR_ALL_CLIP_PLANES")
            ),
            Ok(true),
            "aliases resolve"
        );
    }

    #[test]
    fn limittypes_come_from_vk_xml() {
        let lt = Limittypes::read(Path::new(crate::registry::DEBIAN_REGISTRY)).unwrap();
        assert_eq!(
            lt.get("VkPhysicalDeviceLimits", "maxImageDimension2D"),
            Some("max")
        );
        assert_eq!(
            lt.get("VkPhysicalDeviceLimits", "pointSizeRange"),
            Some("range")
        );
        assert_eq!(
            lt.get("VkPhysicalDeviceLimits", "mipmapPrecisionBits"),
            Some("bits")
        );
        assert_eq!(
            lt.get("VkPhysicalDeviceLimits", "minUniformBufferOffsetAlignment"),
            Some("min,pot")
        );
        assert_eq!(
            lt.get("VkPhysicalDeviceProperties", "limits"),
            Some("struct")
        );
        assert_eq!(
            lt.get("VkPhysicalDeviceFeatures", "robustBufferAccess"),
            None
        );
    }

    #[test]
    fn parses_both_schema_forms_and_rejects_bad_files() {
        let p = Path::new("p.json");
        let map = r#"{"capabilities": {"a": {"extensions": {"VK_KHR_swapchain": 1}}, "b": {}},
            "profiles": {"P": {"api-version": "1.1.0", "capabilities": ["a", ["a", "b"]]}}}"#;
        let f = ProfileFile::parse(map, p).unwrap();
        assert_eq!(
            f.profiles["P"].capabilities,
            vec![vec!["a".to_owned()], vec!["a".to_owned(), "b".to_owned()]]
        );
        let list = r#"{"capabilities": [{"name": "baseline", "features": {}}],
            "profiles": {"Q": {"capabilities": ["baseline"]}}}"#;
        assert!(ProfileFile::parse(list, p)
            .unwrap()
            .capabilities
            .contains_key("baseline"));
        for (bad, why) in [
            ("not json", "not JSON"),
            ("[]", "not an object"),
            (r#"{"profiles": {}}"#, "capabilities"),
            (r#"{"capabilities": {}, "profiles": {}}"#, "no profile"),
            (
                r#"{"capabilities": {}, "profiles": {"P": {"capabilities": ["x"]}}}"#,
                "undefined capability `x`",
            ),
            (
                r#"{"capabilities": {}, "profiles": {"P": {"capabilities": [1]}}}"#,
                "not a string",
            ),
        ] {
            let e = ProfileFile::parse(bad, p).unwrap_err();
            assert!(e.to_string().contains(why), "{bad}: {e}");
            assert_eq!(e.exit_code(), 2);
        }
    }

    #[test]
    fn api_versions() {
        assert_eq!(
            parse_api_version("1.3.204"),
            Some(ash::vk::make_api_version(0, 1, 3, 204))
        );
        assert_eq!(parse_api_version("1.1"), Some(ash::vk::API_VERSION_1_1));
        assert_eq!(parse_api_version("1.x"), None);
        assert_eq!(parse_api_version("1.2.3.4"), None);
    }
}
