//! `VK_EXT_debug_report`, provided by the loader (AOSP `debug_report.cpp`).
//!
//! Android's loader always advertises the extension and implements it itself, so applications
//! (and tools such as `vulkaninfo`, which call `vkCreateDebugReportCallbackEXT` without checking
//! the driver) work on any driver. The same here:
//!
//! * the extension is in every instance-extension list the loader answers, at the registry's
//!   spec version clamped to the lowest a driver reports (AOSP clamps to the driver's);
//! * it reaches a driver only if that driver reports it;
//! * a callback is a loader node holding the application's callback, plus one callback per
//!   driver instance that enabled the extension, so driver messages arrive too;
//! * `vkDebugReportMessageEXT` goes to the drivers that have the extension and, when none has,
//!   to the loader's own callbacks (AOSP `DebugReportMessageEXT`);
//! * the loader's own errors about an instance (`report`) reach its callbacks.

use std::ffi::{c_char, CStr};

use vkgen_abi::vk_error;
use vkgen_generated::extensions::ExtensionId;

use crate::dispatch_data::instance_data;
pub use crate::dispatch_data::term::Callbacks;
use crate::dispatch_data::term::Node;
use crate::dispatch_data::{DriverInstance, TermInstance};
use crate::ffi::guard;
use crate::host_alloc::{oom, HostAllocator, HostBox, HostVec};
use vkgen_generated::vk;

impl Callbacks {
    fn lock(&self) -> std::sync::MutexGuard<'_, Option<HostBox<Node, HostAllocator>>> {
        self.head
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The nodes, newest first.
    fn nodes<'a>(
        head: &'a Option<HostBox<Node, HostAllocator>>,
    ) -> impl Iterator<Item = &'a Node> + 'a {
        std::iter::successors(head.as_deref(), |n| n.next.as_deref())
    }

    /// Links `node` in first: messages reach the newest callback first, as AOSP's
    /// `DebugReportCallbackList::AddCallback` prepends its node.
    fn prepend(&self, mut node: HostBox<Node, HostAllocator>) {
        let mut head = self.lock();
        node.next = head.take();
        *head = Some(node);
    }

    /// Unlinks and returns the node with `handle`, if any.
    fn remove(&self, handle: u64) -> Option<HostBox<Node, HostAllocator>> {
        let mut head = self.lock();
        let mut slot = &mut *head;
        loop {
            if slot.as_ref()?.handle == handle {
                let mut node = slot.take()?;
                *slot = node.next.take();
                return Some(node);
            }
            slot = &mut slot.as_mut()?.next;
        }
    }

    /// Calls every callback whose flags intersect `flags` (the loader's own messages, and
    /// messages for drivers without the extension).
    #[allow(clippy::too_many_arguments)]
    fn message(
        &self,
        flags: vk::DebugReportFlagsEXT,
        object_type: vk::DebugReportObjectTypeEXT,
        object: u64,
        location: usize,
        code: i32,
        prefix: *const c_char,
        message: *const c_char,
    ) {
        // Copied out so a callback may create or destroy callbacks.
        let targets: Vec<_> = Self::nodes(&self.lock())
            .filter(|n| n.flags.intersects(flags))
            .filter_map(|n| n.callback.map(|cb| (cb, n.user)))
            .collect();
        for (cb, user) in targets {
            // SAFETY: the application's callback with the arguments the extension defines.
            unsafe {
                cb(
                    flags,
                    object_type,
                    object,
                    location,
                    code,
                    prefix,
                    message,
                    user as *mut std::ffi::c_void,
                )
            };
        }
    }
}

fn drivers_with_report(term: &TermInstance) -> impl Iterator<Item = (usize, &DriverInstance)> {
    term.drivers
        .iter()
        .enumerate()
        .filter(|(_, d)| d.enabled_extensions.contains(ExtensionId::EXT_DEBUG_REPORT))
}

/// The loader's functions for the extension's commands, when `term` enabled it.
pub(crate) fn hook(term: &TermInstance, name: &CStr) -> Option<vk::PFN_vkVoidFunction> {
    if !term
        .enabled_extensions
        .contains(ExtensionId::EXT_DEBUG_REPORT)
    {
        return None;
    }
    provided(name)
}

/// The loader's function for `name` when it is one of the extension's commands.
pub(super) fn provided(name: &CStr) -> Option<vk::PFN_vkVoidFunction> {
    vkgen_generated::loader_hooks!(debug_report, name)
}

/// A message from the loader itself about `object` (a `VkPhysicalDevice`, `VkDevice`, ... of
/// `term`'s instance), to its callbacks, as AOSP's `DebugReportLogger` writes one: the object's
/// type and handle, location and code 0, layer prefix `LOG_TAG` (`vulkan`).
pub(crate) fn report_about<H: vk::Handle>(
    term: &TermInstance,
    flags: vk::DebugReportFlagsEXT,
    object: H,
    text: &str,
) {
    let Ok(text) = std::ffi::CString::new(text) else {
        return;
    };
    let object_type = match H::TYPE {
        vk::ObjectType::INSTANCE => vk::DebugReportObjectTypeEXT::INSTANCE,
        vk::ObjectType::PHYSICAL_DEVICE => vk::DebugReportObjectTypeEXT::PHYSICAL_DEVICE,
        vk::ObjectType::DEVICE => vk::DebugReportObjectTypeEXT::DEVICE,
        _ => vk::DebugReportObjectTypeEXT::UNKNOWN,
    };
    term.debug_report.message(
        flags,
        object_type,
        object.as_raw(),
        0,
        0,
        crate::logging::LOG_TAG.as_ptr(),
        text.as_ptr(),
    );
}

/// `vkCreateDebugReportCallbackEXT`.
///
/// # Safety
/// Vulkan's contract for the command.
unsafe extern "system" fn create(
    instance: vk::Instance,
    info: *const vk::DebugReportCallbackCreateInfoEXT<'_>,
    allocator: *const vk::AllocationCallbacks<'_>,
    out: *mut vk::DebugReportCallbackEXT,
) -> vk::Result {
    guard(
        "vkCreateDebugReportCallbackEXT (loader)",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: the application's `instance` is a live instance of this loader (terminators
            // are reached only through its dispatch); `info` is null or its valid create info,
            // VUID-vkCreateDebugReportCallbackEXT-pCreateInfo-parameter.
            let (Some(data), Some(ci)) = (
                unsafe { instance_data(vk::Handle::as_raw(instance) as usize) },
                unsafe { info.as_ref() },
            ) else {
                return vk_error!(
                    vk::Result::ERROR_INITIALIZATION_FAILED,
                    "vkCreateDebugReportCallbackEXT: not an instance of this loader, or a null pCreateInfo"
                );
            };
            let term = &data.term;
            // AOSP's `AddCallback`: the pAllocator given, else the instance's, scope OBJECT.
            // SAFETY: `allocator` is the application's pAllocator, null or valid callbacks
            // (VUID-vkCreateDebugReportCallbackEXT-pAllocator-parameter).
            let node_alloc = unsafe {
                HostAllocator::app_or(allocator, data.allocator, vk::SystemAllocationScope::OBJECT)
            };
            const COMMAND: &str = "vkCreateDebugReportCallbackEXT";
            // The node and its list are allocated before any driver is called: a failure then
            // leaves no driver callback to undo.
            let mut drivers = HostVec::new_in(node_alloc);
            if drivers
                .try_reserve_exact(drivers_with_report(term).count())
                .is_err()
            {
                return oom(COMMAND, "the driver callbacks' list");
            }
            let id = term
                .debug_report
                .next
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
                + 1;
            // Counter handles with bit 63 set can never be a driver's addresses.
            let handle = (1 << 63) | id;
            let node = Node {
                handle,
                flags: ci.flags,
                callback: ci.pfn_callback,
                user: ci.p_user_data as usize,
                drivers,
                next: None,
            };
            let Ok(mut node) = HostBox::try_new_in(node, node_alloc) else {
                return oom(COMMAND, "the callback's node");
            };
            for (index, d) in drivers_with_report(term) {
                let mut h = vk::DebugReportCallbackEXT::null();
                // SAFETY: the driver's live instance and the caller's valid create info.
                let r = unsafe {
                    (d.table.create_debug_report_callback_ext)(d.handle, info, allocator, &mut h)
                };
                if r != vk::Result::SUCCESS {
                    // SAFETY: the callbacks the drivers before this one just created with
                    // `allocator`, never handed out.
                    unsafe { destroy_driver_callbacks(term, &node.drivers, allocator) };
                    return r;
                }
                // Within the capacity reserved above (one slot per such driver): no allocation.
                node.drivers.push((index, vk::Handle::as_raw(h)));
            }
            term.debug_report.prepend(node);
            // SAFETY: `out` is the application's pCallback, writable for this call
            // (VUID-vkCreateDebugReportCallbackEXT-pCallback-parameter).
            unsafe { *out = vk::Handle::from_raw(handle) };
            vk::Result::SUCCESS
        },
    )
}

/// `vkDestroyDebugReportCallbackEXT`: unknown and null handles are ignored.
///
/// # Safety
/// Vulkan's contract for the command.
unsafe extern "system" fn destroy(
    instance: vk::Instance,
    callback: vk::DebugReportCallbackEXT,
    allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard("vkDestroyDebugReportCallbackEXT (loader)", (), || {
        // SAFETY: the application's `instance` is a live instance of this loader, reached through
        // its dispatch (VUID-vkDestroyDebugReportCallbackEXT-instance-parameter).
        let Some(data) = (unsafe { instance_data(vk::Handle::as_raw(instance) as usize) }) else {
            return;
        };
        let term = &data.term;
        let Some(node) = term.debug_report.remove(vk::Handle::as_raw(callback)) else {
            return;
        };
        // SAFETY: the drivers' callbacks `create` made for this node, destroyed once (the node
        // is unlinked), with the application's destroy allocator.
        unsafe { destroy_driver_callbacks(term, &node.drivers, allocator) };
        // The node goes back to the allocator that made it (compatible with the destroy
        // command's by VUID-vkDestroyDebugReportCallbackEXT-instance-01242).
        drop(node);
    })
}

/// Destroys the driver callbacks `(driver index, handle)` of one loader callback.
///
/// # Safety
/// Each must be a live callback of that driver instance of `term`, not destroyed since.
unsafe fn destroy_driver_callbacks(
    term: &TermInstance,
    drivers: &[(usize, u64)],
    allocator: *const vk::AllocationCallbacks<'_>,
) {
    for &(i, h) in drivers {
        let d = &term.drivers[i];
        // SAFETY: the caller guarantees `h` is a live callback of this driver instance.
        unsafe {
            (d.table.destroy_debug_report_callback_ext)(
                d.handle,
                vk::Handle::from_raw(h),
                allocator,
            )
        };
    }
}

/// `vkDebugReportMessageEXT`: to the drivers with the extension; to the loader's callbacks
/// when none has it.
///
/// # Safety
/// Vulkan's contract for the command.
#[allow(clippy::too_many_arguments)]
unsafe extern "system" fn message(
    instance: vk::Instance,
    flags: vk::DebugReportFlagsEXT,
    object_type: vk::DebugReportObjectTypeEXT,
    object: u64,
    location: usize,
    code: i32,
    prefix: *const c_char,
    text: *const c_char,
) {
    guard("vkDebugReportMessageEXT (loader)", (), || {
        // SAFETY: the application's `instance` is a live instance of this loader, reached through
        // its dispatch (VUID-vkDebugReportMessageEXT-instance-parameter).
        let Some(data) = (unsafe { instance_data(vk::Handle::as_raw(instance) as usize) }) else {
            return;
        };
        let term = &data.term;
        let mut any = false;
        for (_, d) in drivers_with_report(term) {
            any = true;
            // SAFETY: the driver's live instance and the caller's valid strings.
            unsafe {
                (d.table.debug_report_message_ext)(
                    d.handle,
                    flags,
                    object_type,
                    object,
                    location,
                    code,
                    prefix,
                    text,
                )
            };
        }
        if !any {
            term.debug_report
                .message(flags, object_type, object, location, code, prefix, text);
        }
    })
}
