//! The kit's bring-up answers ([`Kit::NULL_OBJECTS`]): what a vendor has not written yet
//! answers as the kit's components do on their own, with real objects and no rendering, so an
//! unfinished driver already runs programs.
//!
//! The components' entry points are generic over the driver whose switches and hooks they
//! consult. The ones that read a base object (instance, physical device, device, command
//! buffer) are instantiated for the bring-up driver `D` itself: the resource, descriptor,
//! shader, pipeline and render-pass objects on `D`'s own devices (driver-independent structs;
//! pipelines are shown to `D::compile_pipeline`). The ones that take raw handles only — the
//! native-buffer component, the `…2` routes, the sync component — and the stubs for the rest
//! are instantiated for [`Components`], a type of this module with every component on and no
//! device of its own, so that they answer even while `D` has those components off. No driver
//! is named: the kit knows none (the null driver, `runtime/drivers/null`, is a kit client like
//! any vendor's).

use std::ffi::CStr;
use std::marker::PhantomData;

use vkgen_generated::commands::CommandId;
use vkgen_generated::driver::Driver;
use vkgen_generated::entries::EntryTable;
use vkgen_generated::vk;

use crate::export::DriverModule;
use crate::kit::api::{Kit, PhysicalDeviceDesc};
use crate::kit::cache::cached_entries;
use crate::kit::native_buffer::{GrallocQueries, NativeBuffers};
use crate::kit::objects::Instance;

/// The component set the raw-handle parts of the bring-up table are instantiated for: every
/// component on, every command stubbed with `VK_SUCCESS` (AOSP nulldrv's answer), no physical
/// device (it is never exported or enumerated).
#[derive(Debug)]
pub struct Components;

impl DriverModule for Components {
    const NAME: &'static CStr = c"vkgen kit bring-up components";
}

impl Kit for Components {
    type Instance = ();
    type PhysicalDevice = ();
    type Device = ();
    type Queue = ();
    type CommandBuffer = ();
    type CommandPool = ();
    const SYNC_OBJECTS: bool = true;
    const RESOURCE_OBJECTS: bool = true;
    const DESCRIPTOR_OBJECTS: bool = true;
    const SHADER_OBJECTS: bool = true;
    const PIPELINE_OBJECTS: bool = true;
    const RENDER_PASS_OBJECTS: bool = true;
    const RECORD_COMMANDS: bool = true;
    const HARDWARE_BUFFERS: bool = true;

    fn physical_devices(
        _instance: &Instance<Self>,
    ) -> Result<Vec<PhysicalDeviceDesc<Self>>, vk::Result> {
        Ok(Vec::new())
    }
}

impl NativeBuffers for Components {
    // Every gralloc query answers 0; native fences on the sync component's objects.
    const GRALLOC_QUERIES: GrallocQueries = GrallocQueries::ALL;
    const NATIVE_FENCES: bool = true;
}

#[crate::driver(kit)]
impl Driver for Components {
    const API_VERSION: u32 = vkgen_generated::API_VERSION;
    // What no component implements exists and succeeds (nulldrv).
    const STUB_UNIMPLEMENTED: bool = true;

    fn unimplemented(_cmd: CommandId) -> vk::Result {
        vk::Result::SUCCESS
    }
}

/// The bring-up table of driver `D`: the components in priority order, then the stubs. The
/// caller ([`kit::entries`](crate::kit::entries)) drops the commands that take the kit's base objects (the kit
/// commons answer those for `D`). Not the render-pass `vkCmd*` conversions (they need `D`'s
/// recorder and dynamic rendering).
pub fn entries<D: Kit>() -> EntryTable {
    *cached_entries::<BringUp<D>>(build::<D>)
}

/// The key [`entries`] of `D` is cached under (`D`'s own command map is another).
struct BringUp<D>(PhantomData<D>);

fn build<D: Kit>() -> EntryTable {
    let hooks = super::resources::bring_up_entries::<D>()
        .or(&super::descriptor::bring_up_entries::<D>())
        .or(&super::shader::bring_up_entries::<D>())
        .or(&super::pipeline::bring_up_entries::<D>())
        .or(&super::render_pass::bring_up_entries())
        .or(&super::native_buffer::entries::<Components>())
        .or(&super::routes::entries::<Components>());
    // The 1.4 routes exist only in tables generated from a 1.4 registry (build.rs).
    #[cfg(vk_1_4)]
    let hooks = hooks.or(&super::routes_1_4::entries::<Components>());
    hooks
        .or(&super::sync::entries::<Components>())
        .or(&EntryTable::entry_points::<Components>())
}
