//! `vkgen_host_adapt_icd`: a loader hands the host driver an ICD it has opened and negotiated
//! (the C seam is `vkgen_abi::adapter`, whose docs give the contract).
//!
//! Each adopted ICD takes a [`HostDriver`] slot (1 ..= [`ADAPTER_SLOTS`]), and the entry
//! points handed back are that slot's monomorphised `vk_icdGetInstanceProcAddr` /
//! `vk_icdGetPhysicalDeviceProcAddr`: global commands carry no handle, so the function itself
//! has to say which ICD it serves. Only an ICD the host driver adds something to is adopted:
//! Vulkan ≥ 1.1 (the entry points the runtime uses), a device with
//! `VK_EXT_external_memory_host` (what native buffers are imported through), and no
//! `VK_ANDROID_native_buffer` of its own. Every probe of the ICD goes through the bounded,
//! checked paths of [`HostIcd::from_entry_points`], so an ICD that lies is refused, not trusted.

use std::ffi::CStr;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use vkgen_abi::adapter::{HostIcdEntry, HostIcdInfo, HOST_ICD_INFO_VERSION};

use super::{
    lock, map_host_err, HostDriver, HostError, HostIcd, ADAPTER_SLOTS, MEMORY_HOST_NAME,
    NATIVE_BUFFER_NAME, SLOTS,
};
use crate::export::entry;
use vkgen_generated::vk;

/// The entry points of slot `S`.
fn entry_of<const S: usize>() -> HostIcdEntry {
    HostIcdEntry {
        get_instance_proc_addr: Some(entry::icd_get_instance_proc_addr::<HostDriver<S>>),
        get_physical_device_proc_addr: Some(
            entry::icd_get_physical_device_proc_addr::<HostDriver<S>>,
        ),
    }
}

/// The entry points of `slot` (1 ..= [`ADAPTER_SLOTS`]).
fn entry_of_slot(slot: usize) -> Option<HostIcdEntry> {
    const _: () = assert!(ADAPTER_SLOTS == 4, "one arm per adapter slot");
    match slot {
        1 => Some(entry_of::<1>()),
        2 => Some(entry_of::<2>()),
        3 => Some(entry_of::<3>()),
        4 => Some(entry_of::<4>()),
        _ => None,
    }
}

/// Why `icd` is not adopted, if it is not.
fn refusal(icd: &HostIcd) -> Option<&'static str> {
    if icd.instance_version < vk::API_VERSION_1_1 {
        return Some("a Vulkan 1.0 instance");
    }
    let names = icd.device_extension_names();
    if names.contains(NATIVE_BUFFER_NAME.to_bytes()) {
        return Some("it has VK_ANDROID_native_buffer itself");
    }
    if !names.contains(MEMORY_HOST_NAME.to_bytes()) {
        return Some("no device has VK_EXT_external_memory_host");
    }
    None
}

/// A C string argument as a path (empty where null).
///
/// # Safety
/// `p` is null or a C string.
unsafe fn path_arg(p: *const std::ffi::c_char) -> PathBuf {
    if p.is_null() {
        return PathBuf::new();
    }
    use std::os::unix::ffi::OsStrExt;
    // SAFETY: `p` was checked non-null above and is a NUL-terminated path (this function's
    // contract), alive for this call.
    let bytes = unsafe { CStr::from_ptr(p) }.to_bytes();
    PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
}

/// Adopts the ICD `info` describes into a free slot (or finds the slot that already serves
/// it). See the module docs for the answers.
fn adopt(info: &HostIcdInfo, manifest: &Path, library: PathBuf) -> Result<usize, vk::Result> {
    let Some(gipa) = info.get_instance_proc_addr else {
        return Err(vkgen_abi::vk_error!(
            vk::Result::ERROR_INITIALIZATION_FAILED,
            "{}: the loader passed no vk_icdGetInstanceProcAddr",
            manifest.display()
        ));
    };
    // One adoption at a time, so that two threads cannot take the same slot or adopt the
    // same ICD twice.
    static ADOPTING: Mutex<()> = Mutex::new(());
    let _guard = lock(&ADOPTING);
    for (slot, held) in SLOTS.iter().enumerate().skip(1) {
        if let Some(Some(icd)) = held.get() {
            if icd.gipa as usize == gipa as usize {
                return Ok(slot);
            }
        }
    }
    let Some(slot) = (1..=ADAPTER_SLOTS).find(|&s| SLOTS[s].get().is_none()) else {
        return Err(vkgen_abi::vk_error!(
            vk::Result::ERROR_TOO_MANY_OBJECTS,
            "{}: every one of the host driver's {ADAPTER_SLOTS} adapter slots is taken",
            manifest.display()
        ));
    };
    let icd = HostIcd::from_entry_points(
        None,
        manifest,
        library,
        info.interface_version,
        gipa,
        info.get_physical_device_proc_addr,
    )
    .map_err(|e| map_host_err("native-buffer adapter", &e))?;
    if let Some(reason) = refusal(&icd) {
        let e = HostError::NotAdaptable {
            path: manifest.to_owned(),
            reason,
        };
        return Err(map_host_err("native-buffer adapter", &e));
    }
    let _ = SLOTS[slot].set(Some(icd));
    Ok(slot)
}

/// `vkgen_host_adapt_icd` (exported by `vulkan.host.so`).
///
/// # Safety
/// `info` is null or a valid [`HostIcdInfo`] whose entry points stay valid for the process;
/// `out` is null or writable.
pub unsafe extern "C" fn adapt_icd(info: *const HostIcdInfo, out: *mut HostIcdEntry) -> vk::Result {
    crate::export::init_logging();
    vkgen_abi::guard::guard(
        "vkgen_host_adapt_icd",
        vk::Result::ERROR_INITIALIZATION_FAILED,
        || {
            // SAFETY: `info` is null or the loader's `HostIcdInfo`, valid for this call (the
            // contract of `vkgen_host_adapt_icd`); `as_ref` turns null into the refusal below.
            let Some(info) = (unsafe { info.as_ref() }) else {
                return vkgen_abi::vk_error!(
                    vk::Result::ERROR_INITIALIZATION_FAILED,
                    "vkgen_host_adapt_icd without an ICD description"
                );
            };
            if out.is_null()
                || info.struct_version != HOST_ICD_INFO_VERSION
                || info.interface_version < crate::export::MIN_ICD_INTERFACE_VERSION
            {
                return vkgen_abi::vk_error!(
                    vk::Result::ERROR_INITIALIZATION_FAILED,
                    "vkgen_host_adapt_icd: no output, or struct version {} / interface {} not \
                     taken",
                    info.struct_version,
                    info.interface_version
                );
            }
            // SAFETY: `manifest_path` and `library_path` of the caller's `HostIcdInfo` are null or
            // NUL-terminated paths alive for this call (the contract of `vkgen_host_adapt_icd`);
            // `path_arg` takes null as none.
            let (manifest, library) =
                unsafe { (path_arg(info.manifest_path), path_arg(info.library_path)) };
            let slot = match adopt(info, &manifest, library) {
                Ok(slot) => slot,
                Err(r) => return r,
            };
            let Some(entry) = entry_of_slot(slot) else {
                return vkgen_abi::vk_error!(
                    vk::Result::ERROR_TOO_MANY_OBJECTS,
                    "vkgen_host_adapt_icd: adapter slot {slot} has no entry points"
                );
            };
            // SAFETY: `out` was checked non-null above and is the caller's `HostIcdEntry` to fill
            // (the contract of `vkgen_host_adapt_icd`).
            unsafe { out.write(entry) };
            log::info!(
                "{}: served by the host driver (adapter slot {slot})",
                manifest.display()
            );
            vk::Result::SUCCESS
        },
    )
}
