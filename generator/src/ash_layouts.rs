//! Whether ash 0.38's definition of a structure is the registry's, so that generated code reuses
//! `ash::vk` types only where they are the same type.
//!
//! A name is not enough: a structure keeps its name while its members change between spec
//! revisions (VK_KHR_shader_float_controls replaced `separateDenormSettings` and
//! `separateRoundingModeSettings` with `denormBehaviorIndependence` and `roundingModeIndependence`),
//! so a registry older or newer than ash's would get ash's members under the registry's name. The
//! facts come from `registry/ash-0.38-layouts.txt`: the layouts of every structure and union ash
//! defines, rendered by [`render_table`] from the vk.xml ash 0.38 was generated from
//! (Vulkan-Headers 1.3.281; `vkgen ash-layouts` writes it, a test keeps it fresh). At generation
//! time each structure of the registry is compared with it: member names, C types (base type,
//! `const`, pointer depth, array lengths with constants resolved, bitfield widths), order, and the
//! fixed `sType` value (by number: promotion renames it). The one const-ness not compared is
//! `pNext`'s (`void*` or `const void*`, see `both_next_pointers`). Type names compare after
//! following aliases on both sides (`VkFooKHR` and `VkFoo` are one Rust type in ash). A structure
//! that differs is emitted from the registry, and so is every reused structure (or function
//! pointer) that refers to an emitted one, by value or through a pointer, so that no ash type is
//! left pointing at ash's namesake of an emitted type.
//!
//! Why a table made from the registry rather than from ash's `definitions.rs`: ash's generator
//! rewrites some members (bitfields packed into `Packed24_8`, `*const c_char` names), so its Rust
//! source does not spell what the registry says; the registry it was generated from does, and
//! comparing registry with registry keeps both sides in one language.

use std::collections::{BTreeSet, HashMap};

use crate::model::{ArrayLen, CType, Field, Registry, TypeKind};
use crate::names;

/// The table, embedded at build time.
pub const TABLE: &str = include_str!("../registry/ash-0.38-layouts.txt");

/// One member as the table spells it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    pub name: String,
    /// C spelling with array lengths resolved: `const void*`, `char[256]`, `uint32_t:24`.
    pub decl: String,
    /// `VK_STRUCTURE_TYPE_X=1000…` for a fixed `sType` (`values=`).
    pub value: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    pub union: bool,
    pub members: Vec<Member>,
}

/// The parsed table: layouts by vk name, and type aliases (alias → fully resolved target).
#[derive(Debug, Default)]
pub struct Table {
    layouts: HashMap<String, Layout>,
    aliases: HashMap<String, String>,
}

/// C spelling of a member's type with array lengths as numbers.
pub fn decl(reg: &Registry, ty: &CType) -> String {
    let mut t = ty.clone();
    t.array = ty
        .array
        .iter()
        .map(|a| match crate::registry::array_len(reg, a) {
            Ok(n) => ArrayLen::Literal(u32::try_from(n).unwrap_or(u32::MAX)),
            Err(_) => a.clone(),
        })
        .collect();
    t.to_c()
}

/// A registry member as the table spells it.
pub fn member(reg: &Registry, f: &Field) -> Member {
    let value =
        f.values.as_ref().map(
            |v| match crate::device::layout::enum_named(reg, &f.ty.base, v) {
                Some(n) => format!("{v}={n}"),
                None => v.clone(),
            },
        );
    Member {
        name: f.name.clone(),
        decl: decl(reg, &f.ty),
        value,
    }
}

/// The table for `reg` (the vk.xml ash was generated from, without vkgen's overlay): every
/// non-alias structure and union whose Rust name `has` (ash's type list) knows, and every alias
/// ash has, resolved to its final target. Sorted by name, so the output is deterministic.
pub fn render_table(reg: &Registry, has: impl Fn(&str) -> bool, header: &str) -> String {
    let mut out = String::new();
    for line in header.lines() {
        out.push_str("# ");
        out.push_str(line);
        out.push('\n');
    }
    for (name, ty) in &reg.types {
        if !has(&names::type_name(name)) {
            continue;
        }
        if ty.alias.is_some() {
            if let Some(target) = reg.resolve_type(name) {
                out.push_str(&format!("alias {name} {}\n", target.name));
            }
            continue;
        }
        let (keyword, agg) = match &ty.kind {
            TypeKind::Struct(a) => ("struct", a),
            TypeKind::Union(a) => ("union", a),
            _ => continue,
        };
        out.push_str(&format!("{keyword} {name}\n"));
        for f in &agg.members {
            let m = member(reg, f);
            out.push_str(&format!("\t{}\t{}", m.name, m.decl));
            if let Some(v) = &m.value {
                out.push_str(&format!("\t{v}"));
            }
            out.push('\n');
        }
    }
    out
}

impl Table {
    /// Parses the table text. Lines it does not understand are skipped: the embedded table is
    /// checked by a test, and a missing layout only makes vkgen emit a type rather than reuse it.
    pub fn parse(text: &str) -> Table {
        let mut t = Table::default();
        let mut current: Option<(String, Layout)> = None;
        for line in text.lines() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            if let Some(rest) = line.strip_prefix('\t') {
                let mut cols = rest.split('\t');
                if let (Some((_, layout)), Some(name), Some(decl)) =
                    (current.as_mut(), cols.next(), cols.next())
                {
                    layout.members.push(Member {
                        name: name.to_owned(),
                        decl: decl.to_owned(),
                        value: cols.next().map(str::to_owned),
                    });
                }
                continue;
            }
            if let Some((name, layout)) = current.take() {
                t.layouts.insert(name, layout);
            }
            let words: Vec<&str> = line.split_whitespace().collect();
            match words.as_slice() {
                ["alias", a, target] => {
                    t.aliases.insert((*a).to_owned(), (*target).to_owned());
                }
                [kw @ ("struct" | "union"), name] => {
                    current = Some((
                        (*name).to_owned(),
                        Layout {
                            union: *kw == "union",
                            members: Vec::new(),
                        },
                    ));
                }
                _ => {}
            }
        }
        if let Some((name, layout)) = current {
            t.layouts.insert(name, layout);
        }
        t
    }

    /// The embedded table.
    pub fn builtin() -> &'static Table {
        static T: std::sync::OnceLock<Table> = std::sync::OnceLock::new();
        T.get_or_init(|| Table::parse(TABLE))
    }

    /// ash's layout of the structure it names `vk` (following ash's aliases).
    pub fn layout(&self, vk: &str) -> Option<&Layout> {
        self.layouts.get(self.canon(vk))
    }

    fn canon<'a>(&'a self, vk: &'a str) -> &'a str {
        self.aliases.get(vk).map_or(vk, String::as_str)
    }

    /// Whether the registry's definition of `name` (a non-alias structure or union) is ash's.
    pub fn matches(&self, reg: &Registry, name: &str) -> bool {
        self.difference(reg, name).is_none()
    }

    /// How the registry's definition of `name` differs from ash's, or `None` when it does not.
    pub fn difference(&self, reg: &Registry, name: &str) -> Option<String> {
        let Some(ty) = reg.types.get(name) else {
            return Some("not in the registry".into());
        };
        let (union, agg) = match &ty.kind {
            TypeKind::Struct(a) => (false, a),
            TypeKind::Union(a) => (true, a),
            _ => return Some("not a structure or union".into()),
        };
        let Some(theirs) = self.layout(name) else {
            return Some("no layout of ash's in registry/ash-0.38-layouts.txt".into());
        };
        if theirs.union != union {
            return Some(if union {
                "a union here, a structure in ash".into()
            } else {
                "a structure here, a union in ash".into()
            });
        }
        let n = agg.members.len().max(theirs.members.len());
        for i in 0..n {
            let ours = agg.members.get(i).map(|f| member(reg, f));
            let t = theirs.members.get(i);
            let same = match (&ours, t) {
                (Some(o), Some(t)) => {
                    o.name == t.name
                        && same_value(o.value.as_deref(), t.value.as_deref())
                        && (self.same_decl(reg, &o.decl, &t.decl) || both_next_pointers(o, t))
                }
                _ => false,
            };
            if !same {
                let show = |m: Option<&Member>| {
                    m.map_or_else(
                        || "nothing".to_owned(),
                        |m| format!("`{} {}`", m.decl, m.name),
                    )
                };
                return Some(format!(
                    "member {}: {} here, {} in ash",
                    i + 1,
                    show(ours.as_ref()),
                    show(t)
                ));
            }
        }
        None
    }

    /// Two C spellings name the same type: equal around the base type name, and the base names
    /// the same type once aliases are followed (the registry's, then ash's).
    fn same_decl(&self, reg: &Registry, ours: &str, theirs: &str) -> bool {
        let (p1, b1, s1) = split_base(ours);
        let (p2, b2, s2) = split_base(theirs);
        if p1 != p2 || s1 != s2 {
            return false;
        }
        let b1 = resolve_name(reg, b1);
        self.canon(&b1) == self.canon(b2)
    }
}

/// `pNext` as `void*` on one side and `const void*` on the other: the registry flips this
/// const-ness as a hint of which way a chain goes (returned-only structures get `void*`), and every
/// chain is walked through `VkBaseInStructure`/`VkBaseOutStructure` casts whichever it is, so it
/// does not make ash's type a different one. Any other const-ness difference does.
fn both_next_pointers(a: &Member, b: &Member) -> bool {
    let next = |d: &str| d == "void*" || d == "const void*";
    a.name == "pNext" && next(&a.decl) && next(&b.decl)
}

/// Fixed `sType` values compare by number where both sides have one (the enumerant's name
/// changes when an extension is promoted, its value does not).
fn same_value(a: Option<&str>, b: Option<&str>) -> bool {
    let num = |v: &str| v.rsplit_once('=').map(|(_, n)| n.to_owned());
    match (a, b) {
        (Some(a), Some(b)) => match (num(a), num(b)) {
            (Some(x), Some(y)) => x == y,
            _ => a == b,
        },
        (None, None) => true,
        _ => false,
    }
}

/// `const VkFoo* const[4]` → (`const `, `VkFoo`, `* const[4]`).
fn split_base(decl: &str) -> (&str, &str, &str) {
    let start = if decl.starts_with("const ") { 6 } else { 0 };
    let rest = &decl[start..];
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    (&decl[..start], &rest[..end], &rest[end..])
}

/// The non-alias name `name` resolves to in `reg` (itself when it is not a registry type).
fn resolve_name(reg: &Registry, name: &str) -> String {
    reg.resolve_type(name)
        .map_or_else(|| name.to_owned(), |t| t.name.clone())
}

/// The vk names of registry types ash has a namesake of that generated code must not reuse:
/// structures and unions whose layout differs from ash's (or that ash's table lacks), then
/// everything that refers to one of those or to a type vkgen's overlay replaces, then aliases of
/// any of them.
pub fn not_reused(reg: &Registry, table: &Table, has: impl Fn(&str) -> bool) -> BTreeSet<String> {
    let ash_has = |vk: &str| has(&names::type_name(vk));
    let compared: Vec<&String> = reg
        .types
        .iter()
        .filter(|(name, ty)| {
            ty.alias.is_none()
                && matches!(ty.kind, TypeKind::Struct(_) | TypeKind::Union(_))
                && ash_has(name)
                && !reg.overlay_changed.contains(*name)
        })
        .map(|(name, _)| name)
        .collect();
    // A thousand layout comparisons, each independent: they were a tenth of the serial stretch
    // before the emitters start, so they are spread over the cores.
    let mut out: BTreeSet<String> = crate::par::map_chunks(&compared, |names| {
        names
            .iter()
            .filter(|n| !table.matches(reg, n))
            .map(|n| (*n).clone())
            .collect()
    })
    .into_iter()
    .collect();
    // Reused types that refer to emitted ones are emitted too, until nothing changes. Each pass
    // adds at least one name or stops, so this ends within the number of types.
    let emitted =
        |out: &BTreeSet<String>, n: &str| out.contains(n) || reg.overlay_changed.contains(n);
    loop {
        let mut added = Vec::new();
        for (name, ty) in &reg.types {
            if ty.alias.is_some() || !ash_has(name) || emitted(&out, name) {
                continue;
            }
            let refs: Vec<&str> = match &ty.kind {
                TypeKind::Struct(a) | TypeKind::Union(a) => {
                    a.members.iter().map(|m| m.ty.base.as_str()).collect()
                }
                TypeKind::Funcpointer { ret, params } => std::iter::once(ret.base.as_str())
                    .chain(params.iter().map(|p| p.ty.base.as_str()))
                    .collect(),
                _ => continue,
            };
            if refs
                .iter()
                .any(|r| emitted(&out, &resolve_name(reg, r)) && is_aggregate_or_pfn(reg, r))
            {
                added.push(name.clone());
            }
        }
        if added.is_empty() {
            break;
        }
        out.extend(added);
    }
    let aliases: Vec<String> = reg
        .types
        .iter()
        .filter(|(name, ty)| {
            ty.alias.is_some()
                && ash_has(name)
                && reg
                    .resolve_type(name)
                    .is_some_and(|t| emitted(&out, &t.name))
        })
        .map(|(name, _)| name.clone())
        .collect();
    out.extend(aliases);
    out
}

fn is_aggregate_or_pfn(reg: &Registry, name: &str) -> bool {
    reg.resolve_type(name).is_some_and(|t| {
        matches!(
            t.kind,
            TypeKind::Struct(_) | TypeKind::Union(_) | TypeKind::Funcpointer { .. }
        )
    })
}

/// The file `registry/ash-0.38-layouts.txt` should hold, made from `vk_xml` (the vk.xml ash 0.38
/// was generated from: Vulkan-Headers 1.3.281, `vk-1.3.281.xml` of the registry matrix), read
/// without vkgen's overlay. Refuses any other header version: the table describes ash, not the
/// registry at hand. `ash_has` says whether ash 0.38 has a type of a name (`AshTypes::has`),
/// given by the caller so that this module stays below `ash_types`, which reads its tables.
pub fn table_file(
    vk_xml: &std::path::Path,
    ash_has: impl Fn(&str) -> bool,
) -> crate::error::Result<String> {
    let loaded = crate::registry::load(vk_xml, None)?;
    let reg = &loaded.registry;
    if reg.header_version != ASH_HEADER_VERSION {
        return Err(crate::error::Error::Options(format!(
            "{} is vk.xml header {}; ash 0.38 was generated from header {ASH_HEADER_VERSION}",
            vk_xml.display(),
            reg.header_version
        )));
    }
    let header = format!(
        "Layouts of the structures and unions ash 0.38.0+1.3.281 defines, from the vk.xml it was\n\
         generated from: header {}, SHA-256 {}.\n\
         vkgen reuses an ash type only where the registry's definition equals the one here\n\
         (see generator/src/ash_layouts.rs).\n\
         Regenerate: cargo run -p vkgen-generator -- ash-layouts --registry <vk-1.3.281.xml> --out registry/ash-0.38-layouts.txt\n\
         Format: `struct NAME` or `union NAME`, then one `<TAB>member<TAB>C type[<TAB>sType=value]`\n\
         line per member; `alias NAME TARGET` for ash's aliases.",
        reg.header_version, reg.source_sha256
    );
    Ok(render_table(reg, ash_has, &header))
}

/// `VK_HEADER_VERSION` of the vk.xml ash 0.38 was generated from.
pub const ASH_HEADER_VERSION: u32 = 281;
