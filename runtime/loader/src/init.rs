//! The once-per-process-id loader state: Android's `EnsureInitialized` (`OpenHAL` then
//! `DiscoverLayers`, attempted once per `getpid()`).
//!
//! The first entry point that needs drivers or layers (any global command, `vkCreateInstance`)
//! builds a [`Loader`]: the configuration is read from the environment, the drivers are opened
//! and queried once for what every instance needs (their `vkCreateInstance` and instance
//! extension list), and the layer libraries are discovered. A forked child (an app forked from
//! a zygote that preloaded the loader with `vkEnumerateInstanceVersion`) initialises again on
//! its first call: the drivers opened before the fork are kept, as AOSP keeps its HAL device,
//! unless the child has a driver namespace (it uses the updatable driver): then the preloaded
//! HAL is closed and unloaded and the drivers are opened again (`Hal::Open`'s
//! `ShouldUnloadBuiltinDriver`). The configuration and the layers are the child's own. The
//! `debug.vulkan.*` properties are not part of this state: `vkCreateInstance` reads them each
//! time. Drivers and layer libraries otherwise stay loaded until the process exits, as AOSP's.
//!
//! A fatal driver problem (a HAL module whose device fails to open) is kept as a
//! [`DriverFailure`]: `vkCreateInstance` then fails with its `VkResult` and the three global
//! enumerations with `VK_ERROR_OUT_OF_HOST_MEMORY`, like Android's failed `EnsureInitialized`.

use std::sync::{Arc, Mutex};

use crate::config::LoaderConfig;
use crate::driver::{self, Driver, DriverSettings, DriverSource};
use crate::ffi::{enumerate, version_string};
use crate::layers::LayerRegistry;
use vkgen_generated::vk;

/// Everything the loader knows about the process, built once.
#[derive(Debug)]
pub struct Loader {
    /// The configuration everything was discovered with.
    pub config: LoaderConfig,
    /// The drivers, or why there are none usable (shared with the state of a forked child).
    pub drivers: Result<Arc<Vec<DriverEntry>>, DriverFailure>,
    /// Every discovered layer.
    pub layers: LayerRegistry,
    /// Where GraphicsEnv's statistics go ([`crate::gpu_stats`]).
    pub stats: Arc<dyn crate::gpu_stats::GpuStats>,
    /// [`Loader::instance_extensions_made_by`]'s list.
    instance_extensions: std::sync::OnceLock<Vec<vk::ExtensionProperties>>,
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
    /// The HAL device's `vkEnumerateInstanceExtensionProperties` failure, if it failed: AOSP
    /// returns it from `vkEnumerateInstanceExtensionProperties(NULL)` and `vkCreateInstance`.
    pub extensions_failure: Option<vk::Result>,
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
        let mut extensions_failure = None;
        let extensions = match enumerate_extensions {
            Some(f) => enumerate(|count, out| {
                // AOSP's section around each of its calls to the HAL's list (in its
                // `EnumerateInstanceExtensionProperties`; the loader asks once, here).
                let _trace = crate::trace::section("driver.EnumerateInstanceExtensionProperties");
                // SAFETY: the driver's global entry point, called with a null layer name and
                // `enumerate`'s valid pointers.
                unsafe { f(std::ptr::null(), count, out) }
            })
            .unwrap_or_else(|e| {
                if matches!(driver.source(), DriverSource::Hal(_)) {
                    log::error!(
                        "driver {}: vkEnumerateInstanceExtensionProperties failed ({e:?}): \
                         enumerating instance extensions and creating instances return it",
                        driver.name()
                    );
                    extensions_failure = Some(e);
                } else {
                    log::warn!(
                        "driver {}: vkEnumerateInstanceExtensionProperties failed ({e:?}); \
                         treating its extension list as empty",
                        driver.name()
                    );
                }
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
            extensions_failure,
        }
    }

    /// The driver's `vkGetInstanceProcAddr`.
    pub fn gipa(&self) -> vk::PFN_vkGetInstanceProcAddr {
        self.driver.get_instance_proc_addr_fn()
    }

    /// Whether the driver is the Android HAL (whose extension lists pass through as AOSP's).
    pub fn is_hal(&self) -> bool {
        matches!(self.driver.source(), DriverSource::Hal(_))
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
        Self::load_keeping(config, None)
    }

    /// [`Loader::load`], keeping `previous`'s drivers when they had loaded (a forked child's
    /// initialisation).
    pub(crate) fn load_keeping(config: LoaderConfig, previous: Option<&Loader>) -> Self {
        let kept = previous.and_then(|p| p.drivers.as_ref().ok().cloned());
        // The configuration split into what each subsystem reads.
        let driver_settings = config.driver_settings();
        let kept = kept.filter(|drivers| !unload_builtin_driver(drivers, &driver_settings));
        let drivers = match kept {
            Some(drivers) => Ok(drivers),
            None => Self::open_drivers(&driver_settings),
        };
        let layers = LayerRegistry::discover(&config.layer_settings());
        log::info!(
            "loader initialised for pid {}: {} driver(s){}, {} layer(s)",
            std::process::id(),
            drivers.as_ref().map_or(0, |d| d.len()),
            if previous.is_some() {
                " (kept across fork)"
            } else {
                ""
            },
            layers.len()
        );
        Self {
            stats: crate::gpu_stats::for_settings(&config.stats_settings()),
            config,
            drivers,
            layers,
            instance_extensions: std::sync::OnceLock::new(),
        }
    }

    fn open_drivers(config: &DriverSettings) -> Result<Arc<Vec<DriverEntry>>, DriverFailure> {
        // A platform function missing is not "no driver" (the stub HAL, zero GPUs): the process
        // cannot use Vulkan, as AOSP's libvulkan could not load without the library.
        if let Err(missing) = driver::linker::for_settings(config).platform_ready() {
            let failure = DriverFailure {
                result: vk::Result::ERROR_INITIALIZATION_FAILED,
                message: missing,
            };
            log::error!(
                "{}; vkCreateInstance will fail with {:?}",
                failure.message,
                failure.result
            );
            return Err(failure);
        }
        match driver::load_drivers(config) {
            Ok(drivers) => Ok(Arc::new(
                drivers
                    .into_iter()
                    .enumerate()
                    .map(|(i, d)| DriverEntry::new(i, d))
                    .collect(),
            )),
            Err(e) => {
                let failure = DriverFailure {
                    result: driver::map_driver_err(&e),
                    message: e.to_string(),
                };
                log::error!(
                    "no usable driver: {}; vkCreateInstance will fail with {:?}",
                    failure.message,
                    failure.result
                );
                Err(failure)
            }
        }
    }

    /// The HAL's failed extension enumeration, if any (see [`DriverEntry::extensions_failure`]).
    pub fn extensions_failure(&self) -> Option<vk::Result> {
        self.driver_list().iter().find_map(|d| d.extensions_failure)
    }

    /// What `make` gives for [`Loader::driver_list`], made at the first call and kept: the
    /// loader's and the drivers' visible instance extensions
    /// (`terminator::instance::available_driver_instance_extensions`, the one caller), which
    /// every `vkCreateInstance` reads and which cannot change for this state's life (the
    /// drivers and the lists they reported when they were opened are fixed).
    pub fn instance_extensions_made_by(
        &self,
        make: impl FnOnce(&[DriverEntry]) -> Vec<vk::ExtensionProperties>,
    ) -> &[vk::ExtensionProperties] {
        self.instance_extensions
            .get_or_init(|| make(self.driver_list()))
    }

    /// The drivers, or an empty list when they failed (callers that must report the failure
    /// look at [`Loader::drivers`] themselves).
    pub fn driver_list(&self) -> &[DriverEntry] {
        self.drivers.as_ref().map_or(&[], |d| d.as_slice())
    }
}

/// `Hal::ShouldUnloadBuiltinDriver` and `Hal::UnloadBuiltinDriver`, for a forked child: a HAL
/// the zygote preloaded (not the stub: with no driver there is nothing to unload, and the child
/// keeps none) is closed and unloaded when this process has a driver namespace, so that the
/// updatable driver is loaded instead. Returns whether it did; the parent's state, which still
/// names the driver, is never used again in this process.
fn unload_builtin_driver(drivers: &[DriverEntry], config: &DriverSettings) -> bool {
    let hals: Vec<&driver::HalDriver> = drivers
        .iter()
        .filter_map(|d| match d.driver.source() {
            DriverSource::Hal(hal) => Some(hal),
            DriverSource::Icd(_) => None,
        })
        .collect();
    if hals.is_empty() {
        return false;
    }
    let linker = driver::linker::for_settings(config);
    if linker.driver_namespace().is_none() {
        return false;
    }
    for hal in hals {
        hal.unload_builtin(&*linker);
    }
    true
}

/// AOSP's `disabled…` functions' message: an exported extension command called without its
/// extension enabled does nothing.
fn report_disabled(extension: &'static std::ffi::CStr, command: &'static std::ffi::CStr) {
    log::error!(
        "{} not enabled. Exported {} not executed.",
        extension.to_string_lossy(),
        command.to_string_lossy()
    );
}

/// This process's id, cached until a fork. Bionic caches `getpid()`, so AOSP's once-per-pid
/// check costs nothing there; glibc (since 2.25) makes every call a system call, and `loader()`
/// runs several times per instance (a system call costs microseconds on sandboxed hosts). A
/// `pthread_atfork` child handler clears the cache, so a forked child asks the kernel again;
/// if the handler cannot be registered, nothing is cached.
fn process_id() -> u32 {
    use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
    static PID: AtomicU32 = AtomicU32::new(0);
    static CACHEABLE: AtomicBool = AtomicBool::new(false);
    static REGISTER: std::sync::Once = std::sync::Once::new();
    extern "C" fn forked_child() {
        // Only an atomic store: async-signal-safe, as a handler run in a forked child must be.
        PID.store(0, Ordering::Relaxed);
    }
    REGISTER.call_once(|| {
        // SAFETY: registers a child handler that only stores an atomic. `pthread_atfork` comes
        // from libc_nonshared (glibc) or is bionic's, both of which pass this library's
        // `__dso_handle`: the handler is unregistered if `libvulkan.so` is ever unloaded.
        let r = unsafe { libc::pthread_atfork(None, None, Some(forked_child)) };
        if r == 0 {
            CACHEABLE.store(true, Ordering::Relaxed);
        } else {
            log::warn!("pthread_atfork failed ({r}): the process id is asked on every call");
        }
    });
    match PID.load(Ordering::Relaxed) {
        0 => {
            let pid = std::process::id();
            if CACHEABLE.load(Ordering::Relaxed) {
                PID.store(pid, Ordering::Relaxed);
            }
            pid
        }
        pid => pid,
    }
}

/// The state and the process id it was built for. Each state is leaked: instances and their
/// handles refer to it for the rest of the process, and a fork makes at most one more.
static LOADER: Mutex<Option<(u32, &'static Loader)>> = Mutex::new(None);

/// The process's loader state, built on the first use in this process id from
/// [`LoaderConfig::from_platform`]. Called only from global commands and instance creation, never
/// from per-call paths, so the lock costs nothing that matters.
pub fn loader() -> &'static Loader {
    let pid = process_id();
    // A panic while building the state (the caller's guard catches it) leaves `None`: the next
    // call tries again, as AOSP's failed initialisation does for a new pid.
    let mut state = LOADER.lock().unwrap_or_else(|p| p.into_inner());
    match *state {
        Some((built_for, loader)) if built_for == pid => loader,
        previous => {
            crate::logging::init();
            let _ = vkgen_generated::dispatch::DISABLED_REPORT.get_or_init(|| report_disabled);
            let loader: &'static Loader = Box::leak(Box::new(Loader::load_keeping(
                LoaderConfig::from_platform(),
                previous.map(|(_, l)| l),
            )));
            *state = Some((pid, loader));
            loader
        }
    }
}

#[cfg(test)]
mod tests {
    use super::process_id;

    #[test]
    fn a_forked_child_sees_its_own_process_id() {
        let parent = process_id();
        assert_eq!(parent, std::process::id());
        assert_eq!(process_id(), parent, "cached");
        // SAFETY: the child only reads an atomic, asks the kernel for its id (both
        // async-signal-safe once `process_id` has registered its handler, above) and exits.
        let child = unsafe { libc::fork() };
        assert!(child >= 0, "fork failed");
        if child == 0 {
            // SAFETY: `getpid` and `_exit` are async-signal-safe.
            let ok = process_id() == unsafe { libc::getpid() } as u32;
            // SAFETY: ends the child without running the parent's destructors or test harness.
            unsafe { libc::_exit(if ok { 0 } else { 1 }) };
        }
        let mut status = 0;
        // SAFETY: waits for the child forked above; `status` is writable.
        assert_eq!(unsafe { libc::waitpid(child, &mut status, 0) }, child);
        assert!(libc::WIFEXITED(status), "child status {status:#x}");
        assert_eq!(
            libc::WEXITSTATUS(status),
            0,
            "the child saw the parent's id"
        );
        assert_eq!(process_id(), parent);
    }
}
