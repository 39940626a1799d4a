//! The native-buffer adapter: Khronos ICDs behind the host driver's backend (Linux hosts).
//!
//! The loader builds every swapchain on the driver's `VK_ANDROID_native_buffer`, as Android's
//! does, so a desktop ICD (lavapipe, NVIDIA) loaded through its manifest would have no
//! `VK_KHR_swapchain` and no desktop program could present on it. The host driver
//! (`vkgen_driver::backend::host`, also shipped as `vulkan.host.so`) is exactly an ICD plus
//! native buffers: a passthrough whose commands are the ICD's own functions except the few it
//! intercepts (native-buffer images over host-pointer imports, acquire/release fences, `SYNC_FD`
//! where the ICD lacks it). So an ICD it can serve is served through it, in process: the
//! driver's `vk_icdGetInstanceProcAddr` / `vk_icdGetPhysicalDeviceProcAddr` become the host
//! backend's, which calls the ICD. Which ICDs (`host::adopt`): a Vulkan ≥ 1.1 instance, a device
//! with `VK_EXT_external_memory_host`, no native buffer of its own, and not a vkgen driver
//! (those export `HMI` and have their own). The host backend serves one ICD per process: with
//! several, the first adaptable one is served and the others stay as they are (no swapchain).
//! `VKGEN_ICD_ADAPTER=0` turns the adapter off. Android builds have no ICDs and no adapter.

use vkgen_driver::backend::host::{self, HostDriver, HostError};
use vkgen_driver::export::entry;

use super::icd::IcdDriver;

/// What the driver's name says in logs.
const ADAPTER: &str = "the native-buffer adapter (host driver)";

/// Serves `icd` through the host backend when it can (see the module docs); logs why not.
pub fn adapt(icd: &mut IcdDriver) {
    let manifest = icd.manifest().manifest_path.clone();
    // The probe runs the ICD's code; whatever it does, loading goes on without the adapter.
    let adopted = std::panic::catch_unwind(|| host::adopt(&manifest).map(|_| ()));
    let Ok(adopted) = adopted else {
        log::warn!(
            "ICD {}: the native-buffer adapter's probe panicked; using the ICD as it is",
            manifest.display()
        );
        return;
    };
    match adopted {
        Ok(_) => {
            let mut version = icd.interface_version();
            // SAFETY: negotiation only validates and answers the version through the pointer.
            let negotiated = unsafe { entry::negotiate::<HostDriver>(&mut version) };
            if negotiated != ash::vk::Result::SUCCESS {
                log::warn!(
                    "ICD {}: the native-buffer adapter refused interface {version} \
                     ({negotiated:?}); using the ICD as it is",
                    manifest.display()
                );
                return;
            }
            icd.serve_through(
                ADAPTER,
                entry::icd_get_instance_proc_addr::<HostDriver>,
                entry::icd_get_physical_device_proc_addr::<HostDriver>,
            );
            log::info!(
                "ICD {}: served through {ADAPTER}, which adds VK_ANDROID_native_buffer",
                manifest.display()
            );
        }
        Err(e @ (HostError::NotAdaptable { .. } | HostError::Taken { .. })) => {
            log::info!("{e}; using the ICD as it is");
        }
        Err(e) => log::warn!("native-buffer adapter: {e}; using the ICD as it is"),
    }
}
