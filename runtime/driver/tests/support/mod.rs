//! What the kit's integration tests share: an instance of a fixture driver through its own
//! generated `vkGetInstanceProcAddr` (no loader), with one device of its first physical device.
// Each test binary uses part of it.
#![allow(dead_code)]

pub mod glsl;

use ash::vk;
use vkgen_driver::generated::driver::{get_instance_proc_addr, Driver};

/// An instance of driver `D` and a device with `queues` queues of family 0, both at `api`.
pub fn instance_and_device<D: Driver>(api: u32, queues: u32) -> (ash::Instance, ash::Device) {
    // SAFETY: the generated GIPA of a driver type is a valid static entry point.
    let entry = unsafe {
        ash::Entry::from_static_fn(ash::StaticFn {
            get_instance_proc_addr: get_instance_proc_addr::<D>,
        })
    };
    let app = vk::ApplicationInfo::default().api_version(api);
    // SAFETY: a valid create info that lives for the call.
    let instance = unsafe {
        entry.create_instance(
            &vk::InstanceCreateInfo::default().application_info(&app),
            None,
        )
    }
    .unwrap();
    // SAFETY: a live instance of this driver.
    let pd = unsafe { instance.enumerate_physical_devices() }.unwrap()[0];
    let priorities = vec![1.0f32; queues as usize];
    let family = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&priorities)];
    let info = vk::DeviceCreateInfo::default().queue_create_infos(&family);
    // SAFETY: a physical device of `instance` and a create info that lives for the call.
    let device = unsafe { instance.create_device(pd, &info, None) }.unwrap();
    (instance, device)
}
