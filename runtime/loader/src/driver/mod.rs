//! Finding and opening Vulkan drivers.
//!
//! Android has exactly one driver, an HAL module `vulkan.<name>.so` ([`hal`]). Linux hosts have
//! no HAL, so the loader can fall back to the Khronos ICD model ([`icd`]): every manifest-named
//! ICD is opened and their physical devices enumerate together. Everything above this module only
//! needs a driver's `vkGetInstanceProcAddr` and its instance version, so both kinds hide behind
//! [`Driver`].
//!
//! Policy (mirrors `driver.cpp`'s `Hal::Open`):
//! * A HAL module that is found and accepted is the only driver.
//! * No HAL module, or one rejected before its device was opened (no `HMI`, wrong tag or id):
//!   Android then runs with its stub HAL, i.e. zero physical devices; on hosts the ICDs are tried.
//! * A HAL module whose device fails to open is fatal: Android fails `vkCreateInstance` with
//!   `VK_ERROR_INITIALIZATION_FAILED`, and [`load_drivers`] returns the error.
//!
//! The small `dlopen`/`dlsym` helpers shared with layer discovery are in `library`.

/// `0` turns the native-buffer adapter for ICDs off ([`DriverSettings::without_adapter`]).
pub const ADAPTER_ENV: &str = "VKGEN_ICD_ADAPTER";

#[cfg(all(feature = "desktop", not(target_os = "android")))]
pub mod adapter;
pub mod hal;
pub mod hal_search;
pub mod icd;
mod image;
pub mod layout;
pub(crate) mod library;
pub mod linker;
mod settings;

use std::ffi::CStr;

use ash::vk;

pub use hal::{HalDriver, HalError};
pub use icd::{IcdDriver, IcdError, IcdManifest, ManifestError};
pub(crate) use library::{as_fn, open_library, symbol_address, void_fn_as};
pub use settings::DriverSettings;

/// Where a driver came from, and its kind-specific entry points.
#[derive(Debug)]
pub enum DriverSource {
    /// An Android HAL module (`hwvulkan_device_t`).
    Hal(HalDriver),
    /// A Khronos ICD opened from a JSON manifest.
    Icd(IcdDriver),
}

/// One loaded driver: what the instance code talks to at the bottom of the chain.
#[derive(Debug)]
pub struct Driver {
    source: DriverSource,
    name: String,
    api_version: u32,
    /// What the driver's `vkEnumerateInstanceVersion` returned when it failed: AOSP's
    /// `CreateInstance` returns exactly that from `vkCreateInstance`.
    version_failure: Option<vk::Result>,
}

/// Why no driver set could be built. Only HAL device failures are fatal; everything else is
/// logged and skipped inside [`load_drivers`].
#[derive(Debug, thiserror::Error)]
pub enum DriverError {
    /// The HAL module loaded but its device could not be opened or was malformed.
    #[error("HAL driver unusable: {0}")]
    Hal(#[from] HalError),
}

/// The one mapper of driver-loading errors: the `VkResult` `vkCreateInstance` reports,
/// whatever [`hal::map_hal_err`] says (`VK_ERROR_INITIALIZATION_FAILED` for device failures,
/// as Android's `OpenHAL` failure).
pub fn map_driver_err(err: &DriverError) -> vk::Result {
    match err {
        DriverError::Hal(e) => hal::map_hal_err(e),
    }
}

impl Driver {
    /// Wraps a loaded driver and queries its instance version once (drivers answer
    /// `vkEnumerateInstanceVersion` without an instance, so this is cheap and side-effect free).
    pub fn new(source: DriverSource) -> Self {
        let (name, gipa) = match &source {
            DriverSource::Hal(h) => (
                format!("HAL {}", h.path().display()),
                h.get_instance_proc_addr_fn(),
            ),
            DriverSource::Icd(i) => (
                format!(
                    "ICD {} ({}){}",
                    i.manifest().library.display(),
                    i.manifest().manifest_path.display(),
                    i.served_by()
                        .map_or(String::new(), |by| format!(" through {by}"))
                ),
                i.get_instance_proc_addr_fn(),
            ),
        };
        // SAFETY: `gipa` comes from the driver kept alive in `source`; a null instance asks for a
        // global command, which every driver interface permits.
        let (mut api_version, version_failure) =
            match unsafe { query_instance_version(gipa, &name) } {
                Ok(v) => (v, None),
                Err(e) => (vk::API_VERSION_1_0, Some(e)),
            };
        if let DriverSource::Icd(icd) = &source {
            // Khronos rule: a manifest that declares a 1.0 driver makes it 1.0, whatever it says
            // at runtime, so apps never get 1.1 semantics from a driver that promised none.
            if icd
                .manifest()
                .api_version
                .is_some_and(|v| v < vk::API_VERSION_1_1)
            {
                api_version = vk::API_VERSION_1_0;
            }
        }
        log::info!(
            "driver {name}: Vulkan {}.{}",
            vk::api_version_major(api_version),
            vk::api_version_minor(api_version)
        );
        Self {
            source,
            name,
            api_version,
            version_failure,
        }
    }

    /// The failure of the driver's `vkEnumerateInstanceVersion`, if it failed: instance creation
    /// on this driver reports it.
    pub fn version_failure(&self) -> Option<vk::Result> {
        self.version_failure
    }

    /// The kind-specific view (HAL procs, ICD interface version, manifest ...).
    pub fn source(&self) -> &DriverSource {
        &self.source
    }

    /// A human-readable name for logs ("HAL /vendor/lib64/hw/vulkan.x.so", "ICD libfoo.so (...)").
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The driver's instance-level `vkGetInstanceProcAddr` (for ICDs, `vk_icdGetInstanceProcAddr`):
    /// the terminator of every instance call chain. Valid while `self` lives.
    pub fn get_instance_proc_addr_fn(&self) -> vk::PFN_vkGetInstanceProcAddr {
        match &self.source {
            DriverSource::Hal(h) => h.get_instance_proc_addr_fn(),
            DriverSource::Icd(i) => i.get_instance_proc_addr_fn(),
        }
    }

    /// Looks `name` up in the driver.
    ///
    /// # Safety
    /// `instance` must be null or an instance this driver created and that is still alive, and the
    /// returned pointer must only be used while `self` lives (the library stays mapped until then).
    pub unsafe fn get_instance_proc_addr(
        &self,
        instance: vk::Instance,
        name: &CStr,
    ) -> vk::PFN_vkVoidFunction {
        // SAFETY: the caller guarantees `instance` is null or a live instance of this driver, whose
        // GIPA `self` holds while its library is mapped; `name` is a `&CStr`, so NUL-terminated.
        unsafe { (self.get_instance_proc_addr_fn())(instance, name.as_ptr()) }
    }

    /// The driver's instance version (`vkEnumerateInstanceVersion`), patch bits cleared; 1.0 when the
    /// driver lacks the command or it fails (see [`Driver::version_failure`]).
    pub fn api_version(&self) -> u32 {
        self.api_version
    }
}

/// Asks `gipa(NULL, "vkEnumerateInstanceVersion")` for the instance version, as Android's
/// `CreateInstance` does for its ICD version: 1.0 without the command, the command's error when
/// it fails.
///
/// # Safety
/// `gipa` must be a live driver entry point that accepts a null instance.
unsafe fn query_instance_version(
    gipa: vk::PFN_vkGetInstanceProcAddr,
    name: &str,
) -> Result<u32, vk::Result> {
    // SAFETY: the caller guarantees `gipa` is a live driver entry point that accepts a null
    // instance, and the name is a NUL-terminated literal.
    let Some(f) = (unsafe { gipa(vk::Instance::null(), c"vkEnumerateInstanceVersion".as_ptr()) })
    else {
        return Ok(vk::API_VERSION_1_0);
    };
    // SAFETY: a driver returns this exact signature for "vkEnumerateInstanceVersion".
    let enumerate: vk::PFN_vkEnumerateInstanceVersion = unsafe { std::mem::transmute(f) };
    let mut version = 0u32;
    // AOSP's section around this call (in its `CreateInstance`; the loader asks once, here).
    let trace = crate::trace::section("pfn_enumerate_instance_version");
    // SAFETY: `version` is a valid out-pointer for the call.
    let result = unsafe { enumerate(&mut version) };
    drop(trace);
    if result != vk::Result::SUCCESS {
        log::warn!(
            "driver {name}: vkEnumerateInstanceVersion failed ({result:?}); vkCreateInstance on it \
             will return that"
        );
        return Err(result);
    }
    Ok(version & !0xfff)
}

/// Loads the drivers this process will use, following the module-level policy.
///
/// `Ok(vec![])` means "no driver": the loader then behaves like Android's stub HAL (instances
/// work, zero physical devices).
pub fn load_drivers(config: &DriverSettings) -> Result<Vec<Driver>, DriverError> {
    match hal_search::load(config) {
        Ok(hal) => return Ok(vec![Driver::new(DriverSource::Hal(hal))]),
        // `hal_search::load` already logged the rejection reason with the module path.
        Err(e) if e.is_fatal() => {
            log::error!(
                "HAL driver unusable: instance creation will fail with {:?}",
                hal::map_hal_err(&e)
            );
            return Err(e.into());
        }
        Err(e @ HalError::NotFound { .. }) => log::debug!("{e}"),
        Err(_) => log::info!("continuing without a HAL driver"),
    }
    #[cfg(target_os = "android")]
    {
        log::info!("no Vulkan HAL driver: reporting zero physical devices");
        Ok(Vec::new())
    }
    #[cfg(not(target_os = "android"))]
    {
        let drivers: Vec<Driver> = icd::load_all(&config.icd)
            .into_iter()
            .map(|icd| {
                #[cfg(feature = "desktop")]
                let icd = {
                    let mut icd = icd;
                    if !config.without_adapter {
                        adapter::adapt(&mut icd);
                    }
                    icd
                };
                Driver::new(DriverSource::Icd(icd))
            })
            .collect();
        if drivers.is_empty() {
            log::info!("no Vulkan driver found: reporting zero physical devices");
        }
        Ok(drivers)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::isolated_driver;

    #[test]
    fn no_driver_is_an_empty_set_not_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let drivers = load_drivers(&isolated_driver(dir.path())).expect("no driver is fine");
        assert!(drivers.is_empty());
    }
}
