//! What ash 0.38 already defines, so that generated code uses `ash::vk` types where they exist and
//! emits only the rest. The list is `registry/ash-0.38-types.txt` (made by
//! `registry/extract-ash-types.sh` from ash's sources), embedded at build time. A name alone does
//! not make a type reusable: [`AshTypes::for_registry`] drops the structures whose members differ
//! from the registry's (see [`crate::ash_layouts`]).

use std::collections::{BTreeSet, HashMap};

use crate::model::Registry;

const LIST: &str = include_str!("../registry/ash-0.38-types.txt");

#[derive(Debug)]
pub struct AshTypes {
    /// Rust name (`InstanceCreateInfo`, `native::StdVideoH264SpsFlags`, `StructureType::NATIVE_BUFFER_ANDROID`)
    /// → whether the type takes a lifetime.
    names: HashMap<&'static str, bool>,
    /// vk names ash has a namesake of that this registry defines differently (or that refer to
    /// such a type): emitted from the registry instead.
    not_reused: BTreeSet<String>,
}

impl AshTypes {
    pub fn load() -> Self {
        let names = LIST
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .filter_map(|l| {
                let mut it = l.split_whitespace();
                Some((it.next()?, it.next() == Some("'a")))
            })
            .collect();
        AshTypes {
            names,
            not_reused: BTreeSet::new(),
        }
    }

    /// ash's types as far as `reg` can reuse them: names whose registry definition differs from
    /// ash's (member names, types, order, array lengths, sType) are taken out, so every emitter
    /// treats them as types ash lacks and emits them from the registry.
    pub fn for_registry(reg: &Registry) -> Self {
        Self::checked_for(&Self::load(), reg)
    }

    /// [`AshTypes::for_registry`] from a list already loaded (`generate` selects with it
    /// meanwhile).
    pub fn checked_for(loaded: &AshTypes, reg: &Registry) -> Self {
        let table = crate::ash_layouts::Table::builtin();
        let not_reused = crate::ash_layouts::not_reused(reg, table, |n| loaded.has(n));
        let mut ash = AshTypes {
            names: loaded.names.clone(),
            not_reused: BTreeSet::new(),
        };
        for vk in &not_reused {
            ash.names.remove(crate::names::type_name(vk).as_str());
        }
        ash.not_reused = not_reused;
        ash
    }

    /// Whether a name [`AshTypes::for_registry`] took out is one [`crate::select::expressible`]
    /// asks about an external type (`Name` or `native::Name`): only then can a selection made
    /// with [`AshTypes::load`]'s full list differ from one made with this one, which lets the
    /// two be made at the same time.
    pub fn took_out_an_external(&self, reg: &Registry) -> bool {
        self.not_reused.iter().any(|vk| {
            let rust = crate::names::type_name(vk);
            let external = |n: &str| {
                reg.types
                    .get(n)
                    .is_some_and(|t| t.kind == crate::model::TypeKind::External)
            };
            external(&rust) || rust.strip_prefix("native::").is_some_and(external)
        })
    }

    /// The vk names [`AshTypes::for_registry`] took out.
    pub fn not_reused(&self) -> &BTreeSet<String> {
        &self.not_reused
    }

    /// Whether ash has this Rust-side name (a type, or `Type::CONST`).
    pub fn has(&self, rust_name: &str) -> bool {
        self.names.contains_key(rust_name)
    }

    /// Whether ash's type takes a lifetime parameter (`InstanceCreateInfo<'a>`).
    pub fn has_lifetime(&self, rust_name: &str) -> bool {
        self.names.get(rust_name).copied().unwrap_or(false)
    }
}
