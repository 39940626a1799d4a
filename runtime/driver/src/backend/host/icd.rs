//! The ICDs the host driver serves: opened on its own (slot 0) or handed over by a loader
//! (the adapter slots), with every answer the ICD gives bounded and checked.

use std::collections::HashSet;
use std::ffi::{c_void, CStr};
use std::path::{Path, PathBuf};
use std::ptr::{self};
use std::sync::OnceLock;

use vkgen_abi::icd::{
    PFN_vk_icdGetPhysicalDeviceProcAddr, PFN_vk_icdNegotiateLoaderICDInterfaceVersion,
};
use vkgen_generated::commands::{self, CommandId, Origin};
use vkgen_generated::extensions::{self, ExtensionId};
use vkgen_generated::two_call::{read_array, ReadError};
use vkgen_generated::vk;
use vkgen_platform::icd_manifest::{IcdManifest, IcdSearchConfig};

use crate::util::cstr_from_array;

use super::names::*;

/// Why a host ICD could not be used.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
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

/// A host ICD that cannot be driven ([`HostError`]: not found, not loadable, too old, not
/// one to adapt) as a `VkResult`, the one mapper of that source; logged here with `what`:
/// always `VK_ERROR_INCOMPATIBLE_DRIVER`, the answer that makes a loader move on to its other
/// drivers (and the one `vkCreateInstance` gives with no host ICD).
pub(super) fn map_host_err(what: &str, err: &HostError) -> vk::Result {
    vkgen_abi::vk_error!(vk::Result::ERROR_INCOMPATIBLE_DRIVER, "{what}: {err}")
}

/// An opened host ICD.
pub struct HostIcd {
    /// The library when the host driver opened it itself (slot 0); a loader keeps its own.
    pub(super) _library: Option<libloading::os::unix::Library>,
    pub(super) manifest: PathBuf,
    pub(super) library_path: PathBuf,
    pub(super) interface_version: u32,
    pub(super) gipa: vk::PFN_vkGetInstanceProcAddr,
    pub(super) gpdpa: Option<PFN_vk_icdGetPhysicalDeviceProcAddr>,
    pub(super) entry: ash::Entry,
    pub(super) instance_version: u32,
    pub(super) instance_extensions: Vec<vk::ExtensionProperties>,
    pub(super) device_extensions: OnceLock<HashSet<Vec<u8>>>,
    /// Per registry extension (by id): an instance extension of the ICD or a device extension
    /// of one of its physical devices; made once from the two lists above, since the driver's
    /// resolver asks it for every extension command it is asked for.
    supported: OnceLock<Box<[bool]>>,
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
        let library_path = IcdManifest::read(manifest)
            .map_err(|e| HostError::BadManifest {
                path: manifest.to_owned(),
                reason: e.to_string(),
            })?
            .library;
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
        // SAFETY: a symbol of the ICD library just loaded,
        // `vk_icdNegotiateLoaderICDInterfaceVersion`, whose type the loader-ICD interface fixes;
        // else the v7 lookup through GIPA, whose result has that type.
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
        // SAFETY: a symbol of the ICD library just loaded, `vk_icdGetPhysicalDeviceProcAddr`, whose
        // type the loader-ICD interface fixes (read only when present).
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

    /// An ICD someone else opened and negotiated (the loader, through [`adapter`](super::adapter)):
    /// its entry points stay valid for the process, and nothing is opened again.
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
            supported: OnceLock::new(),
        })
    }

    pub(super) fn has_instance_extension(&self, name: &[u8]) -> bool {
        self.instance_extensions
            .iter()
            .any(|e| cstr_from_array(&e.extension_name) == name)
    }

    /// Whether the ICD has `ext` as an instance extension or on one of its physical devices.
    pub(super) fn supports(&self, ext: ExtensionId) -> bool {
        let supported = self.supported.get_or_init(|| {
            let devices = self.device_extension_names();
            (0..extensions::EXTENSIONS.len())
                .map(|i| {
                    let Ok(id) = u16::try_from(i) else {
                        return false;
                    };
                    let name = extensions::info(ExtensionId(id)).name().to_bytes();
                    self.has_instance_extension(name) || devices.contains(name)
                })
                .collect()
        });
        supported.get(usize::from(ext.0)).copied().unwrap_or(false)
    }

    /// The union of every physical device's extensions, probed once with a throw-away instance.
    pub(super) fn device_extension_names(&self) -> &HashSet<Vec<u8>> {
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
    pub(super) fn host_api_version(&self, requested: u32) -> u32 {
        if self.instance_version >= vk::API_VERSION_1_1 {
            requested.max(vk::API_VERSION_1_1)
        } else {
            requested
        }
    }
}

/// Candidate manifests, NVIDIA first, then lavapipe, then the rest (each group in search
/// order). The search is the platform's, the Khronos loader's rules
/// ([`IcdSearchConfig`]: `$XDG_CONFIG_HOME` … `$XDG_DATA_DIRS`, setuid-safe), plus NVIDIA's
/// container location; `VK_DRIVER_FILES` / `VK_ICD_FILENAMES` are the *loader's* driver list
/// and do not steer the host driver (its override is [`HOST_ICD_ENV`]).
pub fn candidate_manifests() -> Vec<PathBuf> {
    let mut search = IcdSearchConfig::from_env();
    search.driver_files = None;
    search.icd_filenames = None;
    search
        .extra_dirs
        .push(PathBuf::from("/usr/local/nvidia/share/vulkan/icd.d"));
    let mut found = search.manifest_files();
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
    // Through the setuid-safe reader: in a setuid process the variable would load a user's
    // library with the process's privileges.
    if let Some(m) = vkgen_platform::env::trusted_env(HOST_ICD_ENV) {
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

/// How many ICDs a loader can hand the host driver ([`adapter`](super::adapter)).
pub const ADAPTER_SLOTS: usize = 4;

/// Slot 0: the ICD found by [`discover`]; the others: ICDs adopted through [`adapter`].
pub(super) static SLOTS: [OnceLock<Option<HostIcd>>; ADAPTER_SLOTS + 1] =
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

/// The two-call idiom against an untrusted ICD, through the workspace's one reader
/// (`vkgen_generated::two_call::read_array`: counts capped at its `MAX_READ`, a count that keeps
/// growing given up after `MAX_READ_TRIES`, only the entries the ICD says it wrote kept).
/// `None` on an error, said in the log when it is the ICD's misbehaviour.
pub(super) fn bounded_enumerate<T: Default + Clone>(
    call: impl FnMut(*mut u32, *mut T) -> vk::Result,
) -> Option<Vec<T>> {
    match read_array(call) {
        Ok(items) => Some(items),
        Err(ReadError::TooMany(count)) => {
            log::warn!("host ICD: an enumeration reported {count} entries; ignored");
            None
        }
        Err(ReadError::Failed(vk::Result::INCOMPLETE)) => {
            log::warn!("host ICD: an enumeration stayed VK_INCOMPLETE; ignored");
            None
        }
        Err(ReadError::Failed(_)) => None,
    }
}

/// The instance commands the host driver calls through ash (whose stubs for missing commands
/// panic where no unwinding is possible): an instance whose ICD lacks one is refused.
pub(super) const INSTANCE_COMMANDS: &[&CStr] = &[
    c"vkDestroyInstance",
    c"vkEnumeratePhysicalDevices",
    c"vkEnumerateDeviceExtensionProperties",
    c"vkGetPhysicalDeviceProperties",
    c"vkGetPhysicalDeviceFormatProperties",
    c"vkGetPhysicalDeviceMemoryProperties",
    c"vkCreateDevice",
    c"vkGetDeviceProcAddr",
];

/// [`INSTANCE_COMMANDS`] of Vulkan 1.1 (the host instance is created at 1.1 where it has it).
pub(super) const INSTANCE_COMMANDS_1_1: &[&CStr] = &[
    c"vkGetPhysicalDeviceProperties2",
    c"vkGetPhysicalDeviceImageFormatProperties2",
    c"vkGetPhysicalDeviceExternalBufferProperties",
    c"vkGetPhysicalDeviceExternalSemaphoreProperties",
    c"vkGetPhysicalDeviceExternalFenceProperties",
];

/// The core device commands the host driver calls through ash or hooks.
pub(super) const DEVICE_COMMANDS: &[&CStr] = &[
    c"vkDestroyDevice",
    c"vkGetDeviceQueue",
    c"vkQueueSubmit",
    c"vkQueueWaitIdle",
    c"vkDeviceWaitIdle",
    c"vkAllocateMemory",
    c"vkFreeMemory",
    c"vkBindBufferMemory",
    c"vkBindImageMemory",
    c"vkGetImageMemoryRequirements",
    c"vkCreateFence",
    c"vkDestroyFence",
    c"vkResetFences",
    c"vkGetFenceStatus",
    c"vkWaitForFences",
    c"vkCreateSemaphore",
    c"vkDestroySemaphore",
    c"vkCreateBuffer",
    c"vkDestroyBuffer",
    c"vkCreateImage",
    c"vkDestroyImage",
    c"vkGetImageSubresourceLayout",
];

/// The first of `names` that `lookup` does not resolve.
pub(super) fn first_missing<'a>(
    names: &[&'a CStr],
    lookup: impl Fn(&CStr) -> bool,
) -> Option<&'a CStr> {
    names.iter().copied().find(|n| !lookup(n))
}

/// Refuses a host instance the driver cannot use safely (issue 25): a null handle from a
/// successful `vkCreateInstance`, or a missing command the driver calls (ash's stubs for those
/// panic, and no unwinding is possible here). What can be destroyed is.
pub(super) fn check_host_instance(
    host: &HostIcd,
    instance: vk::Instance,
    api_version: u32,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    answers: Option<&Answers>,
) -> Result<(), vk::Result> {
    if vk::Handle::as_raw(instance) == 0 {
        return Err(vkgen_abi::vk_error!(
            vk::Result::ERROR_INITIALIZATION_FAILED,
            "{}: vkCreateInstance succeeded with a null handle; refused",
            host.manifest.display()
        ));
    }
    // What loading the table recorded, else (a name ash does not load) the ICD's answer now.
    let lookup = |name: &CStr| {
        answers
            .and_then(|a| a.get_name(name))
            // SAFETY: lookups through the ICD with its live instance.
            .unwrap_or_else(|| unsafe { (host.gipa)(instance, name.as_ptr()) })
            .is_some()
    };
    let v1_1: &[&CStr] = if api_version >= vk::API_VERSION_1_1 {
        INSTANCE_COMMANDS_1_1
    } else {
        &[]
    };
    let missing = first_missing(INSTANCE_COMMANDS, lookup).or(first_missing(v1_1, lookup));
    let Some(missing) = missing else {
        return Ok(());
    };
    log::warn!(
        "{}: the instance has no {}; refused",
        host.manifest.display(),
        missing.to_string_lossy()
    );
    // SAFETY: the ICD's vk_icdGetInstanceProcAddr with the live instance it just created.
    if let Some(destroy) = unsafe { (host.gipa)(instance, c"vkDestroyInstance".as_ptr()) } {
        // SAFETY: the ICD's vkDestroyInstance for its own instance, never handed out.
        unsafe {
            let destroy = std::mem::transmute::<
                unsafe extern "system" fn(),
                vk::PFN_vkDestroyInstance,
            >(destroy);
            destroy(instance, p_allocator);
        }
    }
    Err(vkgen_abi::vk_error!(
        vk::Result::ERROR_INITIALIZATION_FAILED,
        "{}: the host instance lacks a command the driver calls; refused",
        host.manifest.display()
    ))
}

/// What the ICD's lookup answered, by command, while ash loaded a table for one instance or
/// device: the same lookup for the same handle later (the loader filling its own tables through
/// [`HostDriver`]'s passthrough) is answered from here instead of asking the ICD again.
pub(super) struct Answers(Box<[usize]>);

/// [`Answers::record`]'s memo of one load's names: `(address, id)` by position.
pub(super) struct NameIds(std::sync::Mutex<Vec<(usize, Option<CommandId>)>>);

impl NameIds {
    pub(super) const fn new() -> Self {
        Self(std::sync::Mutex::new(Vec::new()))
    }
}

/// An [`Answers`] entry for a command that was not asked.
const NOT_ASKED: usize = usize::MAX;

impl Answers {
    /// Runs ash's table `load` with `lookup` (the ICD's), recording every answer. A registry
    /// command `wanted` refuses is not asked: ash gets NULL for it and it stays unrecorded, so a
    /// later lookup of it (the loader's table, [`HostDevice::proc_addr`]) asks the ICD then —
    /// each name is asked of the ICD at most once either way.
    ///
    /// [`HostDevice::proc_addr`]: super::registry::HostDevice::proc_addr
    ///
    /// `ids` remembers, per position in `load`'s sequence of names, the name's address and its
    /// registry id: ash asks for the same static names in the same order at every load, so a
    /// name at the address it had last time is known without hashing it again (issue 35: the
    /// lookups were 6% of a create + destroy cycle). A load running while another holds
    /// `ids` looks every name up.
    ///
    /// # Safety
    /// Every name `load` passes lives, unchanged, for the rest of the process (ash's tables pass
    /// their string literals).
    pub(super) unsafe fn record<T>(
        ids: &NameIds,
        lookup: impl Fn(&CStr) -> vk::PFN_vkVoidFunction,
        wanted: impl Fn(CommandId) -> bool,
        load: impl FnOnce(&mut dyn FnMut(&CStr) -> *const c_void) -> T,
    ) -> (T, Self) {
        let mut answers = vec![NOT_ASKED; commands::COMMANDS.len()];
        let mut memo = ids.0.try_lock().ok();
        let mut position = 0;
        let table = load(&mut |name| {
            let address = name.as_ptr() as usize;
            let id = match memo.as_deref_mut() {
                Some(memo) => {
                    let id = match memo.get(position) {
                        Some(&(at, id)) if at == address => id,
                        _ => {
                            let id = commands::lookup(name);
                            memo.truncate(position);
                            memo.push((address, id));
                            id
                        }
                    };
                    position += 1;
                    id
                }
                None => commands::lookup(name),
            };
            if id.is_some_and(|id| !wanted(id)) {
                return ptr::null();
            }
            let address = lookup(name).map_or(0, |f| f as usize);
            if let Some(slot) = id.and_then(|id| answers.get_mut(usize::from(id.0))) {
                *slot = address;
            }
            address as *const c_void
        });
        (table, Self(answers.into_boxed_slice()))
    }

    /// The recorded answer for `id` (`Some(None)`: the ICD had none), `None` if it was not
    /// asked.
    pub(super) fn get(&self, id: CommandId) -> Option<vk::PFN_vkVoidFunction> {
        match *self.0.get(usize::from(id.0))? {
            NOT_ASKED => None,
            0 => Some(None),
            // SAFETY: a non-null address the ICD's lookup returned as a `PFN_vkVoidFunction`.
            address => Some(Some(unsafe {
                std::mem::transmute::<usize, unsafe extern "system" fn()>(address)
            })),
        }
    }

    /// [`Self::get`] by name (`None` also for a name the registry does not know).
    pub(super) fn get_name(&self, name: &CStr) -> Option<vk::PFN_vkVoidFunction> {
        self.get(commands::lookup(name)?)
    }
}

/// Whether the adapter's ash device table asks the ICD for `id` up front: ash's 1.0 and 1.1
/// commands, all the adapter calls through `ash::Device` (later core and extension commands it
/// reaches by name through [`HostDevice::proc_addr`]). ash's 1.2 and 1.3 names are left to
/// whoever asks for them (the loader asks a device only for what its version exposes), so an
/// ICD is not asked at every `vkCreateDevice` for 50 names a 1.1 device lacks; ash's slots for
/// them hold its stubs, which the adapter never calls.
///
/// [`HostDevice::proc_addr`]: super::registry::HostDevice::proc_addr
pub(super) fn adapter_calls_through_ash(id: CommandId) -> bool {
    matches!(commands::info(id).origin, Origin::Core(v) if v <= vk::API_VERSION_1_1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A recording with the memo gives every name the id a lookup gives: the first time, again
    /// (from the memo), and when the sequence changes (a different name at a remembered
    /// position, a shorter and a longer sequence), for known and unknown names alike.
    #[test]
    fn remembered_ids_are_the_lookups() {
        static IDS: NameIds = NameIds::new();
        let sequences: [&[&CStr]; 4] = [
            &[c"vkCreateBuffer", c"vkNotACommand", c"vkCmdDraw"],
            &[c"vkCreateBuffer", c"vkNotACommand", c"vkCmdDraw"],
            &[c"vkCreateBuffer", c"vkCmdDispatch"],
            &[
                c"vkCreateBuffer",
                c"vkCmdDispatch",
                c"vkQueueSubmit",
                c"vkCmdDraw",
            ],
        ];
        for names in sequences {
            let seen = std::cell::RefCell::new(Vec::new());
            let lookup = |name: &CStr| {
                seen.borrow_mut().push(name.to_owned());
                None
            };
            // SAFETY: the names are string literals.
            let ((), answers) = unsafe {
                Answers::record(
                    &IDS,
                    lookup,
                    |_| true,
                    |load| {
                        for name in names {
                            load(name);
                        }
                    },
                )
            };
            for name in names {
                let expected = commands::lookup(name).map(|_| None);
                let got = answers.get_name(name).map(|f| f.map(|f| f as usize));
                assert_eq!(got, expected, "{name:?}");
            }
            assert_eq!(seen.borrow().len(), names.len());
        }
        assert_eq!(IDS.0.lock().unwrap().len(), 4);
    }
}
