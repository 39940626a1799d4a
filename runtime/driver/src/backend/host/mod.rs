//! The host driver: passthrough to a real Khronos ICD (lavapipe, NVIDIA), plus
//! `VK_ANDROID_native_buffer` on top.
//!
//! # Opening the host ICD
//! The ICD is opened **directly**, never through the system loader: its manifest is
//! `$VKGEN_HOST_ICD` if set (only that one), else the first usable one from the standard
//! manifest directories (`$XDG_CONFIG_DIRS`/`/etc/xdg`, `/etc`, `$XDG_DATA_HOME`,
//! `$XDG_DATA_DIRS`/`/usr/local/share:/usr/share`, each `+ vulkan/icd.d`, and
//! `/usr/local/nvidia/share/vulkan/icd.d`), NVIDIA first, then lavapipe, then the rest.
//! The manifest is parsed with serde_json, the library `dlopen`ed (`RTLD_NOW | RTLD_LOCAL`, kept
//! for the life of the process), interface version 7 offered through
//! `vk_icdNegotiateLoaderICDInterfaceVersion` (at least 2 required, so dispatchable objects
//! carry `ICD_LOADER_MAGIC`), and `vk_icdGetInstanceProcAddr` used for everything. Libraries that
//! export `HMI` are vkgen drivers and are skipped, so a manifest for this very driver in a standard
//! directory cannot make it load itself. No usable ICD means `vkCreateInstance` returns
//! `VK_ERROR_INCOMPATIBLE_DRIVER` (no devices are ever enumerated) and nothing crashes.
//!
//! # Passthrough
//! A Khronos ICD keeps word 0 of its dispatchable objects for the loader, which is exactly the
//! contract of Android's HAL, so host handles go straight up. [`HostDriver::intercepts`] is true
//! only for the commands below; every other proc address is the host's own function
//! (`vk_icdGetInstanceProcAddr(instance, name)`, the host's `vkGetDeviceProcAddr(device, name)` at
//! device level, `vk_icdGetPhysicalDeviceProcAddr` for physical-device lookups): zero overhead.
//! [`HostDriver::supports_extension`] answers from the host's instance extensions and the union
//! of its devices' extensions (probed once with a throw-away instance), so commands of
//! extensions the host lacks are not exposed.
//!
//! Intercepted, with the reason:
//! * `vkCreateInstance` (no host → `VK_ERROR_INCOMPATIBLE_DRIVER`; the host instance gets
//!   apiVersion ≥ 1.1 so the 1.1 entry points used below exist), `vkDestroyInstance`,
//!   `vkEnumerateInstanceVersion` (clamped to 1.3, the generated API), and
//!   `vkEnumerateInstanceExtensionProperties` (answers without a host): bookkeeping.
//! * `vkGetInstanceProcAddr` / `vkGetDeviceProcAddr`: so that proc addresses asked of the driver
//!   go through these rules rather than straight to the host.
//! * `vkEnumerateDeviceExtensionProperties`: adds `VK_ANDROID_native_buffer` (spec 11) where the
//!   host has `VK_EXT_external_memory_host`.
//! * `vkCreateDevice` / `vkDestroyDevice`: strips ANB before the host sees it and enables what
//!   it needs (`VK_EXT_external_memory_host`; `VK_KHR_external_fence_fd` where the host can
//!   export `SYNC_FD` fences); per-device state; the release worker thread is joined at destroy.
//! * `vkGetDeviceQueue{,2}`: remembers which device a queue belongs to.
//! * `vkGetPhysicalDeviceProperties2{,KHR}`: fills `VkPhysicalDevicePresentationPropertiesANDROID`
//!   (`sharedImage = VK_TRUE`: the import below is zero-copy, so producer and consumer share
//!   the memory).
//! * `vkCreateImage` / `vkBindImageMemory{,2}` / `vkDestroyImage`: `VkNativeBufferANDROID`, and
//!   `AHardwareBuffer` images ([`hardware_buffer`]).
//! * `vkAllocateMemory`, `vkFreeMemory`, `vkCreateBuffer`, `vkCreateImageView`,
//!   `vkGet{AndroidHardwareBufferProperties,MemoryAndroidHardwareBuffer}ANDROID` and the
//!   image-format / external-buffer queries: `VK_ANDROID_external_memory_android_hardware_buffer`
//!   over host-pointer imports, with multi-planar formats emulated by plane images where the
//!   host has none ([`hardware_buffer`]).
//! * `vkQueueSubmit{,2}`, `vkCreate{Semaphore,Fence}`, `vkDestroySemaphore`, the fd commands and
//!   the external semaphore/fence queries: `SYNC_FD` emulated where the host lacks the fd
//!   extensions ([`sync_fd`]); with no emulating device a submission costs one atomic load more
//!   than the host's own.
//! * `vkGetSwapchainGrallocUsage{,2,3,4}ANDROID`, `vkAcquireImageANDROID`,
//!   `vkQueueSignalReleaseImageANDROID`.
//!
//! # Native buffers: `VK_EXT_external_memory_host`
//! A gralloc buffer is a memfd. `VK_KHR_external_memory_fd`'s `OPAQUE_FD` means "an fd this
//! driver exported", not a memfd, so importing one is invalid (lavapipe would misinterpret it).
//! Instead the memfd is `mmap`ed `MAP_SHARED` and the mapping imported as host memory
//! (`VkImportMemoryHostPointerInfoEXT`, `HOST_ALLOCATION`): zero-copy, and works on lavapipe and
//! NVIDIA. The image is created `LINEAR` with `VkExternalMemoryImageCreateInfo(HOST_ALLOCATION)`;
//! its row pitch must equal the buffer's (lavapipe: `align(align(w, 4) * bpp, 64)`, which is what
//! our gralloc allocates), otherwise `VK_ERROR_INVALID_EXTERNAL_HANDLE`. The import must cover the
//! image's memory requirements (lavapipe pads height to 4 rows) in whole multiples of
//! `minImportedHostPointerAlignment`, which can be more than the file holds: the mapping is an
//! anonymous reservation of the full size with the file mapped over its start (`MAP_FIXED`), so
//! the padding is private scratch memory and never touches pages beyond the end of the file.
//! Images created with `VkNativeBufferANDROID` are bound at creation; images created with
//! `VkImageSwapchainCreateInfoKHR` are created importable and bound when `vkBindImageMemory2`
//! brings the `VkNativeBufferANDROID` (spec ≥ 8).
//!
//! # Native fences
//! * `vkAcquireImageANDROID` takes the fd (closing it on every path), waits for it on the calling
//!   thread, closes it, then signals the semaphore and/or fence with an empty `vkQueueSubmit` on
//!   the device's first queue (under a per-device lock; the application must not use that queue
//!   concurrently from another thread, which it must not anyway while it is inside
//!   `vkAcquireNextImageKHR` on the same swapchain's device, the only caller).
//! * `vkQueueSignalReleaseImageANDROID` submits a batch waiting on the semaphores (all stages)
//!   with a pooled fence. Where the host exports `SYNC_FD` fences (NVIDIA), the fence's
//!   `sync_file` is returned. Otherwise (lavapipe) an eventfd [`FenceSignaller`] fd is returned
//!   and the device's worker thread (started on first use) waits for the host fence, signals the
//!   eventfd and recycles the fence.

pub mod adapter;
mod copy_backed;
mod hardware_buffer;
mod sync_fd;

use std::collections::{HashMap, HashSet};
use std::ffi::{c_char, c_void, CStr};
use std::os::fd::BorrowedFd;
use std::path::{Path, PathBuf};
use std::ptr::{self, NonNull};
use std::sync::mpsc;
use std::sync::{Arc, LazyLock, Mutex, MutexGuard, OnceLock, PoisonError, RwLock};
use std::thread::JoinHandle;

use vkgen_abi::icd::{
    PFN_vk_icdGetPhysicalDeviceProcAddr, PFN_vk_icdNegotiateLoaderICDInterfaceVersion,
};
use vkgen_abi::native_window::buffer_usage;
use vkgen_generated::commands::{self, CommandId, Level};
use vkgen_generated::driver::Driver;
use vkgen_generated::extensions::{self, ExtensionId};
use vkgen_generated::vk;

use crate::export::DriverModule;
use crate::gralloc::Buffer;
use crate::kit::native_buffer::{
    create_native_buffer_image, native_buffer_of, GrallocQueries, GrallocUsage, NativeBufferImport,
    NativeBuffers,
};
use crate::sync_fd::FenceSignaller;
use crate::sync_fd::NativeFence;
use crate::util::{
    cstr_from_array, extension_properties, fence_error_result, find_in_chain, for_each_out,
    write_array, ChainEdit,
};

/// Environment variable naming the host ICD's manifest (overrides the search).
pub const HOST_ICD_ENV: &str = "VKGEN_HOST_ICD";
/// `VK_ANDROID_native_buffer`'s spec version as advertised.
pub const NATIVE_BUFFER_SPEC_VERSION: u32 = 11;

const NATIVE_BUFFER_NAME: &CStr = c"VK_ANDROID_native_buffer";
const MEMORY_HOST_NAME: &CStr = c"VK_EXT_external_memory_host";
const FENCE_FD_NAME: &CStr = c"VK_KHR_external_fence_fd";
/// The newest API the generated tables describe.
const MAX_API_VERSION: u32 = vkgen_generated::API_VERSION | vkgen_generated::HEADER_VERSION;

/// The host driver. See the [module docs](self).
///
/// `SLOT` says which ICD it serves: slot 0 the one it finds itself ([`host_icd`]:
/// `vulkan.host.so` loaded as a HAL module or ICD), slots 1 ..= [`ADAPTER_SLOTS`] the ICDs a
/// loader hands it ([`adapter`]). Every hook is the same code; the slot only picks the ICD, so
/// that global commands (`vkCreateInstance`, which carry no handle) reach the right one and
/// several ICDs are served in one process.
#[derive(Debug)]
pub struct HostDriver<const SLOT: usize = 0>;

impl<const SLOT: usize> HostDriver<SLOT> {
    /// The ICD this slot serves.
    fn icd() -> Option<&'static HostIcd> {
        if SLOT == 0 {
            host_icd()
        } else {
            SLOTS
                .get(SLOT)
                .and_then(OnceLock::get)
                .and_then(Option::as_ref)
        }
    }
}

/// Why a host ICD could not be used.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    #[error("cannot read ICD manifest {path}: {source}")]
    ReadManifest {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("ICD manifest {path} is not valid: {reason}")]
    BadManifest { path: PathBuf, reason: String },
    #[error("cannot load {path}: {source}")]
    Load {
        path: PathBuf,
        source: libloading::Error,
    },
    #[error("{path} is a vkgen driver (exports HMI), not a host ICD")]
    OwnDriver { path: PathBuf },
    #[error("{path} has no vk_icdGetInstanceProcAddr")]
    NoGetInstanceProcAddr { path: PathBuf },
    #[error("{path} negotiated loader interface {version}, at least 2 is needed")]
    OldInterface { path: PathBuf, version: u32 },
    #[error("{path}: interface negotiation failed: {result:?}")]
    Negotiation { path: PathBuf, result: vk::Result },
    #[error("no usable host ICD (tried: {tried:?})")]
    NoneFound { tried: Vec<PathBuf> },
    #[error("{path} has no {command}")]
    Missing { path: PathBuf, command: String },
    #[error("{path} needs no native-buffer adapter: {reason}")]
    NotAdaptable { path: PathBuf, reason: &'static str },
}

/// An opened host ICD.
pub struct HostIcd {
    /// The library when the host driver opened it itself (slot 0); a loader keeps its own.
    _library: Option<libloading::os::unix::Library>,
    manifest: PathBuf,
    library_path: PathBuf,
    interface_version: u32,
    gipa: vk::PFN_vkGetInstanceProcAddr,
    gpdpa: Option<PFN_vk_icdGetPhysicalDeviceProcAddr>,
    entry: ash::Entry,
    instance_version: u32,
    instance_extensions: Vec<vk::ExtensionProperties>,
    device_extensions: OnceLock<HashSet<Vec<u8>>>,
}

impl std::fmt::Debug for HostIcd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostIcd")
            .field("manifest", &self.manifest)
            .field("library_path", &self.library_path)
            .field("interface_version", &self.interface_version)
            .field("instance_version", &self.instance_version)
            .finish_non_exhaustive()
    }
}

impl HostIcd {
    /// The manifest it was found through.
    pub fn manifest(&self) -> &Path {
        &self.manifest
    }

    /// The library the manifest names.
    pub fn library_path(&self) -> &Path {
        &self.library_path
    }

    /// The negotiated loader–ICD interface version.
    pub fn interface_version(&self) -> u32 {
        self.interface_version
    }

    /// The host's `vkEnumerateInstanceVersion` (1.0 where it has none).
    pub fn instance_version(&self) -> u32 {
        self.instance_version
    }

    /// The host's `vk_icdGetInstanceProcAddr`.
    pub fn get_instance_proc_addr(&self) -> vk::PFN_vkGetInstanceProcAddr {
        self.gipa
    }

    /// Opens the ICD a manifest describes.
    pub fn open(manifest: &Path) -> Result<Self, HostError> {
        let text = std::fs::read_to_string(manifest).map_err(|source| HostError::ReadManifest {
            path: manifest.to_owned(),
            source,
        })?;
        let library_path = manifest_library(manifest, &text)?;
        // SAFETY: loading a Vulkan ICD runs its initialisers, which is what an ICD is for; the
        // library stays loaded for as long as this value (in practice, the process).
        let library = unsafe {
            libloading::os::unix::Library::open(
                Some(&library_path),
                libloading::os::unix::RTLD_NOW | libloading::os::unix::RTLD_LOCAL,
            )
        }
        .map_err(|source| HostError::Load {
            path: library_path.clone(),
            source,
        })?;
        // SAFETY: looking a data symbol up only; it is never read.
        if unsafe { library.get::<*const c_void>(b"HMI\0") }.is_ok() {
            return Err(HostError::OwnDriver { path: library_path });
        }
        // SAFETY: the symbol, if present, is the ICD's `vk_icdGetInstanceProcAddr`.
        let gipa: vk::PFN_vkGetInstanceProcAddr = match unsafe {
            library.get::<vk::PFN_vkGetInstanceProcAddr>(b"vk_icdGetInstanceProcAddr\0")
        } {
            Ok(sym) => *sym,
            Err(_) => return Err(HostError::NoGetInstanceProcAddr { path: library_path }),
        };
        // SAFETY: as above, for the negotiation entry point; else the v7 lookup through GIPA,
        // whose result has that type.
        let negotiate: Option<PFN_vk_icdNegotiateLoaderICDInterfaceVersion> = unsafe {
            match library.get::<PFN_vk_icdNegotiateLoaderICDInterfaceVersion>(
                b"vk_icdNegotiateLoaderICDInterfaceVersion\0",
            ) {
                Ok(sym) => Some(*sym),
                Err(_) => gipa(
                    vk::Instance::null(),
                    c"vk_icdNegotiateLoaderICDInterfaceVersion".as_ptr(),
                )
                .map(|f| {
                    std::mem::transmute::<
                        unsafe extern "system" fn(),
                        PFN_vk_icdNegotiateLoaderICDInterfaceVersion,
                    >(f)
                }),
            }
        };
        let interface_version = match negotiate {
            // An ICD with GIPA but no negotiation speaks interface 1.
            None => 1,
            Some(negotiate) => {
                let mut v = vkgen_abi::icd::CURRENT_LOADER_ICD_INTERFACE_VERSION;
                // SAFETY: the ICD's negotiation function with a valid in/out pointer.
                let r = unsafe { negotiate(&mut v) };
                if r != vk::Result::SUCCESS {
                    return Err(HostError::Negotiation {
                        path: library_path,
                        result: r,
                    });
                }
                v
            }
        };
        if interface_version < 2 {
            return Err(HostError::OldInterface {
                path: library_path,
                version: interface_version,
            });
        }
        // SAFETY: as for negotiation.
        let gpdpa: Option<PFN_vk_icdGetPhysicalDeviceProcAddr> = unsafe {
            match library
                .get::<PFN_vk_icdGetPhysicalDeviceProcAddr>(b"vk_icdGetPhysicalDeviceProcAddr\0")
            {
                Ok(sym) => Some(*sym),
                Err(_) => gipa(
                    vk::Instance::null(),
                    c"vk_icdGetPhysicalDeviceProcAddr".as_ptr(),
                )
                .map(|f| {
                    std::mem::transmute::<
                        unsafe extern "system" fn(),
                        PFN_vk_icdGetPhysicalDeviceProcAddr,
                    >(f)
                }),
            }
        };
        Self::from_entry_points(
            Some(library),
            manifest,
            library_path,
            interface_version,
            gipa,
            gpdpa,
        )
    }

    /// An ICD someone else opened and negotiated (the loader, through [`adapter`]): its
    /// entry points stay valid for the process, and nothing is opened again.
    pub fn from_entry_points(
        library: Option<libloading::os::unix::Library>,
        manifest: &Path,
        library_path: PathBuf,
        interface_version: u32,
        gipa: vk::PFN_vkGetInstanceProcAddr,
        gpdpa: Option<PFN_vk_icdGetPhysicalDeviceProcAddr>,
    ) -> Result<Self, HostError> {
        // ash's entry loads these on first use and panics where they are missing.
        for name in [
            c"vkCreateInstance",
            c"vkEnumerateInstanceExtensionProperties",
        ] {
            // SAFETY: a global lookup through the ICD.
            if unsafe { gipa(vk::Instance::null(), name.as_ptr()) }.is_none() {
                return Err(HostError::Missing {
                    path: library_path,
                    command: name.to_string_lossy().into_owned(),
                });
            }
        }
        // SAFETY: `gipa` is the ICD's global proc lookup, which is what a StaticFn holds.
        let entry = unsafe {
            ash::Entry::from_static_fn(ash::StaticFn {
                get_instance_proc_addr: gipa,
            })
        };
        // SAFETY: global queries through the ICD's own functions.
        let instance_version = unsafe {
            match gipa(vk::Instance::null(), c"vkEnumerateInstanceVersion".as_ptr()) {
                None => vk::API_VERSION_1_0,
                Some(f) => {
                    let f = std::mem::transmute::<
                        unsafe extern "system" fn(),
                        vk::PFN_vkEnumerateInstanceVersion,
                    >(f);
                    let mut v = 0;
                    if f(&mut v) == vk::Result::SUCCESS {
                        v
                    } else {
                        vk::API_VERSION_1_0
                    }
                }
            }
        };
        // The ICD's count is not trusted: bounded, with a bounded number of retries.
        let instance_extensions = {
            let f = entry.fp_v1_0().enumerate_instance_extension_properties;
            // SAFETY: a global query through the ICD with the two-call idiom's arguments.
            bounded_enumerate(|n, p| unsafe { f(ptr::null(), n, p) }).unwrap_or_default()
        };
        Ok(Self {
            _library: library,
            manifest: manifest.to_owned(),
            library_path,
            interface_version,
            gipa,
            gpdpa,
            entry,
            instance_version,
            instance_extensions,
            device_extensions: OnceLock::new(),
        })
    }

    fn has_instance_extension(&self, name: &[u8]) -> bool {
        self.instance_extensions
            .iter()
            .any(|e| cstr_from_array(&e.extension_name) == name)
    }

    /// The union of every physical device's extensions, probed once with a throw-away instance.
    fn device_extension_names(&self) -> &HashSet<Vec<u8>> {
        self.device_extensions.get_or_init(|| {
            let mut names = HashSet::new();
            let app = vk::ApplicationInfo::default().api_version(self.host_api_version(0));
            let ci = vk::InstanceCreateInfo::default().application_info(&app);
            // SAFETY: plain instance creation and queries through the host ICD; the instance is
            // destroyed before returning.
            unsafe {
                let Ok(instance) = self.entry.create_instance(&ci, None) else {
                    return names;
                };
                if vk::Handle::as_raw(instance.handle()) == 0 {
                    log::warn!(
                        "{}: vkCreateInstance gave a null handle",
                        self.manifest.display()
                    );
                    return names;
                }
                // ash's stubs for missing commands panic where no unwinding is possible.
                let has = |name: &CStr| (self.gipa)(instance.handle(), name.as_ptr()).is_some();
                if !has(c"vkDestroyInstance") {
                    return names;
                }
                let complete = has(c"vkEnumeratePhysicalDevices")
                    && has(c"vkEnumerateDeviceExtensionProperties");
                if complete {
                    let fp = instance.fp_v1_0();
                    // The ICD's counts are not trusted (bounded, retried a bounded number of
                    // times), nor its handles.
                    let pds = bounded_enumerate(|n, p| {
                        (fp.enumerate_physical_devices)(instance.handle(), n, p)
                    })
                    .unwrap_or_default();
                    for pd in pds.into_iter().filter(|pd| vk::Handle::as_raw(*pd) != 0) {
                        let exts = bounded_enumerate(|n, p| {
                            (fp.enumerate_device_extension_properties)(pd, ptr::null(), n, p)
                        })
                        .unwrap_or_default();
                        for e in exts {
                            names.insert(cstr_from_array(&e.extension_name).to_vec());
                        }
                    }
                }
                instance.destroy_instance(None);
            }
            names
        })
    }

    /// The apiVersion the host instance is created with for an application asking `requested`:
    /// at least 1.1 (for the entry points the runtime uses) where the host has it.
    fn host_api_version(&self, requested: u32) -> u32 {
        if self.instance_version >= vk::API_VERSION_1_1 {
            requested.max(vk::API_VERSION_1_1)
        } else {
            requested
        }
    }
}

/// The library path in an ICD manifest, resolved like the Khronos loader does: relative paths
/// (with a `/`) against the manifest's directory, bare names through the dynamic linker.
fn manifest_library(manifest: &Path, text: &str) -> Result<PathBuf, HostError> {
    let bad = |reason: &str| HostError::BadManifest {
        path: manifest.to_owned(),
        reason: reason.to_owned(),
    };
    let json: serde_json::Value = serde_json::from_str(text).map_err(|e| bad(&e.to_string()))?;
    let lib = json
        .pointer("/ICD/library_path")
        .and_then(serde_json::Value::as_str)
        .ok_or_else(|| bad("no ICD.library_path"))?;
    let path = Path::new(lib);
    Ok(if path.is_absolute() || !lib.contains('/') {
        path.to_owned()
    } else {
        manifest.parent().unwrap_or(Path::new(".")).join(path)
    })
}

/// The standard ICD manifest directories, in the Khronos loader's order, plus NVIDIA's
/// container location.
pub fn manifest_dirs() -> Vec<PathBuf> {
    let env_list = |var: &str, default: &str| -> Vec<PathBuf> {
        let v = std::env::var(var).ok().filter(|v| !v.is_empty());
        v.as_deref()
            .unwrap_or(default)
            .split(':')
            .filter(|s| !s.is_empty())
            .map(PathBuf::from)
            .collect()
    };
    let mut dirs = Vec::new();
    dirs.extend(env_list("XDG_CONFIG_DIRS", "/etc/xdg"));
    dirs.push(PathBuf::from("/etc"));
    if let Some(home) = std::env::var_os("XDG_DATA_HOME").filter(|v| !v.is_empty()) {
        dirs.push(PathBuf::from(home));
    } else if let Some(home) = std::env::var_os("HOME").filter(|v| !v.is_empty()) {
        dirs.push(Path::new(&home).join(".local/share"));
    }
    dirs.extend(env_list("XDG_DATA_DIRS", "/usr/local/share:/usr/share"));
    let mut out: Vec<PathBuf> = dirs.into_iter().map(|d| d.join("vulkan/icd.d")).collect();
    out.push(PathBuf::from("/usr/local/nvidia/share/vulkan/icd.d"));
    out
}

/// Candidate manifests from [`manifest_dirs`], NVIDIA first, then lavapipe, then the rest (each
/// group in directory order, files sorted by name).
pub fn candidate_manifests() -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = Vec::new();
    for dir in manifest_dirs() {
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut files: Vec<PathBuf> = rd
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        files.sort();
        for f in files {
            if !found.contains(&f) {
                found.push(f);
            }
        }
    }
    let rank = |p: &PathBuf| {
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().to_lowercase())
            .unwrap_or_default();
        if name.contains("nvidia") {
            0
        } else if name.contains("lvp") || name.contains("lavapipe") {
            1
        } else {
            2
        }
    };
    found.sort_by_key(rank);
    found
}

/// Finds and opens the host ICD (see the module docs).
pub fn discover() -> Result<HostIcd, HostError> {
    if let Some(m) = std::env::var_os(HOST_ICD_ENV).filter(|v| !v.is_empty()) {
        return HostIcd::open(Path::new(&m));
    }
    let mut tried = Vec::new();
    for m in candidate_manifests() {
        match HostIcd::open(&m) {
            Ok(icd) => return Ok(icd),
            Err(e) => {
                log::debug!("host ICD candidate skipped: {e}");
                tried.push(m);
            }
        }
    }
    Err(HostError::NoneFound { tried })
}

/// How many ICDs a loader can hand the host driver ([`adapter`]).
pub const ADAPTER_SLOTS: usize = 4;

/// Slot 0: the ICD found by [`discover`]; the others: ICDs adopted through [`adapter`].
static SLOTS: [OnceLock<Option<HostIcd>>; ADAPTER_SLOTS + 1] =
    [const { OnceLock::new() }; ADAPTER_SLOTS + 1];

/// The process's host ICD, opened on first use; `None` if there is none.
pub fn host_icd() -> Option<&'static HostIcd> {
    SLOTS[0]
        .get_or_init(|| match discover() {
            Ok(icd) => {
                log::info!("host ICD: {}", icd.library_path.display());
                Some(icd)
            }
            Err(e) => {
                log::warn!("{e}");
                None
            }
        })
        .as_ref()
}

// ---------------------------------------------------------------------------------------------
// Bookkeeping

struct HostInstance {
    fns: ash::Instance,
    /// The [`HostDriver`] slot (so the ICD) the instance belongs to.
    slot: usize,
}

/// State of a device with `VK_ANDROID_native_buffer` enabled.
struct AnbDevice {
    memory_host: ash::ext::external_memory_host::DeviceFn,
    fence_fd: Option<ash::khr::external_fence_fd::DeviceFn>,
    import_alignment: u64,
    /// The queue `vkAcquireImageANDROID` signals on, with the lock serialising our use of it.
    internal_queue: Mutex<vk::Queue>,
    images: Mutex<HashMap<u64, AnbImage>>,
    fences: Arc<Mutex<Vec<vk::Fence>>>,
    worker: Mutex<Option<Worker>>,
}

struct HostDevice {
    handle: vk::Device,
    fns: ash::Device,
    gdpa: vk::PFN_vkGetDeviceProcAddr,
    instance: Arc<HostInstance>,
    physical: vk::PhysicalDevice,
    /// Host-memory import and native-fence state: devices with `VK_ANDROID_native_buffer` or
    /// `VK_ANDROID_external_memory_android_hardware_buffer`.
    anb: Option<AnbDevice>,
    /// Devices with `VK_ANDROID_external_memory_android_hardware_buffer`.
    ahb: Option<hardware_buffer::AhbDevice>,
    /// Devices with a `SYNC_FD` extension the host lacks.
    sync: Option<sync_fd::SyncEmulation>,
}

enum AnbImage {
    /// Created for a swapchain; the buffer arrives with `vkBindImageMemory2`.
    Pending,
    Bound {
        memory: vk::DeviceMemory,
        _mapping: HostMapping,
    },
}

#[derive(Default)]
struct Registry {
    instances: HashMap<u64, Arc<HostInstance>>,
    physical: HashMap<u64, Arc<HostInstance>>,
    devices: HashMap<u64, Arc<HostDevice>>,
    queues: HashMap<u64, Arc<HostDevice>>,
}

static REGISTRY: LazyLock<RwLock<Registry>> = LazyLock::new(RwLock::default);

fn registry() -> std::sync::RwLockReadGuard<'static, Registry> {
    REGISTRY.read().unwrap_or_else(PoisonError::into_inner)
}

fn registry_mut() -> std::sync::RwLockWriteGuard<'static, Registry> {
    REGISTRY.write().unwrap_or_else(PoisonError::into_inner)
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn instance_of(pd: vk::PhysicalDevice) -> Option<Arc<HostInstance>> {
    let raw = vk::Handle::as_raw(pd);
    if let Some(i) = registry().physical.get(&raw) {
        return Some(i.clone());
    }
    // Not seen yet (enumeration is not intercepted): ask every live instance.
    let instances: Vec<Arc<HostInstance>> = registry().instances.values().cloned().collect();
    let mut reg_updates = Vec::new();
    for inst in instances {
        // SAFETY: a live host instance.
        if let Ok(pds) = unsafe { inst.fns.enumerate_physical_devices() } {
            for p in pds {
                reg_updates.push((vk::Handle::as_raw(p), inst.clone()));
            }
        }
    }
    let mut reg = registry_mut();
    reg.physical.extend(reg_updates);
    reg.physical.get(&raw).cloned()
}

fn device_of(device: vk::Device) -> Option<Arc<HostDevice>> {
    registry().devices.get(&vk::Handle::as_raw(device)).cloned()
}

fn device_of_queue(queue: vk::Queue) -> Option<Arc<HostDevice>> {
    registry().queues.get(&vk::Handle::as_raw(queue)).cloned()
}

/// Slice of a possibly null `(pointer, count)` pair.
///
/// # Safety
/// A non-null `p` must be valid for `n` reads.
unsafe fn slice<'a, T>(p: *const T, n: u32) -> &'a [T] {
    if p.is_null() || n == 0 {
        &[]
    } else {
        // SAFETY: caller contract.
        unsafe { std::slice::from_raw_parts(p, n as usize) }
    }
}

/// The host's device extensions of `pd`.
///
/// # Safety
/// `pd` belongs to `inst`.
unsafe fn device_extensions(
    inst: &HostInstance,
    pd: vk::PhysicalDevice,
) -> Vec<vk::ExtensionProperties> {
    // SAFETY: caller contract.
    unsafe { inst.fns.enumerate_device_extension_properties(pd) }.unwrap_or_default()
}

/// The most entries the host driver takes from one ICD enumeration, and how often it asks
/// again after `VK_INCOMPLETE`: an ICD's count sizes no allocation beyond this.
const MAX_ENUMERATED: u32 = 4096;
const MAX_ENUMERATE_TRIES: usize = 8;

/// The two-call idiom against an untrusted ICD: counts are capped at [`MAX_ENUMERATED`], a
/// count that keeps growing (`VK_INCOMPLETE` forever) gives up after [`MAX_ENUMERATE_TRIES`],
/// and only the entries the ICD says it wrote are kept. `None` on an error or a lie.
fn bounded_enumerate<T: Default + Clone>(
    mut call: impl FnMut(*mut u32, *mut T) -> vk::Result,
) -> Option<Vec<T>> {
    for _ in 0..MAX_ENUMERATE_TRIES {
        let mut count = 0u32;
        if call(&mut count, ptr::null_mut()) != vk::Result::SUCCESS {
            return None;
        }
        if count > MAX_ENUMERATED {
            log::warn!("host ICD: an enumeration reported {count} entries; ignored");
            return None;
        }
        let mut items = vec![T::default(); count as usize];
        let mut written = count;
        match call(&mut written, items.as_mut_ptr()) {
            vk::Result::SUCCESS if written <= count => {
                items.truncate(written as usize);
                return Some(items);
            }
            vk::Result::INCOMPLETE => continue,
            _ => return None,
        }
    }
    log::warn!("host ICD: an enumeration stayed VK_INCOMPLETE; ignored");
    None
}

fn has_extension(list: &[vk::ExtensionProperties], name: &CStr) -> bool {
    list.iter()
        .any(|e| cstr_from_array(&e.extension_name) == name.to_bytes())
}

// ---------------------------------------------------------------------------------------------
// Native buffer import

/// The memfd of a gralloc buffer mapped for import as host memory: an anonymous reservation of
/// `len` bytes with the file mapped over its start.
struct HostMapping {
    base: NonNull<c_void>,
    len: usize,
}

// SAFETY: plain memory owned by this value; GPU/CPU access ordering is the application's.
unsafe impl Send for HostMapping {}
// SAFETY: see `Send`.
unsafe impl Sync for HostMapping {}

impl HostMapping {
    fn new(fd: BorrowedFd<'_>, file_len: u64, len: usize) -> rustix::io::Result<Self> {
        use rustix::mm::{MapFlags, ProtFlags};
        let page = rustix::param::page_size();
        let file_len = usize::try_from(file_len).map_err(|_| rustix::io::Errno::NOMEM)?;
        let len = len.max(file_len).next_multiple_of(page);
        let prot = ProtFlags::READ | ProtFlags::WRITE;
        // SAFETY: a fresh anonymous mapping at an address the kernel picks aliases nothing.
        let base = unsafe {
            rustix::mm::mmap_anonymous(
                ptr::null_mut(),
                len,
                prot,
                MapFlags::PRIVATE | MapFlags::NORESERVE,
            )
        }?;
        let this = Self {
            base: NonNull::new(base).ok_or(rustix::io::Errno::NOMEM)?,
            len,
        };
        let file_pages = file_len.next_multiple_of(page);
        if file_pages > 0 {
            // SAFETY: replaces the start of our own reservation (nothing else refers to it) with
            // the file's pages; `file_pages <= len`. Only whole pages overlapping the file are
            // mapped, so no access can SIGBUS.
            unsafe {
                rustix::mm::mmap(
                    base,
                    file_pages,
                    prot,
                    MapFlags::SHARED | MapFlags::FIXED,
                    fd,
                    0,
                )
            }?;
        }
        Ok(this)
    }
}

impl Drop for HostMapping {
    fn drop(&mut self) {
        // SAFETY: exactly the range `new` mapped; the memory imported from it was freed first.
        if let Err(e) = unsafe { rustix::mm::munmap(self.base.as_ptr(), self.len) } {
            log::error!("munmap of a native-buffer import failed: {e}");
        }
    }
}

/// A host image for a native buffer: LINEAR, importable as host memory, with the
/// native-buffer structures taken out of the chain (the host knows none of them).
///
/// # Safety
/// `ci` is a valid create info (chain included) for `dev`.
unsafe fn create_importable_image(
    dev: &HostDevice,
    ci: &vk::ImageCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
) -> Result<vk::Image, vk::Result> {
    // SAFETY: the application's chain, valid and not used elsewhere during this call.
    let chain = unsafe {
        ChainEdit::without(
            ci.p_next,
            &[
                vk::StructureType::NATIVE_BUFFER_ANDROID,
                vk::StructureType::SWAPCHAIN_IMAGE_CREATE_INFO_ANDROID,
                vk::StructureType::IMAGE_SWAPCHAIN_CREATE_INFO_KHR,
                vk::StructureType::EXTERNAL_MEMORY_IMAGE_CREATE_INFO,
            ],
        )
    };
    let external = vk::ExternalMemoryImageCreateInfo {
        p_next: chain.head(),
        handle_types: vk::ExternalMemoryHandleTypeFlags::HOST_ALLOCATION_EXT,
        ..Default::default()
    };
    let mut ci2 = *ci;
    ci2.p_next = ptr::from_ref(&external).cast();
    ci2.tiling = vk::ImageTiling::LINEAR;
    let mut image = vk::Image::null();
    // SAFETY: the host's vkCreateImage with a valid create info.
    let r = unsafe { (dev.fns.fp_v1_0().create_image)(dev.handle, &ci2, p_allocator, &mut image) };
    match r {
        vk::Result::SUCCESS => Ok(image),
        e => Err(e),
    }
}

/// Imports the gralloc buffer `buffer` and binds `image` to it.
///
/// # Safety
/// `image` is a fresh, unbound host image of `dev`, created LINEAR and importable as host
/// memory; `buffer` is the gralloc buffer the kit parsed from the `VkNativeBufferANDROID`.
unsafe fn bind_native_buffer(
    dev: &HostDevice,
    anb: &AnbDevice,
    image: vk::Image,
    buffer: Buffer,
) -> Result<AnbImage, vk::Result> {
    let desc = *buffer.desc();
    // SAFETY: `image` is a live image of `dev`.
    let (reqs, layout) = unsafe {
        (
            dev.fns.get_image_memory_requirements(image),
            dev.fns.get_image_subresource_layout(
                image,
                vk::ImageSubresource {
                    aspect_mask: vk::ImageAspectFlags::COLOR,
                    mip_level: 0,
                    array_layer: 0,
                },
            ),
        )
    };
    if layout.row_pitch != desc.row_bytes() || layout.offset != 0 {
        log::warn!(
            "VkNativeBufferANDROID: host row pitch {} (offset {}) does not match the buffer's {}",
            layout.row_pitch,
            layout.offset,
            desc.row_bytes()
        );
        return Err(vk::Result::ERROR_INVALID_EXTERNAL_HANDLE);
    }
    if reqs.alignment != 0 && !desc.offset.is_multiple_of(reqs.alignment) {
        return Err(vk::Result::ERROR_INVALID_EXTERNAL_HANDLE);
    }
    let align = anb.import_alignment.max(rustix::param::page_size() as u64);
    let total = desc
        .offset
        .checked_add(reqs.size)
        .map(|t| t.next_multiple_of(align))
        .and_then(|t| usize::try_from(t).ok())
        .ok_or(vk::Result::ERROR_OUT_OF_HOST_MEMORY)?;
    let end = desc
        .end()
        .map_err(|_| vk::Result::ERROR_INVALID_EXTERNAL_HANDLE)?;
    let mapping = HostMapping::new(buffer.fd(), end, total).map_err(|e| {
        log::warn!("VkNativeBufferANDROID: mapping the buffer failed: {e}");
        vk::Result::ERROR_OUT_OF_HOST_MEMORY
    })?;
    drop(buffer);
    let mut host_props = vk::MemoryHostPointerPropertiesEXT::default();
    // SAFETY: the host's function with a live device and our mapping.
    let r = unsafe {
        (anb.memory_host.get_memory_host_pointer_properties_ext)(
            dev.handle,
            vk::ExternalMemoryHandleTypeFlags::HOST_ALLOCATION_EXT,
            mapping.base.as_ptr(),
            &mut host_props,
        )
    };
    if r != vk::Result::SUCCESS {
        return Err(r);
    }
    let bits = host_props.memory_type_bits & reqs.memory_type_bits;
    if bits == 0 {
        return Err(vk::Result::ERROR_INVALID_EXTERNAL_HANDLE);
    }
    let mut import = vk::ImportMemoryHostPointerInfoEXT::default()
        .handle_type(vk::ExternalMemoryHandleTypeFlags::HOST_ALLOCATION_EXT);
    import.p_host_pointer = mapping.base.as_ptr();
    let info = vk::MemoryAllocateInfo::default()
        .allocation_size(total as u64)
        .memory_type_index(bits.trailing_zeros())
        .push_next(&mut import);
    // SAFETY: valid allocation info importing our mapping, which outlives the memory (both are
    // owned by the returned `AnbImage`, and the memory is freed first).
    let memory = unsafe { dev.fns.allocate_memory(&info, None) }?;
    // SAFETY: `image` is unbound; the memory covers offset + size.
    if let Err(e) = unsafe { dev.fns.bind_image_memory(image, memory, desc.offset) } {
        // SAFETY: nothing uses the memory.
        unsafe { dev.fns.free_memory(memory, None) };
        return Err(e);
    }
    Ok(AnbImage::Bound {
        memory,
        _mapping: mapping,
    })
}

/// Frees what an [`AnbImage`] holds (after its image was destroyed).
fn release_anb_image(dev: &HostDevice, img: AnbImage) {
    if let AnbImage::Bound { memory, _mapping } = img {
        // SAFETY: the image bound to it is gone; the mapping is unmapped after the memory.
        unsafe { dev.fns.free_memory(memory, None) };
        drop(_mapping);
    }
}

// ---------------------------------------------------------------------------------------------
// Release fences

struct Job {
    fence: vk::Fence,
    signaller: FenceSignaller,
}

struct Worker {
    sender: mpsc::Sender<Job>,
    thread: JoinHandle<()>,
}

impl Worker {
    fn start(fns: ash::Device, pool: Arc<Mutex<Vec<vk::Fence>>>) -> std::io::Result<Self> {
        let (sender, rx) = mpsc::channel::<Job>();
        let thread = std::thread::Builder::new()
            .name("vkgen-release".into())
            .spawn(move || {
                for job in rx {
                    // SAFETY: the fence belongs to the device, which outlives this thread
                    // (`vkDestroyDevice` joins it first).
                    let r = unsafe { fns.wait_for_fences(&[job.fence], true, u64::MAX) };
                    if let Err(e) = job.signaller.signal() {
                        log::error!("signalling a release fence failed: {e}");
                    }
                    // SAFETY: as above; the fence is signalled (or the device lost) and unused.
                    unsafe {
                        if r.is_ok() && fns.reset_fences(&[job.fence]).is_ok() {
                            lock(&pool).push(job.fence);
                        } else {
                            fns.destroy_fence(job.fence, None);
                        }
                    }
                }
            })?;
        Ok(Self { sender, thread })
    }
}

impl AnbDevice {
    /// An unsignalled fence from the pool, or a new one.
    fn fence(&self, dev: &HostDevice) -> Result<vk::Fence, vk::Result> {
        if let Some(f) = lock(&self.fences).pop() {
            return Ok(f);
        }
        let mut export = vk::ExportFenceCreateInfo::default()
            .handle_types(vk::ExternalFenceHandleTypeFlags::SYNC_FD);
        let mut ci = vk::FenceCreateInfo::default();
        if self.fence_fd.is_some() {
            ci = ci.push_next(&mut export);
        }
        // SAFETY: valid create info for a live device.
        unsafe { dev.fns.create_fence(&ci, None) }
    }

    /// Signals `semaphore` and/or `fence` from the internal queue.
    fn signal(&self, dev: &HostDevice, semaphore: vk::Semaphore, fence: vk::Fence) -> vk::Result {
        let sems = [semaphore];
        let mut submit = vk::SubmitInfo::default();
        if semaphore != vk::Semaphore::null() {
            submit = submit.signal_semaphores(&sems);
        }
        let queue = lock(&self.internal_queue);
        // SAFETY: a queue of the device, used under our lock, with a valid batch.
        match unsafe { dev.fns.queue_submit(*queue, &[submit], fence) } {
            Ok(()) => vk::Result::SUCCESS,
            Err(e) => e,
        }
    }
}

/// The host's device-level command `$name` as its `vk::$pfn`; when the host has none, the
/// calling hook returns `VK_ERROR_INVALID_EXTERNAL_HANDLE`.
/// What `vkGet{Semaphore,Fence}FdKHR` may return: anything else becomes the last.
const EXPORT_RESULTS: &[vk::Result] = &[
    vk::Result::SUCCESS,
    vk::Result::ERROR_TOO_MANY_OBJECTS,
    vk::Result::ERROR_OUT_OF_HOST_MEMORY,
];
/// What `vkImport{Semaphore,Fence}FdKHR` may return: anything else becomes the last.
const IMPORT_RESULTS: &[vk::Result] = &[
    vk::Result::SUCCESS,
    vk::Result::ERROR_OUT_OF_HOST_MEMORY,
    vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
];

/// The host's result where the spec allows it for the command, else the command's last allowed
/// error (NVIDIA answers an fd it cannot import with `VK_ERROR_INITIALIZATION_FAILED`).
fn spec_result(r: vk::Result, allowed: &[vk::Result]) -> vk::Result {
    if allowed.contains(&r) {
        return r;
    }
    let mapped = allowed[allowed.len() - 1];
    log::warn!("the host ICD answered {r:?}, which the spec does not allow here: {mapped:?}");
    mapped
}

macro_rules! host_device_fn {
    ($dev:expr, $name:literal, $pfn:ident) => {{
        let cname = concat!($name, "\0");
        // SAFETY: the host's vkGetDeviceProcAddr with its own live device.
        let f = unsafe { ($dev.gdpa)($dev.handle, cname.as_ptr().cast()) };
        match f {
            // SAFETY: the host returns the command of that name, of type `$pfn`.
            Some(f) => unsafe { std::mem::transmute::<unsafe extern "system" fn(), vk::$pfn>(f) },
            None => {
                return vk::Result::ERROR_INVALID_EXTERNAL_HANDLE;
            }
        }
    }};
}

// ---------------------------------------------------------------------------------------------
// The driver

/// The canonical commands the host driver handles itself (aliases follow their command).
const INTERCEPTED: &[CommandId] = &[
    CommandId::CREATE_INSTANCE,
    CommandId::DESTROY_INSTANCE,
    CommandId::ENUMERATE_INSTANCE_VERSION,
    CommandId::ENUMERATE_INSTANCE_EXTENSION_PROPERTIES,
    CommandId::GET_INSTANCE_PROC_ADDR,
    CommandId::GET_DEVICE_PROC_ADDR,
    CommandId::ENUMERATE_DEVICE_EXTENSION_PROPERTIES,
    CommandId::CREATE_DEVICE,
    CommandId::DESTROY_DEVICE,
    CommandId::GET_DEVICE_QUEUE,
    CommandId::GET_DEVICE_QUEUE2,
    CommandId::GET_PHYSICAL_DEVICE_PROPERTIES2,
    CommandId::CREATE_IMAGE,
    CommandId::DESTROY_IMAGE,
    CommandId::BIND_IMAGE_MEMORY2,
    CommandId::GET_SWAPCHAIN_GRALLOC_USAGE_ANDROID,
    CommandId::GET_SWAPCHAIN_GRALLOC_USAGE2_ANDROID,
    CommandId::GET_SWAPCHAIN_GRALLOC_USAGE3_ANDROID,
    CommandId::GET_SWAPCHAIN_GRALLOC_USAGE4_ANDROID,
    CommandId::ACQUIRE_IMAGE_ANDROID,
    CommandId::QUEUE_SIGNAL_RELEASE_IMAGE_ANDROID,
    CommandId::GET_ANDROID_HARDWARE_BUFFER_PROPERTIES_ANDROID,
    CommandId::GET_MEMORY_ANDROID_HARDWARE_BUFFER_ANDROID,
    CommandId::ALLOCATE_MEMORY,
    CommandId::FREE_MEMORY,
    CommandId::BIND_IMAGE_MEMORY,
    CommandId::CREATE_IMAGE_VIEW,
    CommandId::CREATE_BUFFER,
    CommandId::GET_PHYSICAL_DEVICE_IMAGE_FORMAT_PROPERTIES2,
    CommandId::GET_PHYSICAL_DEVICE_EXTERNAL_BUFFER_PROPERTIES,
    CommandId::CREATE_SEMAPHORE,
    CommandId::DESTROY_SEMAPHORE,
    CommandId::CREATE_FENCE,
    CommandId::GET_SEMAPHORE_FD_KHR,
    CommandId::IMPORT_SEMAPHORE_FD_KHR,
    CommandId::GET_FENCE_FD_KHR,
    CommandId::IMPORT_FENCE_FD_KHR,
    CommandId::GET_PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_PROPERTIES,
    CommandId::GET_PHYSICAL_DEVICE_EXTERNAL_FENCE_PROPERTIES,
    CommandId::QUEUE_SUBMIT,
    CommandId::CMD_PIPELINE_BARRIER,
    CommandId::CREATE_SAMPLER_YCBCR_CONVERSION,
    CommandId::CMD_PIPELINE_BARRIER2,
    CommandId::QUEUE_SUBMIT2,
];

/// Gralloc usage for swapchain images of `usage`.
/// Gralloc usage of the host's swapchain images (what the memfd gralloc allocates for).
const GRALLOC_USAGE: GrallocUsage = GrallocUsage {
    base: 0,
    per_image_usage: &[
        (
            vk::ImageUsageFlags::from_raw(
                vk::ImageUsageFlags::COLOR_ATTACHMENT.as_raw()
                    | vk::ImageUsageFlags::TRANSFER_DST.as_raw()
                    | vk::ImageUsageFlags::STORAGE.as_raw(),
            ),
            buffer_usage::GPU_RENDER_TARGET,
        ),
        (
            vk::ImageUsageFlags::from_raw(
                vk::ImageUsageFlags::SAMPLED.as_raw()
                    | vk::ImageUsageFlags::INPUT_ATTACHMENT.as_raw()
                    | vk::ImageUsageFlags::TRANSFER_SRC.as_raw(),
            ),
            buffer_usage::GPU_TEXTURE,
        ),
    ],
    shared: buffer_usage::FRONT_BUFFER,
};

/// `VK_ANDROID_native_buffer`'s gralloc queries and native fences through the kit's component;
/// the host-specific part is signalling through an empty submit and exporting the release fence.
impl<const SLOT: usize> NativeBuffers for HostDriver<SLOT> {
    const GRALLOC_QUERIES: GrallocQueries = GrallocQueries::ALL;
    const NATIVE_FENCES: bool = true;

    /// A LINEAR host image bound to the buffer's pages imported as host memory (zero copy).
    fn import_native_buffer(
        device: vk::Device,
        import: NativeBufferImport<'_>,
        allocator: Option<&vk::AllocationCallbacks<'_>>,
    ) -> Result<vk::Image, vk::Result> {
        let allocator = allocator.map_or(ptr::null(), ptr::from_ref);
        let dev = device_of(device).ok_or(vk::Result::ERROR_INITIALIZATION_FAILED)?;
        let anb = dev
            .anb
            .as_ref()
            .ok_or(vk::Result::ERROR_INVALID_EXTERNAL_HANDLE)?;
        // SAFETY: a create info the kit validated, for this device.
        let image = unsafe { create_importable_image(&dev, import.create_info, allocator) }?;
        // SAFETY: a fresh LINEAR importable image of this device.
        match unsafe { bind_native_buffer(&dev, anb, image, import.buffer) } {
            Ok(state) => {
                lock(&anb.images).insert(vk::Handle::as_raw(image), state);
                Ok(image)
            }
            Err(e) => {
                // SAFETY: the image was never handed out.
                unsafe { (dev.fns.fp_v1_0().destroy_image)(device, image, allocator) };
                Err(e)
            }
        }
    }

    fn gralloc_usage() -> GrallocUsage {
        GRALLOC_USAGE
    }

    fn signal_on_native_fence(
        device: vk::Device,
        semaphore: vk::Semaphore,
        semaphore_fence: Option<NativeFence>,
        fence: vk::Fence,
        fence_fence: Option<NativeFence>,
    ) -> Result<(), vk::Result> {
        // Wait on the calling thread (both copies are the same fence), then signal on the host.
        for f in semaphore_fence.iter().chain(&fence_fence) {
            f.wait(None).map_err(|e| fence_error_result(&e))?;
        }
        drop((semaphore_fence, fence_fence));
        if semaphore == vk::Semaphore::null() && fence == vk::Fence::null() {
            return Ok(());
        }
        let dev = device_of(device).ok_or(vk::Result::ERROR_DEVICE_LOST)?;
        let anb = dev
            .anb
            .as_ref()
            .ok_or(vk::Result::ERROR_EXTENSION_NOT_PRESENT)?;
        match anb.signal(&dev, semaphore, fence) {
            vk::Result::SUCCESS => Ok(()),
            e => Err(e),
        }
    }

    fn release_native_fence(
        queue: vk::Queue,
        waits: &[vk::Semaphore],
        _image: vk::Image,
    ) -> Result<NativeFence, vk::Result> {
        let dev = device_of_queue(queue).ok_or(vk::Result::ERROR_DEVICE_LOST)?;
        let anb = dev
            .anb
            .as_ref()
            .ok_or(vk::Result::ERROR_EXTENSION_NOT_PRESENT)?;
        let stages = vec![vk::PipelineStageFlags::ALL_COMMANDS; waits.len()];
        let fence = anb.fence(&dev)?;
        let submit = vk::SubmitInfo::default()
            .wait_semaphores(waits)
            .wait_dst_stage_mask(&stages);
        // SAFETY: the application's queue (externally synchronised by it for this call).
        if let Err(e) = unsafe { dev.fns.queue_submit(queue, &[submit], fence) } {
            lock(&anb.fences).push(fence);
            return Err(e);
        }
        if let Some(fence_fd) = &anb.fence_fd {
            let info = vk::FenceGetFdInfoKHR::default()
                .fence(fence)
                .handle_type(vk::ExternalFenceHandleTypeFlags::SYNC_FD);
            let mut fd = -1;
            // SAFETY: a fence with a pending signal, exportable as SYNC_FD.
            if unsafe { (fence_fd.get_fence_fd_khr)(dev.handle, &info, &mut fd) }
                == vk::Result::SUCCESS
            {
                // Exporting SYNC_FD resets the fence (copy transference), so it can be reused.
                lock(&anb.fences).push(fence);
                // SAFETY: the driver hands over the fd it just exported.
                return Ok(unsafe { NativeFence::from_raw(fd) });
            }
        }
        let eventfd = FenceSignaller::new().and_then(|s| Ok((s.fd()?, s)));
        let mut worker = lock(&anb.worker);
        if worker.is_none() {
            match Worker::start(dev.fns.clone(), anb.fences.clone()) {
                Ok(w) => *worker = Some(w),
                Err(e) => log::error!("cannot start the release worker: {e}"),
            }
        }
        let waited = |r: vk::Result| match r {
            vk::Result::SUCCESS => Ok(NativeFence::signalled()),
            e => Err(e),
        };
        match (eventfd, worker.as_ref()) {
            (Ok((fd, signaller)), Some(w)) => {
                if let Err(mpsc::SendError(job)) = w.sender.send(Job { fence, signaller }) {
                    // The worker is gone: wait here instead; -1 then means "done".
                    drop(job.signaller);
                    return waited(wait_and_recycle(&dev, anb, fence));
                }
                Ok(NativeFence::from_fd(fd))
            }
            (Err(e), _) => {
                let r = wait_and_recycle(&dev, anb, fence);
                if r == vk::Result::SUCCESS {
                    log::warn!("no eventfd for a release fence ({e}); waited instead");
                }
                waited(r)
            }
            (Ok(_), None) => waited(wait_and_recycle(&dev, anb, fence)),
        }
    }
}

impl<const SLOT: usize> DriverModule for HostDriver<SLOT> {
    const NAME: &'static CStr = c"vkgen host passthrough Vulkan driver";

    fn max_icd_interface_version() -> u32 {
        Self::icd().map_or(
            crate::export::MAX_ICD_INTERFACE_VERSION,
            HostIcd::interface_version,
        )
    }
}

#[crate::driver]
impl<const SLOT: usize> Driver for HostDriver<SLOT> {
    fn fallback(cmd: CommandId) -> vk::PFN_vkVoidFunction {
        crate::kit::native_buffer::entry::<Self>(cmd)
    }

    const API_VERSION: u32 = vkgen_generated::API_VERSION;

    fn supports_extension(ext: ExtensionId) -> bool {
        if matches!(
            ext,
            ExtensionId::ANDROID_NATIVE_BUFFER
                | ExtensionId::ANDROID_EXTERNAL_MEMORY_ANDROID_HARDWARE_BUFFER
                | ExtensionId::EXT_QUEUE_FAMILY_FOREIGN
                | ExtensionId::KHR_EXTERNAL_SEMAPHORE_FD
                | ExtensionId::KHR_EXTERNAL_FENCE_FD
        ) {
            return true;
        }
        let Some(host) = Self::icd() else {
            return false;
        };
        let name = extensions::info(ext).name.to_bytes();
        host.has_instance_extension(name) || host.device_extension_names().contains(name)
    }

    fn intercepts(cmd: CommandId) -> bool {
        let canonical = commands::info(cmd).alias_of.unwrap_or(cmd);
        INTERCEPTED.contains(&canonical)
    }

    unsafe fn passthrough(level: Level, handle: u64, name: &CStr) -> vk::PFN_vkVoidFunction {
        let host = Self::icd()?;
        match level {
            Level::Device => {
                let dev = registry().devices.get(&handle).cloned()?;
                // SAFETY: the host's vkGetDeviceProcAddr with its own live device.
                unsafe { (dev.gdpa)(dev.handle, name.as_ptr()) }
            }
            Level::PhysicalDevice => {
                let instance = vk::Handle::from_raw(handle);
                // SAFETY: the host's lookups with its own instance handle (or null).
                unsafe {
                    match host.gpdpa {
                        Some(gpdpa) => gpdpa(instance, name.as_ptr()),
                        None => (host.gipa)(instance, name.as_ptr()),
                    }
                }
            }
            // SAFETY: the host's lookup with its own instance handle (or null).
            Level::Global | Level::Instance => unsafe {
                (host.gipa)(vk::Handle::from_raw(handle), name.as_ptr())
            },
        }
    }

    fn unimplemented(_cmd: CommandId) -> vk::Result {
        // Reached only for commands the host does not provide.
        vk::Result::ERROR_EXTENSION_NOT_PRESENT
    }

    // --- global ---------------------------------------------------------------------------

    unsafe fn enumerate_instance_version(p_api_version: *mut u32) -> vk::Result {
        let v = Self::icd().map_or(MAX_API_VERSION, |h| h.instance_version.min(MAX_API_VERSION));
        // SAFETY: valid output pointer (null tolerated).
        if let Some(out) = unsafe { p_api_version.as_mut() } {
            *out = v;
        }
        vk::Result::SUCCESS
    }

    unsafe fn enumerate_instance_extension_properties(
        p_layer_name: *const c_char,
        p_property_count: *mut u32,
        p_properties: *mut vk::ExtensionProperties,
    ) -> vk::Result {
        match Self::icd() {
            // SAFETY: forwarded to the host's function.
            Some(h) => unsafe {
                (h.entry.fp_v1_0().enumerate_instance_extension_properties)(
                    p_layer_name,
                    p_property_count,
                    p_properties,
                )
            },
            None if !p_layer_name.is_null() => vk::Result::ERROR_LAYER_NOT_PRESENT,
            // SAFETY: two-call idiom arguments.
            None => unsafe {
                write_array::<vk::ExtensionProperties>(&[], p_property_count, p_properties)
            },
        }
    }

    unsafe fn enumerate_instance_layer_properties(
        p_property_count: *mut u32,
        p_properties: *mut vk::LayerProperties,
    ) -> vk::Result {
        // Only reached without a host (otherwise the host's function is returned).
        // SAFETY: two-call idiom arguments.
        unsafe { write_array::<vk::LayerProperties>(&[], p_property_count, p_properties) }
    }

    unsafe fn create_instance(
        p_create_info: *const vk::InstanceCreateInfo<'_>,
        p_allocator: *const vk::AllocationCallbacks<'_>,
        p_instance: *mut vk::Instance,
    ) -> vk::Result {
        let Some(host) = Self::icd() else {
            return vk::Result::ERROR_INCOMPATIBLE_DRIVER;
        };
        // SAFETY: valid create info per valid usage.
        let Some(ci) = (unsafe { p_create_info.as_ref() }) else {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        };
        // SAFETY: as above.
        let mut app = unsafe { ci.p_application_info.as_ref() }
            .copied()
            .unwrap_or_default();
        app.api_version = host.host_api_version(app.api_version);
        let mut ci2 = *ci;
        ci2.p_application_info = &app;
        let mut instance = vk::Instance::null();
        // SAFETY: the host's vkCreateInstance with a valid create info.
        let r = unsafe { (host.entry.fp_v1_0().create_instance)(&ci2, p_allocator, &mut instance) };
        if r != vk::Result::SUCCESS {
            return r;
        }
        // SAFETY: a live host instance.
        let fns = unsafe { ash::Instance::load(host.entry.static_fn(), instance) };
        registry_mut().instances.insert(
            vk::Handle::as_raw(instance),
            Arc::new(HostInstance { fns, slot: SLOT }),
        );
        // SAFETY: valid output pointer.
        unsafe { *p_instance = instance };
        vk::Result::SUCCESS
    }

    unsafe fn destroy_instance(
        instance: vk::Instance,
        p_allocator: *const vk::AllocationCallbacks<'_>,
    ) {
        let raw = vk::Handle::as_raw(instance);
        let inst = {
            let mut reg = registry_mut();
            let inst = reg.instances.remove(&raw);
            if let Some(i) = &inst {
                reg.physical.retain(|_, v| !Arc::ptr_eq(v, i));
            }
            inst
        };
        if let Some(inst) = inst {
            // SAFETY: the application is done with the instance.
            unsafe { (inst.fns.fp_v1_0().destroy_instance)(instance, p_allocator) };
        }
    }

    unsafe fn enumerate_physical_devices(
        _instance: vk::Instance,
        p_physical_device_count: *mut u32,
        p_physical_devices: *mut vk::PhysicalDevice,
    ) -> vk::Result {
        // Only reached without a host: no devices.
        // SAFETY: two-call idiom arguments.
        unsafe {
            write_array::<vk::PhysicalDevice>(&[], p_physical_device_count, p_physical_devices)
        }
    }

    // --- physical device ------------------------------------------------------------------

    unsafe fn get_physical_device_properties2(
        physical_device: vk::PhysicalDevice,
        p_properties: *mut vk::PhysicalDeviceProperties2<'_>,
    ) {
        let Some(inst) = instance_of(physical_device) else {
            return;
        };
        // SAFETY: the host's function (core 1.1: the host instance is ≥ 1.1) with valid
        // arguments; the host skips our ANDROID structure like any unknown one.
        unsafe {
            (inst.fns.fp_v1_1().get_physical_device_properties2)(physical_device, p_properties);
            if let Some(p) = p_properties.as_mut() {
                for_each_out(p.p_next, |s| {
                    if (*s).s_type
                        == vk::StructureType::PHYSICAL_DEVICE_PRESENTATION_PROPERTIES_ANDROID
                    {
                        (*s.cast::<vk::PhysicalDevicePresentationPropertiesANDROID>())
                            .shared_image = vk::TRUE;
                    }
                });
            }
        }
    }

    unsafe fn enumerate_device_extension_properties(
        physical_device: vk::PhysicalDevice,
        p_layer_name: *const c_char,
        p_property_count: *mut u32,
        p_properties: *mut vk::ExtensionProperties,
    ) -> vk::Result {
        let Some(inst) = instance_of(physical_device) else {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        };
        if !p_layer_name.is_null() {
            // SAFETY: forwarded to the host.
            return unsafe {
                (inst.fns.fp_v1_0().enumerate_device_extension_properties)(
                    physical_device,
                    p_layer_name,
                    p_property_count,
                    p_properties,
                )
            };
        }
        // SAFETY: `physical_device` belongs to `inst`.
        let mut list = unsafe { device_extensions(&inst, physical_device) };
        if has_extension(&list, MEMORY_HOST_NAME) && !has_extension(&list, NATIVE_BUFFER_NAME) {
            list.push(extension_properties(
                NATIVE_BUFFER_NAME,
                NATIVE_BUFFER_SPEC_VERSION,
            ));
        }
        let mut added = hardware_buffer::added_extensions(&list);
        added.extend(sync_fd::added_extensions(&list));
        list.extend(added);
        // SAFETY: two-call idiom arguments.
        unsafe { write_array(&list, p_property_count, p_properties) }
    }

    unsafe fn create_device(
        physical_device: vk::PhysicalDevice,
        p_create_info: *const vk::DeviceCreateInfo<'_>,
        p_allocator: *const vk::AllocationCallbacks<'_>,
        p_device: *mut vk::Device,
    ) -> vk::Result {
        // SAFETY: forwarded.
        unsafe { create_host_device(physical_device, p_create_info, p_allocator, p_device, false) }
    }

    unsafe fn destroy_device(device: vk::Device, p_allocator: *const vk::AllocationCallbacks<'_>) {
        let raw = vk::Handle::as_raw(device);
        let state = {
            let mut reg = registry_mut();
            let state = reg.devices.remove(&raw);
            if let Some(s) = &state {
                reg.queues.retain(|_, v| !Arc::ptr_eq(v, s));
            }
            state
        };
        let Some(dev) = state else {
            return;
        };
        sync_fd::forget_device(&dev);
        if let Some(sync) = &dev.sync {
            sync.shut_down(&dev);
        }
        if let Some(anb) = &dev.anb {
            // Let pending release fences complete and the worker exit.
            if let Some(w) = lock(&anb.worker).take() {
                drop(w.sender);
                if w.thread.join().is_err() {
                    log::error!("the release worker panicked");
                }
            }
            for f in std::mem::take(&mut *lock(&anb.fences)) {
                // SAFETY: pooled fences are unsignalled and unused.
                unsafe { dev.fns.destroy_fence(f, None) };
            }
            // Images the application did not destroy: their imports go with the device.
            for (_, img) in std::mem::take(&mut *lock(&anb.images)) {
                release_anb_image(&dev, img);
            }
        }
        // SAFETY: the application is done with the device.
        unsafe { (dev.fns.fp_v1_0().destroy_device)(device, p_allocator) };
    }

    // --- device ---------------------------------------------------------------------------

    unsafe fn get_device_queue(
        device: vk::Device,
        queue_family_index: u32,
        queue_index: u32,
        p_queue: *mut vk::Queue,
    ) {
        let Some(dev) = device_of(device) else {
            return;
        };
        // SAFETY: forwarded to the host with valid arguments.
        unsafe {
            (dev.fns.fp_v1_0().get_device_queue)(device, queue_family_index, queue_index, p_queue)
        };
        // SAFETY: valid output pointer, written by the host.
        if let Some(&q) = unsafe { p_queue.as_ref() } {
            if q != vk::Queue::null() {
                registry_mut().queues.insert(vk::Handle::as_raw(q), dev);
            }
        }
    }

    unsafe fn get_device_queue2(
        device: vk::Device,
        p_queue_info: *const vk::DeviceQueueInfo2<'_>,
        p_queue: *mut vk::Queue,
    ) {
        let Some(dev) = device_of(device) else {
            return;
        };
        // SAFETY: forwarded to the host with valid arguments.
        unsafe { (dev.fns.fp_v1_1().get_device_queue2)(device, p_queue_info, p_queue) };
        // SAFETY: valid output pointer, written by the host.
        if let Some(&q) = unsafe { p_queue.as_ref() } {
            if q != vk::Queue::null() {
                registry_mut().queues.insert(vk::Handle::as_raw(q), dev);
            }
        }
    }

    unsafe fn create_image(
        device: vk::Device,
        p_create_info: *const vk::ImageCreateInfo<'_>,
        p_allocator: *const vk::AllocationCallbacks<'_>,
        p_image: *mut vk::Image,
    ) -> vk::Result {
        let Some(dev) = device_of(device) else {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        };
        // SAFETY: valid create info.
        let Some(ci) = (unsafe { p_create_info.as_ref() }) else {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        };
        // SAFETY: per valid usage; a `VkNativeBufferANDROID` goes through the kit's import
        // (validated there, then `import_native_buffer` below).
        if let Some(r) = unsafe {
            create_native_buffer_image::<Self>(device, p_create_info, p_allocator, p_image)
        } {
            return r;
        }
        // SAFETY: valid create info and output pointer.
        if let Some(r) = unsafe { hardware_buffer::create_image(&dev, ci, p_allocator, p_image) } {
            return r;
        }
        // SAFETY: valid input chain.
        let for_swapchain = unsafe {
            find_in_chain::<vk::BaseInStructure<'_>>(
                ci.p_next,
                vk::StructureType::IMAGE_SWAPCHAIN_CREATE_INFO_KHR,
            )
        }
        .is_some();
        if !for_swapchain {
            // SAFETY: forwarded to the host.
            return unsafe { (dev.fns.fp_v1_0().create_image)(device, ci, p_allocator, p_image) };
        }
        let Some(anb) = &dev.anb else {
            return vk::Result::ERROR_INVALID_EXTERNAL_HANDLE;
        };
        // A swapchain image whose buffer comes at bind time (spec 8's deferred allocation).
        // SAFETY: the application's valid create info.
        let image = match unsafe { create_importable_image(&dev, ci, p_allocator) } {
            Ok(i) => i,
            Err(e) => return e,
        };
        lock(&anb.images).insert(vk::Handle::as_raw(image), AnbImage::Pending);
        // SAFETY: valid output pointer.
        unsafe { *p_image = image };
        vk::Result::SUCCESS
    }

    unsafe fn destroy_image(
        device: vk::Device,
        image: vk::Image,
        p_allocator: *const vk::AllocationCallbacks<'_>,
    ) {
        let Some(dev) = device_of(device) else {
            return;
        };
        if hardware_buffer::destroy_image(&dev, image, p_allocator) {
            return;
        }
        // SAFETY: forwarded to the host; the application is done with the image.
        unsafe { (dev.fns.fp_v1_0().destroy_image)(device, image, p_allocator) };
        if let Some(anb) = &dev.anb {
            let img = lock(&anb.images).remove(&vk::Handle::as_raw(image));
            if let Some(img) = img {
                release_anb_image(&dev, img);
            }
        }
    }

    unsafe fn bind_image_memory2(
        device: vk::Device,
        bind_info_count: u32,
        p_bind_infos: *const vk::BindImageMemoryInfo<'_>,
    ) -> vk::Result {
        let Some(dev) = device_of(device) else {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        };
        // SAFETY: `pBindInfos` holds `bindInfoCount` valid structures.
        let all = unsafe { slice(p_bind_infos, bind_info_count) };
        let rest = match hardware_buffer::bind_images(&dev, all) {
            Ok(r) => return r,
            Err(rest) => rest,
        };
        let infos = &rest[..];
        let native = |i: &vk::BindImageMemoryInfo<'_>| {
            // SAFETY: valid input chain.
            unsafe {
                find_in_chain::<vk::NativeBufferANDROID>(
                    i.p_next,
                    vk::StructureType::NATIVE_BUFFER_ANDROID,
                )
            }
        };
        let (Some(anb), true) = (&dev.anb, infos.iter().any(|i| native(i).is_some())) else {
            // SAFETY: forwarded to the host.
            return unsafe {
                (dev.fns.fp_v1_1().bind_image_memory2)(device, infos.len() as u32, infos.as_ptr())
            };
        };
        let mut others = Vec::new();
        let mut chains = Vec::new();
        for info in infos {
            match native(info) {
                Some(nb) => {
                    let raw = vk::Handle::as_raw(info.image);
                    if !matches!(lock(&anb.images).get(&raw), Some(AnbImage::Pending)) {
                        return vk::Result::ERROR_INVALID_EXTERNAL_HANDLE;
                    }
                    // SAFETY: the loader's handle; parsed and dup'ed by the kit.
                    let buffer = match unsafe { native_buffer_of(nb) } {
                        Ok(b) => b,
                        Err(e) => return e,
                    };
                    // SAFETY: a pending swapchain image of this device, created importable.
                    match unsafe { bind_native_buffer(&dev, anb, info.image, buffer) } {
                        Ok(state) => {
                            lock(&anb.images).insert(raw, state);
                        }
                        Err(e) => return e,
                    }
                }
                None => {
                    // SAFETY: the application's chain, valid during this call.
                    let chain = unsafe {
                        ChainEdit::without(
                            info.p_next,
                            &[vk::StructureType::BIND_IMAGE_MEMORY_SWAPCHAIN_INFO_KHR],
                        )
                    };
                    let mut copy = *info;
                    copy.p_next = chain.head();
                    chains.push(chain);
                    others.push(copy);
                }
            }
        }
        if others.is_empty() {
            return vk::Result::SUCCESS;
        }
        // SAFETY: forwarded to the host; the edited chains live until after the call.
        let r = unsafe {
            (dev.fns.fp_v1_1().bind_image_memory2)(device, others.len() as u32, others.as_ptr())
        };
        drop(chains);
        r
    }

    unsafe fn bind_image_memory(
        device: vk::Device,
        image: vk::Image,
        memory: vk::DeviceMemory,
        memory_offset: vk::DeviceSize,
    ) -> vk::Result {
        let info = vk::BindImageMemoryInfo::default()
            .image(image)
            .memory(memory)
            .memory_offset(memory_offset);
        // SAFETY: one valid bind.
        unsafe { Self::bind_image_memory2(device, 1, &info) }
    }

    // --- VK_ANDROID_external_memory_android_hardware_buffer -------------------------------

    unsafe fn allocate_memory(
        device: vk::Device,
        p_allocate_info: *const vk::MemoryAllocateInfo<'_>,
        p_allocator: *const vk::AllocationCallbacks<'_>,
        p_memory: *mut vk::DeviceMemory,
    ) -> vk::Result {
        let Some(dev) = device_of(device) else {
            return vk::Result::ERROR_OUT_OF_HOST_MEMORY;
        };
        // SAFETY: valid allocate info and output pointer per valid usage.
        unsafe {
            if let Some(info) = p_allocate_info.as_ref() {
                if let Some(r) = hardware_buffer::allocate_memory(&dev, info, p_allocator, p_memory)
                {
                    return r;
                }
            }
            (dev.fns.fp_v1_0().allocate_memory)(device, p_allocate_info, p_allocator, p_memory)
        }
    }

    unsafe fn free_memory(
        device: vk::Device,
        memory: vk::DeviceMemory,
        p_allocator: *const vk::AllocationCallbacks<'_>,
    ) {
        let Some(dev) = device_of(device) else {
            return;
        };
        // SAFETY: forwarded; the application is done with the memory.
        unsafe { (dev.fns.fp_v1_0().free_memory)(device, memory, p_allocator) };
        hardware_buffer::forget_memory(&dev, memory);
    }

    unsafe fn create_image_view(
        device: vk::Device,
        p_create_info: *const vk::ImageViewCreateInfo<'_>,
        p_allocator: *const vk::AllocationCallbacks<'_>,
        p_view: *mut vk::ImageView,
    ) -> vk::Result {
        let Some(dev) = device_of(device) else {
            return vk::Result::ERROR_OUT_OF_HOST_MEMORY;
        };
        // SAFETY: valid create info and output pointer per valid usage.
        unsafe {
            if let Some(ci) = p_create_info.as_ref() {
                if let Some(r) = hardware_buffer::create_image_view(&dev, ci, p_allocator, p_view) {
                    return r;
                }
            }
            (dev.fns.fp_v1_0().create_image_view)(device, p_create_info, p_allocator, p_view)
        }
    }

    unsafe fn create_buffer(
        device: vk::Device,
        p_create_info: *const vk::BufferCreateInfo<'_>,
        p_allocator: *const vk::AllocationCallbacks<'_>,
        p_buffer: *mut vk::Buffer,
    ) -> vk::Result {
        let Some(dev) = device_of(device) else {
            return vk::Result::ERROR_OUT_OF_HOST_MEMORY;
        };
        // SAFETY: valid create info and output pointer per valid usage.
        unsafe {
            match p_create_info.as_ref() {
                Some(ci) => hardware_buffer::create_buffer(&dev, ci, p_allocator, p_buffer),
                None => vk::Result::ERROR_OUT_OF_HOST_MEMORY,
            }
        }
    }

    unsafe fn get_android_hardware_buffer_properties_android(
        device: vk::Device,
        buffer: *const vk::AHardwareBuffer,
        p_properties: *mut vk::AndroidHardwareBufferPropertiesANDROID<'_>,
    ) -> vk::Result {
        match device_of(device) {
            // SAFETY: any buffer pointer is checked; valid output chain per valid usage.
            Some(dev) => unsafe { hardware_buffer::properties(&dev, buffer, p_properties) },
            None => vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
        }
    }

    unsafe fn get_memory_android_hardware_buffer_android(
        device: vk::Device,
        p_info: *const vk::MemoryGetAndroidHardwareBufferInfoANDROID<'_>,
        p_buffer: *mut *mut vk::AHardwareBuffer,
    ) -> vk::Result {
        // SAFETY: valid input structure and output pointer per valid usage.
        unsafe {
            match (device_of(device), p_info.as_ref()) {
                (Some(dev), Some(info)) => hardware_buffer::memory_buffer(&dev, info, p_buffer),
                _ => vk::Result::ERROR_OUT_OF_HOST_MEMORY,
            }
        }
    }

    unsafe fn get_physical_device_image_format_properties2(
        physical_device: vk::PhysicalDevice,
        p_image_format_info: *const vk::PhysicalDeviceImageFormatInfo2<'_>,
        p_image_format_properties: *mut vk::ImageFormatProperties2<'_>,
    ) -> vk::Result {
        let Some(inst) = instance_of(physical_device) else {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        };
        // SAFETY: valid input and output structures per valid usage.
        unsafe {
            if let (Some(info), Some(props)) = (
                p_image_format_info.as_ref(),
                p_image_format_properties.as_mut(),
            ) {
                if let Some(r) =
                    hardware_buffer::image_format_properties(&inst, physical_device, info, props)
                {
                    return r;
                }
            }
            (inst
                .fns
                .fp_v1_1()
                .get_physical_device_image_format_properties2)(
                physical_device,
                p_image_format_info,
                p_image_format_properties,
            )
        }
    }

    unsafe fn get_physical_device_external_buffer_properties(
        physical_device: vk::PhysicalDevice,
        p_external_buffer_info: *const vk::PhysicalDeviceExternalBufferInfo<'_>,
        p_external_buffer_properties: *mut vk::ExternalBufferProperties<'_>,
    ) {
        let Some(inst) = instance_of(physical_device) else {
            return;
        };
        // SAFETY: valid input and output structures per valid usage.
        unsafe {
            if let (Some(info), Some(out)) = (
                p_external_buffer_info.as_ref(),
                p_external_buffer_properties.as_mut(),
            ) {
                if info.handle_type == crate::kit::hardware_buffer::HANDLE_TYPE {
                    out.external_memory_properties =
                        crate::kit::hardware_buffer::external_memory_properties(false);
                    return;
                }
            }
            (inst
                .fns
                .fp_v1_1()
                .get_physical_device_external_buffer_properties)(
                physical_device,
                p_external_buffer_info,
                p_external_buffer_properties,
            )
        }
    }

    unsafe fn queue_submit(
        queue: vk::Queue,
        submit_count: u32,
        p_submits: *const vk::SubmitInfo<'_>,
        fence: vk::Fence,
    ) -> vk::Result {
        // SAFETY: the application's valid arguments, forwarded or rewritten.
        unsafe { sync_fd::queue_submit(SLOT, queue, submit_count, p_submits, fence) }
    }

    unsafe fn queue_submit2(
        queue: vk::Queue,
        submit_count: u32,
        p_submits: *const vk::SubmitInfo2<'_>,
        fence: vk::Fence,
    ) -> vk::Result {
        // SAFETY: the application's valid arguments, forwarded or rewritten.
        unsafe { sync_fd::queue_submit2(SLOT, queue, submit_count, p_submits, fence) }
    }

    unsafe fn create_sampler_ycbcr_conversion(
        device: vk::Device,
        p_create_info: *const vk::SamplerYcbcrConversionCreateInfo<'_>,
        p_allocator: *const vk::AllocationCallbacks<'_>,
        p_ycbcr_conversion: *mut vk::SamplerYcbcrConversion,
    ) -> vk::Result {
        let Some(dev) = device_of(device) else {
            return vk::Result::ERROR_OUT_OF_HOST_MEMORY;
        };
        // SAFETY: valid create info and output pointer per valid usage.
        unsafe {
            if let Some(ci) = p_create_info.as_ref() {
                if let Some(r) = hardware_buffer::create_sampler_ycbcr_conversion(
                    &dev,
                    ci,
                    p_allocator,
                    p_ycbcr_conversion,
                ) {
                    return r;
                }
            }
            (dev.fns.fp_v1_1().create_sampler_ycbcr_conversion)(
                device,
                p_create_info,
                p_allocator,
                p_ycbcr_conversion,
            )
        }
    }

    // --- AHardwareBuffer images copied at ownership transfers (copy_backed) ----------------

    unsafe fn cmd_pipeline_barrier(
        command_buffer: vk::CommandBuffer,
        src_stage_mask: vk::PipelineStageFlags,
        dst_stage_mask: vk::PipelineStageFlags,
        dependency_flags: vk::DependencyFlags,
        memory_barrier_count: u32,
        p_memory_barriers: *const vk::MemoryBarrier<'_>,
        buffer_memory_barrier_count: u32,
        p_buffer_memory_barriers: *const vk::BufferMemoryBarrier<'_>,
        image_memory_barrier_count: u32,
        p_image_memory_barriers: *const vk::ImageMemoryBarrier<'_>,
    ) {
        // SAFETY: the application's valid arguments, forwarded or rewritten.
        unsafe {
            copy_backed::cmd_pipeline_barrier(
                SLOT,
                command_buffer,
                src_stage_mask,
                dst_stage_mask,
                dependency_flags,
                memory_barrier_count,
                p_memory_barriers,
                buffer_memory_barrier_count,
                p_buffer_memory_barriers,
                image_memory_barrier_count,
                p_image_memory_barriers,
            )
        }
    }

    unsafe fn cmd_pipeline_barrier2(
        command_buffer: vk::CommandBuffer,
        p_dependency_info: *const vk::DependencyInfo<'_>,
    ) {
        // SAFETY: the application's valid arguments, forwarded or rewritten.
        unsafe { copy_backed::cmd_pipeline_barrier2(SLOT, command_buffer, p_dependency_info) }
    }

    // --- SYNC_FD (emulated where the host has no fd extensions) ----------------------------

    unsafe fn create_semaphore(
        device: vk::Device,
        p_create_info: *const vk::SemaphoreCreateInfo<'_>,
        p_allocator: *const vk::AllocationCallbacks<'_>,
        p_semaphore: *mut vk::Semaphore,
    ) -> vk::Result {
        let Some(dev) = device_of(device) else {
            return vk::Result::ERROR_OUT_OF_HOST_MEMORY;
        };
        // SAFETY: valid create info and output pointer per valid usage.
        unsafe {
            if let Some(ci) = p_create_info.as_ref() {
                if let Some(r) = sync_fd::create_semaphore(&dev, ci, p_allocator, p_semaphore) {
                    return r;
                }
            }
            (dev.fns.fp_v1_0().create_semaphore)(device, p_create_info, p_allocator, p_semaphore)
        }
    }

    unsafe fn destroy_semaphore(
        device: vk::Device,
        semaphore: vk::Semaphore,
        p_allocator: *const vk::AllocationCallbacks<'_>,
    ) {
        let Some(dev) = device_of(device) else {
            return;
        };
        sync_fd::forget_semaphore(&dev, semaphore);
        // SAFETY: forwarded; the application is done with the semaphore.
        unsafe { (dev.fns.fp_v1_0().destroy_semaphore)(device, semaphore, p_allocator) };
    }

    unsafe fn create_fence(
        device: vk::Device,
        p_create_info: *const vk::FenceCreateInfo<'_>,
        p_allocator: *const vk::AllocationCallbacks<'_>,
        p_fence: *mut vk::Fence,
    ) -> vk::Result {
        let Some(dev) = device_of(device) else {
            return vk::Result::ERROR_OUT_OF_HOST_MEMORY;
        };
        // SAFETY: valid create info and output pointer per valid usage.
        unsafe {
            if let Some(ci) = p_create_info.as_ref() {
                if let Some(r) = sync_fd::create_fence(&dev, ci, p_allocator, p_fence) {
                    return r;
                }
            }
            (dev.fns.fp_v1_0().create_fence)(device, p_create_info, p_allocator, p_fence)
        }
    }

    unsafe fn get_semaphore_fd_khr(
        device: vk::Device,
        p_get_fd_info: *const vk::SemaphoreGetFdInfoKHR<'_>,
        p_fd: *mut std::ffi::c_int,
    ) -> vk::Result {
        let Some(dev) = device_of(device) else {
            return vk::Result::ERROR_INVALID_EXTERNAL_HANDLE;
        };
        // SAFETY: a valid structure or null, per valid usage.
        let sync_fd = unsafe { p_get_fd_info.as_ref() }
            .is_some_and(|i| i.handle_type == vk::ExternalSemaphoreHandleTypeFlags::SYNC_FD);
        // Other handle types are the host's even where SYNC_FD is emulated.
        if dev.sync.is_none() || !sync_fd {
            let f = host_device_fn!(dev, "vkGetSemaphoreFdKHR", PFN_vkGetSemaphoreFdKHR);
            // SAFETY: the host's own command with the application's arguments.
            return spec_result(unsafe { f(device, p_get_fd_info, p_fd) }, EXPORT_RESULTS);
        }
        // SAFETY: valid input structure and output pointer per valid usage.
        let (Some(info), false) = (unsafe { p_get_fd_info.as_ref() }, p_fd.is_null()) else {
            return vk::Result::ERROR_INVALID_EXTERNAL_HANDLE;
        };
        match sync_fd::get_semaphore_fd(&dev, info) {
            Ok(fence) => {
                // SAFETY: non-null output pointer; the application owns the fd.
                unsafe { *p_fd = fence.into_raw() };
                vk::Result::SUCCESS
            }
            Err(e) => e,
        }
    }

    unsafe fn get_fence_fd_khr(
        device: vk::Device,
        p_get_fd_info: *const vk::FenceGetFdInfoKHR<'_>,
        p_fd: *mut std::ffi::c_int,
    ) -> vk::Result {
        let Some(dev) = device_of(device) else {
            return vk::Result::ERROR_INVALID_EXTERNAL_HANDLE;
        };
        // SAFETY: a valid structure or null, per valid usage.
        let sync_fd = unsafe { p_get_fd_info.as_ref() }
            .is_some_and(|i| i.handle_type == vk::ExternalFenceHandleTypeFlags::SYNC_FD);
        // Other handle types are the host's even where SYNC_FD is emulated.
        if dev.sync.is_none() || !sync_fd {
            let f = host_device_fn!(dev, "vkGetFenceFdKHR", PFN_vkGetFenceFdKHR);
            // SAFETY: the host's own command with the application's arguments.
            return spec_result(unsafe { f(device, p_get_fd_info, p_fd) }, EXPORT_RESULTS);
        }
        // SAFETY: valid input structure and output pointer per valid usage.
        let (Some(info), false) = (unsafe { p_get_fd_info.as_ref() }, p_fd.is_null()) else {
            return vk::Result::ERROR_INVALID_EXTERNAL_HANDLE;
        };
        match sync_fd::get_fence_fd(&dev, info) {
            Ok(fence) => {
                // SAFETY: non-null output pointer; the application owns the fd.
                unsafe { *p_fd = fence.into_raw() };
                vk::Result::SUCCESS
            }
            Err(e) => e,
        }
    }

    unsafe fn import_semaphore_fd_khr(
        device: vk::Device,
        p_import_semaphore_fd_info: *const vk::ImportSemaphoreFdInfoKHR<'_>,
    ) -> vk::Result {
        let Some(dev) = device_of(device) else {
            return vk::Result::ERROR_INVALID_EXTERNAL_HANDLE;
        };
        // SAFETY: a valid structure or null, per valid usage.
        let sync_fd = unsafe { p_import_semaphore_fd_info.as_ref() }
            .is_some_and(|i| i.handle_type == vk::ExternalSemaphoreHandleTypeFlags::SYNC_FD);
        // Other handle types are the host's even where SYNC_FD is emulated.
        if dev.sync.is_none() || !sync_fd {
            let f = host_device_fn!(dev, "vkImportSemaphoreFdKHR", PFN_vkImportSemaphoreFdKHR);
            // SAFETY: the host's own command with the application's arguments.
            return spec_result(
                unsafe { f(device, p_import_semaphore_fd_info) },
                IMPORT_RESULTS,
            );
        }
        // SAFETY: valid input structure per valid usage.
        let Some(info) = (unsafe { p_import_semaphore_fd_info.as_ref() }) else {
            return vk::Result::ERROR_INVALID_EXTERNAL_HANDLE;
        };
        if info.handle_type != vk::ExternalSemaphoreHandleTypeFlags::SYNC_FD
            || !info.flags.contains(vk::SemaphoreImportFlags::TEMPORARY)
        {
            return vk::Result::ERROR_INVALID_EXTERNAL_HANDLE;
        }
        sync_fd::import(&dev, sync_fd::Target::Semaphore(info.semaphore), info.fd)
    }

    unsafe fn import_fence_fd_khr(
        device: vk::Device,
        p_import_fence_fd_info: *const vk::ImportFenceFdInfoKHR<'_>,
    ) -> vk::Result {
        let Some(dev) = device_of(device) else {
            return vk::Result::ERROR_INVALID_EXTERNAL_HANDLE;
        };
        // SAFETY: a valid structure or null, per valid usage.
        let sync_fd = unsafe { p_import_fence_fd_info.as_ref() }
            .is_some_and(|i| i.handle_type == vk::ExternalFenceHandleTypeFlags::SYNC_FD);
        // Other handle types are the host's even where SYNC_FD is emulated.
        if dev.sync.is_none() || !sync_fd {
            let f = host_device_fn!(dev, "vkImportFenceFdKHR", PFN_vkImportFenceFdKHR);
            // SAFETY: the host's own command with the application's arguments.
            return spec_result(unsafe { f(device, p_import_fence_fd_info) }, IMPORT_RESULTS);
        }
        // SAFETY: valid input structure per valid usage.
        let Some(info) = (unsafe { p_import_fence_fd_info.as_ref() }) else {
            return vk::Result::ERROR_INVALID_EXTERNAL_HANDLE;
        };
        if info.handle_type != vk::ExternalFenceHandleTypeFlags::SYNC_FD
            || !info.flags.contains(vk::FenceImportFlags::TEMPORARY)
        {
            return vk::Result::ERROR_INVALID_EXTERNAL_HANDLE;
        }
        sync_fd::import(&dev, sync_fd::Target::Fence(info.fence), info.fd)
    }

    unsafe fn get_physical_device_external_semaphore_properties(
        physical_device: vk::PhysicalDevice,
        p_external_semaphore_info: *const vk::PhysicalDeviceExternalSemaphoreInfo<'_>,
        p_external_semaphore_properties: *mut vk::ExternalSemaphoreProperties<'_>,
    ) {
        let Some(inst) = instance_of(physical_device) else {
            return;
        };
        // SAFETY: valid structures per valid usage; `physical_device` belongs to `inst`.
        unsafe {
            if let (Some(info), Some(out)) = (
                p_external_semaphore_info.as_ref(),
                p_external_semaphore_properties.as_mut(),
            ) {
                let sync = vk::ExternalSemaphoreHandleTypeFlags::SYNC_FD;
                let timeline = find_in_chain::<vk::SemaphoreTypeCreateInfo<'_>>(
                    info.p_next,
                    vk::StructureType::SEMAPHORE_TYPE_CREATE_INFO,
                )
                .is_some_and(|t| t.semaphore_type == vk::SemaphoreType::TIMELINE);
                // Passed through or emulated, SYNC_FD always works (a host that lists it but
                // fails its probe is emulated: `create_host_device`).
                if info.handle_type == sync {
                    let (features, _) = sync_fd::sync_fd_features();
                    out.external_semaphore_features = if timeline {
                        Default::default()
                    } else {
                        features
                    };
                    out.export_from_imported_handle_types =
                        if timeline { Default::default() } else { sync };
                    out.compatible_handle_types = if timeline { Default::default() } else { sync };
                    return;
                }
            }
            (inst
                .fns
                .fp_v1_1()
                .get_physical_device_external_semaphore_properties)(
                physical_device,
                p_external_semaphore_info,
                p_external_semaphore_properties,
            )
        }
    }

    unsafe fn get_physical_device_external_fence_properties(
        physical_device: vk::PhysicalDevice,
        p_external_fence_info: *const vk::PhysicalDeviceExternalFenceInfo<'_>,
        p_external_fence_properties: *mut vk::ExternalFenceProperties<'_>,
    ) {
        let Some(inst) = instance_of(physical_device) else {
            return;
        };
        // SAFETY: valid structures per valid usage; `physical_device` belongs to `inst`.
        unsafe {
            if let (Some(info), Some(out)) = (
                p_external_fence_info.as_ref(),
                p_external_fence_properties.as_mut(),
            ) {
                let sync = vk::ExternalFenceHandleTypeFlags::SYNC_FD;
                if info.handle_type == sync {
                    out.external_fence_features = sync_fd::sync_fd_features().1;
                    out.export_from_imported_handle_types = sync;
                    out.compatible_handle_types = sync;
                    return;
                }
            }
            (inst
                .fns
                .fp_v1_1()
                .get_physical_device_external_fence_properties)(
                physical_device,
                p_external_fence_info,
                p_external_fence_properties,
            )
        }
    }

    // --- VK_ANDROID_native_buffer ---------------------------------------------------------
}

/// `vkCreateDevice`. `force_emulate`: the host's own `SYNC_FD` failed its probe on a first
/// try ([`sync_fd::host_sync_fd_works`]), so this device emulates it.
///
/// # Safety
/// The application's valid arguments.
unsafe fn create_host_device(
    physical_device: vk::PhysicalDevice,
    p_create_info: *const vk::DeviceCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_device: *mut vk::Device,
    force_emulate: bool,
) -> vk::Result {
    let Some(inst) = instance_of(physical_device) else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    // SAFETY: valid create info per valid usage.
    let Some(ci) = (unsafe { p_create_info.as_ref() }) else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    // SAFETY: `ppEnabledExtensionNames` holds `enabledExtensionCount` C strings.
    let names: Vec<&CStr> =
        unsafe { slice(ci.pp_enabled_extension_names, ci.enabled_extension_count) }
            .iter()
            .filter(|p| !p.is_null())
            // SAFETY: as above.
            .map(|&p| unsafe { CStr::from_ptr(p) })
            .collect();
    let wants_anb = names.contains(&NATIVE_BUFFER_NAME);
    let wants_ahb = names.contains(&hardware_buffer::NAME);
    let mut ci2 = *ci;
    let mut sync_fd = false;
    let mut host_names: Vec<*const c_char> = Vec::new();
    // SAFETY: `physical_device` belongs to `inst`.
    let available = unsafe { device_extensions(&inst, physical_device) };
    let emulate_sync = force_emulate || sync_fd::emulated(&available, &names);
    let mut timeline_chain = None;
    if wants_anb || wants_ahb || emulate_sync {
        if (wants_anb || wants_ahb) && !has_extension(&available, MEMORY_HOST_NAME) {
            return vk::Result::ERROR_EXTENSION_NOT_PRESENT;
        }
        let ours = |n: &CStr| {
            n == NATIVE_BUFFER_NAME
                || n == hardware_buffer::NAME
                || ((n == hardware_buffer::QUEUE_FAMILY_FOREIGN_NAME
                    || n == sync_fd::SEMAPHORE_FD_NAME
                    || n == sync_fd::FENCE_FD_NAME)
                    && !has_extension(&available, n))
        };
        if has_extension(&available, FENCE_FD_NAME) {
            let info = vk::PhysicalDeviceExternalFenceInfo::default()
                .handle_type(vk::ExternalFenceHandleTypeFlags::SYNC_FD);
            let mut props = vk::ExternalFenceProperties::default();
            // SAFETY: core 1.1 query with valid structures.
            unsafe {
                (inst
                    .fns
                    .fp_v1_1()
                    .get_physical_device_external_fence_properties)(
                    physical_device,
                    &info,
                    &mut props,
                )
            };
            sync_fd = !force_emulate
                && props
                    .external_fence_features
                    .contains(vk::ExternalFenceFeatureFlags::EXPORTABLE);
        }
        host_names.extend(names.iter().filter(|&&n| !ours(n)).map(|n| n.as_ptr()));
        let timeline_ext = c"VK_KHR_timeline_semaphore";
        for (needed, want) in [
            (MEMORY_HOST_NAME, wants_anb || wants_ahb),
            (FENCE_FD_NAME, sync_fd),
            (
                timeline_ext,
                emulate_sync && has_extension(&available, timeline_ext),
            ),
        ] {
            if want && !names.contains(&needed) {
                host_names.push(needed.as_ptr());
            }
        }
        ci2.enabled_extension_count = host_names.len() as u32;
        ci2.pp_enabled_extension_names = host_names.as_ptr();
        if emulate_sync {
            // SAFETY: the application's valid chain.
            let chain = unsafe { sync_fd::with_timeline_feature(ci.p_next) };
            ci2.p_next = chain.head();
            timeline_chain = Some(chain);
        }
    }
    let mut device = vk::Device::null();
    // SAFETY: the host's vkCreateDevice with a valid create info (arrays outlive the call).
    let r = unsafe {
        (inst.fns.fp_v1_0().create_device)(physical_device, &ci2, p_allocator, &mut device)
    };
    drop(timeline_chain);
    if r != vk::Result::SUCCESS {
        return r;
    }
    let gdpa = inst.fns.fp_v1_0().get_device_proc_addr;
    // SAFETY: a live host device.
    let fns = unsafe { ash::Device::load(inst.fns.fp_v1_0(), device) };
    let wants_sync =
        [sync_fd::SEMAPHORE_FD_NAME, sync_fd::FENCE_FD_NAME].map(|n| names.contains(&n));
    if !emulate_sync && (wants_sync[0] || wants_sync[1]) {
        // SAFETY: `pQueueCreateInfos` holds `queueCreateInfoCount` structures.
        let family = unsafe { slice(ci.p_queue_create_infos, ci.queue_create_info_count) }
            .first()
            .map_or(0, |q| q.queue_family_index);
        // SAFETY: the new device, unknown to the application yet; queue 0 of a family it was
        // created with.
        let works = unsafe {
            let queue = fns.get_device_queue(family, 0);
            sync_fd::host_sync_fd_works(&fns, gdpa, device, queue, wants_sync[0], wants_sync[1])
        };
        if !works {
            log::info!("the host's SYNC_FD does not work on this device: emulated");
            // SAFETY: the device was never handed out; the probe waited for its work.
            unsafe { fns.destroy_device(p_allocator.as_ref()) };
            // SAFETY: forwarded.
            return unsafe {
                create_host_device(physical_device, p_create_info, p_allocator, p_device, true)
            };
        }
    }
    let load = |name: &CStr| {
        // SAFETY: the host's vkGetDeviceProcAddr; the result (maybe null) is what ash expects.
        unsafe {
            std::mem::transmute::<vk::PFN_vkVoidFunction, *const c_void>(gdpa(
                device,
                name.as_ptr(),
            ))
        }
    };
    let anb = (wants_anb || wants_ahb || emulate_sync).then(|| {
        let mut host_props = vk::PhysicalDeviceExternalMemoryHostPropertiesEXT::default();
        let mut props2 = vk::PhysicalDeviceProperties2::default().push_next(&mut host_props);
        // SAFETY: core 1.1 query with valid structures.
        unsafe {
            (inst.fns.fp_v1_1().get_physical_device_properties2)(physical_device, &mut props2)
        };
        let import_alignment = host_props.min_imported_host_pointer_alignment.max(1);
        // SAFETY: `pQueueCreateInfos` holds `queueCreateInfoCount` structures.
        let family = unsafe { slice(ci.p_queue_create_infos, ci.queue_create_info_count) }
            .first()
            .map_or(0, |q| q.queue_family_index);
        // SAFETY: queue 0 of a family the device was created with.
        let queue = unsafe { fns.get_device_queue(family, 0) };
        AnbDevice {
            memory_host: ash::ext::external_memory_host::DeviceFn::load(load),
            fence_fd: sync_fd.then(|| ash::khr::external_fence_fd::DeviceFn::load(load)),
            import_alignment,
            internal_queue: Mutex::new(queue),
            images: Mutex::new(HashMap::new()),
            fences: Arc::new(Mutex::new(Vec::new())),
            worker: Mutex::new(None),
        }
    });
    let internal_queue = anb.as_ref().map(|a| *lock(&a.internal_queue));
    let ahb = match (&anb, wants_ahb) {
        // SAFETY: a live device with VK_EXT_external_memory_host enabled.
        (Some(a), true) => Some(unsafe { hardware_buffer::AhbDevice::new(&fns, a, device) }),
        _ => None,
    };
    let sync = if emulate_sync {
        sync_fd::SyncEmulation::new(&fns, load)
    } else {
        None
    };
    let state = Arc::new(HostDevice {
        handle: device,
        fns,
        gdpa,
        instance: inst.clone(),
        physical: physical_device,
        anb,
        ahb,
        sync,
    });
    sync_fd::note_host_submit(&state);
    copy_backed::note_host_barriers(&state);
    {
        let mut reg = registry_mut();
        reg.devices
            .insert(vk::Handle::as_raw(device), state.clone());
        if let Some(q) = internal_queue {
            reg.queues.insert(vk::Handle::as_raw(q), state);
        }
    }
    // SAFETY: valid output pointer.
    unsafe { *p_device = device };
    vk::Result::SUCCESS
}

/// Waits for a submitted release fence on the calling thread and returns it to the pool.
fn wait_and_recycle(dev: &HostDevice, anb: &AnbDevice, fence: vk::Fence) -> vk::Result {
    // SAFETY: a fence of the device with a pending signal.
    unsafe {
        match dev.fns.wait_for_fences(&[fence], true, u64::MAX) {
            Ok(()) if dev.fns.reset_fences(&[fence]).is_ok() => {
                lock(&anb.fences).push(fence);
                vk::Result::SUCCESS
            }
            Ok(()) => {
                dev.fns.destroy_fence(fence, None);
                vk::Result::SUCCESS
            }
            Err(e) => e,
        }
    }
}
