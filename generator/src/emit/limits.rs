//! `REQUIRED_LIMITS` in `src/features.rs`: the specification's "Required Limits" per core
//! version, so that a driver kit can give a device of a version its minimum limits and check a
//! vendor's description.
//!
//! vk.xml has each limit's kind (`limittype=`) but not the values; those come from Khronos'
//! Vulkan-Profiles (`VP_LUNARG_minimum_requirements.json`), extracted into
//! `registry/limits/minimum_requirements.json` by `registry/limits/extract.py`, which records the
//! source repository, commit, path and SHA-256. The extract also records each member's
//! `limittype` from the newest vk.xml, used only where the selected registry has none (before
//! 1.2.1xx). Profiles give no per-extension limits, so there are none here.
//!
//! Then the feature-dependent rows: limits a supported feature makes non-zero
//! (`tessellationShader` → `maxTessellationGenerationLevel` ≥ 64, a line-rasterization feature →
//! `lineSubPixelPrecisionBits` ≥ 4, …). Neither vk.xml nor Vulkan-Profiles records which feature
//! a limit belongs to (the profiles list the *unsupported* values), so they come from the one
//! hand table `registry/limits/feature_limits.json`, transcribed from the specification's
//! "Required Limit Types" (feature column) and "Required Limits" ("Supported Limit" column)
//! tables, with its source recorded in the file. Their `features` name the flat features any of
//! which makes the row apply (empty for a version's row); rows whose features or structures the
//! selection lacks are left out.
//!
//! Each row becomes code, not data, because the flat `Properties` has typed fields (integers,
//! floats, flags, fixed arrays): `met` compares by the kind (`pot`: also a power of two; `mul`:
//! also a divisor of the requirement), `raise` moves the value just far enough (`max`: up,
//! `min`: down, `range`: wider, flags: or-ed in), `have` shows it. Rows that
//! ask nothing (`false` booleans, empty flags, an unsigned maximum of 0) are left out.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::features::{Table, PROMOTED_RENAMES};
use super::{text, Ctx, Place};
use crate::device::layout::enum_named;
use crate::model::{Field, TypeKind};

/// The extracted minimum requirements (see the module notes).
pub const DATA: &str = include_str!("../../registry/limits/minimum_requirements.json");

/// The feature-dependent limits (see the module notes).
pub const FEATURE_DATA: &str = include_str!("../../registry/limits/feature_limits.json");

/// One leaf of a capability: the structure declaring the member, the member path from the
/// chain structure, and the required value.
struct Leaf<'v> {
    chain: String,
    path: Vec<String>,
    declared_in: String,
    value: &'v Value,
}

fn members<'r>(cx: &Ctx<'_, 'r>, name: &str) -> Option<&'r [Field]> {
    match &cx.reg().resolve_type(name)?.kind {
        TypeKind::Struct(a) => Some(&a.members),
        _ => None,
    }
}

fn leaves<'v>(
    cx: &Ctx,
    chain: &str,
    declared_in: &str,
    prefix: &[String],
    values: &'v Map<String, Value>,
    out: &mut Vec<Leaf<'v>>,
) {
    for (member, value) in values {
        let mut path = prefix.to_vec();
        path.push(member.clone());
        match value {
            Value::Object(inner) => {
                let ty = members(cx, declared_in)
                    .and_then(|ms| ms.iter().find(|m| &m.name == member))
                    .map(|m| m.ty.base.clone())
                    .unwrap_or_default();
                leaves(cx, chain, &ty, &path, inner, out);
            }
            _ => out.push(Leaf {
                chain: chain.to_owned(),
                path,
                declared_in: declared_in.to_owned(),
                value,
            }),
        }
    }
}

/// The flat field of `leaf` in the property table, if the selection has its structure.
fn flat_field<'t>(cx: &Ctx, t: &'t Table, leaf: &Leaf) -> Option<&'t super::features::FlatField> {
    let canon = cx
        .reg()
        .resolve_type(&leaf.chain)
        .map_or(leaf.chain.as_str(), |ty| ty.name.as_str());
    let s = t
        .structs
        .iter()
        .find(|s| s.name == canon || s.aliases.iter().any(|a| a == &leaf.chain))?;
    let renamed = PROMOTED_RENAMES
        .iter()
        .find(|(rs, rm, _)| *rs == canon && leaf.path == [*rm])
        .map(|(_, _, flat)| *flat);
    let m = s.members.iter().find(|m| m.path == leaf.path);
    match (m, renamed) {
        (Some(m), _) => Some(&t.fields[m.field]),
        (None, Some(flat)) => t.fields.iter().find(|f| f.flat == flat),
        (None, None) => None,
    }
}

/// The registry's `limittype` of the leaf, else the extract's.
fn limittype(cx: &Ctx, data: &Value, leaf: &Leaf) -> String {
    let member = leaf.path.last().map_or("", String::as_str);
    members(cx, &leaf.declared_in)
        .and_then(|ms| ms.iter().find(|m| m.name == member))
        .and_then(|m| m.limittype.clone())
        .or_else(|| {
            data["limittypes"]["members"][&leaf.declared_in][member]
                .as_str()
                .map(str::to_owned)
        })
        .unwrap_or_else(|| "exact".to_owned())
}

/// A Rust literal of `v` for a field of C type `base`.
fn literal(base: &str, v: &Value) -> Option<String> {
    if base == "float" {
        Some(format!("{:?}f32", v.as_f64()?))
    } else {
        Some(v.as_i64()?.to_string())
    }
}

/// `(met, raise)` expressions for one numeric leaf, element-wise over arrays.
fn numeric(kind: &str, field: &str, base: &str, value: &Value) -> Option<(String, String)> {
    let values: Vec<&Value> = match value {
        Value::Array(a) => a.iter().collect(),
        v => vec![v],
    };
    let at = |i: usize| {
        if matches!(value, Value::Array(_)) {
            format!("p.{field}[{i}]")
        } else {
            format!("p.{field}")
        }
    };
    let mut met = Vec::new();
    let mut raise = Vec::new();
    let main = kind.split(',').next().unwrap_or(kind);
    if main == "range" {
        let (lo, hi) = (
            literal(base, values.first()?)?,
            literal(base, values.get(1)?)?,
        );
        let (a, b) = (at(0), at(1));
        met.push(format!("{a} <= {lo} && {b} >= {hi}"));
        raise.push(format!("{a} = {a}.min({lo}); {b} = {b}.max({hi});"));
    } else {
        // `pot`: the value must also be a power of two (alignments, subgroup sizes); the
        // required values are, so a value that is not is replaced by the requirement.
        let pot = kind.contains("pot") && base != "float";
        for (i, v) in values.iter().enumerate() {
            let (x, lit) = (at(i), literal(base, v)?);
            if pot {
                met.push(format!("{x}.is_power_of_two()"));
                raise.push(format!("if !{x}.is_power_of_two() {{ {x} = {lit}; }}"));
            }
            match main {
                "max" | "bits" => {
                    met.push(format!("{x} >= {lit}"));
                    raise.push(format!("{x} = {x}.max({lit});"));
                }
                // A granularity must divide the required one: the required value itself does.
                "min" if kind.contains("mul") && base != "float" => {
                    met.push(format!("{x} != 0 && {x} <= {lit} && {lit} % {x} == 0"));
                    raise.push(format!("{x} = {lit};"));
                }
                "min" => {
                    met.push(format!("{x} <= {lit}"));
                    raise.push(format!("{x} = {x}.min({lit});"));
                }
                _ => {
                    met.push(format!("{x} == {lit}"));
                    raise.push(format!("{x} = {lit};"));
                }
            }
        }
    }
    Some((met.join(" && "), raise.join(" ")))
}

/// Whether a numeric leaf asks nothing of an unsigned field (at least 0).
fn trivial(kind: &str, base: &str, value: &Value) -> bool {
    let unsigned = matches!(base, "uint32_t" | "uint64_t" | "size_t" | "VkDeviceSize");
    let zero = |v: &Value| v.as_u64() == Some(0);
    let all_zero = match value {
        Value::Array(a) => a.iter().all(zero),
        v => zero(v),
    };
    unsigned && all_zero && (kind.starts_with("max") || kind == "bits")
}

/// The `RequiredLimit` row of one leaf, or `None` when it asks nothing or the selection lacks it.
fn row(
    cx: &Ctx,
    t: &Table,
    data: &Value,
    (by, features): (&str, &[String]),
    leaf: &Leaf,
) -> Option<(String, String)> {
    let f = flat_field(cx, t, leaf)?;
    let kind = limittype(cx, data, leaf);
    let field = &f.rust;
    let base = f.ty.base.as_str();
    let bitmask = matches!(
        cx.reg().resolve_type(base).map(|t| &t.kind),
        Some(TypeKind::Bitmask { .. })
    );
    let (met, raise) = match leaf.value {
        Value::Bool(false) => return None,
        Value::Bool(true) => (format!("p.{field}"), format!("p.{field} = true;")),
        Value::Array(names) if bitmask => {
            let mut bits = 0i64;
            for n in names {
                let n = n.as_str()?;
                bits |= cx
                    .reg()
                    .enums
                    .keys()
                    .find_map(|g| enum_named(cx.reg(), g, n))?;
            }
            if bits == 0 {
                return None;
            }
            let ty = text::base_str(cx, base, Place::Field);
            let v = format!("{ty}::from_raw({bits:#x})");
            (
                format!("p.{field}.contains({v})"),
                format!("p.{field} |= {v};"),
            )
        }
        v if trivial(&kind, base, v) => return None,
        v => numeric(&kind, field, base, v)?,
    };
    // ash's flags implement `Debug` only with its `debug` feature: show their bits.
    let have = if bitmask {
        format!("write!(f, \"{{:#x}}\", p.{field}.as_raw())")
    } else {
        format!("write!(f, \"{{:?}}\", p.{field})")
    };
    let required = leaf.value.to_string().replace('"', "");
    Some((
        f.flat.clone(),
        format!(
            "    RequiredLimit {{ by: {by:?}, limit: {:?}, kind: {kind:?}, required: {required:?}, \
             met: |p| {met}, raise: |p| {{ {raise} }}, have: |p, f| {have}, features: &{features:?} }},\n",
            f.flat
        ),
    ))
}

/// The `REQUIRED_LIMITS` part of `src/features.rs` for the property table `t`.
pub fn required_limits(cx: &Ctx, t: &Table) -> String {
    let data: Value = serde_json::from_str(DATA).unwrap_or(Value::Null);
    let src = &data["source"];
    let source = format!(
        "{}@{} {} (sha256 {})",
        src["repository"].as_str().unwrap_or("?"),
        src["commit"].as_str().unwrap_or("?"),
        src["path"].as_str().unwrap_or("?"),
        src["sha256"].as_str().unwrap_or("?")
    );
    let versions: BTreeSet<&str> = cx
        .reg()
        .features
        .iter()
        .filter(|f| f.version <= cx.sel.version)
        .map(|f| f.name.as_str())
        .collect();
    let mut rows = String::new();
    let empty = Map::new();
    for (by, caps) in data["versions"].as_object().unwrap_or(&empty) {
        if !versions.contains(by.as_str()) {
            continue;
        }
        let mut seen = BTreeSet::new();
        for cap in caps.as_array().into_iter().flatten() {
            let mut ls = Vec::new();
            for (chain, values) in cap["properties"].as_object().unwrap_or(&empty) {
                if let Value::Object(values) = values {
                    leaves(cx, chain, chain, &[], values, &mut ls);
                }
            }
            for leaf in &ls {
                if let Some((flat, text)) = row(cx, t, &data, (by, &[]), leaf) {
                    if seen.insert(flat) {
                        rows.push_str(&text);
                    }
                }
            }
        }
    }
    rows.push_str(&feature_rows(cx, t, &data));
    format!(
        r#"
/// Where [`REQUIRED_LIMITS`] come from: repository@commit, file and its SHA-256.
pub const LIMITS_SOURCE: &str = {source:?};

/// A limit the specification requires of a core version ("Required Limits").
#[derive(Clone, Copy)]
pub struct RequiredLimit {{
    /// The core version that requires it (`VK_VERSION_1_2`).
    pub by: &'static str,
    /// The member's flat name ([`Properties`]).
    pub limit: &'static str,
    /// vk.xml's `limittype`: `max` (at least), `min` (at most; `mul`: a divisor of it), `range`
    /// (covers it), `bitmask` (holds its bits), `bits`, `exact`.
    pub kind: &'static str,
    /// The required value as the source writes it.
    pub required: &'static str,
    /// Whether `p` meets it.
    pub met: fn(&Properties) -> bool,
    /// Moves `p`'s value just far enough to meet it.
    pub raise: fn(&mut Properties),
    /// Writes `p`'s value (flags as hexadecimal bits).
    pub have: fn(&Properties, &mut core::fmt::Formatter<'_>) -> core::fmt::Result,
    /// The features any of which makes the row apply (flat names; empty for a version's row,
    /// whose `by` is the version; a feature row's `by` names its features).
    pub features: &'static [&'static str],
}}

/// Every required limit of the selected core versions, in version order (a later version may
/// raise a limit an earlier one set; both rows are here), then the limits that a supported
/// feature requires (`registry/limits/feature_limits.json`, from the specification's tables).
pub const REQUIRED_LIMITS: &[RequiredLimit] = &[
{rows}];
"#
    )
}

/// The feature-dependent rows of [`FEATURE_DATA`] whose features and structures the selection
/// has (module notes); `by` says `feature X` (or `feature X, Y or Z`).
fn feature_rows(cx: &Ctx, t: &Table, data: &Value) -> String {
    let fdata: Value = serde_json::from_str(FEATURE_DATA).unwrap_or(Value::Null);
    let features = super::features::tables(cx, super::features::Kind::Features);
    let known = |name: &str| features.fields.iter().any(|f| f.flat == name);
    let empty = Map::new();
    let mut rows = String::new();
    for r in fdata["rows"].as_array().into_iter().flatten() {
        let names: Vec<String> = r["features"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .filter(|n| known(n))
            .map(str::to_owned)
            .collect();
        if names.is_empty() {
            continue;
        }
        let by = match names.split_last() {
            Some((last, rest)) if !rest.is_empty() => {
                format!("feature {} or {last}", rest.join(", "))
            }
            _ => format!("feature {}", names[0]),
        };
        let mut ls = Vec::new();
        for (chain, values) in r["properties"].as_object().unwrap_or(&empty) {
            if let Value::Object(values) = values {
                leaves(cx, chain, chain, &[], values, &mut ls);
            }
        }
        for leaf in &ls {
            if let Some((_, text)) = row(cx, t, data, (&by, &names), leaf) {
                rows.push_str(&text);
            }
        }
    }
    rows
}
