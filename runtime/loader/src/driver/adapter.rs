//! The native-buffer adapter: Khronos ICDs served by `vulkan.host.so` (Linux hosts).
//!
//! The loader builds every swapchain on the driver's `VK_ANDROID_native_buffer`, as Android's
//! does, so a desktop ICD (lavapipe, NVIDIA) loaded through its manifest would have no
//! `VK_KHR_swapchain` and no desktop program could present on it. The host driver is exactly
//! an ICD plus native buffers: a passthrough whose commands are the ICD's own functions except
//! the few it intercepts (native-buffer images over host-pointer imports, acquire/release
//! fences, `SYNC_FD` where the ICD lacks it).
//!
//! The loader links no driver code: it opens the host driver library it ships beside itself
//! (`libvulkan_host.so`, or `vulkan.host.so`; `VKGEN_HOST_DRIVER` names another, ignored in
//! setuid processes) and hands it each ICD it has already scanned and negotiated through the
//! C entry point `vkgen_host_adapt_icd` (`vkgen_abi::adapter`). The ICD is scanned once, by
//! the loader's rules; the host driver never opens it again. Which ICDs the host driver takes
//! is its decision (a Vulkan ≥ 1.1 instance, a device with `VK_EXT_external_memory_host`, no
//! native buffer of its own); every other answer leaves the ICD as it is, and so does a
//! missing or broken host driver library. Each adapted ICD gets entry points of its own, so
//! several ICDs are served at once. `VKGEN_ICD_ADAPTER=0` turns the adapter off. Android builds
//! have no ICDs and no adapter.

use std::ffi::{CString, OsStr};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use ash::vk;
use libloading::os::unix::Library;
use vkgen_abi::adapter::{
    HostIcdEntry, HostIcdInfo, PFN_vkgen_host_adapt_icd, ADAPT_ICD_NAME, HOST_ICD_INFO_VERSION,
};

use super::icd::IcdDriver;

/// What the driver's name says in logs.
const ADAPTER: &str = "the native-buffer adapter (host driver)";
/// Names another host driver library than the one beside the loader.
pub const HOST_DRIVER_ENV: &str = "VKGEN_HOST_DRIVER";
/// The host driver's file names, tried in order beside the loader.
const HOST_DRIVER_NAMES: [&str; 2] = ["libvulkan_host.so", "vulkan.host.so"];

/// The opened host driver: its library (kept for the life of the process, since adapted ICDs'
/// entry points live in it) and its adapt function.
struct HostDriverLibrary {
    path: PathBuf,
    adapt: PFN_vkgen_host_adapt_icd,
    _library: Library,
}

/// Where the host driver library is: `$VKGEN_HOST_DRIVER`, else beside the loader.
fn host_driver_candidates() -> Vec<PathBuf> {
    if let Some(p) =
        crate::host_env::trusted_env_path(HOST_DRIVER_ENV).filter(|p| !p.as_os_str().is_empty())
    {
        return vec![p];
    }
    let Some(own) = super::icd::own_object_path() else {
        return Vec::new();
    };
    // The loader may be reached through a link (`libvulkan.so.1` in a test's directory); the
    // host driver is installed beside the real file.
    let own = std::fs::canonicalize(own).unwrap_or_else(|_| own.to_path_buf());
    let Some(dir) = own.parent() else {
        return Vec::new();
    };
    HOST_DRIVER_NAMES.iter().map(|n| dir.join(n)).collect()
}

/// The host driver lookup, done at most once per process: the library, or every path searched.
static HOST: OnceLock<Result<HostDriverLibrary, Vec<PathBuf>>> = OnceLock::new();

/// Opens the host driver once per process; `None` where there is none (the paths searched are
/// kept for [`warn_unadapted_icd`]).
fn host_driver() -> Option<&'static HostDriverLibrary> {
    HOST.get_or_init(|| {
        let candidates = host_driver_candidates();
        for path in &candidates {
            if !path.is_file() {
                continue;
            }
            let library = match super::library::open_library(path) {
                Ok(l) => l,
                Err(e) => {
                    log::warn!("{ADAPTER}: cannot open {}: {e}", path.display());
                    continue;
                }
            };
            let Some(adapt) = super::library::symbol_address(&library, ADAPT_ICD_NAME) else {
                log::warn!(
                    "{ADAPTER}: {} has no {}; ICDs are used as they are",
                    path.display(),
                    ADAPT_ICD_NAME.to_string_lossy()
                );
                continue;
            };
            // SAFETY: the symbol is `vkgen_host_adapt_icd`, whose type `vkgen_abi::adapter`
            // declares for both sides.
            let adapt: PFN_vkgen_host_adapt_icd = unsafe { super::library::as_fn(adapt) };
            log::info!("{ADAPTER}: {}", path.display());
            return Ok(HostDriverLibrary {
                path: path.clone(),
                adapt,
                _library: library,
            });
        }
        log::info!(
            "{ADAPTER}: no host driver library (tried {}); ICDs are used as they are",
            searched(&candidates)
        );
        Err(candidates)
    })
    .as_ref()
    .ok()
}

fn searched(candidates: &[PathBuf]) -> String {
    if candidates.is_empty() {
        return "nothing: the loader's own path is unknown".to_owned();
    }
    candidates
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A device of the ICD `driver_name` has no `VK_ANDROID_native_buffer`, so no `VK_KHR_swapchain`:
/// where that is because no host driver library was found (a loader installed without it),
/// says so once per process at `warn`, naming the paths searched. Nothing where the adapter is
/// off (`VKGEN_ICD_ADAPTER=0`, so never looked up) or was found (it declined this ICD and said
/// why at `info`).
pub fn warn_unadapted_icd(driver_name: &str) {
    static WARNED: std::sync::Once = std::sync::Once::new();
    if let Some(Err(candidates)) = HOST.get() {
        WARNED.call_once(|| {
            log::warn!(
                "ICD {driver_name} has no VK_ANDROID_native_buffer and no {ADAPTER} library was \
                 found (searched {}): its devices have no VK_KHR_swapchain. Install \
                 libvulkan_host.so beside the loader (README, \"Install on a Linux host\") or \
                 name it in {HOST_DRIVER_ENV}",
                searched(candidates)
            );
        });
    }
}

fn c_path(p: &Path) -> CString {
    let bytes: &OsStr = p.as_os_str();
    CString::new(bytes.as_bytes()).unwrap_or_default()
}

/// Serves `icd` through the host driver when it takes it (see the module docs); logs why not.
pub fn adapt(icd: &mut IcdDriver) {
    // A vkgen driver brings its own native buffers: the host driver is not even opened for it.
    if icd.is_vkgen_driver() {
        log::info!(
            "ICD {}: a vkgen driver (exports HMI); no adapter needed",
            icd.manifest().manifest_path.display()
        );
        return;
    }
    let Some(host) = host_driver() else {
        return;
    };
    let manifest_path = icd.manifest().manifest_path.clone();
    let manifest = c_path(&manifest_path);
    let library = c_path(&icd.manifest().library);
    let info = HostIcdInfo {
        struct_version: HOST_ICD_INFO_VERSION,
        interface_version: icd.interface_version(),
        manifest_path: manifest.as_ptr(),
        library_path: library.as_ptr(),
        get_instance_proc_addr: Some(icd.get_instance_proc_addr_fn()),
        get_physical_device_proc_addr: icd.get_physical_device_proc_addr_fn(),
    };
    let mut entry = HostIcdEntry {
        get_instance_proc_addr: None,
        get_physical_device_proc_addr: None,
    };
    // SAFETY: the host driver's adapt function with a valid info (its strings live until the
    // end of this function, the ICD's entry points for the process) and a valid out-pointer.
    // Its entry point guards panics itself.
    let r = unsafe { (host.adapt)(&info, &mut entry) };
    match (
        r,
        entry.get_instance_proc_addr,
        entry.get_physical_device_proc_addr,
    ) {
        (vk::Result::SUCCESS, Some(gipa), Some(gpdpa)) => {
            icd.serve_through(ADAPTER, gipa, gpdpa);
            log::info!(
                "ICD {}: served through {ADAPTER} ({}), which adds VK_ANDROID_native_buffer",
                manifest_path.display(),
                host.path.display()
            );
        }
        (vk::Result::SUCCESS, ..) => log::warn!(
            "ICD {}: {ADAPTER} answered VK_SUCCESS without entry points; using the ICD as it is",
            manifest_path.display()
        ),
        (vk::Result::ERROR_INCOMPATIBLE_DRIVER, ..) => log::info!(
            "ICD {}: {ADAPTER} adds nothing to it; using the ICD as it is",
            manifest_path.display()
        ),
        (other, ..) => log::warn!(
            "ICD {}: {ADAPTER} refused it ({other:?}); using the ICD as it is",
            manifest_path.display()
        ),
    }
}
