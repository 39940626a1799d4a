//! What ash 0.38 already defines, so that generated code uses `ash::vk` types where they exist and
//! emits only the rest. The list is `registry/ash-0.38-types.txt` (made by
//! `registry/extract-ash-types.sh` from ash's sources), embedded at build time.

use std::collections::HashMap;

const LIST: &str = include_str!("../../registry/ash-0.38-types.txt");

#[derive(Debug)]
pub struct AshTypes {
    /// Rust name (`InstanceCreateInfo`, `native::StdVideoH264SpsFlags`, `StructureType::NATIVE_BUFFER_ANDROID`)
    /// → whether the type takes a lifetime.
    names: HashMap<&'static str, bool>,
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
        AshTypes { names }
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
