//! The tail of `src/features.rs`: `REQUIRED_FEATURES`, every device feature a core version or an
//! extension makes mandatory (vk.xml's `<require><feature name="…" struct="…"/>` entries), named
//! by its flat field ([`super::features`]'s merging and renaming), so that a driver kit can give a
//! device of a version the features the version requires and check a vendor's description.
//!
//! Then `REQUIRED_LIMITS` ([`super::limits`]): vk.xml marks a limit's kind but not the spec's
//! "Required Limits" values, which come from Khronos' Vulkan-Profiles.
//!
//! Registries before the `<require><feature>` markup (vk-1.3.239 and vk-1.3.281 of vkgen's
//! matrix have none) would make no feature mandatory, and a kit device of 1.3 would lack
//! `timelineSemaphore`, `synchronization2`, … . For them the rows come from
//! `registry/required-features.txt` ([`BUILTIN`]): vk-1.4.359's requirements, one per line,
//! written by `vkgen required-features` ([`table_file`]) and kept fresh by a test. A version's
//! or an extension's mandatory features do not change after it is released, so the newest
//! registry's rows are the older ones' too; rows of versions, extensions, structures or
//! members an older registry lacks are left out.

use std::collections::BTreeSet;
use std::fmt::Write;

use super::features::{parts as features_parts, tables, Kind, Table};
use super::Ctx;
use crate::error::Result;
use crate::model::Require;

/// `src/features.rs`: the flat tables, then [`REQUIRED_FEATURES`](self), the features' origins,
/// the required limits and the driver ids: the longest emitter of all, so every part is written
/// on a thread of its own (`super::in_parallel`), each waiting only for the table it reads
/// (`tables` makes each once; the first to ask makes it, the others wait).
pub fn emit(cx: &Ctx) -> Result<String> {
    let mut parts = features_parts(cx);
    parts.extend([
        Box::new(move |out: &mut String| {
            out.push_str(&required_features(cx, tables(cx, Kind::Features)))
        }) as super::Part,
        Box::new(move |out| out.push_str(&feature_origins(cx, tables(cx, Kind::Features)))),
        Box::new(move |out| {
            out.push_str(&super::limits::required_limits(
                cx,
                tables(cx, Kind::Properties),
            ))
        }),
        Box::new(move |out| out.push_str(&driver_ids(cx))),
    ]);
    Ok(super::in_parallel(parts))
}

/// `DRIVER_IDS`: the registry's `VkDriverId` enumerants, so that a kit can tell a vendor that
/// the `driverID` it reports is none (the value a device without `VK_KHR_driver_properties`'
/// identity would show: 0 is not a `VkDriverId`).
fn driver_ids(cx: &Ctx) -> String {
    use crate::device::layout::{enum_name, enum_named};
    let mut rows = String::new();
    // Registries before 1.2 name the group by its extension (`VkDriverIdKHR`).
    let group = ["VkDriverId", "VkDriverIdKHR"]
        .into_iter()
        .find(|g| cx.reg().enums.contains_key(*g));
    if let Some((group, g)) = group.and_then(|n| Some((n, cx.reg().enums.get(n)?))) {
        let mut seen = BTreeSet::new();
        for v in &g.values {
            if let Some(value) = enum_named(cx.reg(), group, &v.name) {
                if seen.insert(value) {
                    let name = enum_name(cx.reg(), group, value).unwrap_or(v.name.clone());
                    let _ = writeln!(rows, "    ({name:?}, {value}),");
                }
            }
        }
    }
    format!(
        "\n/// The registry's `VkDriverId` values (`VK_KHR_driver_properties`, core in 1.2), by name.\n\
         pub const DRIVER_IDS: &[(&str, i32)] = &[\n{rows}];\n"
    )
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

/// The built-in requirement rows (see the module notes).
pub const BUILTIN: &str = include_str!("../../registry/required-features.txt");

/// One requirement: `(by, depends, struct, member)`.
type Row<'a> = (&'a str, &'a str, &'a str, &'a str);

fn is_vulkan(r: &&Require) -> bool {
    r.api.is_empty() || r.api.iter().any(|a| a == "vulkan")
}

/// Every `<require><feature>` of `blocks` (a version's or extension's name and its blocks).
fn registry_rows<'a>(blocks: impl Iterator<Item = (&'a str, &'a [Require])>) -> Vec<Row<'a>> {
    let mut rows = Vec::new();
    for (by, requires) in blocks {
        for r in requires.iter().filter(is_vulkan) {
            let depends = r.depends.as_deref().unwrap_or("");
            rows.extend(
                r.features
                    .iter()
                    .map(|(s, m)| (by, depends, s.as_str(), m.as_str())),
            );
        }
    }
    rows
}

/// `registry/required-features.txt` from `reg`: a header, then `by<TAB>depends<TAB>struct<TAB>member`
/// for every feature requirement of every version and extension, in registry order.
pub fn table_file(reg: &crate::model::Registry) -> String {
    let highest = crate::select::highest_version(reg);
    let versions = reg
        .features
        .iter()
        .map(|f| (f.name.as_str(), f.requires.as_slice()));
    let extensions = reg
        .extensions
        .iter()
        .map(|e| (e.name.as_str(), e.requires.as_slice()));
    let mut out = format!(
        "# generated by `vkgen required-features` from vk.xml {}.{}.{}: its <require><feature> entries,\n\
         # the feature requirements of registries that predate them. by<TAB>depends<TAB>struct<TAB>member\n",
        highest.0, highest.1, reg.header_version
    );
    for (by, depends, s, m) in registry_rows(versions.chain(extensions)) {
        let _ = writeln!(out, "{by}\t{depends}\t{s}\t{m}");
    }
    out
}

/// The rows of [`BUILTIN`].
fn builtin_rows() -> Vec<Row<'static>> {
    BUILTIN
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .filter_map(|l| {
            let mut f = l.split('\t');
            Some((f.next()?, f.next()?, f.next()?, f.next()?))
        })
        .collect()
}

fn required_features(cx: &Ctx, t: &Table) -> String {
    let versions: Vec<&str> = cx
        .reg()
        .features
        .iter()
        .filter(|f| f.version <= cx.sel.version)
        .map(|f| f.name.as_str())
        .collect();
    let own = registry_rows(
        cx.reg()
            .features
            .iter()
            .filter(|f| f.version <= cx.sel.version)
            .map(|f| (f.name.as_str(), f.requires.as_slice()))
            .chain(
                cx.sel
                    .extensions
                    .iter()
                    .map(|e| (e.name.as_str(), e.requires.as_slice())),
            ),
    );
    let any_markup = cx
        .reg()
        .features
        .iter()
        .flat_map(|f| &f.requires)
        .chain(cx.reg().extensions.iter().flat_map(|e| &e.requires))
        .any(|r| !r.features.is_empty());
    let (source_rows, source) = if any_markup {
        (own, "the registry's `<require><feature>` entries")
    } else {
        let rows = builtin_rows()
            .into_iter()
            .filter(|(by, ..)| versions.contains(by) || cx.sel.is_selected_extension(by))
            .collect();
        (
            rows,
            "vkgen's registry/required-features.txt (a newer vk.xml's entries: this registry \
             predates `<require><feature>`)",
        )
    };
    let mut seen = BTreeSet::new();
    let mut rows = String::new();
    for (by, depends, s, m) in source_rows {
        let depends = flat_depends(cx, t, depends);
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

/// Every feature requirement of the selected core versions and extensions, in registry order,
/// from {source}.
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
