//! Laying the Android native-buffer description over vk.xml: what the overlay may define (only
//! what `VK_ANDROID_native_buffer` needs) and the replacement by element name. Separate from the
//! parser because the overlay's rules compare two registries, not one document.

use std::collections::BTreeSet;
use std::path::Path;

use super::compare::same;
use super::text::clip;
use super::validate::finish;
use super::values::enum_value;
use crate::error::{Error, Result};
use crate::model::*;

/// Lays `over` over `base` by element name, then merges enum additions and checks references.
/// Errors in the overlay's elements are reported against `path` too; prefer [`overlay_from`].
pub fn overlay_and_finish(
    base: &mut Registry,
    over: Registry,
    path: &Path,
    warnings: &mut Vec<String>,
) -> Result<()> {
    overlay_from(base, over, path, path, warnings)
}

/// Lays `over` (read from `over_path`) over `base` (read from `base_path`), merges enum additions
/// and checks the result; errors in elements the overlay contributed name `over_path`. Conflicts
/// that cannot reach the output are pushed to `warnings` instead.
pub fn overlay_from(
    base: &mut Registry,
    over: Registry,
    base_path: &Path,
    over_path: &Path,
    warnings: &mut Vec<String>,
) -> Result<()> {
    let origin = OverlayOrigin {
        path: over_path.to_owned(),
        types: over.types.keys().cloned().collect(),
        commands: over.commands.keys().cloned().collect(),
        extensions: over.extensions.iter().map(|e| e.name.clone()).collect(),
        enums: over.enums.keys().cloned().collect(),
        constants: over.constants.keys().cloned().collect(),
        features: over.features.iter().map(|f| f.name.clone()).collect(),
    };
    check_overlay(base, &over, base_path, over_path)?;
    apply_overlay(base, over);
    base.overlay_origin = Some(origin);
    finish(base, base_path, warnings)?;
    check_overlay_values(base, base_path, over_path)
}

/// The overlay's numbers must not collide with vk.xml's (issue 36): its extension's number may
/// not be another extension's (every value it derives by `offset` would be that extension's),
/// and a value it adds to a group may not equal a value of another name there (an `sType` of 0
/// would make `VkNativeBufferANDROID` an application info to every `pNext` walker). Errors are
/// located at the overlay's definition and name the one it collides with.
fn check_overlay_values(reg: &Registry, base_path: &Path, over_path: &Path) -> Result<()> {
    let located = |(line, col): (u32, u32), message: String| Error::Schema {
        path: over_path.to_owned(),
        line,
        col,
        message,
    };
    let Some(ours) = reg.extension(OVERLAY_EXTENSION) else {
        return Ok(());
    };
    if let Some(other) = reg
        .extensions
        .iter()
        .find(|x| x.number == ours.number && x.name != ours.name)
    {
        return Err(located(
            (ours.line, ours.col),
            format!(
                "extension number {} of {OVERLAY_EXTENSION} is already {}'s, at {}:{}:{}",
                ours.number,
                clip(&other.name),
                base_path.display(),
                other.line,
                other.col
            ),
        ));
    }
    for g in reg.enums.values() {
        let mine = |v: &EnumValue| v.extension.as_deref() == Some(OVERLAY_EXTENSION);
        // One map per group that has overlay values: value -> the first non-overlay name.
        if !g.values.iter().any(mine) {
            continue;
        }
        let theirs: std::collections::HashMap<i64, &EnumValue> = g
            .values
            .iter()
            .filter(|v| !mine(v) && !matches!(v.value, EnumVal::Alias(_)))
            .filter_map(|v| Some((enum_value(g, &v.value, 0)?, v)))
            .collect();
        for v in g.values.iter().filter(|v| mine(v)) {
            if matches!(v.value, EnumVal::Alias(_)) {
                continue;
            }
            let Some(n) = enum_value(g, &v.value, 0) else {
                continue;
            };
            if let Some(other) = theirs.get(&n).filter(|o| o.name != v.name) {
                return Err(located(
                    (v.line, v.col),
                    format!(
                        "enum `{}` of {} has the value {n} of `{}`, at {}:{}:{}",
                        clip(&v.name),
                        g.name,
                        clip(&other.name),
                        base_path.display(),
                        other.line,
                        other.col
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The extension the overlay describes: the only one it may define.
pub const OVERLAY_EXTENSION: &str = "VK_ANDROID_native_buffer";

/// The overlay may only add or replace what [`OVERLAY_EXTENSION`] defines: the extension itself,
/// the types, commands and `<enums>` blocks its `<require>` blocks name, and new types those
/// reference. Anything else it defines must be new and referenced, or identical to vk.xml's; the
/// one exception is an opaque platform type (`AHardwareBuffer`) that the overlay declares as
/// external where vk.xml declares it as an opaque `struct`. Errors are located in the overlay and
/// name the vk.xml definition it would have replaced.
fn check_overlay(
    base: &Registry,
    over: &Registry,
    base_path: &Path,
    over_path: &Path,
) -> Result<()> {
    let err = |what: &str, name: &str, here: (u32, u32), first: Option<(u32, u32)>| {
        conflict(base_path, over_path, what, name, here, first)
    };
    if let Some(f) = over.features.first() {
        return Err(err("feature", &f.name, (f.line, f.col), None));
    }
    let mut req_types: BTreeSet<&str> = BTreeSet::new();
    let mut req_commands: BTreeSet<&str> = BTreeSet::new();
    for x in &over.extensions {
        if x.name != OVERLAY_EXTENSION {
            let first = base.extension(&x.name).map(|b| (b.line, b.col));
            return Err(err("extension", &x.name, (x.line, x.col), first));
        }
        for r in &x.requires {
            req_types.extend(r.types.iter().map(String::as_str));
            req_commands.extend(r.commands.iter().map(String::as_str));
        }
    }
    let referenced = referenced_by(over, &req_types, &req_commands);
    for t in over.types.values() {
        if req_types.contains(t.name.as_str()) {
            continue;
        }
        if !type_may_stay(base, t, &referenced) {
            let first = base.types.get(&t.name).map(|b| (b.line, b.col));
            return Err(err("type", &t.name, (t.line, t.col), first));
        }
    }
    for c in over.commands.values() {
        let ok = req_commands.contains(c.name.as_str())
            || base
                .commands
                .get(&c.name)
                .is_some_and(|b| same(b, c, |c| (c.line, c.col) = (0, 0)));
        if !ok {
            let first = base.commands.get(&c.name).map(|b| (b.line, b.col));
            return Err(err("command", &c.name, (c.line, c.col), first));
        }
    }
    for g in over.enums.values() {
        let ok = req_types.contains(g.name.as_str())
            || base.enums.get(&g.name).is_some_and(|b| {
                same(b, g, |g| {
                    (g.line, g.col) = (0, 0);
                    for v in &mut g.values {
                        (v.line, v.col) = (0, 0);
                    }
                })
            });
        if !ok {
            let first = base.enums.get(&g.name).map(|b| (b.line, b.col));
            return Err(err("<enums> block", &g.name, (g.line, g.col), first));
        }
    }
    for k in over.constants.values() {
        let ok = base
            .constants
            .get(&k.name)
            .is_some_and(|b| same(b, k, |k| (k.line, k.col) = (0, 0)));
        if !ok {
            let first = base.constants.get(&k.name).map(|b| (b.line, b.col));
            return Err(err("constant", &k.name, (k.line, k.col), first));
        }
    }
    Ok(())
}

/// The error for an overlay element outside what [`OVERLAY_EXTENSION`] defines, located in the
/// overlay at `here` and naming the vk.xml definition at `first` it would replace, if any.
fn conflict(
    base_path: &Path,
    over_path: &Path,
    what: &str,
    name: &str,
    (line, col): (u32, u32),
    first: Option<(u32, u32)>,
) -> Error {
    let message = match first {
        Some((l, c)) => format!(
            "the overlay may only define what {OVERLAY_EXTENSION} defines, but {what} `{}` replaces the one at {}:{l}:{c}",
            clip(name),
            base_path.display()
        ),
        None => format!(
            "the overlay may only define what {OVERLAY_EXTENSION} defines, but {what} `{}` is not part of it",
            clip(name)
        ),
    };
    Error::Schema {
        path: over_path.to_owned(),
        line,
        col,
        message,
    }
}

/// Types the overlay's own extension types and commands mention: the only new types it may add.
fn referenced_by<'a>(
    over: &'a Registry,
    req_types: &BTreeSet<&str>,
    req_commands: &BTreeSet<&str>,
) -> BTreeSet<&'a str> {
    let mut referenced = BTreeSet::new();
    for t in over
        .types
        .values()
        .filter(|t| req_types.contains(t.name.as_str()))
    {
        if let TypeKind::Struct(a) | TypeKind::Union(a) = &t.kind {
            referenced.extend(a.members.iter().map(|m| m.ty.base.as_str()));
        }
    }
    for c in over
        .commands
        .values()
        .filter(|c| req_commands.contains(c.name.as_str()))
    {
        referenced.extend(c.params.iter().map(|p| p.ty.base.as_str()));
        referenced.insert(&c.ret.base);
    }
    referenced
}

/// Whether overlay type `t` (not one the extension requires) may stand: new and referenced,
/// identical to vk.xml's, or an external declaration of a type vk.xml leaves opaque.
fn type_may_stay(base: &Registry, t: &Type, referenced: &BTreeSet<&str>) -> bool {
    let opaque = |k: &TypeKind| {
        matches!(
            k,
            TypeKind::External
                | TypeKind::Define
                | TypeKind::Basetype {
                    underlying: None,
                    pointer: false
                }
        )
    };
    match base.types.get(&t.name) {
        None => referenced.contains(t.name.as_str()),
        Some(b) => {
            same(b, t, |t| {
                (t.line, t.col) = (0, 0);
                t.kind = layout_of(&t.kind);
            }) || (b.alias.is_none()
                && t.alias.is_none()
                && opaque(&b.kind)
                && t.kind == TypeKind::External
                && referenced.contains(t.name.as_str()))
        }
    }
}

/// `kind` without the members' `limittype=`: a description for validation, not part of the C
/// type, so an overlay that omits it (the Android one does) changes nothing a binding sees.
fn layout_of(kind: &TypeKind) -> TypeKind {
    let mut k = kind.clone();
    if let TypeKind::Struct(a) | TypeKind::Union(a) = &mut k {
        for m in &mut a.members {
            m.limittype = None;
        }
    }
    k
}

/// Replaces vk.xml's elements by the overlay's elements of the same name and adds new ones.
fn apply_overlay(base: &mut Registry, over: Registry) {
    for (name, ty) in over.types {
        if base.types.get(&name).map(|t| layout_of(&t.kind)) != Some(layout_of(&ty.kind)) {
            base.overlay_changed.insert(name.clone());
        }
        base.types.insert(name, ty);
    }
    for (name, cmd) in over.commands {
        match base.commands.get(&name) {
            None => {
                base.command_order.push(name.clone());
                base.overlay_changed.insert(name.clone());
            }
            Some(old) if old.params != cmd.params || old.ret != cmd.ret => {
                base.overlay_changed.insert(name.clone());
            }
            Some(_) => {}
        }
        base.commands.insert(name, cmd);
    }
    base.enums.extend(over.enums);
    base.constants.extend(over.constants);
    for ext in over.extensions {
        match base.extensions.iter_mut().find(|e| e.name == ext.name) {
            Some(slot) => *slot = ext,
            None => base.extensions.push(ext),
        }
    }
    base.features.extend(over.features);
}
