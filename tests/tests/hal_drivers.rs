//! Our loader with vkgen's reference drivers installed in a temporary Android HAL root
//! (`<root>/vendor/lib64/hw/vulkan.<ro.hardware.vulkan>.so`): the host driver passes through to
//! lavapipe and must run the compute check; the null driver must enumerate and create a device.
//! No ICD manifest is visible to the child, so only the HAL path can supply the devices.

use std::path::PathBuf;

use ash::vk;
use tempfile::TempDir;
use vkgen_tests::env::{in_child, Env};
use vkgen_tests::{compute, paths, require, scenarios};

/// A HAL root holding `vulkan.<name>.so` → the built reference driver, and a properties file
/// selecting it.
fn hal_env(name: &str) -> (Env, TempDir) {
    let lib = paths::profile_dir().join(format!("libvulkan_{name}.so"));
    assert!(
        lib.is_file(),
        "{} not built: run cargo build --release --workspace",
        lib.display()
    );
    let root = tempfile::tempdir().unwrap();
    let hw = root.path().join("vendor/lib64/hw");
    std::fs::create_dir_all(&hw).unwrap();
    std::os::unix::fs::symlink(&lib, hw.join(format!("vulkan.{name}.so"))).unwrap();
    let props: PathBuf = root.path().join("build.prop");
    std::fs::write(
        &props,
        format!("# test device\nro.hardware.vulkan={name}\n"),
    )
    .unwrap();
    let empty = root.path().join("no-icds");
    std::fs::create_dir_all(&empty).unwrap();
    let env = Env::new()
        .set("VKGEN_HAL_ROOT", root.path())
        .set("VKGEN_PROPERTIES", &props)
        .set("VK_DRIVER_FILES", &empty)
        .set("VKGEN_HOST_ICD", require(paths::lavapipe_manifest()));
    (env, root)
}

#[test]
fn host_driver_through_hal_runs_compute() {
    let loader = require(paths::loader_under_test());
    let (env, _root) = hal_env("host");
    in_child("host_driver_through_hal_runs_compute", &env, || {
        scenarios::fill_compute(&loader);
    });
}

#[test]
fn null_driver_through_hal() {
    let loader = require(paths::loader_under_test());
    let (env, _root) = hal_env("null");
    in_child("null_driver_through_hal", &env, || {
        let entry = require(compute::load_entry(&loader));
        let names = require(compute::physical_device_names(&entry));
        assert_eq!(
            names,
            ["vkgen null device"],
            "the HAL null driver is the one device"
        );
        let instance =
            require(compute::create_instance(&entry, &[], &[]).map_err(|e| format!("{e:?}")));
        // SAFETY: valid instance; the device and fence are destroyed before the instance.
        unsafe {
            let pd = instance.enumerate_physical_devices().unwrap()[0];
            let priorities = [1.0f32];
            let queue_info = [vk::DeviceQueueCreateInfo::default()
                .queue_family_index(0)
                .queue_priorities(&priorities)];
            let device = instance
                .create_device(
                    pd,
                    &vk::DeviceCreateInfo::default().queue_create_infos(&queue_info),
                    None,
                )
                .expect("vkCreateDevice on the null driver");
            let fence = device
                .create_fence(
                    &vk::FenceCreateInfo::default().flags(vk::FenceCreateFlags::SIGNALED),
                    None,
                )
                .unwrap();
            assert_eq!(device.get_fence_status(fence), Ok(true));
            let gdpa = instance.fp_v1_0().get_device_proc_addr;
            assert!(gdpa(device.handle(), c"vkCreateFence".as_ptr()).is_some());
            assert!(
                gdpa(device.handle(), c"vkEnumeratePhysicalDevices".as_ptr()).is_none(),
                "instance-level via GDPA"
            );
            device.destroy_fence(fence, None);
            device.destroy_device(None);
        }
        println!("null driver through the HAL: device, fence and GDPA rules ok");
    });
}
