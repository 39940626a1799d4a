//! The feature and property tables' types (`emit::features::table` makes them): a leaf, so that
//! `Ctx` can keep the tables it made without naming the emitter that makes them.

use crate::model::CType;

/// `(structure, member, flat name)`: members core renamed when promoting, mapped to the core name
/// so that they merge with it (Mesa does the same).
pub const PROMOTED_RENAMES: &[(&str, &str, &str)] = &[
    (
        "VkPhysicalDeviceSubgroupProperties",
        "supportedStages",
        "subgroupSupportedStages",
    ),
    (
        "VkPhysicalDeviceSubgroupProperties",
        "supportedOperations",
        "subgroupSupportedOperations",
    ),
    (
        "VkPhysicalDeviceSubgroupProperties",
        "quadOperationsInAllStages",
        "subgroupQuadOperationsInAllStages",
    ),
];

/// Features or properties.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Features,
    Properties,
}

impl Kind {
    pub(crate) fn base(self) -> &'static str {
        match self {
            Kind::Features => "VkPhysicalDeviceFeatures",
            Kind::Properties => "VkPhysicalDeviceProperties",
        }
    }
    pub(crate) fn extends(self) -> &'static str {
        match self {
            Kind::Features => "VkPhysicalDeviceFeatures2",
            Kind::Properties => "VkPhysicalDeviceProperties2",
        }
    }
}

/// How a flat field is stored and copied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldKind {
    /// `VkBool32` ↔ `bool`.
    Bool,
    /// Any other value (numbers, enums, flags, arrays, plain structures), copied as is.
    Value,
    /// An output array with a count member: `Vec<elem>`; `has_header` when the elements carry
    /// `sType`/`pNext`.
    List { has_header: bool },
}

/// One member of one chain structure.
#[derive(Debug, Clone)]
pub struct ChainMember {
    /// The member's path from the structure (`["limits", "maxImageDimension1D"]` in the flattened
    /// 1.0 properties, one name elsewhere).
    pub path: Vec<String>,
    /// For lists, the count member's name.
    pub count: Option<String>,
    /// Index into [`Table::fields`].
    pub field: usize,
}

/// A structure the chain code knows.
#[derive(Debug, Clone)]
pub struct ChainStruct {
    /// The canonical (non-alias) name.
    pub name: String,
    /// Other names of the structure in this registry.
    pub aliases: Vec<String>,
    /// `VK_STRUCTURE_TYPE_…` name and value (none for the 1.0 base structure).
    pub s_type: Option<(String, i64)>,
    pub members: Vec<ChainMember>,
}

/// One field of the flat table.
#[derive(Debug, Clone)]
pub struct FlatField {
    /// Rust field name.
    pub rust: String,
    /// The Vulkan member name, or its rename (`taskShaderNV`); lists drop the `p`.
    pub flat: String,
    /// The member type (for lists, the element type without the pointer).
    pub ty: CType,
    pub kind: FieldKind,
    /// `(structure, member)` pairs that carry it.
    pub carriers: Vec<(String, String)>,
    /// Why it was renamed, if it was.
    pub renamed_from: Option<String>,
}

#[derive(Debug, Clone)]
pub struct Table {
    pub kind: Kind,
    /// The base (1.0) structure first, then the chain structures.
    pub structs: Vec<ChainStruct>,
    pub fields: Vec<FlatField>,
    /// `Struct::member: why` for members that could not be mapped.
    pub skipped: Vec<String>,
}
