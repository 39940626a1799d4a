//! `src/dynamic_state.rs`: which recorded command sets each `VkDynamicState` (the data behind
//! Mesa's hand-kept `vk_dynamic_graphics_state` setters). A driver kit that tracks bound state
//! needs, for every dynamic state a pipeline lists, the `vkCmd*` that supplies its value, and
//! for every recorded command the states it sets; a new registry adds states and setters
//! together, so the map is derived from vk.xml rather than kept by hand.
//!
//! The rule: `VK_DYNAMIC_STATE_FOO_BAR_EXT` is set by `vkCmdSetFooBarEXT` (matched on the
//! canonical command, so a promoted state finds its promoted setter). [`OVERLAY`] lists the
//! states the rule misses or under-counts; a state no rule finds a setter for is emitted with
//! none, and the test of this module names every such state of the checked-in registries.

use std::fmt::Write;

use super::{Ctx, PREAMBLE};
use crate::error::Result;
use crate::model::EnumVal;

/// States whose setters are not (only) `vkCmdSet` + the state's name in CamelCase:
/// `(state, setters)`. Each entry says why.
pub const OVERLAY: &[(&str, &[&str])] = &[
    // The strides are an argument of the 1.3 vertex-buffer bind, not a setter of their own;
    // `vkCmdSetVertexInputEXT` states every binding's stride too (Mesa sets
    // `MESA_VK_DYNAMIC_VI_BINDING_STRIDES` from both).
    (
        "VK_DYNAMIC_STATE_VERTEX_INPUT_BINDING_STRIDE",
        &["vkCmdBindVertexBuffers2", "vkCmdSetVertexInputEXT"],
    ),
    // `VK_EXT_depth_bias_control` adds a second setter for the same three factors.
    (
        "VK_DYNAMIC_STATE_DEPTH_BIAS",
        &["vkCmdSetDepthBias", "vkCmdSetDepthBias2EXT"],
    ),
    // The state's name carries `VIEWPORT_`, the command's does not.
    (
        "VK_DYNAMIC_STATE_VIEWPORT_COARSE_SAMPLE_ORDER_NV",
        &["vkCmdSetCoarseSampleOrderNV"],
    ),
];

/// Vendor suffixes a state name may end in (kept uppercase in the command name).
const VENDORS: &[&str] = &[
    "KHR", "EXT", "NV", "AMD", "QCOM", "HUAWEI", "INTEL", "ARM", "NVX", "MESA",
];

/// `state`'s overlay entry, also under its pre-promotion name (`…_STRIDE_EXT` in 1.2).
fn overlay(state: &str) -> Option<&'static [&'static str]> {
    let promoted = state
        .rsplit_once('_')
        .filter(|(_, v)| VENDORS.contains(v))
        .map(|(stem, _)| stem);
    OVERLAY
        .iter()
        .find(|(s, _)| *s == state || Some(*s) == promoted)
        .map(|(_, cmds)| *cmds)
}

/// `FOO_BAR_EXT` → `vkCmdSetFooBarEXT`.
fn setter_name(stem: &str) -> String {
    let mut parts: Vec<&str> = stem.split('_').collect();
    let vendor = match parts.last() {
        Some(v) if VENDORS.contains(v) => parts.pop().unwrap_or_default(),
        _ => "",
    };
    let camel: String = parts
        .iter()
        .map(|p| {
            let mut c = p.chars();
            match c.next() {
                Some(f) => f.to_ascii_uppercase().to_string() + &c.as_str().to_ascii_lowercase(),
                None => String::new(),
            }
        })
        .collect();
    format!("vkCmdSet{camel}{vendor}")
}

/// The selected canonical setters of `state`, as names.
fn setters<'a>(cx: &'a Ctx, state: &str) -> Vec<&'a str> {
    let names: Vec<String> = match overlay(state) {
        Some(cmds) => cmds.iter().map(|c| (*c).to_owned()).collect(),
        None => vec![setter_name(state.trim_start_matches("VK_DYNAMIC_STATE_"))],
    };
    // An overlay names the promoted setter; a registry from before the promotion has only the
    // extension's (`vkCmdBindVertexBuffers2EXT` in 1.2), spelled with the state's suffix.
    let suffix = state.rsplit('_').next().filter(|v| VENDORS.contains(v));
    let mut out: Vec<&str> = Vec::new();
    for n in names {
        let cmd = cx
            .reg()
            .resolve_command(&n)
            .or_else(|| suffix.and_then(|v| cx.reg().resolve_command(&format!("{n}{v}"))));
        let Some(cmd) = cmd else {
            continue;
        };
        if let Some(sel) = cx.sel.command(&cmd.name) {
            if !out.contains(&sel.canonical.as_str()) {
                out.push(sel.canonical.as_str());
            }
        }
    }
    out
}

/// `(name, value, setters)` of every selected state: a state whose setters are all left out
/// of the selection (an extension that does not apply) is left out with them; a state with
/// no setter in the registry at all is kept with none.
fn states<'a>(cx: &'a Ctx) -> Vec<(&'a str, i64, Vec<&'a str>)> {
    let Some(group) = cx.reg().enums.get("VkDynamicState") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for v in &group.values {
        if matches!(v.value, EnumVal::Alias(_)) {
            continue;
        }
        let Some(value) = crate::device::layout::enum_named(cx.reg(), "VkDynamicState", &v.name)
        else {
            continue;
        };
        let setters = setters(cx, &v.name);
        let in_registry = match overlay(&v.name) {
            Some(_) => true,
            None => cx
                .reg()
                .resolve_command(&setter_name(v.name.trim_start_matches("VK_DYNAMIC_STATE_")))
                .is_some(),
        };
        if setters.is_empty() && in_registry {
            continue;
        }
        out.push((v.name.as_str(), value, setters));
    }
    out
}

pub fn emit(cx: &Ctx) -> Result<String> {
    let index = cx.command_index();
    let states = states(cx);
    let mut out = format!(
        "// {PREAMBLE}\n//! Which recorded command sets each `VkDynamicState` ({} states of this selection),\n\
         //! derived from vk.xml: `VK_DYNAMIC_STATE_FOO_BAR_EXT` is set by `vkCmdSetFooBarEXT`, with\n\
         //! the exceptions of vkgen's `generator/src/emit/dynamic_state.rs` overlay (the vertex\n\
         //! binding strides come from `vkCmdBindVertexBuffers2` and `vkCmdSetVertexInputEXT`, …).\n\n\
         use crate::commands::CommandId;\nuse crate::vk;\n\n\
         /// One dynamic state: its value, its vk.xml name and the canonical commands that set it.\n\
         #[derive(Clone, Copy)]\npub struct DynamicStateInfo {{\n    pub state: vk::DynamicState,\n    \
         pub name: &'static str,\n    pub setters: &'static [CommandId],\n}}\n\n\
         /// Every dynamic state of the selection, in registry order; [`index`] is a position here.\n\
         pub const DYNAMIC_STATES: &[DynamicStateInfo] = &[\n",
        states.len()
    );
    for (name, value, setters) in &states {
        let ids: Vec<String> = setters
            .iter()
            .map(|s| format!("CommandId({})", index[*s]))
            .collect();
        let _ = writeln!(
            out,
            "    DynamicStateInfo {{ state: vk::DynamicState::from_raw({value}), name: \"{name}\", setters: &[{}] }}, // {}",
            ids.join(", "),
            setters.join(", ")
        );
    }
    out.push_str(
        "];\n\n/// The position of `state` in [`DYNAMIC_STATES`] (a bit index for state sets).\n\
         pub fn index(state: vk::DynamicState) -> Option<usize> {\n    match state.as_raw() {\n",
    );
    for (i, (_, value, _)) in states.iter().enumerate() {
        let _ = writeln!(out, "        {value} => Some({i}),");
    }
    out.push_str(
        "        _ => None,\n    }\n}\n\n/// `state`'s entry, if the selection has it.\n\
         pub fn info(state: vk::DynamicState) -> Option<&'static DynamicStateInfo> {\n    \
         index(state).map(|i| &DYNAMIC_STATES[i])\n}\n\n\
         /// The positions in [`DYNAMIC_STATES`] of the states recorded command `cmd` (canonical)\n\
         /// sets; empty for a command that sets none.\npub fn set_by(cmd: CommandId) -> &'static [usize] {\n    match cmd.0 {\n",
    );
    let mut by_cmd: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    for (i, (_, _, setters)) in states.iter().enumerate() {
        for s in setters {
            by_cmd.entry(index[*s]).or_default().push(i);
        }
    }
    for (cmd, list) in &by_cmd {
        let l: Vec<String> = list.iter().map(ToString::to_string).collect();
        let _ = writeln!(out, "        {cmd} => &[{}],", l.join(", "));
    }
    out.push_str("        _ => &[],\n    }\n}\n");
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::setter_name;

    #[test]
    fn state_names_become_setter_names() {
        assert_eq!(setter_name("LINE_WIDTH"), "vkCmdSetLineWidth");
        assert_eq!(setter_name("VERTEX_INPUT_EXT"), "vkCmdSetVertexInputEXT");
        assert_eq!(
            setter_name("VIEWPORT_WITH_COUNT"),
            "vkCmdSetViewportWithCount"
        );
        assert_eq!(
            setter_name("DEPTH_CLIP_NEGATIVE_ONE_TO_ONE_EXT"),
            "vkCmdSetDepthClipNegativeOneToOneEXT"
        );
    }
}
