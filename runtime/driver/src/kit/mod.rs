//! The driver kit: what every vkgen driver gets without writing it (Mesa's `vk_instance`,
//! `vk_physical_device`, `vk_device`, `vk_queue` and `vk_common_*` fallbacks, in Rust).
//!
//! A vendor describes hardware; the kit answers the API around it. The files keep one-way
//! arrows: [`api`] is what a vendor implements and fills (the [`Kit`] trait and
//! [`PhysicalDeviceDesc`]), the components below implement the API around it and never import
//! the assembly, and [`assembly`] wires the components into the driver's command map; this
//! file only declares the modules and re-exports the public surface.
//!
//! The hooks take the kit's objects, so the objects cannot depend on [`Kit`]: they are bounded
//! on [`KitTypes`] (the vendor-data associated types, a leaf every [`Kit`] has), and each
//! component keeps its data (`command/object.rs`, `pipeline/object.rs`, `queue/batch.rs`,
//! `resources/device_memory.rs`, …) apart from the commands that call the hooks. Arrows run
//! from the commands to [`api`] and the data, from [`api`] to the data, never back.
//!
//! * [`Kit`] is the vendor's trait: the instance version and extensions, the physical devices
//!   (a [`PhysicalDeviceDesc`]: flat [`Features`] and [`Properties`] tables generated from the
//!   registry, queue families, memory types, device extensions), and the vendor data of each
//!   base object. Everything has a default but the object types.
//! * [`objects`] holds the base objects the kit creates and the vendor's data rides in:
//!   [`Instance`], [`PhysicalDevice`], [`Device`], [`Queue`] (loader slot in word 0, allocator,
//!   application info, enabled extensions and features, debug callbacks).
//! * [`common`] implements, once and generically, the commands whose behaviour follows from
//!   those tables: global and instance enumeration, every physical-device query and its `…2`
//!   twin, instance and device creation with the spec's checks (unknown or unsupported extension
//!   → `VK_ERROR_EXTENSION_NOT_PRESENT`, unmet `depends=` likewise, unsupported feature →
//!   `VK_ERROR_FEATURE_NOT_PRESENT`), queues, `VK_EXT_debug_report` and `VK_EXT_debug_utils`.
//! * [`entries`] is the driver's command map below its hooks, and [`fallback`] how the
//!   get-proc-addr functions reach it (`#[vkgen_driver::driver(kit)]` makes it the driver's
//!   [`Driver::fallback`](crate::generated::driver::Driver::fallback)). Each component states what
//!   it implements as an [`EntryTable`](crate::generated::entries::EntryTable) — a struct generated
//!   from the registry with one slot per command, typed as the command — and the tables merge from
//!   the highest priority down, as Mesa's `vk_device_dispatch_table_from_entrypoints`: the vendor's
//!   hook, then the kit's common implementation (including "one hook per concept" routing:
//!   `vkBindBufferMemory` through the vendor's `vkBindBufferMemory2` and back, the 1.0 queries
//!   through the `…2` ones, and in [`routes`] `vkQueueSubmit`, barriers, events, timestamps, copies
//!   and render-pass commands through their Vulkan 1.3 `…2` forms, and in [`routes_1_4`] map/unmap,
//!   index-buffer, subresource-layout, descriptor-set, push-constant and push-descriptor
//!   commands to and from their Vulkan 1.4 forms), then the kit's bring-up table ([`bring_up`])
//!   while
//!   [`Kit::NULL_OBJECTS`] is on, and otherwise nothing — a NULL proc address, never a stub.
//! * [`queue`] and [`sync`] are the queue and sync core ([`Kit::SYNC_OBJECTS`], Mesa's
//!   `vk_queue` and `vk_sync`): batches held until their waits resolve and handed to
//!   [`Kit::driver_submit`], fences and binary/timeline semaphores the kit signals, host waits,
//!   queue and device idle, `SYNC_FD` interop.
//! * [`transfer`] runs the transfer commands (fills, updates, copies, clears, blits, resolves)
//!   on host memory at replay when the engine does not ([`Kit::HOST_TRANSFERS`]).
//! * [`bring_up`] is that bring-up table, made of the kit's own components: the kit names no
//!   driver (the null driver, `runtime/drivers/null`, is a kit client like a vendor's).
//!
//! Why tables and not hooks for queries: a device that answers `vkGetPhysicalDeviceFeatures2`
//! by hand has to know every feature structure of every registry it is built against; a table
//! generated from the registry fills any chain in any order, and regenerating on a spec bump
//! adds the new structures without touching the driver.

#[macro_use]
mod macros;

pub mod api;
pub mod assembly;

pub mod bring_up;
mod cache;
pub mod command;
pub mod common;
pub mod debug;
pub mod defaults;
pub mod descriptor;
pub mod extensions;
pub mod format;
pub mod hardware_buffer;
pub mod native_buffer;
pub mod objects;
pub mod pipeline;
pub mod queue;
pub mod render_pass;
pub mod requirements;
pub mod resources;
pub mod routes;
// Vulkan 1.4's names (`EntryTable::map_memory2`, `vk::MemoryMapInfo`, …) exist only in tables
// generated from a 1.4 registry (build.rs).
#[cfg(vk_1_4)]
pub mod routes_1_4;
pub mod shader;
pub mod state;
pub mod sync;
mod tables;
pub mod transfer;
pub mod types;

pub use api::{Kit, PhysicalDeviceDesc, KIT_INSTANCE_EXTENSIONS};
pub use assembly::{command_map, entries, fallback, is_enabled_on_device, supports_extension};
pub use cache::cached_entries;
pub use extensions::{ExtensionError, ExtensionSet};
pub use objects::{Device, DeviceInfo, Instance, InstanceInfo, PhysicalDevice, Queue};
pub use tables::{Features, Properties};
pub use types::KitTypes;
