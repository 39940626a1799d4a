//! What the generated crate's fixed parts need from the registry, checked before anything is
//! emitted (issue 36 item 9): a registry that lacks it is a located error, never a crate that
//! does not compile.
//!
//! Most generated code follows the registry: a structure whose layout differs from ash's is
//! emitted from the registry, without ash's lifetime, and everything that names it does so
//! through [`super::Ctx::has_lifetime`]. But some code is the same for every registry: the
//! feature and property chain walkers (`features.rs`), the recorder's runtime (`recorder_runtime`)
//! and the resolvers. They name a few structures the way ash defines them —
//! `vk::PhysicalDeviceFeatures2<'_>`, `.p_next`, `.features` — so such a structure re-emitted
//! (its own layout differs, or it refers to one that does) would get ash's lifetime and members
//! (E0107, E0609). No published registry has ever changed them (they are Vulkan's ABI); a
//! registry that does is refused at that structure's definition. Likewise every loader and
//! driver resolves commands through `vkGetInstanceProcAddr` and `vkGetDeviceProcAddr` (E0599
//! without them): a selection that lacks one is refused at the core version's `<feature>`.

use std::path::Path;

use super::Ctx;
use crate::error::{Error, Result};

/// The structures fixed code names as ash defines them.
pub const ASH_SHAPED: &[&str] = &[
    "VkBaseInStructure",
    "VkBaseOutStructure",
    "VkPhysicalDeviceFeatures2",
    "VkPhysicalDeviceProperties2",
    "VkDeviceCreateInfo",
    "VkDependencyInfo",
    "VkMemoryBarrier",
    "VkBufferMemoryBarrier",
    "VkImageMemoryBarrier",
];

/// The commands every generated loader and driver resolves through.
pub const RESOLVERS: &[&str] = &["vkGetInstanceProcAddr", "vkGetDeviceProcAddr"];

/// Refuses `cx`'s registry (read from `path`) when the fixed code would not compile on it.
pub fn check(cx: &Ctx, path: &Path) -> Result<()> {
    let reg = cx.reg();
    for name in ASH_SHAPED {
        let Some(ty) = reg.types.get(*name) else {
            continue;
        };
        if cx.ash.not_reused().contains(*name) {
            let why = if crate::ash_layouts::Table::builtin().matches(reg, name) {
                "it refers to a structure whose layout differs from ash's"
            } else {
                "its members differ from ash 0.38's"
            };
            return Err(Error::Unsupported {
                path: path.to_owned(),
                line: ty.line,
                col: ty.col,
                message: format!(
                    "{name} cannot be generated: {why}, and vkgen's fixed runtime code (feature \
                     and property chains, the recorder, the resolvers) uses it as ash defines it \
                     (its Vulkan ABI, which no published registry changes)"
                ),
            });
        }
    }
    let selected = |name: &str| cx.sel.commands.iter().any(|c| c.name == name);
    if let Some(missing) = RESOLVERS.iter().find(|n| !selected(n)) {
        let core = reg
            .features
            .iter()
            .filter(|f| !f.internal)
            .min_by_key(|f| f.version);
        let (line, col, at) = core.map_or((1, 1, "the registry".to_owned()), |f| {
            (f.line, f.col, format!("<feature name=\"{}\">", f.name))
        });
        return Err(Error::Unsupported {
            path: path.to_owned(),
            line,
            col,
            message: format!(
                "{at} does not provide {missing}: every generated loader and driver resolves \
                 commands through {}",
                RESOLVERS.join(" and ")
            ),
        });
    }
    Ok(())
}
