//! The tail of `src/features.rs`: `REQUIRED_FEATURES`, every device feature a core version or an
//! extension makes mandatory (vk.xml's `<require><feature name="…" struct="…"/>` entries), named
//! by its flat field ([`super::features`]'s merging and renaming), so that a driver kit can give a
//! device of a version the features the version requires and check a vendor's description.
//!
//! Then `REQUIRED_LIMITS` ([`super::limits`]): vk.xml marks a limit's kind but not the spec's
//! "Required Limits" values, which come from Khronos' Vulkan-Profiles.

use std::collections::BTreeSet;
use std::fmt::Write;

use super::features::{emit as emit_features, tables, Kind, Table};
use super::Ctx;
use crate::error::Result;
use crate::model::Require;

/// `src/features.rs`: the flat tables, then [`REQUIRED_FEATURES`](self).
pub fn emit(cx: &Ctx) -> Result<String> {
    let mut out = emit_features(cx)?;
    let features = tables(cx, Kind::Features);
    out.push_str(&required_features(cx, &features));
    out.push_str(&feature_origins(cx, &features));
    out.push_str(&super::limits::required_limits(
        cx,
        &tables(cx, Kind::Properties),
    ));
    Ok(out)
}

/// The flat name of `member` of feature structure `s` (any alias), if the selection has it.
fn flat_name<'t>(cx: &Ctx, t: &'t Table, s: &str, member: &str) -> Option<&'t str> {
    let canon = cx.reg().resolve_type(s).map_or(s, |ty| ty.name.as_str());
    let cs = t
        .structs
        .iter()
        .find(|c| c.name == canon || c.aliases.iter().any(|a| a == s))?;
    let m = cs
        .members
        .iter()
        .find(|m| m.path.len() == 1 && m.path[0] == member)?;
    Some(t.fields[m.field].flat.as_str())
}

/// A `depends=` expression with each `Struct::member` operand written `Struct::flatName`.
fn flat_depends(cx: &Ctx, t: &Table, expr: &str) -> String {
    let mut out = String::new();
    let mut token = String::new();
    let flush = |token: &mut String, out: &mut String| {
        match token.split_once("::") {
            Some((s, m)) => match flat_name(cx, t, s, m) {
                Some(flat) => {
                    let _ = write!(out, "{s}::{flat}");
                }
                None => out.push_str(token),
            },
            None => out.push_str(token),
        }
        token.clear();
    };
    for c in expr.chars().filter(|c| !c.is_whitespace()) {
        if matches!(c, '+' | ',' | '(' | ')') {
            flush(&mut token, &mut out);
            out.push(c);
        } else {
            token.push(c);
        }
    }
    flush(&mut token, &mut out);
    out
}

fn required_features(cx: &Ctx, t: &Table) -> String {
    let is_vulkan = |r: &&Require| r.api.is_empty() || r.api.iter().any(|a| a == "vulkan");
    let versions = cx
        .reg()
        .features
        .iter()
        .filter(|f| f.version <= cx.sel.version)
        .map(|f| (f.name.as_str(), &f.requires));
    let extensions = cx
        .sel
        .extensions
        .iter()
        .map(|e| (e.name.as_str(), &e.requires));
    let mut seen = BTreeSet::new();
    let mut rows = String::new();
    for (by, requires) in versions.chain(extensions) {
        for r in requires.iter().filter(is_vulkan) {
            let depends = r
                .depends
                .as_deref()
                .map(|d| flat_depends(cx, t, d))
                .unwrap_or_default();
            for (s, m) in &r.features {
                let Some(flat) = flat_name(cx, t, s, m) else {
                    continue;
                };
                if seen.insert((by, depends.clone(), flat)) {
                    let _ = writeln!(
                        rows,
                        "    RequiredFeature {{ by: {by:?}, depends: {depends:?}, feature: {flat:?} }},"
                    );
                }
            }
        }
    }
    format!(
        r#"
/// A device feature the registry makes mandatory (`<require><feature name="…" struct="…"/>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequiredFeature {{
    /// The core version (`VK_VERSION_1_2`) or extension that requires it: a device of that version
    /// or advertising that extension must support the feature.
    pub by: &'static str,
    /// The `<require>` block's condition (a `depends=` expression; `Struct::member` operands name
    /// flat features, [`Features::NAMES`]); empty when unconditional.
    pub depends: &'static str,
    /// The feature's flat name ([`Features::NAMES`]).
    pub feature: &'static str,
}}

/// Every feature requirement of the selected core versions and extensions, in registry order.
pub const REQUIRED_FEATURES: &[RequiredFeature] = &[
{rows}];
"#
    )
}

/// `FEATURE_ORIGINS`: for each feature outside `VkPhysicalDeviceFeatures`, what lets a device
/// expose it — the core versions whose structures carry it and the extensions (promoted ones
/// included) that add such a structure — so a kit can tell a feature its device's version and
/// extensions cannot report (a down-bump drops it) from one that is merely off.
fn feature_origins(cx: &Ctx, t: &Table) -> String {
    let reg = cx.reg();
    let canon = |name: &str| {
        reg.resolve_type(name)
            .map_or(name, |ty| ty.name.as_str())
            .to_owned()
    };
    let is_vulkan = |api: &[String]| api.is_empty() || api.iter().any(|a| a == "vulkan");
    // Structure → the versions and extensions that require it (its aliases included).
    let mut origins: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for f in reg.features.iter().filter(|f| is_vulkan(&f.api)) {
        let by = format!("VK_VERSION_{}_{}", f.version.0, f.version.1);
        for ty in f
            .requires
            .iter()
            .filter(|r| is_vulkan(&r.api))
            .flat_map(|r| &r.types)
        {
            let list = origins.entry(canon(ty)).or_default();
            if !list.contains(&by) {
                list.push(by.clone());
            }
        }
    }
    for e in &cx.sel.extensions {
        for ty in e
            .requires
            .iter()
            .filter(|r| is_vulkan(&r.api))
            .flat_map(|r| &r.types)
        {
            let list = origins.entry(canon(ty)).or_default();
            if !list.contains(&e.name) {
                list.push(e.name.clone());
            }
        }
    }
    let base = t.structs.first().map(|s| s.name.as_str());
    let mut rows = String::new();
    for f in &t.fields {
        if f.carriers.iter().any(|(s, _)| Some(s.as_str()) == base) {
            continue;
        }
        let mut by: Vec<&str> = Vec::new();
        for (s, _) in &f.carriers {
            for o in origins.get(&canon(s)).into_iter().flatten() {
                if !by.contains(&o.as_str()) {
                    by.push(o);
                }
            }
        }
        let _ = writeln!(rows, "    ({:?}, {:?}),", f.flat, by.join(","));
    }
    format!(
        r#"
/// Every feature outside `VkPhysicalDeviceFeatures` and what can expose it: `(flat name, depends=
/// expression)` over the core versions whose structures carry it and the extensions (promoting
/// ones included) that add such a structure. A device whose version and extensions satisfy none
/// cannot report the feature, whatever its table says.
pub const FEATURE_ORIGINS: &[(&str, &str)] = &[
{rows}];
"#
    )
}
