//! The rules applied to a driver: what its descriptions drop, which commands of its version
//! and extensions it leaves without an implementation, and which format features it declares
//! but cannot run.

use vkgen_generated::extensions::{self as exts, ExtensionId};
use vkgen_generated::vk;

use super::super::api::{Kit, PhysicalDeviceDesc};
use super::super::extensions::ExtensionSet;
use super::finding::Missing;
use super::rules::dropped;

/// The load-time report of the descriptions: the first instance of each driver type logs, as
/// warnings, the features its devices turn on but cannot expose ([`dropped`]) — once per
/// process, since a driver describes its devices anew at every `vkCreateInstance`.
pub fn report_dropped<D: Kit>(descs: &[PhysicalDeviceDesc<D>]) {
    use std::any::TypeId;
    static REPORTED: std::sync::Mutex<Vec<TypeId>> = std::sync::Mutex::new(Vec::new());
    {
        let mut reported = REPORTED
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if reported.contains(&TypeId::of::<D>()) {
            return;
        }
        reported.push(TypeId::of::<D>());
    }
    for d in descs {
        let exts = ExtensionSet::from_ids(&d.extensions);
        for m in dropped(d.properties.api_version, &exts, &d.features) {
            log::warn!("{}: {m}", std::any::type_name::<D>());
        }
    }
}

/// `VK_VERSION_1_x` of a `VK_MAKE_API_VERSION` value.
fn version_name(v: u32) -> &'static str {
    const NAMES: [&str; 10] = [
        "VK_VERSION_1_0",
        "VK_VERSION_1_1",
        "VK_VERSION_1_2",
        "VK_VERSION_1_3",
        "VK_VERSION_1_4",
        "VK_VERSION_1_5",
        "VK_VERSION_1_6",
        "VK_VERSION_1_7",
        "VK_VERSION_1_8",
        "VK_VERSION_1_9",
    ];
    NAMES
        .get(vk::api_version_minor(v) as usize)
        .copied()
        .unwrap_or("VK_VERSION_1_x")
}

/// Every command core up to `api_version` or of an advertised extension (the device
/// extensions given, and the driver's instance extensions) that driver `D` does not implement,
/// given `table`, its command map below the hooks ([`entries`](crate::kit::entries)):
/// [`Missing::Command`] where it answers NULL (the entry-table view), and with `executes` (the
/// engine's `Execute::implements`) [`Missing::Unexecuted`] where the kit records a `vkCmd*` the
/// engine does not run (the recorder view). The get-proc-addr commands are always answered;
/// commands of extensions the loader implements (WSI) are not the driver's unless it advertises
/// them.
pub fn unimplemented_commands<D: Kit>(
    table: &vkgen_generated::entries::EntryTable,
    api_version: u32,
    device_extensions: &[ExtensionId],
    executes: Option<fn(vkgen_generated::commands::CommandId) -> bool>,
) -> Vec<Missing> {
    use vkgen_generated::commands::{self, CommandId, Origin};
    let mut advertised = ExtensionSet::from_ids(device_extensions);
    advertised = advertised.union(&ExtensionSet::from_ids(D::instance_extensions()));
    let mut out = Vec::new();
    for i in 0..commands::COMMANDS.len() {
        let id = CommandId(i as u16);
        let info = commands::info(id);
        let canonical = vkgen_generated::driver::canonical(id);
        if canonical == CommandId::GET_INSTANCE_PROC_ADDR
            || canonical == CommandId::GET_DEVICE_PROC_ADDR
        {
            continue;
        }
        // An alias counts by its own origin (`vkCmdPushDescriptorSetKHR` is promised by
        // `VK_KHR_push_descriptor`, its 1.4 command by the version) and is answered by its
        // command's implementation.
        let by = match info.origin {
            Origin::Core(v) if v <= api_version => version_name(v),
            _ => match info.extensions().iter().find(|&&e| advertised.contains(e)) {
                Some(&e) => exts::info(e).name().to_str().unwrap_or("?"),
                None => continue,
            },
        };
        let command = info.name().to_str().unwrap_or("?");
        if D::implements(canonical) {
            continue;
        }
        if table.get(canonical).is_none() && !D::STUB_UNIMPLEMENTED {
            out.push(Missing::Command { command, by });
        } else if let Some(executes) = executes {
            // A command the kit applies itself at replay (events, timestamps, with
            // `HOST_TRANSFERS` the transfers) is run without the engine.
            if D::RECORD_COMMANDS
                && super::super::command::COMMANDS.contains(&canonical)
                && !executes(canonical)
                && !super::super::command::kit_applies::<D>(canonical)
            {
                out.push(Missing::Unexecuted { command, by });
            }
        }
    }
    out
}

/// [`Missing::FormatFeature`] for every format feature device `physical` answers
/// ([`Kit::format_properties`], over every format of the table) whose commands driver `D`
/// does not run: no hook and no entry in `table`, or — for a recording driver, with
/// `executes` (the engine's `Execute::implements`) given — recorded but not executed. A
/// recording driver without `executes` is not judged (what its engine runs is not known).
pub fn unrunnable_format_features<D: Kit>(
    physical: &super::super::objects::PhysicalDevice<D>,
    table: &vkgen_generated::entries::EntryTable,
    executes: Option<fn(vkgen_generated::commands::CommandId) -> bool>,
) -> Vec<Missing> {
    let advertised = super::super::format::all()
        .iter()
        .map(|f| (f.format, D::format_properties(physical, f.format)));
    format_findings::<D>(advertised, table, executes)
}

/// [`unrunnable_format_features`] of formats `advertised` (a device's answers, or a
/// description's declarations).
pub fn format_findings<D: Kit>(
    advertised: impl IntoIterator<Item = (vk::Format, vk::FormatProperties)>,
    table: &vkgen_generated::entries::EntryTable,
    executes: Option<fn(vkgen_generated::commands::CommandId) -> bool>,
) -> Vec<Missing> {
    use vkgen_generated::commands;
    let runs = |name: &str, format: vk::Format| {
        let Some(id) = std::ffi::CString::new(name)
            .ok()
            .and_then(|c| commands::lookup(&c))
        else {
            return false; // not in these tables: nothing can run it
        };
        let canonical = vkgen_generated::driver::canonical(id);
        if D::implements(canonical) {
            return true;
        }
        if table.get(canonical).is_none() {
            return false;
        }
        if D::RECORD_COMMANDS && super::super::command::COMMANDS.contains(&canonical) {
            // The engine's method serves every format; without it, the kit's host transfer
            // serves the formats it lays out.
            return executes.is_none_or(|e| e(canonical))
                || (super::super::transfer::provides::<D>(canonical)
                    && super::super::transfer::runs_on(canonical, format));
        }
        true
    };
    super::super::format::support::unrunnable(advertised, runs)
        .into_iter()
        .map(|u| Missing::FormatFeature {
            feature: u.feature,
            commands: u.commands.join("/"),
            count: u.count,
            examples: u.examples.join(", "),
        })
        .collect()
}
