//! `vkgen diff OLD.xml NEW.xml`: what a spec bump changes, read from the two parsed models.
//!
//! Registry level: commands, types and extensions added or removed; extensions promoted to core
//! (and which core commands and types they became) or to another extension; commands and types that
//! became aliases; changed command signatures and struct members (C spelling of type and name, so
//! `len=`/`optional=` attribute churn is not reported); new dispatchable handles.
//!
//! Build level: both registries go through the Android selection at their highest version
//! ([`crate::select::select`]), and the selections are compared: the set of symbols `libvulkan.so`
//! exports (Android's export rule, the version script), the driver skeleton's hooks (one per
//! canonical selected command, the `Driver` trait of `src/driver.rs`), the dispatch-table slot counts
//! and the selected extensions.
//!
//! Everything is sorted (registry maps are ordered; lists are sorted by name), so the output is
//! deterministic for a given pair of files.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use serde::Serialize;

use crate::model::{Command, Extension, Registry, TypeKind};
use crate::select::{self, Level, Selection};
use crate::{ash_types, names, Options, Result};

/// The whole comparison; serialised as is by `--json`.
#[derive(Debug, Serialize)]
pub struct Diff {
    pub old: RegistryInfo,
    pub new: RegistryInfo,
    /// Core versions the new registry defines and the old one does not.
    pub new_versions: Vec<VersionInfo>,
    pub commands: Changes<Item>,
    pub types: Changes<TypeItem>,
    pub extensions: Changes<ExtensionItem>,
    /// Extensions whose `promotedto=` is new or different in the new registry.
    pub promotions: Vec<Promotion>,
    /// Commands and types that were defined in the old registry and are aliases in the new one.
    pub became_aliases: Vec<BecameAlias>,
    pub changed_commands: Vec<SignatureChange>,
    pub changed_structs: Vec<StructChange>,
    /// Dispatchable handle types (`VK_DEFINE_HANDLE`) the old registry does not have.
    pub new_dispatchable_handles: Vec<HandleItem>,
    /// Effect on the loader (`libvulkan.so`) built from each registry's Android selection.
    pub loader: LoaderEffect,
    /// Effect on the generated driver skeleton (`Driver` trait hooks, dispatch tables).
    pub driver: DriverEffect,
}

#[derive(Debug, Serialize)]
pub struct RegistryInfo {
    pub path: String,
    pub header_version: u32,
    /// Highest `VK_VERSION_x_y`, `"1.3"`.
    pub highest_version: String,
    pub commands: usize,
    pub types: usize,
    pub extensions: usize,
}

#[derive(Debug, Serialize)]
pub struct VersionInfo {
    pub version: String,
    /// Commands and types the version's `<feature>`s require that no earlier version does.
    pub commands: usize,
    pub types: usize,
}

#[derive(Debug, Serialize)]
pub struct Changes<T> {
    pub added: Vec<T>,
    pub removed: Vec<T>,
}

/// A command, and where the registry that has it requires it from.
#[derive(Debug, Serialize)]
pub struct Item {
    pub name: String,
    pub alias_of: Option<String>,
    /// `"1.4"` for a core version, else extension names.
    pub provided_by: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct TypeItem {
    pub name: String,
    /// `struct`, `enum`, `handle`, `bitmask`, …
    pub category: &'static str,
    pub alias_of: Option<String>,
    pub provided_by: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct ExtensionItem {
    pub name: String,
    pub number: u32,
    /// `instance`, `device` or `none`.
    pub kind: &'static str,
    pub promoted_to: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct Promotion {
    pub extension: String,
    /// The `promotedto=` value: `VK_VERSION_1_3` or an extension name.
    pub promoted_to: String,
    /// `"1.3"` when promoted to a core version.
    pub core_version: Option<String>,
    /// The extension is itself new in the new registry.
    pub new_extension: bool,
    /// The core names the extension's commands and types have in the new registry (the
    /// definitions its `…KHR` names alias), where the target version requires them.
    pub core_commands: Vec<String>,
    pub core_types: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct BecameAlias {
    pub name: String,
    /// `command` or `type`.
    pub what: &'static str,
    pub alias_of: String,
}

#[derive(Debug, Serialize)]
pub struct SignatureChange {
    pub name: String,
    pub old: String,
    pub new: String,
}

#[derive(Debug, Serialize)]
pub struct StructChange {
    pub name: String,
    /// Member declarations (`uint32_t foo`) only in the new definition.
    pub added: Vec<String>,
    /// Member declarations only in the old definition.
    pub removed: Vec<String>,
    /// `(member, old declaration, new declaration)` for members whose type changed.
    pub changed: Vec<(String, String, String)>,
}

#[derive(Debug, Serialize)]
pub struct HandleItem {
    pub name: String,
    pub parent: Option<String>,
    pub provided_by: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct LoaderEffect {
    /// The API version each selection was made at (the registry's highest).
    pub old_version: String,
    pub new_version: String,
    pub exported_before: usize,
    pub exported_after: usize,
    pub exports_added: Vec<String>,
    pub exports_removed: Vec<String>,
    /// Extensions the Android selection keeps.
    pub selected_extensions_added: Vec<String>,
    pub selected_extensions_removed: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct DriverEffect {
    pub hooks_before: usize,
    pub hooks_after: usize,
    pub hooks_added: Vec<Hook>,
    pub hooks_removed: Vec<Hook>,
    pub instance_slots_before: usize,
    pub instance_slots_after: usize,
    pub device_slots_before: usize,
    pub device_slots_after: usize,
}

/// One `Driver` trait hook (`vkCmdBeginRendering` → `cmd_begin_rendering`).
#[derive(Debug, Serialize)]
pub struct Hook {
    pub command: String,
    pub hook: String,
    /// `Global`, `Instance`, `PhysicalDevice` or `Device`.
    pub level: &'static str,
}

/// Loads both registries (with the Android overlay, as `generate` does) and compares them.
pub fn run(
    old: &std::path::Path,
    new: &std::path::Path,
    android_ext: Option<&std::path::Path>,
) -> Result<Diff> {
    let load = |p: &std::path::Path| {
        crate::load(&Options {
            registry: Some(p.to_owned()),
            android_ext: android_ext.map(ToOwned::to_owned),
            ..Default::default()
        })
    };
    let (old_loaded, old_src) = load(old)?;
    let (new_loaded, new_src) = load(new)?;
    Ok(diff(
        &old_loaded.registry,
        &old_src.path.display().to_string(),
        &new_loaded.registry,
        &new_src.path.display().to_string(),
    ))
}

/// Compares two parsed registries.
pub fn diff(old: &Registry, old_path: &str, new: &Registry, new_path: &str) -> Diff {
    let old_idx = Index::new(old);
    let new_idx = Index::new(new);

    let commands = Changes {
        added: names_only_in(&new.commands, &old.commands)
            .map(|n| command_item(new, &new_idx, n))
            .collect(),
        removed: names_only_in(&old.commands, &new.commands)
            .map(|n| command_item(old, &old_idx, n))
            .collect(),
    };
    let interesting = |reg: &Registry, n: &str| {
        !matches!(
            reg.types.get(n).map(|t| &t.kind),
            Some(TypeKind::Define | TypeKind::Include)
        )
    };
    let types = Changes {
        added: names_only_in(&new.types, &old.types)
            .filter(|n| interesting(new, n))
            .map(|n| type_item(new, &new_idx, n))
            .collect(),
        removed: names_only_in(&old.types, &new.types)
            .filter(|n| interesting(old, n))
            .map(|n| type_item(old, &old_idx, n))
            .collect(),
    };
    let (mut became_aliases, changed_commands) = command_redefinitions(old, new);
    let (type_aliases, changed_structs) = type_redefinitions(old, new);
    became_aliases.extend(type_aliases);
    became_aliases.sort_by(|a, b| a.name.cmp(&b.name));
    let (loader, driver) = build_effects(old, new);
    let new_versions = new_idx
        .versions
        .iter()
        .filter(|(v, _)| !old_idx.versions.contains_key(*v))
        .map(|(v, (c, t))| VersionInfo {
            version: ver(*v),
            commands: *c,
            types: *t,
        })
        .collect();

    Diff {
        old: registry_info(old, old_path),
        new: registry_info(new, new_path),
        new_versions,
        commands,
        types,
        extensions: extension_changes(old, new),
        promotions: promotions(old, new, &new_idx),
        became_aliases,
        changed_commands,
        changed_structs,
        new_dispatchable_handles: new_dispatchable_handles(old, new, &new_idx),
        loader,
        driver,
    }
}

fn extensions_by_name(reg: &Registry) -> BTreeMap<&str, &Extension> {
    reg.extensions
        .iter()
        .map(|e| (e.name.as_str(), e))
        .collect()
}

fn extension_changes(old: &Registry, new: &Registry) -> Changes<ExtensionItem> {
    let old_exts = extensions_by_name(old);
    let new_exts = extensions_by_name(new);
    let ext_item = |e: &Extension| ExtensionItem {
        name: e.name.clone(),
        number: e.number,
        kind: match e.kind {
            Some(crate::model::ExtensionKind::Instance) => "instance",
            Some(crate::model::ExtensionKind::Device) => "device",
            None => "none",
        },
        promoted_to: e.promoted_to.clone(),
    };
    Changes {
        added: new_exts
            .iter()
            .filter(|(n, _)| !old_exts.contains_key(*n))
            .map(|(_, e)| ext_item(e))
            .collect(),
        removed: old_exts
            .iter()
            .filter(|(n, _)| !new_exts.contains_key(*n))
            .map(|(_, e)| ext_item(e))
            .collect(),
    }
}

/// Extensions whose `promotedto=` is new or changed, with the core names they became.
fn promotions(old: &Registry, new: &Registry, new_idx: &Index) -> Vec<Promotion> {
    let old_exts = extensions_by_name(old);
    let mut promotions = Vec::new();
    for (name, e) in extensions_by_name(new) {
        let Some(to) = &e.promoted_to else { continue };
        let before = old_exts.get(name);
        if before.and_then(|o| o.promoted_to.as_ref()) == Some(to) {
            continue;
        }
        let core_version =
            crate::model::parse_version(to).filter(|_| to.starts_with("VK_VERSION_"));
        let (mut core_commands, mut core_types) = (BTreeSet::new(), BTreeSet::new());
        if let Some(v) = core_version {
            for r in &e.requires {
                for c in &r.commands {
                    if let Some(def) = new.resolve_command(c) {
                        if new_idx.command_core.get(def.name.as_str()) == Some(&v) {
                            core_commands.insert(def.name.clone());
                        }
                    }
                }
                for t in &r.types {
                    let canonical = new.resolve_type(t).map_or(t.as_str(), |d| d.name.as_str());
                    if new_idx.type_core.get(canonical) == Some(&v) {
                        core_types.insert(canonical.to_owned());
                    }
                }
            }
        }
        promotions.push(Promotion {
            extension: name.to_owned(),
            promoted_to: to.clone(),
            core_version: core_version.map(ver),
            new_extension: before.is_none(),
            core_commands: core_commands.into_iter().collect(),
            core_types: core_types.into_iter().collect(),
        });
    }
    promotions
}

/// Commands in both registries that became aliases, and those whose signature changed.
fn command_redefinitions(
    old: &Registry,
    new: &Registry,
) -> (Vec<BecameAlias>, Vec<SignatureChange>) {
    let mut became_aliases = Vec::new();
    let mut changed_commands = Vec::new();
    for (name, o) in &old.commands {
        let Some(n) = new.commands.get(name) else {
            continue;
        };
        match (&o.alias, &n.alias) {
            (None, Some(target)) => became_aliases.push(BecameAlias {
                name: name.clone(),
                what: "command",
                alias_of: target.clone(),
            }),
            (None, None) => {
                let (a, b) = (signature(o), signature(n));
                if a != b {
                    changed_commands.push(SignatureChange {
                        name: name.clone(),
                        old: a,
                        new: b,
                    });
                }
            }
            _ => {}
        }
    }
    (became_aliases, changed_commands)
}

/// Types in both registries that became aliases, and structs whose members changed.
fn type_redefinitions(old: &Registry, new: &Registry) -> (Vec<BecameAlias>, Vec<StructChange>) {
    let mut became_aliases = Vec::new();
    let mut changed_structs = Vec::new();
    for (name, o) in &old.types {
        let Some(n) = new.types.get(name) else {
            continue;
        };
        match (&o.alias, &n.alias) {
            (None, Some(target)) => became_aliases.push(BecameAlias {
                name: name.clone(),
                what: "type",
                alias_of: target.clone(),
            }),
            (None, None) => {
                if let (TypeKind::Struct(a), TypeKind::Struct(b)) = (&o.kind, &n.kind) {
                    if let Some(c) = struct_change(name, &a.members, &b.members) {
                        changed_structs.push(c);
                    }
                }
            }
            _ => {}
        }
    }
    (became_aliases, changed_structs)
}

fn new_dispatchable_handles(old: &Registry, new: &Registry, new_idx: &Index) -> Vec<HandleItem> {
    let is_dispatchable = |reg: &Registry, n: &str| {
        matches!(
            reg.types.get(n).map(|t| &t.kind),
            Some(TypeKind::Handle {
                dispatchable: true,
                ..
            })
        ) && reg.types.get(n).is_some_and(|t| t.alias.is_none())
    };
    new.types
        .iter()
        .filter(|(n, _)| is_dispatchable(new, n) && !is_dispatchable(old, n))
        .map(|(n, t)| HandleItem {
            name: n.clone(),
            parent: match &t.kind {
                TypeKind::Handle { parent, .. } => parent.clone(),
                _ => None,
            },
            provided_by: new_idx.type_providers(n),
        })
        .collect()
}

/// Both registries' Android selections at their highest version, compared as the loader and
/// the driver skeleton built from them would differ.
fn build_effects(old: &Registry, new: &Registry) -> (LoaderEffect, DriverEffect) {
    let ash = ash_types::AshTypes::load();
    let old_v = select::highest_version(old);
    let new_v = select::highest_version(new);
    let old_sel = select::select(old, old_v, &ash);
    let new_sel = select::select(new, new_v, &ash);
    let exported = |s: &Selection| -> BTreeSet<String> {
        s.commands
            .iter()
            .filter(|c| c.exported)
            .map(|c| c.name.clone())
            .collect()
    };
    let (old_exp, new_exp) = (exported(&old_sel), exported(&new_sel));
    let sel_exts = |s: &Selection| -> BTreeSet<String> {
        s.extensions.iter().map(|e| e.name.clone()).collect()
    };
    let (old_se, new_se) = (sel_exts(&old_sel), sel_exts(&new_sel));
    let loader = LoaderEffect {
        old_version: ver(old_v),
        new_version: ver(new_v),
        exported_before: old_exp.len(),
        exported_after: new_exp.len(),
        exports_added: new_exp.difference(&old_exp).cloned().collect(),
        exports_removed: old_exp.difference(&new_exp).cloned().collect(),
        selected_extensions_added: new_se.difference(&old_se).cloned().collect(),
        selected_extensions_removed: old_se.difference(&new_se).cloned().collect(),
    };
    (loader, driver_effect(&old_sel, &new_sel))
}

fn driver_effect(old_sel: &Selection, new_sel: &Selection) -> DriverEffect {
    let hooks = |s: &Selection| -> BTreeMap<String, Level> {
        s.canonical_commands()
            .map(|c| (c.name.clone(), c.level))
            .collect()
    };
    let (old_h, new_h) = (hooks(old_sel), hooks(new_sel));
    let hook = |(n, l): (&String, &Level)| Hook {
        command: n.clone(),
        hook: names::command_field(n),
        level: l.name(),
    };
    let slots = |s: &Selection, device: bool| {
        s.canonical_commands()
            .filter(|c| {
                if device {
                    c.level == Level::Device
                } else {
                    c.level.is_instance_table()
                }
            })
            .count()
    };
    DriverEffect {
        hooks_before: old_h.len(),
        hooks_after: new_h.len(),
        hooks_added: new_h
            .iter()
            .filter(|(n, _)| !old_h.contains_key(*n))
            .map(hook)
            .collect(),
        hooks_removed: old_h
            .iter()
            .filter(|(n, _)| !new_h.contains_key(*n))
            .map(hook)
            .collect(),
        instance_slots_before: slots(old_sel, false),
        instance_slots_after: slots(new_sel, false),
        device_slots_before: slots(old_sel, true),
        device_slots_after: slots(new_sel, true),
    }
}

fn ver(v: (u32, u32)) -> String {
    format!("{}.{}", v.0, v.1)
}

fn registry_info(reg: &Registry, path: &str) -> RegistryInfo {
    RegistryInfo {
        path: path.to_owned(),
        header_version: reg.header_version,
        highest_version: ver(select::highest_version(reg)),
        commands: reg.commands.len(),
        types: reg.types.len(),
        extensions: reg.extensions.len(),
    }
}

fn names_only_in<'a, T>(
    a: &'a BTreeMap<String, T>,
    b: &'a BTreeMap<String, T>,
) -> impl Iterator<Item = &'a str> + 'a {
    a.keys()
        .filter(move |k| !b.contains_key(*k))
        .map(String::as_str)
}

/// Where each command and type comes from: the lowest core version, and the extensions.
struct Index {
    command_core: BTreeMap<String, (u32, u32)>,
    type_core: BTreeMap<String, (u32, u32)>,
    command_exts: BTreeMap<String, Vec<String>>,
    type_exts: BTreeMap<String, Vec<String>>,
    /// Core versions → (commands, types) they add.
    versions: BTreeMap<(u32, u32), (usize, usize)>,
}

impl Index {
    fn new(reg: &Registry) -> Self {
        let mut idx = Index {
            command_core: BTreeMap::new(),
            type_core: BTreeMap::new(),
            command_exts: BTreeMap::new(),
            type_exts: BTreeMap::new(),
            versions: BTreeMap::new(),
        };
        // Internal features (`VK_BASE_VERSION_1_4`, …) carry the requirements of newer registries;
        // they count for their version like the public `VK_VERSION_x_y` that depends on them.
        let mut per_version: BTreeMap<(u32, u32), (BTreeSet<String>, BTreeSet<String>)> =
            BTreeMap::new();
        for f in &reg.features {
            if !f.api.is_empty() && !f.api.iter().any(|a| a == "vulkan") {
                continue;
            }
            let (c, t) = per_version.entry(f.version).or_default();
            for r in &f.requires {
                if !r.api.is_empty() && !r.api.iter().any(|a| a == "vulkan") {
                    continue;
                }
                c.extend(r.commands.iter().cloned());
                t.extend(r.types.iter().cloned());
            }
        }
        for (v, (c, t)) in &per_version {
            for n in c {
                idx.command_core.entry(n.clone()).or_insert(*v);
            }
            for n in t {
                idx.type_core.entry(n.clone()).or_insert(*v);
            }
        }
        // Each version lists what it adds over the previous ones.
        let (mut seen_c, mut seen_t) = (BTreeSet::new(), BTreeSet::new());
        for (v, (c, t)) in per_version {
            let nc = c.into_iter().filter(|n| seen_c.insert(n.clone())).count();
            let nt = t.into_iter().filter(|n| seen_t.insert(n.clone())).count();
            idx.versions.insert(v, (nc, nt));
        }
        for e in &reg.extensions {
            for r in &e.requires {
                for c in &r.commands {
                    push_unique(idx.command_exts.entry(c.clone()).or_default(), &e.name);
                }
                for t in &r.types {
                    push_unique(idx.type_exts.entry(t.clone()).or_default(), &e.name);
                }
            }
        }
        idx
    }

    fn providers(
        core: &BTreeMap<String, (u32, u32)>,
        exts: &BTreeMap<String, Vec<String>>,
        name: &str,
    ) -> Vec<String> {
        let mut out: Vec<String> = core.get(name).map(|v| ver(*v)).into_iter().collect();
        out.extend(exts.get(name).into_iter().flatten().cloned());
        out
    }

    fn command_providers(&self, name: &str) -> Vec<String> {
        Self::providers(&self.command_core, &self.command_exts, name)
    }

    fn type_providers(&self, name: &str) -> Vec<String> {
        Self::providers(&self.type_core, &self.type_exts, name)
    }
}

fn push_unique(v: &mut Vec<String>, s: &str) {
    if !v.iter().any(|x| x == s) {
        v.push(s.to_owned());
    }
}

fn command_item(reg: &Registry, idx: &Index, name: &str) -> Item {
    Item {
        name: name.to_owned(),
        alias_of: reg.commands.get(name).and_then(|c| c.alias.clone()),
        provided_by: idx.command_providers(name),
    }
}

fn type_item(reg: &Registry, idx: &Index, name: &str) -> TypeItem {
    let t = reg.types.get(name);
    TypeItem {
        name: name.to_owned(),
        category: t.map_or("?", |t| category(&t.kind)),
        alias_of: t.and_then(|t| t.alias.clone()),
        provided_by: idx.type_providers(name),
    }
}

fn category(k: &TypeKind) -> &'static str {
    match k {
        TypeKind::Define => "define",
        TypeKind::Include => "include",
        TypeKind::Basetype { .. } => "basetype",
        TypeKind::Bitmask { .. } => "bitmask",
        TypeKind::Handle { .. } => "handle",
        TypeKind::Enum => "enum",
        TypeKind::Struct(_) => "struct",
        TypeKind::Union(_) => "union",
        TypeKind::Funcpointer { .. } => "funcpointer",
        TypeKind::External => "external",
    }
}

/// `VkResult vkFoo(VkDevice device, const VkFooInfo* pInfo)`.
pub fn signature(c: &Command) -> String {
    let params: Vec<String> = c
        .params
        .iter()
        .map(|p| format!("{} {}", p.ty.to_c(), p.name))
        .collect();
    format!("{} {}({})", c.ret.to_c(), c.name, params.join(", "))
}

fn struct_change(
    name: &str,
    old: &[crate::model::Field],
    new: &[crate::model::Field],
) -> Option<StructChange> {
    let decl = |f: &crate::model::Field| format!("{} {}", f.ty.to_c(), f.name);
    let o: BTreeMap<&str, String> = old.iter().map(|f| (f.name.as_str(), decl(f))).collect();
    let n: BTreeMap<&str, String> = new.iter().map(|f| (f.name.as_str(), decl(f))).collect();
    let added: Vec<String> = new
        .iter()
        .filter(|f| !o.contains_key(f.name.as_str()))
        .map(decl)
        .collect();
    let removed: Vec<String> = old
        .iter()
        .filter(|f| !n.contains_key(f.name.as_str()))
        .map(decl)
        .collect();
    let changed: Vec<(String, String, String)> = o
        .iter()
        .filter_map(|(m, d)| {
            let nd = n.get(m)?;
            (nd != d).then(|| ((*m).to_owned(), d.clone(), nd.clone()))
        })
        .collect();
    (!added.is_empty() || !removed.is_empty() || !changed.is_empty()).then(|| StructChange {
        name: name.to_owned(),
        added,
        removed,
        changed,
    })
}

/// The readable report: a summary table, then each list.
pub fn table(d: &Diff) -> String {
    let mut s = String::new();
    summary(&mut s, d);
    details(&mut s, d);
    lists(&mut s, d);
    let mut out: String = s.lines().map(|l| l.trim_end().to_owned() + "\n").collect();
    if out.is_empty() {
        out.push('\n');
    }
    out
}

/// The counts: one row per kind of change, then the loader's and the driver's totals.
fn summary(s: &mut String, d: &Diff) {
    let _ = writeln!(
        s,
        "old: {} (header {}, Vulkan {})\nnew: {} (header {}, Vulkan {})\n",
        d.old.path,
        d.old.header_version,
        d.old.highest_version,
        d.new.path,
        d.new.header_version,
        d.new.highest_version
    );
    let _ = writeln!(s, "{:<34} {:>7} {:>7}", "", "added", "removed");
    let row = |s: &mut String, what: &str, a: usize, r: usize| {
        let _ = writeln!(s, "{what:<34} {a:>7} {r:>7}");
    };
    row(
        s,
        "commands",
        d.commands.added.len(),
        d.commands.removed.len(),
    );
    row(s, "types", d.types.added.len(), d.types.removed.len());
    row(
        s,
        "extensions",
        d.extensions.added.len(),
        d.extensions.removed.len(),
    );
    row(
        s,
        "loader exports",
        d.loader.exports_added.len(),
        d.loader.exports_removed.len(),
    );
    row(
        s,
        "driver hooks",
        d.driver.hooks_added.len(),
        d.driver.hooks_removed.len(),
    );
    row(
        s,
        "Android-selected extensions",
        d.loader.selected_extensions_added.len(),
        d.loader.selected_extensions_removed.len(),
    );
    let _ = writeln!(
        s,
        "{:<34} {:>7}\n{:<34} {:>7}\n{:<34} {:>7}\n{:<34} {:>7}\n{:<34} {:>7}",
        "promotions",
        d.promotions.len(),
        "became aliases",
        d.became_aliases.len(),
        "changed command signatures",
        d.changed_commands.len(),
        "changed structs",
        d.changed_structs.len(),
        "new dispatchable handles",
        d.new_dispatchable_handles.len()
    );

    let _ = writeln!(
        s,
        "\nloader (Android selection at {} → {}): {} → {} exported symbols",
        d.loader.old_version,
        d.loader.new_version,
        d.loader.exported_before,
        d.loader.exported_after
    );
    let _ = writeln!(
        s,
        "driver skeleton: {} → {} hooks; dispatch slots: instance {} → {}, device {} → {}",
        d.driver.hooks_before,
        d.driver.hooks_after,
        d.driver.instance_slots_before,
        d.driver.instance_slots_after,
        d.driver.device_slots_before,
        d.driver.device_slots_after
    );
}

/// The changes a reader checks one by one: versions, promotions, handles, signatures, structs.
fn details(s: &mut String, d: &Diff) {
    if !d.new_versions.is_empty() {
        let _ = writeln!(s, "\nnew core versions");
        for v in &d.new_versions {
            let _ = writeln!(
                s,
                "  {:<8} {} commands, {} types",
                v.version, v.commands, v.types
            );
        }
    }
    if !d.promotions.is_empty() {
        let _ = writeln!(s, "\npromotions");
        for p in &d.promotions {
            let to = p
                .core_version
                .as_deref()
                .map_or(p.promoted_to.clone(), |v| format!("core {v}"));
            let _ = write!(s, "  {:<48} → {}", p.extension, to);
            if p.new_extension {
                s.push_str(" (new extension)");
            }
            if !p.core_commands.is_empty() {
                let _ = write!(s, ": {}", p.core_commands.join(", "));
            }
            s.push('\n');
        }
    }
    if !d.new_dispatchable_handles.is_empty() {
        let _ = writeln!(s, "\nnew dispatchable handles");
        for h in &d.new_dispatchable_handles {
            let _ = writeln!(
                s,
                "  {:<40} parent {:<12} from {}",
                h.name,
                h.parent.as_deref().unwrap_or("-"),
                h.provided_by.join(", ")
            );
        }
    }
    if !d.changed_commands.is_empty() {
        let _ = writeln!(s, "\nchanged command signatures");
        for c in &d.changed_commands {
            let _ = writeln!(s, "  {}\n    - {}\n    + {}", c.name, c.old, c.new);
        }
    }
    if !d.changed_structs.is_empty() {
        let _ = writeln!(s, "\nchanged structs");
        for c in &d.changed_structs {
            let _ = writeln!(s, "  {}", c.name);
            for a in &c.added {
                let _ = writeln!(s, "    + {a}");
            }
            for r in &c.removed {
                let _ = writeln!(s, "    - {r}");
            }
            for (m, o, n) in &c.changed {
                let _ = writeln!(s, "    ~ {m}: {o} → {n}");
            }
        }
    }
    if !d.became_aliases.is_empty() {
        let _ = writeln!(s, "\nbecame aliases");
        for a in &d.became_aliases {
            let _ = writeln!(s, "  {:<7} {:<56} → {}", a.what, a.name, a.alias_of);
        }
    }
}

/// The name lists: exports, hooks, extensions, commands and types added or removed.
fn lists(s: &mut String, d: &Diff) {
    let list = |s: &mut String, title: &str, items: &[String]| {
        if !items.is_empty() {
            let _ = writeln!(s, "\n{title} ({})", items.len());
            for i in items {
                let _ = writeln!(s, "  {i}");
            }
        }
    };
    list(s, "loader exports added", &d.loader.exports_added);
    list(s, "loader exports removed", &d.loader.exports_removed);
    let hooks = |h: &[Hook]| -> Vec<String> {
        h.iter()
            .map(|h| format!("{:<56} {:<15} {}", h.command, h.level, h.hook))
            .collect()
    };
    list(s, "driver hooks added", &hooks(&d.driver.hooks_added));
    list(s, "driver hooks removed", &hooks(&d.driver.hooks_removed));
    let exts = |e: &[ExtensionItem]| -> Vec<String> {
        e.iter()
            .map(|e| {
                format!(
                    "{:<48} {:>4} {:<8} {}",
                    e.name,
                    e.number,
                    e.kind,
                    e.promoted_to
                        .as_deref()
                        .map(|p| format!("promoted to {p}"))
                        .unwrap_or_default()
                )
                .trim_end()
                .to_owned()
            })
            .collect()
    };
    list(s, "extensions added", &exts(&d.extensions.added));
    list(s, "extensions removed", &exts(&d.extensions.removed));
    let items = |i: &[Item]| -> Vec<String> {
        i.iter()
            .map(|c| {
                let alias = c
                    .alias_of
                    .as_deref()
                    .map(|a| format!(" = {a}"))
                    .unwrap_or_default();
                format!("{:<56} {}{}", c.name, c.provided_by.join(", "), alias)
                    .trim_end()
                    .to_owned()
            })
            .collect()
    };
    list(s, "commands added", &items(&d.commands.added));
    list(s, "commands removed", &items(&d.commands.removed));
    let types = |i: &[TypeItem]| -> Vec<String> {
        i.iter()
            .map(|t| {
                let alias = t
                    .alias_of
                    .as_deref()
                    .map(|a| format!(" = {a}"))
                    .unwrap_or_default();
                format!(
                    "{:<64} {:<11} {}{}",
                    t.name,
                    t.category,
                    t.provided_by.join(", "),
                    alias
                )
                .trim_end()
                .to_owned()
            })
            .collect()
    };
    list(s, "types added", &types(&d.types.added));
    list(s, "types removed", &types(&d.types.removed));
}
