//! The kit's assembly: every component's [`EntryTable`] merged, from the highest priority down,
//! into the command map below a kit driver's hooks, and the glue `#[vkgen_driver::driver(kit)]`
//! names ([`fallback`], [`supports_extension`], [`is_enabled_on_device`]). Nothing in the kit
//! imports it: it sits above every component.

use vkgen_generated::commands::CommandId;
use vkgen_generated::entries::EntryTable;
use vkgen_generated::extensions::ExtensionId;
use vkgen_generated::vk;

use super::api::Kit;
use super::cache::cached_entries;
use super::requirements::report::unimplemented_commands;
#[cfg(vk_1_4)]
use super::routes_1_4;
use super::{
    bring_up, command, common, descriptor, hardware_buffer, native_buffer, objects, pipeline,
    queue, render_pass, resources, routes, shader, sync,
};

/// Every extension a kit driver exposes commands of: the kit's, the vendor's instance and
/// device extensions. (`supports_extension` of a `#[driver(kit)]` type.)
pub fn supports_extension<D: Kit>(ext: ExtensionId) -> bool {
    D::instance_extensions().contains(&ext) || D::device_extensions().contains(&ext)
}

/// Whether `ext` was enabled on `device` (a kit device), or on its instance.
///
/// # Safety
/// `device` is a device handle this driver created.
pub unsafe fn is_enabled_on_device<D: Kit>(device: u64, ext: ExtensionId) -> bool {
    // SAFETY: `device` is a device handle this driver created (this function's contract);
    // `from_raw` checks its signature.
    match unsafe { objects::Device::<D>::from_raw(device) } {
        Some(d) => {
            d.enabled_extensions.contains(ext) || d.instance().enabled_extensions.contains(ext)
        }
        None => false,
    }
}

/// A kit driver's command map below the vendor's hooks (Mesa's
/// `vk_device_dispatch_table_from_entrypoints`): the kit's components from the highest
/// priority down — the sync component first (with it on it also answers the external fence
/// and semaphore queries the commons answer with "nothing"), the queue core, render passes
/// (above the recorder, whose render-pass commands they replace), command
/// buffers (with [`Kit::RECORD_COMMANDS`] the generated recorder), the resource objects (with
/// them on the kit answers both forms of each bind and requirements query itself), the
/// descriptor objects ([`Kit::DESCRIPTOR_OBJECTS`]), the shader objects
/// ([`Kit::SHADER_OBJECTS`]), the pipelines ([`Kit::PIPELINE_OBJECTS`]), the commons, the `…2`
/// routes of 1.3 and 1.4, native buffers, hardware buffers — then, while
/// [`Kit::NULL_OBJECTS`] is on, the kit's bring-up table ([`bring_up::entries`]) minus the commands
/// that take the kit's base objects.
pub fn entries<D: Kit>() -> EntryTable {
    let mut table = sync::entries::<D>()
        .or(&queue::entries::<D>())
        .or(&render_pass::entries::<D>())
        .or(&command::entries::<D>())
        .or(&resources::entries::<D>())
        .or(&descriptor::entries::<D>())
        .or(&shader::entries::<D>())
        .or(&pipeline::entries::<D>())
        .or(&common::entries::<D>())
        .or(&routes::entries::<D>());
    #[cfg(vk_1_4)]
    {
        table = table.or(&routes_1_4::entries::<D>());
    }
    table = table
        .or(&native_buffer::entries::<D>())
        .or(&hardware_buffer::entries::<D>());
    if D::NULL_OBJECTS {
        let mut bring_up = bring_up::entries::<D>();
        bring_up.retain(|cmd| !common::kit_owned(cmd));
        table = table.or(&bring_up);
    }
    table
}

/// [`Driver::fallback`](crate::generated::driver::Driver::fallback) of a kit driver: `cmd`'s entry
/// in [`command_map`].
pub fn fallback<D: Kit>(cmd: CommandId) -> vk::PFN_vkVoidFunction {
    command_map::<D>().get(cmd)
}

/// [`entries`] of driver `D`, built (and reported, see `entries_reported`) once per process.
/// Every reader goes through here: the cache is keyed by the driver type alone, so a second
/// builder would race this one for the slot and could skip the report.
pub fn command_map<D: Kit>() -> &'static EntryTable {
    cached_entries::<D>(entries_reported::<D>)
}

/// [`entries`], and the load-time report: the first lookup of a driver whose command map
/// leaves a command of its version or of an advertised extension NULL says so in the log
/// (the count and the first names as a warning, every one at debug level), so turning
/// [`Kit::NULL_OBJECTS`] off is never a silent cliff.
fn entries_reported<D: Kit>() -> EntryTable {
    let table = entries::<D>();
    let absent = unimplemented_commands::<D>(&table, D::API_VERSION, D::device_extensions(), None);
    if !absent.is_empty() {
        let first: Vec<String> = absent.iter().take(8).map(ToString::to_string).collect();
        log::warn!(
            "{}: {} commands of its version or advertised extensions have no implementation \
             (NULL from vkGet*ProcAddr): {}{}",
            std::any::type_name::<D>(),
            absent.len(),
            first.join("; "),
            if absent.len() > first.len() {
                "; …"
            } else {
                ""
            }
        );
        for m in &absent {
            log::debug!("{}: {m}", std::any::type_name::<D>());
        }
    }
    table
}
