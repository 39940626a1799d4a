//! From the whole registry to what one build contains: an API version, the extensions that apply to
//! Android and can be expressed (their dependencies hold, their types exist), and from those the
//! commands and types. Emitters see only a `Selection`.

use std::collections::{BTreeMap, BTreeSet};

use crate::ash_types::AshTypes;
use crate::model::*;
use crate::policy;
use crate::registry::depends::Expr;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    Global,
    Instance,
    PhysicalDevice,
    Device,
}

impl Level {
    pub fn name(self) -> &'static str {
        match self {
            Level::Global => "Global",
            Level::Instance => "Instance",
            Level::PhysicalDevice => "PhysicalDevice",
            Level::Device => "Device",
        }
    }
    /// Instance-table commands (instance and physical-device level).
    pub fn is_instance_table(self) -> bool {
        matches!(self, Level::Instance | Level::PhysicalDevice)
    }
}

/// A selected command (canonical or alias).
#[derive(Debug, Clone)]
pub struct SelCommand {
    pub name: String,
    /// The defining command (itself unless an alias).
    pub canonical: String,
    pub level: Level,
    /// The lowest core version that requires this name, if any.
    pub core: Option<(u32, u32)>,
    /// Selected extensions that require this name, in registry order.
    pub extensions: Vec<String>,
    /// Exported from libvulkan.so (Android's rule).
    pub exported: bool,
}

#[derive(Debug)]
pub struct Selection<'r> {
    pub reg: &'r Registry,
    pub version: (u32, u32),
    /// Selected extensions in registry order.
    pub extensions: Vec<&'r Extension>,
    /// Selected command names in registry order.
    pub commands: Vec<SelCommand>,
    /// Every type the selection needs, by vk name.
    pub types: BTreeSet<String>,
    /// Extensions left out and why (for `info` and logs).
    pub dropped: Vec<(String, String)>,
    /// The names of `extensions`, for [`Selection::is_selected_extension`] (asked once per
    /// enumerant and requirement by the emitters: a scan of the list each time was a fifth of
    /// `vk.rs`).
    selected: std::collections::HashSet<&'r str>,
}

impl<'r> Selection<'r> {
    pub fn command(&self, name: &str) -> Option<&SelCommand> {
        self.commands.iter().find(|c| c.name == name)
    }
    pub fn is_selected_extension(&self, name: &str) -> bool {
        self.selected.contains(name)
    }
    pub fn canonical_commands(&self) -> impl Iterator<Item = &SelCommand> {
        self.commands.iter().filter(|c| c.name == c.canonical)
    }
}

/// The highest `VK_VERSION_x_y` feature of the registry.
pub fn highest_version(reg: &Registry) -> (u32, u32) {
    reg.features
        .iter()
        .filter(|f| !f.internal)
        .map(|f| f.version)
        .max()
        .unwrap_or((1, 0))
}

/// The C types vk.xml uses that are not Vulkan's, with their Rust spelling in generated code.
const C_PRIMITIVES: &[(&str, &str)] = &[
    ("void", "core::ffi::c_void"),
    ("char", "core::ffi::c_char"),
    ("float", "f32"),
    ("double", "f64"),
    ("int8_t", "i8"),
    ("uint8_t", "u8"),
    ("int16_t", "i16"),
    ("uint16_t", "u16"),
    ("int32_t", "i32"),
    ("uint32_t", "u32"),
    ("int64_t", "i64"),
    ("uint64_t", "u64"),
    ("int", "core::ffi::c_int"),
    ("size_t", "usize"),
];

/// The Rust spelling of a C primitive, `None` for anything else.
pub fn primitive_rust(name: &str) -> Option<&'static str> {
    C_PRIMITIVES
        .iter()
        .find(|(c, _)| *c == name)
        .map(|(_, r)| *r)
}

pub fn is_primitive(name: &str) -> bool {
    primitive_rust(name).is_some()
}

/// Dispatch level from the first parameter (Android/Mesa rule), with GIPA global and GDPA device.
pub fn level_of(reg: &Registry, cmd: &Command) -> Level {
    if cmd.name == "vkGetInstanceProcAddr" {
        return Level::Global;
    }
    if cmd.name == "vkGetDeviceProcAddr" {
        return Level::Device;
    }
    let Some(first) = cmd.params.first() else {
        return Level::Global;
    };
    if first.ty.is_pointer() {
        return Level::Global;
    }
    match first.ty.base.as_str() {
        "VkInstance" => Level::Instance,
        "VkPhysicalDevice" => Level::PhysicalDevice,
        "VkDevice" | "VkQueue" | "VkCommandBuffer" => Level::Device,
        other => match reg.resolve_type(other).map(|t| &t.kind) {
            // A dispatchable handle we do not know (VkExternalComputeQueueNV): it is created from a
            // device and dispatches through the device's table.
            Some(TypeKind::Handle {
                dispatchable: true, ..
            }) => Level::Device,
            _ => Level::Global,
        },
    }
}

/// Whether a `depends=` expression holds for a selection: version operands by `version`,
/// extension operands by membership in `names`, `Struct::member` feature operands always (they
/// are runtime conditions; what they guard is defined either way). Unparsable is false.
fn depends_hold(depends: Option<&str>, version: (u32, u32), names: &BTreeSet<&str>) -> bool {
    let Some(depends) = depends else { return true };
    let Ok(expr) = Expr::parse(depends) else {
        return false;
    };
    expr.eval(&mut |n| {
        let is_version = [
            "VK_VERSION_",
            "VK_BASE_VERSION_",
            "VK_COMPUTE_VERSION_",
            "VK_GRAPHICS_VERSION_",
        ]
        .iter()
        .any(|p| n.starts_with(p));
        if is_version {
            parse_version(n).is_some_and(|v| v <= version)
        } else {
            n.contains("::") || names.contains(n)
        }
    })
}

pub fn select<'r>(reg: &'r Registry, version: (u32, u32), ash: &AshTypes) -> Selection<'r> {
    let mut dropped = Vec::new();
    let mut chosen = policy_candidates(reg, &mut dropped);
    drop_inexpressible(reg, ash, &mut chosen, &mut dropped);
    drop_unmet_dependencies(version, &mut chosen, &mut dropped);
    let mut seeds: BTreeSet<String> = BTreeSet::new();
    let mut commands = selected_commands(reg, version, &chosen, &mut seeds);
    add_alias_targets(&mut commands);
    let types = type_closure(reg, seeds);
    let selected = chosen.iter().map(|e| e.name.as_str()).collect();
    Selection {
        reg,
        version,
        extensions: chosen,
        commands,
        types,
        dropped,
        selected,
    }
}

/// The extensions Android's static policy allows (Vulkan, not blocked, not provisional, a
/// platform Android has, a type); the others land in `dropped` with the reason.
fn policy_candidates<'r>(
    reg: &'r Registry,
    dropped: &mut Vec<(String, String)>,
) -> Vec<&'r Extension> {
    let mut chosen: Vec<&Extension> = Vec::new();
    for e in &reg.extensions {
        let why = if !e.supports_vulkan() {
            Some("not supported for vulkan".to_owned())
        } else if policy::is_blocked(&e.name) {
            Some("blocked on Android".to_owned())
        } else if e.provisional {
            Some("provisional".to_owned())
        } else if let Some(p) = e
            .platform
            .as_deref()
            .filter(|p| !policy::PLATFORMS.contains(p))
        {
            Some(format!("platform {p}"))
        } else if e.kind.is_none() {
            Some("no instance/device type".to_owned())
        } else {
            None
        };
        match why {
            Some(w) => {
                if e.supports_vulkan() {
                    dropped.push((e.name.clone(), w));
                }
            }
            None => chosen.push(e),
        }
    }
    chosen
}

/// Types that cannot be expressed (external headers ash does not carry) remove their extension.
fn drop_inexpressible(
    reg: &Registry,
    ash: &AshTypes,
    chosen: &mut Vec<&Extension>,
    dropped: &mut Vec<(String, String)>,
) {
    // The first type each extension needs that cannot be written, `None` where all can: a type
    // closure per extension, each independent, so they are spread over the cores (they were
    // half of `select`).
    let missing_type = |e: &Extension| {
        let mut seeds: Vec<&str> = Vec::new();
        for r in &e.requires {
            seeds.extend(r.types.iter().map(String::as_str));
            for c in &r.commands {
                if let Some(cmd) = reg.resolve_command(c) {
                    seeds.extend(command_types(cmd));
                }
            }
        }
        closure_of(reg, seeds.into_iter())
            .into_iter()
            .find(|t| !expressible(reg, ash, t))
            .map(str::to_owned)
    };
    let missing_type = &missing_type;
    let missing: Vec<Option<String>> = crate::par::map_chunks(chosen, |part| {
        part.iter().map(|e| missing_type(e)).collect()
    });
    let mut missing = missing.into_iter();
    chosen.retain(|e| match missing.next().flatten() {
        Some(missing) => {
            dropped.push((
                e.name.clone(),
                format!("needs external type {missing} that ash 0.38 lacks"),
            ));
            false
        }
        None => true,
    });
}

/// Dependencies must hold within the selection; repeat until nothing more drops.
fn drop_unmet_dependencies(
    version: (u32, u32),
    chosen: &mut Vec<&Extension>,
    dropped: &mut Vec<(String, String)>,
) {
    loop {
        let names: BTreeSet<&str> = chosen.iter().map(|e| e.name.as_str()).collect();
        let before = chosen.len();
        chosen.retain(|e| {
            let ok = depends_hold(e.depends.as_deref(), version, &names);
            if !ok {
                dropped.push((
                    e.name.clone(),
                    format!(
                        "dependency `{}` not met",
                        e.depends.as_deref().unwrap_or("")
                    ),
                ));
            }
            ok
        });
        if chosen.len() == before {
            break;
        }
    }
}

/// The commands the core versions up to `version` and the chosen extensions require, in
/// registry order; the types their `<require>` blocks and signatures name go into `seeds`.
fn selected_commands(
    reg: &Registry,
    version: (u32, u32),
    chosen: &[&Extension],
    seeds: &mut BTreeSet<String>,
) -> Vec<SelCommand> {
    let names: BTreeSet<&str> = chosen.iter().map(|e| e.name.as_str()).collect();
    let cond_true = |r: &Require| depends_hold(r.depends.as_deref(), version, &names);
    let mut core: BTreeMap<String, (u32, u32)> = BTreeMap::new();
    let mut removed: BTreeSet<String> = BTreeSet::new();
    for f in reg.features.iter().filter(|f| f.version <= version) {
        for r in f.requires.iter().filter(|r| cond_true(r)) {
            for c in &r.commands {
                let v = core.entry(c.clone()).or_insert(f.version);
                *v = (*v).min(f.version);
            }
            seeds.extend(r.types.iter().cloned());
        }
        for r in &f.removes {
            removed.extend(r.commands.iter().cloned());
        }
    }
    for c in &removed {
        core.remove(c);
    }
    let mut ext_of: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for e in chosen {
        for r in e.requires.iter().filter(|r| cond_true(r)) {
            for c in &r.commands {
                let v = ext_of.entry(c.clone()).or_default();
                if !v.contains(&e.name) {
                    v.push(e.name.clone());
                }
            }
            seeds.extend(r.types.iter().cloned());
        }
    }
    let mut commands = Vec::new();
    for name in &reg.command_order {
        let in_core = core.get(name).copied();
        let exts = ext_of.get(name).cloned().unwrap_or_default();
        if in_core.is_none() && exts.is_empty() {
            continue;
        }
        let Some(def) = reg.resolve_command(name) else {
            continue;
        };
        seeds.extend(command_types(def).map(str::to_owned));
        let exported = in_core.is_some() || exts.iter().any(|e| policy::is_exported_extension(e));
        commands.push(SelCommand {
            name: name.clone(),
            canonical: def.name.clone(),
            level: level_of(reg, def),
            core: in_core,
            extensions: exts,
            exported,
        });
    }
    commands
}

/// An alias is only usable when its target is selected too; make sure the target is present.
fn add_alias_targets(commands: &mut Vec<SelCommand>) {
    let present: BTreeSet<String> = commands.iter().map(|c| c.name.clone()).collect();
    let mut extra = Vec::new();
    for c in commands.iter() {
        if !present.contains(&c.canonical)
            && !extra.iter().any(|x: &SelCommand| x.name == c.canonical)
        {
            extra.push(SelCommand {
                name: c.canonical.clone(),
                canonical: c.canonical.clone(),
                level: c.level,
                core: None,
                extensions: c.extensions.clone(),
                exported: false,
            });
        }
    }
    commands.extend(extra);
}

/// The types a command's signature names.
pub fn command_types(cmd: &Command) -> impl Iterator<Item = &str> + '_ {
    cmd.params
        .iter()
        .map(|p| p.ty.base.as_str())
        .chain(std::iter::once(cmd.ret.base.as_str()))
        .filter(|b| !b.is_empty())
}

/// Every type reachable from `seeds` through aliases, members, funcpointer parameters and bitmask bits.
pub fn type_closure(reg: &Registry, seeds: BTreeSet<String>) -> BTreeSet<String> {
    closure_of(reg, seeds.iter().map(String::as_str))
        .into_iter()
        .map(str::to_owned)
        .collect()
}

/// [`type_closure`] with the names borrowed from `reg` and the seeds: `select` makes one per
/// candidate extension, and cloning every name it passed was most of their cost.
fn closure_of<'a>(reg: &'a Registry, seeds: impl Iterator<Item = &'a str>) -> BTreeSet<&'a str> {
    let mut out = BTreeSet::new();
    let mut stack: Vec<&str> = seeds.collect();
    while let Some(name) = stack.pop() {
        if !out.insert(name) {
            continue;
        }
        let Some(ty) = reg.types.get(name) else {
            continue;
        };
        if let Some(a) = &ty.alias {
            stack.push(a);
        }
        match &ty.kind {
            TypeKind::Struct(a) | TypeKind::Union(a) => {
                stack.extend(a.members.iter().map(|m| m.ty.base.as_str()))
            }
            TypeKind::Funcpointer { ret, params } => {
                stack.push(&ret.base);
                stack.extend(params.iter().map(|p| p.ty.base.as_str()));
            }
            TypeKind::Bitmask { bits: Some(b), .. } => stack.push(b),
            TypeKind::Basetype {
                underlying: Some(u),
                ..
            } => stack.push(u),
            _ => {}
        }
    }
    out
}

/// Whether a type can be written in Rust here: vk.xml defines it, it is a C primitive, or ash
/// carries it (platform and video std types).
pub fn expressible(reg: &Registry, ash: &AshTypes, name: &str) -> bool {
    if is_primitive(name) {
        return true;
    }
    match reg.types.get(name) {
        None => reg.enums.contains_key(name),
        Some(t) => match t.kind {
            TypeKind::External => ash.has(name) || ash.has(&format!("native::{name}")),
            _ => true,
        },
    }
}
