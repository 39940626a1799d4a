//! The once-per-process loader state: Android's `EnsureInitialized` (`OpenHAL` then
//! `DiscoverLayers`).
//!
//! The first entry point that needs drivers or layers (any global command, `vkCreateInstance`)
//! builds a [`Loader`] under a `OnceLock`: the configuration is read from the environment once,
//! the drivers are opened once and queried once for what every instance needs (their
//! `vkCreateInstance` and instance extension list), and the layer libraries are discovered once.
//! Nothing is re-read per call or per instance; drivers and layer libraries stay loaded until
//! the process exits (Android never unloads its HAL either).
//!
//! A fatal driver problem (a HAL module whose device fails to open) is kept as a
//! [`DriverFailure`]: `vkCreateInstance` then fails with its `VkResult`, like Android's failed
//! `EnsureInitialized`.

use std::sync::OnceLock;

use crate::driver::{self, Driver, DriverSource};
use crate::ffi::{enumerate, version_string};
use crate::layers::LayerRegistry;
use crate::{vk, LoaderConfig};

/// Everything the loader knows about the process, built once.
#[derive(Debug)]
pub struct Loader {
    /// The configuration everything was discovered with.
    pub config: LoaderConfig,
    /// The drivers, or why there are none usable.
    pub drivers: Result<Vec<DriverEntry>, DriverFailure>,
    /// Every discovered layer.
    pub layers: LayerRegistry,
}

/// Why instance creation must fail for every instance of this process.
#[derive(Debug, Clone)]
pub struct DriverFailure {
    /// What `vkCreateInstance` returns.
    pub result: vk::Result,
    /// The logged reason.
    pub message: String,
}

/// A loaded driver with the global entry points and data every instance needs.
#[derive(Debug)]
pub struct DriverEntry {
    /// Position in [`Loader::drivers`].
    pub index: usize,
    /// The driver itself (HAL module or ICD).
    pub driver: Driver,
    /// The driver's `vkCreateInstance` (the HAL device's, or `GIPA(NULL, ...)` of an ICD);
    /// `None` makes instance creation on it fail with `VK_ERROR_INCOMPATIBLE_DRIVER`.
    pub create_instance: Option<vk::PFN_vkCreateInstance>,
    /// The driver's instance extensions, as it reports them (unfiltered).
    pub extensions: Vec<vk::ExtensionProperties>,
}

impl DriverEntry {
    fn new(index: usize, driver: Driver) -> Self {
        let gipa = driver.get_instance_proc_addr_fn();
        let (create_instance, enumerate_extensions) = match driver.source() {
            DriverSource::Hal(hal) => (
                Some(hal.create_instance_fn()),
                Some(hal.enumerate_instance_extension_properties_fn()),
            ),
            // SAFETY: a null instance asks an ICD for its global commands, which it must serve;
            // the names fix the function types.
            DriverSource::Icd(_) => unsafe {
                (
                    driver::void_fn_as::<vk::PFN_vkCreateInstance>(gipa(
                        vk::Instance::null(),
                        c"vkCreateInstance".as_ptr(),
                    )),
                    driver::void_fn_as::<vk::PFN_vkEnumerateInstanceExtensionProperties>(gipa(
                        vk::Instance::null(),
                        c"vkEnumerateInstanceExtensionProperties".as_ptr(),
                    )),
                )
            },
        };
        if create_instance.is_none() {
            log::warn!(
                "driver {}: no vkCreateInstance; creating instances on it fails with \
                 VK_ERROR_INCOMPATIBLE_DRIVER",
                driver.name()
            );
        }
        let extensions = match enumerate_extensions {
            Some(f) => enumerate(|count, out| {
                // SAFETY: the driver's global entry point, called with a null layer name and
                // `enumerate`'s valid pointers.
                unsafe { f(std::ptr::null(), count, out) }
            })
            .unwrap_or_else(|e| {
                log::warn!(
                    "driver {}: vkEnumerateInstanceExtensionProperties failed ({e:?}); \
                     treating its extension list as empty",
                    driver.name()
                );
                Vec::new()
            }),
            None => {
                log::warn!(
                    "driver {}: no vkEnumerateInstanceExtensionProperties; no instance extensions",
                    driver.name()
                );
                Vec::new()
            }
        };
        log::debug!(
            "driver {}: Vulkan {}, {} instance extensions",
            driver.name(),
            version_string(driver.api_version()),
            extensions.len()
        );
        Self {
            index,
            driver,
            create_instance,
            extensions,
        }
    }

    /// The driver's `vkGetInstanceProcAddr`.
    pub fn gipa(&self) -> vk::PFN_vkGetInstanceProcAddr {
        self.driver.get_instance_proc_addr_fn()
    }

    /// Whether the driver reports the instance extension `name`.
    pub fn has_extension(&self, name: &std::ffi::CStr) -> bool {
        self.extensions
            .iter()
            .any(|e| e.extension_name_as_c_str() == Ok(name))
    }
}

impl Loader {
    /// Opens the drivers and discovers the layers `config` describes.
    pub fn load(config: LoaderConfig) -> Self {
        let drivers = match driver::load_drivers(&config) {
            Ok(drivers) => Ok(drivers
                .into_iter()
                .enumerate()
                .map(|(i, d)| DriverEntry::new(i, d))
                .collect()),
            Err(e) => {
                let failure = DriverFailure {
                    result: e.vk_result(),
                    message: e.to_string(),
                };
                log::error!(
                    "no usable driver: {}; vkCreateInstance will fail with {:?}",
                    failure.message,
                    failure.result
                );
                Err(failure)
            }
        };
        let layers = LayerRegistry::discover(&config);
        log::info!(
            "loader initialised: {} driver(s), {} layer(s)",
            drivers.as_ref().map_or(0, Vec::len),
            layers.len()
        );
        Self {
            config,
            drivers,
            layers,
        }
    }

    /// The drivers, or an empty list when they failed (callers that must report the failure
    /// look at [`Loader::drivers`] themselves).
    pub fn driver_list(&self) -> &[DriverEntry] {
        self.drivers.as_deref().unwrap_or(&[])
    }
}

static LOADER: OnceLock<Loader> = OnceLock::new();

/// The process's loader state, built on first use from [`LoaderConfig::from_env`].
pub fn loader() -> &'static Loader {
    LOADER.get_or_init(|| {
        crate::logging::init();
        Loader::load(LoaderConfig::from_env())
    })
}
