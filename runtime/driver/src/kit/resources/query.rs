//! `VkQueryPool` (results the vendor's engine writes, read back by `vkGetQueryPoolResults`
//! with every flag the spec defines) and `VkPrivateDataSlot`.

use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use vkgen_abi::vk_error;
use vkgen_generated::entries::EntryTable;
use vkgen_generated::vk;

use super::desc::{store, VendorData};
use crate::handles::{destroy_object, Object, ObjectKind};
use crate::util::{guard, lock};

/// How long `VK_QUERY_RESULT_WAIT_BIT` waits for a query nobody ends before the device is
/// declared lost (a query never ended is invalid usage; hanging the application is worse).
const WAIT_LIMIT: Duration = Duration::from_secs(60);

/// The kit's device clock: nanoseconds of the monotonic clock since the first reading in the
/// process — 64 valid bits, one tick per nanosecond (`timestampPeriod` 1.0, the default
/// limits'), never going back.
pub fn timestamp_now() -> u64 {
    static BASE: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    let base = *BASE.get_or_init(Instant::now);
    // Starts at 1: a zero timestamp reads as "never written" to some applications.
    u64::try_from(base.elapsed().as_nanos())
        .unwrap_or(u64::MAX)
        .saturating_add(1)
}

#[derive(Default)]
struct Results {
    values: Vec<u64>,
    available: Vec<bool>,
}

/// A `VkQueryPool` of the kit. The engine records results with [`QueryPool::write`] and
/// resets with [`QueryPool::reset`]; the kit answers the host.
pub struct QueryPool {
    pub query_type: vk::QueryType,
    pub count: u32,
    pub pipeline_statistics: vk::QueryPipelineStatisticFlags,
    /// Values per query: one, or one per enabled pipeline statistic.
    pub values_per_query: u32,
    results: Mutex<Results>,
    ready: Condvar,
    pub vendor: VendorData,
}

impl ObjectKind for QueryPool {
    const OBJECT_TYPE: vk::ObjectType = vk::ObjectType::QUERY_POOL;
}

impl QueryPool {
    /// The pool behind `h`.
    ///
    /// # Safety
    /// `h` is null or a live `VkQueryPool` of a driver with the component on.
    pub unsafe fn from_handle<'a>(h: vk::QueryPool) -> Option<&'a QueryPool> {
        // SAFETY: the caller promises a null or live handle; `from_handle` checks the type.
        unsafe { Object::<QueryPool>::from_handle(h) }.map(|o| &**o)
    }

    /// Makes `query` available with `values` (as many as
    /// [`values_per_query`](Self::values_per_query); fewer leave the rest 0). Out-of-range queries
    /// are ignored.
    pub fn write(&self, query: u32, values: &[u64]) {
        let n = self.values_per_query as usize;
        let mut r = lock(&self.results);
        if query >= self.count {
            return;
        }
        let at = query as usize * n;
        for (i, slot) in r.values[at..at + n].iter_mut().enumerate() {
            *slot = values.get(i).copied().unwrap_or(0);
        }
        r.available[query as usize] = true;
        self.ready.notify_all();
    }

    /// Writes the device clock into `query` (what `vkCmdWriteTimestamp{,2}` does when the
    /// engine does not: the kit applies it at replay, in order).
    pub fn write_timestamp(&self, query: u32) {
        self.write(query, &[timestamp_now()]);
    }

    /// Makes `count` queries from `first` unavailable (`vkCmdResetQueryPool`,
    /// `vkResetQueryPool`).
    pub fn reset(&self, first: u32, count: u32) {
        let mut r = lock(&self.results);
        let end = first.saturating_add(count).min(self.count);
        for q in first.min(end)..end {
            r.available[q as usize] = false;
            let n = self.values_per_query as usize;
            r.values[q as usize * n..(q as usize + 1) * n].fill(0);
        }
    }
}

/// [`vkCreateQueryPool`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkCreateQueryPool.html)
unsafe extern "system" fn create_query_pool(
    _device: vk::Device,
    p_info: *const vk::QueryPoolCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_pool: *mut vk::QueryPool,
) -> vk::Result {
    guard(
        "vkCreateQueryPool",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: `pCreateInfo` is a valid structure (VUID-vkCreateQueryPool-pCreateInfo-parameter).
            let Some(i) = (unsafe { p_info.as_ref() }) else {
                return vk_error!(vk::Result::ERROR_OUT_OF_HOST_MEMORY, "null pCreateInfo");
            };
            let values_per_query = if i.query_type == vk::QueryType::PIPELINE_STATISTICS {
                i.pipeline_statistics.as_raw().count_ones().max(1)
            } else {
                1
            };
            let pool = QueryPool {
                query_type: i.query_type,
                count: i.query_count,
                pipeline_statistics: i.pipeline_statistics,
                values_per_query,
                results: Mutex::new(Results {
                    values: vec![0; i.query_count as usize * values_per_query as usize],
                    available: vec![false; i.query_count as usize],
                }),
                ready: Condvar::new(),
                vendor: VendorData::default(),
            };
            // SAFETY: the application's allocator and output pointer (the command's
            // -pAllocator- and output -parameter VUIDs).
            unsafe { store(pool, p_allocator, p_pool) }
        },
    )
}

/// [`vkDestroyQueryPool`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkDestroyQueryPool.html)
unsafe extern "system" fn destroy_query_pool(
    _device: vk::Device,
    pool: vk::QueryPool,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard("vkDestroyQueryPool", (), || {
        // SAFETY: null or a pool no pending work uses (VUID-vkDestroyQueryPool-queryPool-00793).
        unsafe { destroy_object::<QueryPool>(vk::Handle::as_raw(pool)) };
    });
}

/// [`vkResetQueryPool`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkResetQueryPool.html)
/// (host reset).
unsafe extern "system" fn reset_query_pool(
    _device: vk::Device,
    pool: vk::QueryPool,
    first: u32,
    count: u32,
) {
    guard("vkResetQueryPool", (), || {
        // SAFETY: the application's handle; checked by type.
        if let Some(p) = unsafe { QueryPool::from_handle(pool) } {
            p.reset(first, count);
        }
    });
}

/// Writes one query's values (and availability) at `out` as 32- or 64-bit integers.
///
/// # Safety
/// `out` is valid for `(values.len() + 1) * width` bytes.
unsafe fn put(out: *mut u8, values: &[u64], availability: Option<bool>, wide: bool) {
    let all = values.iter().copied().chain(availability.map(u64::from));
    for (i, v) in all.enumerate() {
        // SAFETY: within the caller's range; `vkGetQueryPoolResults` requires `pData` and
        // `stride` to be multiples of the width (VUID-vkGetQueryPoolResults-flags-02828), so
        // the writes are aligned; unaligned writes keep a misuse harmless anyway.
        unsafe {
            if wide {
                out.cast::<u64>().add(i).write_unaligned(v);
            } else {
                out.cast::<u32>().add(i).write_unaligned(v as u32);
            }
        }
    }
}

/// [`vkGetQueryPoolResults`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetQueryPoolResults.html)
#[allow(clippy::too_many_arguments)]
unsafe extern "system" fn get_query_pool_results(
    _device: vk::Device,
    pool: vk::QueryPool,
    first: u32,
    count: u32,
    data_size: usize,
    p_data: *mut c_void,
    stride: vk::DeviceSize,
    flags: vk::QueryResultFlags,
) -> vk::Result {
    guard(
        "vkGetQueryPoolResults",
        vk::Result::ERROR_DEVICE_LOST,
        || {
            // SAFETY: the application's handle; checked by type.
            let Some(p) = (unsafe { QueryPool::from_handle(pool) }) else {
                return vk_error!(
                    vk::Result::ERROR_DEVICE_LOST,
                    "not a query pool of this driver"
                );
            };
            let wide = flags.contains(vk::QueryResultFlags::TYPE_64);
            let with_availability = flags.contains(vk::QueryResultFlags::WITH_AVAILABILITY);
            let width = if wide { 8 } else { 4 };
            let n = p.values_per_query as usize;
            let needed = (n + usize::from(with_availability)) * width;
            let deadline = Instant::now() + WAIT_LIMIT;
            let mut result = vk::Result::SUCCESS;
            let mut r = lock(&p.results);
            for k in 0..count {
                let q = first.saturating_add(k);
                if q >= p.count {
                    break;
                }
                while flags.contains(vk::QueryResultFlags::WAIT) && !r.available[q as usize] {
                    let left = deadline.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return vk_error!(
                            vk::Result::ERROR_DEVICE_LOST,
                            "query {q} never became available"
                        );
                    }
                    r = p
                        .ready
                        .wait_timeout(r, left)
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .0;
                }
                let available = r.available[q as usize];
                if !available {
                    result = vk::Result::NOT_READY;
                }
                let at = (k as usize).saturating_mul(stride as usize);
                if at.saturating_add(needed) > data_size {
                    break;
                }
                let values = &r.values[q as usize * n..(q as usize + 1) * n];
                let write_values = available || flags.contains(vk::QueryResultFlags::PARTIAL);
                // SAFETY: `pData` holds `dataSize` bytes (VUID-vkGetQueryPoolResults-pData-parameter)
                // and `at + needed <= dataSize` was checked above.
                let out = unsafe { p_data.cast::<u8>().add(at) };
                let shown = if write_values { values } else { &[][..] };
                if write_values || with_availability {
                    // SAFETY: `at + needed <= dataSize` was checked; without values only the
                    // availability word is written, at its place after the values.
                    unsafe {
                        let at_availability = if write_values {
                            out
                        } else {
                            out.add(n * width)
                        };
                        put(
                            at_availability,
                            shown,
                            with_availability.then_some(available),
                            wide,
                        );
                    }
                }
            }
            result
        },
    )
}

/// A `VkPrivateDataSlot`: one 64-bit value per object.
pub struct PrivateDataSlot {
    values: Mutex<HashMap<(i32, u64), u64>>,
}

impl ObjectKind for PrivateDataSlot {
    const OBJECT_TYPE: vk::ObjectType = vk::ObjectType::PRIVATE_DATA_SLOT;
}

/// [`vkCreatePrivateDataSlot`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkCreatePrivateDataSlot.html)
unsafe extern "system" fn create_private_data_slot(
    _device: vk::Device,
    _p_info: *const vk::PrivateDataSlotCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_slot: *mut vk::PrivateDataSlot,
) -> vk::Result {
    guard(
        "vkCreatePrivateDataSlot",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            let slot = PrivateDataSlot {
                values: Mutex::new(HashMap::new()),
            };
            // SAFETY: the application's allocator and output pointer (the command's
            // -pAllocator- and output -parameter VUIDs).
            unsafe { store(slot, p_allocator, p_slot) }
        },
    )
}

/// [`vkDestroyPrivateDataSlot`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkDestroyPrivateDataSlot.html)
unsafe extern "system" fn destroy_private_data_slot(
    _device: vk::Device,
    slot: vk::PrivateDataSlot,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard("vkDestroyPrivateDataSlot", (), || {
        // SAFETY: null or a slot the application no longer uses; a wrong type is ignored.
        unsafe { destroy_object::<PrivateDataSlot>(vk::Handle::as_raw(slot)) };
    });
}

/// [`vkSetPrivateData`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkSetPrivateData.html)
unsafe extern "system" fn set_private_data(
    _device: vk::Device,
    object_type: vk::ObjectType,
    object: u64,
    slot: vk::PrivateDataSlot,
    data: u64,
) -> vk::Result {
    guard(
        "vkSetPrivateData",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: the application's slot handle (VUID-vkSetPrivateData-privateDataSlot-parameter);
            // checked by type.
            let Some(s) = (unsafe { Object::<PrivateDataSlot>::from_handle(slot) }) else {
                return vk_error!(
                    vk::Result::ERROR_OUT_OF_HOST_MEMORY,
                    "not a private data slot"
                );
            };
            lock(&s.values).insert((object_type.as_raw(), object), data);
            vk::Result::SUCCESS
        },
    )
}

/// [`vkGetPrivateData`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetPrivateData.html):
/// 0 for an object never set.
unsafe extern "system" fn get_private_data(
    _device: vk::Device,
    object_type: vk::ObjectType,
    object: u64,
    slot: vk::PrivateDataSlot,
    p_data: *mut u64,
) {
    guard("vkGetPrivateData", (), || {
        // SAFETY: the application's slot handle; checked by type.
        let value = unsafe { Object::<PrivateDataSlot>::from_handle(slot) }
            .and_then(|s| {
                lock(&s.values)
                    .get(&(object_type.as_raw(), object))
                    .copied()
            })
            .unwrap_or(0);
        // SAFETY: `pData` is valid for a write (VUID-vkGetPrivateData-pData-parameter).
        unsafe { p_data.write(value) };
    });
}

pub(super) fn entries() -> EntryTable {
    EntryTable {
        create_query_pool: Some(create_query_pool),
        destroy_query_pool: Some(destroy_query_pool),
        reset_query_pool: Some(reset_query_pool),
        get_query_pool_results: Some(get_query_pool_results),
        create_private_data_slot: Some(create_private_data_slot),
        destroy_private_data_slot: Some(destroy_private_data_slot),
        set_private_data: Some(set_private_data),
        get_private_data: Some(get_private_data),
        ..EntryTable::EMPTY
    }
}
