//! Loading a built driver library the way a loader does, for tests and tools.
//!
//! [`HalLibrary::open`] performs Android's `Hal::Open` handshake on a `vulkan_*.so`: `dlopen`,
//! `dlsym("HMI")`, check tag / id / versions, store the handle in `HMI.common.dso` (proving `HMI`
//! is writable), `open(…, "vk0", …)`, check the device header and its three procs. Every failure
//! is an `Err(String)` naming what is wrong; nothing panics.

pub mod requirements;

use std::ffi::{c_void, CStr};
use std::path::{Path, PathBuf};
use std::ptr;

use ash::vk;
use libloading::os::unix::{Library, RTLD_LOCAL, RTLD_NOW};
use vkgen_abi::hal::{
    HwDevice, HwvulkanDevice, HwvulkanModule, HARDWARE_DEVICE_TAG, HARDWARE_HAL_API_VERSION,
    HARDWARE_MODULE_TAG, HWVULKAN_DEVICE_0, HWVULKAN_DEVICE_API_VERSION_0_1,
    HWVULKAN_HARDWARE_MODULE_ID, HWVULKAN_MODULE_API_VERSION_0_1,
};

/// A driver library opened through its HAL module.
pub struct HalLibrary {
    path: PathBuf,
    module: *mut HwvulkanModule,
    device: *const HwvulkanDevice,
    // Last: dropped (dlclosed) after everything that points into it.
    library: Library,
}

impl std::fmt::Debug for HalLibrary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HalLibrary")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl HalLibrary {
    /// Loads `path` and performs the HAL handshake.
    ///
    /// # Safety
    /// Loading a library runs its initialisers: `path` must be a Vulkan driver.
    pub unsafe fn open(path: &Path) -> Result<Self, String> {
        let fail = |what: String| format!("{}: {what}", path.display());
        // SAFETY: the caller vouches for the library.
        let library = unsafe { Library::open(Some(path), RTLD_NOW | RTLD_LOCAL) }
            .map_err(|e| fail(format!("dlopen failed: {e}")))?;
        // SAFETY: `HMI` is a data symbol; only its address is taken.
        let module = unsafe { library.get::<*mut c_void>(b"HMI\0") }
            .map(|sym| *sym)
            .map_err(|e| fail(format!("no HMI: {e}")))?
            .cast::<HwvulkanModule>();
        if module.is_null() {
            return Err(fail("HMI is null".into()));
        }
        let handle = library.into_raw();
        // SAFETY: the handle came from `into_raw` just now.
        let library = unsafe { Library::from_raw(handle) };
        // SAFETY: `HMI` is a `hwvulkan_module_t` per the HAL contract being tested; the checks
        // below read it field by field.
        let common = unsafe { &mut (*module).common };
        if common.tag != HARDWARE_MODULE_TAG {
            return Err(fail(format!("HMI tag {:#x}", common.tag)));
        }
        if common.hal_api_version != HARDWARE_HAL_API_VERSION
            || common.module_api_version != HWVULKAN_MODULE_API_VERSION_0_1
        {
            return Err(fail("HMI versions".into()));
        }
        // SAFETY: a non-null id is a C string.
        let id_ok = !common.id.is_null()
            && unsafe { CStr::from_ptr(common.id) } == HWVULKAN_HARDWARE_MODULE_ID;
        if !id_ok {
            return Err(fail("HMI id is not \"vulkan\"".into()));
        }
        if common.name.is_null() || common.author.is_null() || common.methods.is_null() {
            return Err(fail("HMI name/author/methods missing".into()));
        }
        // Android's loader writes the handle here: this faults if HMI is read-only.
        common.dso = handle;
        // SAFETY: `methods` was checked non-null above and points at the module's 'static method
        // table.
        let open =
            unsafe { (*common.methods).open }.ok_or_else(|| fail("no open method".into()))?;
        let mut dev: *mut HwDevice = ptr::null_mut();
        // SAFETY: the HAL's open with valid arguments.
        let rc = unsafe { open(&*common, HWVULKAN_DEVICE_0.as_ptr(), &mut dev) };
        if rc != 0 || dev.is_null() {
            return Err(fail(format!("open(vk0) = {rc}")));
        }
        let device = dev.cast::<HwvulkanDevice>().cast_const();
        // SAFETY: `open` returned 0, so `dev` is the module's `hwvulkan_device_t` (the HAL
        // contract), alive for the module's lifetime.
        let d = unsafe { &*device };
        if d.common.tag != HARDWARE_DEVICE_TAG
            || d.common.version != HWVULKAN_DEVICE_API_VERSION_0_1
        {
            return Err(fail("device header".into()));
        }
        if !ptr::eq(d.common.module.cast_const(), ptr::from_ref(&*common)) {
            return Err(fail("device.common.module is not &HMI.common".into()));
        }
        if d.enumerate_instance_extension_properties.is_none()
            || d.create_instance.is_none()
            || d.get_instance_proc_addr.is_none()
        {
            return Err(fail("a device proc is null".into()));
        }
        Ok(Self {
            path: path.to_owned(),
            module,
            device,
            library,
        })
    }

    /// The library's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The module record (`HMI`).
    pub fn module(&self) -> *mut HwvulkanModule {
        self.module
    }

    /// The `hwvulkan_device_t` from `open("vk0")`.
    pub fn device(&self) -> &HwvulkanDevice {
        // SAFETY: checked in `open`; the library (and its static device) outlives `self`.
        unsafe { &*self.device }
    }

    /// The device's `vkGetInstanceProcAddr`.
    pub fn get_instance_proc_addr(&self) -> vk::PFN_vkGetInstanceProcAddr {
        self.device()
            .get_instance_proc_addr
            .expect("checked in open")
    }

    /// An `ash::Entry` over the device's `vkGetInstanceProcAddr` (valid while `self` lives).
    pub fn entry(&self) -> ash::Entry {
        // SAFETY: a driver's GIPA is a valid static entry point.
        unsafe {
            ash::Entry::from_static_fn(ash::StaticFn {
                get_instance_proc_addr: self.get_instance_proc_addr(),
            })
        }
    }

    /// A symbol of the library (e.g. `vk_icdNegotiateLoaderICDInterfaceVersion`), if exported.
    ///
    /// # Safety
    /// `T` must be the symbol's real type.
    pub unsafe fn symbol<T: Copy>(&self, name: &CStr) -> Option<T> {
        // SAFETY: the caller promises `T` is the symbol's real type, all `libloading` needs; `name`
        // is NUL-terminated and the value is copied out while the library is loaded.
        unsafe { self.library.get::<T>(name.to_bytes_with_nul()) }
            .ok()
            .map(|s| *s)
    }

    /// Calls `hw_module_methods_t::open` with `id`, returning its result and device pointer.
    pub fn open_device(&self, id: &CStr) -> (i32, *mut HwDevice) {
        // SAFETY: `module` was validated in `open`.
        let common = unsafe { &(*self.module).common };
        let mut dev: *mut HwDevice = ptr::NonNull::dangling().as_ptr();
        // SAFETY: `methods` and `open` were validated in `open`.
        let rc =
            unsafe { ((*common.methods).open.expect("checked"))(common, id.as_ptr(), &mut dev) };
        (rc, dev)
    }
}

/// Environment variable naming a directory of prebuilt driver libraries for [`build_driver`].
pub const DRIVER_LIB_DIR_ENV: &str = "VKGEN_DRIVER_LIB_DIR";

/// Builds a driver `cdylib` of this workspace with the profile of the running test binary
/// (`cargo build -p <package>`; cargo only rebuilds what changed) and returns the path of
/// `lib<lib_name>.so`.
///
/// Integration tests of a `cdylib` package do not make cargo build the library itself, so tests
/// that load a driver call this first. Concurrent callers are serialised by cargo's own lock.
/// With [`DRIVER_LIB_DIR_ENV`] set (test binaries copied to a machine without cargo), nothing is
/// built and the library is taken from that directory.
pub fn build_driver(package: &str, lib_name: &str) -> Result<PathBuf, String> {
    if let Some(dir) = vkgen_platform::env::trusted_env(DRIVER_LIB_DIR_ENV) {
        let lib = Path::new(&dir).join(format!("lib{lib_name}.so"));
        return if lib.is_file() {
            Ok(lib)
        } else {
            Err(format!(
                "{DRIVER_LIB_DIR_ENV}: {} does not exist",
                lib.display()
            ))
        };
    }
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    // target/<profile>/deps/<test binary>
    let profile_dir = exe
        .parent()
        .filter(|d| d.file_name().is_some_and(|n| n == "deps"))
        .and_then(Path::parent)
        .ok_or_else(|| format!("{} is not in a cargo deps directory", exe.display()))?
        .to_path_buf();
    let profile = profile_dir
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("debug")
        .to_owned();
    let target_dir = profile_dir
        .parent()
        .ok_or("no target directory")?
        .to_path_buf();
    let cargo = vkgen_platform::env::trusted_env("CARGO").unwrap_or_else(|| env!("CARGO").into());
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../Cargo.toml");
    let mut cmd = std::process::Command::new(cargo);
    cmd.arg("build")
        .arg("--manifest-path")
        .arg(&manifest)
        .arg("-p")
        .arg(package)
        .arg("--target-dir")
        .arg(&target_dir);
    match profile.as_str() {
        "debug" => {}
        "release" => {
            cmd.arg("--release");
        }
        other => {
            cmd.arg("--profile").arg(other);
        }
    }
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run cargo build -p {package}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo build -p {package} failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let lib = profile_dir.join(format!("lib{lib_name}.so"));
    if lib.is_file() {
        Ok(lib)
    } else {
        Err(format!("{} was not produced", lib.display()))
    }
}
