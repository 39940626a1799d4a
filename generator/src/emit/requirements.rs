//! The tail of `src/features.rs`: `REQUIRED_FEATURES`, every device feature a core version or an
//! extension makes mandatory (vk.xml's `<require><feature name="…" struct="…"/>` entries), named
//! by its flat field ([`super::features`]'s merging and renaming), so that a driver kit can give a
//! device of a version the features the version requires and check a vendor's description.
//!
//! Limits are not here: vk.xml marks a limit's kind (`limittype="min"`/`"max"`) but not the
//! spec's "Required Limits" values.

use std::collections::BTreeSet;
use std::fmt::Write;

use super::features::{emit as emit_features, tables, Kind, Table};
use super::Ctx;
use crate::error::Result;
use crate::model::Require;

/// `src/features.rs`: the flat tables, then [`REQUIRED_FEATURES`](self).
pub fn emit(cx: &Ctx) -> Result<String> {
    let mut out = emit_features(cx)?;
    out.push_str(&required_features(cx, &tables(cx, Kind::Features)));
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
