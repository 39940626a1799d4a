//! `vkgen info`: what a registry holds, per core version, and what the Android selection keeps.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::model::{ExtensionKind, TypeKind};
use crate::{ash_types, select, Options, Result};

#[derive(Debug, Serialize)]
pub struct Report {
    pub registry: String,
    pub header_version: u32,
    pub highest_version: String,
    pub versions: Vec<VersionCounts>,
    pub commands: usize,
    pub types: usize,
    pub extensions: ExtensionCounts,
    pub ash: AshReuse,
}

/// How the selection's structures and unions are provided: taken from ash 0.38, or emitted from
/// the registry (ash lacks them, or ash's layout differs; see `ash_layouts`).
#[derive(Debug, Serialize)]
pub struct AshReuse {
    pub reused: usize,
    pub emitted: usize,
    /// Emitted although ash has a type of that name: its members differ from the registry's
    /// (or it refers to a type that does). Vk names, sorted.
    pub differ_from_ash: Vec<String>,
    /// For each of those, how it differs (the first differing member, or the type it refers to).
    pub differences: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct VersionCounts {
    pub version: String,
    /// Commands and types first required by this version.
    pub new_commands: usize,
    pub new_types: usize,
    /// Cumulative up to and including this version.
    pub commands: usize,
    pub types: usize,
}

#[derive(Debug, Serialize)]
pub struct ExtensionCounts {
    pub total: usize,
    pub vulkan: usize,
    pub instance: usize,
    pub device: usize,
    /// Kept by the Android selection at the highest version.
    pub selected: usize,
    pub dropped: Vec<(String, String)>,
}

pub fn report(opts: &Options) -> Result<Report> {
    let (loaded, source) = crate::load(opts)?;
    let reg = &loaded.registry;
    /// Commands and types each core version requires.
    type Required<'a> = (BTreeSet<&'a str>, BTreeSet<&'a str>);
    let mut by_version: BTreeMap<(u32, u32), Required> = BTreeMap::new();
    for f in &reg.features {
        let e = by_version.entry(f.version).or_default();
        for r in &f.requires {
            e.0.extend(r.commands.iter().map(String::as_str));
            e.1.extend(r.types.iter().map(String::as_str));
        }
    }
    let mut seen_c = BTreeSet::new();
    let mut seen_t = BTreeSet::new();
    let mut versions = Vec::new();
    for (v, (cmds, types)) in &by_version {
        let new_commands = cmds.iter().filter(|c| seen_c.insert(**c)).count();
        let new_types = types.iter().filter(|t| seen_t.insert(**t)).count();
        versions.push(VersionCounts {
            version: format!("{}.{}", v.0, v.1),
            new_commands,
            new_types,
            commands: seen_c.len(),
            types: seen_t.len(),
        });
    }
    let highest = opts
        .api_version
        .unwrap_or_else(|| select::highest_version(reg));
    let ash = ash_types::AshTypes::for_registry(reg);
    let sel = select::select(reg, highest, &ash);
    let mut reuse = AshReuse {
        reused: 0,
        emitted: 0,
        differ_from_ash: Vec::new(),
        differences: Vec::new(),
    };
    let table = crate::ash_layouts::Table::builtin();
    for name in &sel.types {
        let Some(ty) = reg.types.get(name) else {
            continue;
        };
        if ty.alias.is_some() || !matches!(ty.kind, TypeKind::Struct(_) | TypeKind::Union(_)) {
            continue;
        }
        if reg.overlay_changed.contains(name) || !ash.has(&crate::names::type_name(name)) {
            reuse.emitted += 1;
            if ash.not_reused().contains(name) {
                reuse.differ_from_ash.push(name.clone());
                reuse.differences.push(
                    table
                        .difference(reg, name)
                        .unwrap_or_else(|| "refers to a type emitted from the registry".into()),
                );
            }
        } else {
            reuse.reused += 1;
        }
    }
    let vulkan: Vec<_> = reg
        .extensions
        .iter()
        .filter(|e| e.supports_vulkan())
        .collect();
    Ok(Report {
        registry: source.path.display().to_string(),
        header_version: reg.header_version,
        highest_version: format!("{}.{}", highest.0, highest.1),
        versions,
        commands: reg.commands.len(),
        types: reg.types.len(),
        extensions: ExtensionCounts {
            total: reg.extensions.len(),
            vulkan: vulkan.len(),
            instance: vulkan
                .iter()
                .filter(|e| e.kind == Some(ExtensionKind::Instance))
                .count(),
            device: vulkan
                .iter()
                .filter(|e| e.kind == Some(ExtensionKind::Device))
                .count(),
            selected: sel.extensions.len(),
            dropped: sel.dropped.clone(),
        },
        ash: reuse,
    })
}

pub fn table(r: &Report) -> String {
    let mut s = format!(
        "registry {} (header {}, highest Vulkan {})\n\n",
        r.registry, r.header_version, r.highest_version
    );
    s.push_str("version  new commands  commands  new types  types\n");
    for v in &r.versions {
        s.push_str(&format!(
            "{:<8} {:>12} {:>9} {:>10} {:>6}\n",
            v.version, v.new_commands, v.commands, v.new_types, v.types
        ));
    }
    s.push_str(&format!(
        "\nall: {} commands, {} types\nextensions: {} ({} for vulkan: {} instance, {} device); Android selection keeps {}, drops {}\n",
        r.commands,
        r.types,
        r.extensions.total,
        r.extensions.vulkan,
        r.extensions.instance,
        r.extensions.device,
        r.extensions.selected,
        r.extensions.dropped.len()
    ));
    s.push_str(&format!(
        "structures and unions: {} reused from ash 0.38, {} emitted from the registry ({} of them because ash's layout differs)\n",
        r.ash.reused,
        r.ash.emitted,
        r.ash.differ_from_ash.len()
    ));
    for (name, why) in r.ash.differ_from_ash.iter().zip(&r.ash.differences) {
        s.push_str(&format!("  {name}: {why}\n"));
    }
    s
}
