//! `VkPipelineCache` (Mesa's `vk_pipeline_cache`, without its object kinds): a map from a
//! 32-byte key (a pipeline's stage keys, [`super::ShaderStage::key`]) to the bytes the
//! pipeline helper stores, serialized behind the spec's header.
//!
//! Data layout: the 32-byte header (`headerSize` 32, `VK_PIPELINE_CACHE_HEADER_VERSION_ONE`,
//! `vendorID`, `deviceID`, `pipelineCacheUUID`, from the device's properties), then entries
//! `key[32] | size u32 LE | bytes[size]`, sorted by key. Entries delimit themselves, so a
//! prefix of whole entries is itself valid data: a short `vkGetPipelineCacheData` buffer gets
//! the header and the entries that fit, and `VK_INCOMPLETE`. Initial data with another header
//! (other device, driver build or version) is ignored, as the spec lets an implementation do;
//! a truncated entry ends the data there.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use vkgen_abi::vk_error;
use vkgen_generated::entries::EntryTable;
use vkgen_generated::vk;

use super::super::api::Kit;
use super::super::objects::Device;
use crate::handles::{create_object, destroy_object, Object, ObjectKind};
use crate::util::{guard, lock, slice};

/// The header's size (`VkPipelineCacheHeaderVersionOne`).
pub const HEADER_SIZE: usize = 32;
const KEY_SIZE: usize = 32;

/// `VkPipelineCacheHeaderVersionOne` as bytes: what the device's properties say.
pub fn header(props: &vk::PhysicalDeviceProperties) -> [u8; HEADER_SIZE] {
    let mut h = [0u8; HEADER_SIZE];
    h[0..4].copy_from_slice(&(HEADER_SIZE as u32).to_le_bytes());
    h[4..8].copy_from_slice(&(vk::PipelineCacheHeaderVersion::ONE.as_raw() as u32).to_le_bytes());
    h[8..12].copy_from_slice(&props.vendor_id.to_le_bytes());
    h[12..16].copy_from_slice(&props.device_id.to_le_bytes());
    h[16..32].copy_from_slice(&props.pipeline_cache_uuid);
    h
}

/// A `VkPipelineCache` of the kit (see the module docs).
pub struct PipelineCache {
    header: [u8; HEADER_SIZE],
    entries: Mutex<BTreeMap<[u8; KEY_SIZE], Arc<[u8]>>>,
}

impl ObjectKind for PipelineCache {
    const OBJECT_TYPE: vk::ObjectType = vk::ObjectType::PIPELINE_CACHE;
}

impl PipelineCache {
    /// The cache behind `h`.
    ///
    /// # Safety
    /// `h` is null or a live `VkPipelineCache` of a driver with the component on.
    pub unsafe fn from_handle<'a>(h: vk::PipelineCache) -> Option<&'a PipelineCache> {
        // SAFETY: the caller promises a null or live handle; `from_handle` checks the type.
        unsafe { Object::<PipelineCache>::from_handle(h) }.map(|o| &**o)
    }

    /// A cache for a device whose header is `header`, filled from `initial` when that data
    /// carries the same header (and ignoring it otherwise).
    pub fn new(header: [u8; HEADER_SIZE], initial: &[u8]) -> PipelineCache {
        let cache = PipelineCache {
            header,
            entries: Mutex::default(),
        };
        if initial.len() >= HEADER_SIZE && initial[..HEADER_SIZE] == header {
            let mut map = lock(&cache.entries);
            let mut rest = &initial[HEADER_SIZE..];
            while let Some((key, bytes, tail)) = split_entry(rest) {
                map.insert(key, bytes.into());
                rest = tail;
            }
            if !rest.is_empty() {
                log::debug!(
                    "pipeline cache: {} trailing bytes of initial data ignored",
                    rest.len()
                );
            }
        } else if !initial.is_empty() {
            log::debug!("pipeline cache: initial data of another device or version ignored");
        }
        cache
    }

    /// Whether `key` was in the cache (its initial data or an earlier insert); inserts it otherwise.
    pub fn lookup_or_insert(&self, key: &[u8; 32], data: &[u8]) -> bool {
        let mut map = lock(&self.entries);
        if map.contains_key(key) {
            return true;
        }
        map.insert(*key, data.into());
        false
    }

    /// The bytes stored under `key`.
    pub fn get(&self, key: &[u8; 32]) -> Option<Arc<[u8]>> {
        lock(&self.entries).get(key).cloned()
    }

    /// How many entries the cache holds.
    pub fn len(&self) -> usize {
        lock(&self.entries).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The cache's data (header and every entry), as `vkGetPipelineCacheData` returns it.
    pub fn data(&self) -> Vec<u8> {
        self.data_within(usize::MAX).0
    }

    /// The header and the entries that fit in `limit` bytes (at least the header's size);
    /// `true` when every entry fit.
    fn data_within(&self, limit: usize) -> (Vec<u8>, bool) {
        let mut out = self.header.to_vec();
        let mut complete = true;
        for (key, bytes) in lock(&self.entries).iter() {
            let n = KEY_SIZE + 4 + bytes.len();
            if out.len() + n > limit {
                complete = false;
                break;
            }
            out.extend_from_slice(key);
            out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
            out.extend_from_slice(bytes);
        }
        (out, complete)
    }

    /// Adds `src`'s entries this cache lacks.
    pub fn merge_from(&self, src: &PipelineCache) {
        if std::ptr::eq(self, src) {
            return;
        }
        let from: Vec<_> = lock(&src.entries)
            .iter()
            .map(|(k, v)| (*k, v.clone()))
            .collect();
        let mut map = lock(&self.entries);
        for (k, v) in from {
            map.entry(k).or_insert(v);
        }
    }
}

/// One serialized entry at the start of `data`, and what follows it.
fn split_entry(data: &[u8]) -> Option<([u8; KEY_SIZE], &[u8], &[u8])> {
    let key: [u8; KEY_SIZE] = data.get(..KEY_SIZE)?.try_into().ok()?;
    let size = u32::from_le_bytes(data.get(KEY_SIZE..KEY_SIZE + 4)?.try_into().ok()?) as usize;
    let body = data.get(KEY_SIZE + 4..)?;
    (size <= body.len()).then(|| (key, &body[..size], &body[size..]))
}

/// [`vkCreatePipelineCache`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkCreatePipelineCache.html)
unsafe extern "system" fn create_pipeline_cache<D: Kit>(
    device: vk::Device,
    p_info: *const vk::PipelineCacheCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_cache: *mut vk::PipelineCache,
) -> vk::Result {
    guard(
        "vkCreatePipelineCache",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: the application's device handle; `from_handle` checks it is one of ours.
            let Some(dev) = (unsafe { Device::<D>::from_handle(device) }) else {
                return vk_error!(vk::Result::ERROR_UNKNOWN, "not a device of this driver");
            };
            // SAFETY: a valid create info (VUID-vkCreatePipelineCache-pCreateInfo-parameter).
            let Some(info) = (unsafe { p_info.as_ref() }) else {
                return vk_error!(vk::Result::ERROR_UNKNOWN, "null pCreateInfo");
            };
            let initial: &[u8] = if info.initial_data_size == 0 || info.p_initial_data.is_null() {
                &[]
            } else {
                // SAFETY: `pInitialData` holds `initialDataSize` bytes
                // (VUID-VkPipelineCacheCreateInfo-pInitialData-parameter).
                unsafe {
                    std::slice::from_raw_parts(info.p_initial_data.cast(), info.initial_data_size)
                }
            };
            let cache =
                PipelineCache::new(header(&dev.physical().properties.properties10()), initial);
            // SAFETY: the application's allocator (VUID-vkCreatePipelineCache-pAllocator-parameter).
            match unsafe { create_object(cache, p_allocator) } {
                Ok(h) => {
                    // SAFETY: a valid output pointer (VUID-vkCreatePipelineCache-pPipelineCache-parameter).
                    unsafe { p_cache.write(vk::Handle::from_raw(h)) };
                    vk::Result::SUCCESS
                }
                Err(e) => e,
            }
        },
    )
}

/// [`vkDestroyPipelineCache`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkDestroyPipelineCache.html)
unsafe extern "system" fn destroy_pipeline_cache(
    _device: vk::Device,
    cache: vk::PipelineCache,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard("vkDestroyPipelineCache", (), || {
        // SAFETY: null or a cache of this driver that no command uses now (externally synchronized).
        unsafe { destroy_object::<PipelineCache>(vk::Handle::as_raw(cache)) };
    });
}

/// [`vkGetPipelineCacheData`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetPipelineCacheData.html)
unsafe extern "system" fn get_pipeline_cache_data(
    _device: vk::Device,
    cache: vk::PipelineCache,
    p_size: *mut usize,
    p_data: *mut std::ffi::c_void,
) -> vk::Result {
    guard(
        "vkGetPipelineCacheData",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: a cache handle of this driver (VUID-…-pipelineCache-parameter), checked by type.
            let Some(c) = (unsafe { PipelineCache::from_handle(cache) }) else {
                return vk_error!(
                    vk::Result::ERROR_UNKNOWN,
                    "not a pipeline cache of this driver"
                );
            };
            // SAFETY: a valid size pointer (VUID-vkGetPipelineCacheData-pDataSize-parameter).
            let Some(size) = (unsafe { p_size.as_mut() }) else {
                return vk_error!(vk::Result::ERROR_UNKNOWN, "null pDataSize");
            };
            if p_data.is_null() {
                *size = c.data().len();
                return vk::Result::SUCCESS;
            }
            if *size < HEADER_SIZE {
                // The spec: nothing written, zero size, VK_INCOMPLETE.
                *size = 0;
                return vk::Result::INCOMPLETE;
            }
            let (data, complete) = c.data_within(*size);
            // SAFETY: `pData` holds `*pDataSize` bytes (VUID-vkGetPipelineCacheData-pData-parameter),
            // and `data` is no longer than that.
            unsafe {
                std::ptr::copy_nonoverlapping(data.as_ptr(), p_data.cast::<u8>(), data.len())
            };
            *size = data.len();
            if complete {
                vk::Result::SUCCESS
            } else {
                vk::Result::INCOMPLETE
            }
        },
    )
}

/// [`vkMergePipelineCaches`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkMergePipelineCaches.html)
unsafe extern "system" fn merge_pipeline_caches(
    _device: vk::Device,
    dst: vk::PipelineCache,
    count: u32,
    p_src: *const vk::PipelineCache,
) -> vk::Result {
    guard(
        "vkMergePipelineCaches",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: a cache handle of this driver, checked by type.
            let Some(d) = (unsafe { PipelineCache::from_handle(dst) }) else {
                return vk_error!(
                    vk::Result::ERROR_UNKNOWN,
                    "destination is not a pipeline cache of this driver"
                );
            };
            // SAFETY: `pSrcCaches` holds `srcCacheCount` handles (VUID-…-pSrcCaches-parameter).
            for &s in unsafe { slice(p_src, count) } {
                // SAFETY: a cache handle of this driver, checked by type.
                match unsafe { PipelineCache::from_handle(s) } {
                    Some(s) => d.merge_from(s),
                    None => {
                        return vk_error!(
                            vk::Result::ERROR_UNKNOWN,
                            "a source is not a pipeline cache of this driver"
                        )
                    }
                }
            }
            vk::Result::SUCCESS
        },
    )
}

pub(super) fn entries<D: Kit>() -> EntryTable {
    EntryTable {
        create_pipeline_cache: Some(create_pipeline_cache::<D>),
        destroy_pipeline_cache: Some(destroy_pipeline_cache),
        get_pipeline_cache_data: Some(get_pipeline_cache_data),
        merge_pipeline_caches: Some(merge_pipeline_caches),
        ..EntryTable::EMPTY
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn props(vendor: u32) -> vk::PhysicalDeviceProperties {
        vk::PhysicalDeviceProperties {
            vendor_id: vendor,
            device_id: 2,
            pipeline_cache_uuid: [7; 16],
            ..Default::default()
        }
    }

    #[test]
    fn data_is_the_header_then_sorted_entries() {
        let c = PipelineCache::new(header(&props(1)), &[]);
        assert!(!c.lookup_or_insert(&[9; 32], &[1, 2]));
        assert!(!c.lookup_or_insert(&[3; 32], &[]));
        let d = c.data();
        assert_eq!(d[..32], header(&props(1)));
        assert_eq!(d[32..64], [3; 32], "sorted by key");
        assert_eq!(d[64..68], 0u32.to_le_bytes());
        assert_eq!(d[68..100], [9; 32]);
        assert_eq!(d[100..], [2, 0, 0, 0, 1, 2]);
        let (prefix, complete) = c.data_within(d.len() - 1);
        assert!(!complete);
        assert_eq!(prefix, d[..68]);
    }

    #[test]
    fn another_devices_data_is_ignored_and_merge_keeps_the_destinations_entries() {
        let a = PipelineCache::new(header(&props(1)), &[]);
        a.lookup_or_insert(&[1; 32], b"a");
        let foreign = PipelineCache::new(header(&props(5)), &a.data());
        assert!(foreign.is_empty());
        let b = PipelineCache::new(header(&props(1)), &a.data());
        assert_eq!(&*b.get(&[1; 32]).unwrap(), b"a");
        let c = PipelineCache::new(header(&props(1)), &[]);
        c.lookup_or_insert(&[1; 32], b"c");
        c.merge_from(&a);
        c.merge_from(&c);
        assert_eq!(&*c.get(&[1; 32]).unwrap(), b"c");
        assert_eq!(c.len(), 1);
    }
}
