//! `VK_EXT_debug_report` callbacks and `VK_EXT_debug_utils` messengers of an instance, so a
//! driver can report through the application's callbacks (Mesa's `vk_debug_report` /
//! `vk_debug_utils`). Handles are counter handles (never addresses), unique per instance;
//! destroying an unknown or null handle is ignored, as the spec's `vkDestroy*` rules ask.

use std::ffi::{c_void, CStr};
use std::sync::Mutex;

use vkgen_generated::vk;

use crate::handles::HandleCounter;
use crate::util::lock;

/// How severe a driver message is; mapped to each extension's flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
    Info,
    Debug,
}

impl Severity {
    fn report_flags(self) -> vk::DebugReportFlagsEXT {
        match self {
            Severity::Error => vk::DebugReportFlagsEXT::ERROR,
            Severity::Warning => vk::DebugReportFlagsEXT::WARNING,
            Severity::Info => vk::DebugReportFlagsEXT::INFORMATION,
            Severity::Debug => vk::DebugReportFlagsEXT::DEBUG,
        }
    }

    fn utils_severity(self) -> vk::DebugUtilsMessageSeverityFlagsEXT {
        match self {
            Severity::Error => vk::DebugUtilsMessageSeverityFlagsEXT::ERROR,
            Severity::Warning => vk::DebugUtilsMessageSeverityFlagsEXT::WARNING,
            Severity::Info => vk::DebugUtilsMessageSeverityFlagsEXT::INFO,
            Severity::Debug => vk::DebugUtilsMessageSeverityFlagsEXT::VERBOSE,
        }
    }
}

#[derive(Clone, Copy)]
struct Report {
    handle: u64,
    flags: vk::DebugReportFlagsEXT,
    callback: vk::PFN_vkDebugReportCallbackEXT,
    user: *mut c_void,
}

#[derive(Clone, Copy)]
struct Messenger {
    handle: u64,
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    types: vk::DebugUtilsMessageTypeFlagsEXT,
    callback: vk::PFN_vkDebugUtilsMessengerCallbackEXT,
    user: *mut c_void,
}

/// The callbacks of one instance.
#[derive(Default)]
pub struct Callbacks {
    reports: Mutex<Vec<Report>>,
    messengers: Mutex<Vec<Messenger>>,
    ids: HandleCounter,
}

// SAFETY: the user-data pointers are the application's, handed back to its callbacks only;
// the spec makes the callbacks responsible for their own thread safety.
unsafe impl Send for Callbacks {}
// SAFETY: see `Send`; the lists are behind mutexes.
unsafe impl Sync for Callbacks {}

/// Counter-handle kind of debug objects.
const KIND: u8 = 0x7D;

impl Callbacks {
    pub fn add_report(&self, ci: &vk::DebugReportCallbackCreateInfoEXT<'_>) -> u64 {
        let handle = self.ids.next(KIND);
        lock(&self.reports).push(Report {
            handle,
            flags: ci.flags,
            callback: ci.pfn_callback,
            user: ci.p_user_data,
        });
        handle
    }

    pub fn remove_report(&self, handle: u64) {
        lock(&self.reports).retain(|r| r.handle != handle);
    }

    pub fn add_messenger(&self, ci: &vk::DebugUtilsMessengerCreateInfoEXT<'_>) -> u64 {
        let handle = self.ids.next(KIND);
        lock(&self.messengers).push(Messenger {
            handle,
            severity: ci.message_severity,
            types: ci.message_type,
            callback: ci.pfn_user_callback,
            user: ci.p_user_data,
        });
        handle
    }

    pub fn remove_messenger(&self, handle: u64) {
        lock(&self.messengers).retain(|m| m.handle != handle);
    }

    /// `vkDebugReportMessageEXT`: the report callbacks whose flags match.
    pub fn report(
        &self,
        flags: vk::DebugReportFlagsEXT,
        object: (vk::DebugReportObjectTypeEXT, u64),
        code: i32,
        prefix: &CStr,
        message: &CStr,
    ) {
        // Copy out so a callback may create or destroy callbacks without deadlocking.
        let reports: Vec<Report> = lock(&self.reports).clone();
        for r in reports.iter().filter(|r| r.flags.intersects(flags)) {
            if let Some(cb) = r.callback {
                // SAFETY: the application's callback with the arguments the extension defines.
                unsafe {
                    cb(
                        flags,
                        object.0,
                        object.1,
                        0,
                        code,
                        prefix.as_ptr(),
                        message.as_ptr(),
                        r.user,
                    )
                };
            }
        }
    }

    /// `vkSubmitDebugUtilsMessageEXT`: the messengers whose severity and type match.
    ///
    /// # Safety
    /// `data` is a valid callback-data structure.
    pub unsafe fn submit(
        &self,
        severity: vk::DebugUtilsMessageSeverityFlagsEXT,
        types: vk::DebugUtilsMessageTypeFlagsEXT,
        data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    ) {
        let messengers: Vec<Messenger> = lock(&self.messengers).clone();
        for m in messengers
            .iter()
            .filter(|m| m.severity.intersects(severity) && m.types.intersects(types))
        {
            if let Some(cb) = m.callback {
                // SAFETY: the application's callback; `data` valid per the caller.
                unsafe { cb(severity, types, data, m.user) };
            }
        }
    }

    /// A driver message to every matching callback of either extension.
    pub fn emit(&self, severity: Severity, object: (vk::ObjectType, u64), message: &CStr) {
        self.report(
            severity.report_flags(),
            (report_object_type(object.0), object.1),
            0,
            c"vkgen",
            message,
        );
        let objects = [vk::DebugUtilsObjectNameInfoEXT {
            object_type: object.0,
            object_handle: object.1,
            ..Default::default()
        }];
        let data = vk::DebugUtilsMessengerCallbackDataEXT {
            p_message_id_name: c"vkgen".as_ptr(),
            p_message: message.as_ptr(),
            object_count: 1,
            p_objects: objects.as_ptr(),
            ..Default::default()
        };
        // SAFETY: `data` and what it points to live across the call.
        unsafe {
            self.submit(
                severity.utils_severity(),
                vk::DebugUtilsMessageTypeFlagsEXT::GENERAL,
                &data,
            )
        };
    }
}

/// `VkDebugReportObjectTypeEXT` shares `VkObjectType`'s values for the core object types.
fn report_object_type(t: vk::ObjectType) -> vk::DebugReportObjectTypeEXT {
    if (0..=25).contains(&t.as_raw()) {
        vk::DebugReportObjectTypeEXT::from_raw(t.as_raw())
    } else {
        vk::DebugReportObjectTypeEXT::UNKNOWN
    }
}
