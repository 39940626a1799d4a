//! `VkDescriptorPool`: counters, and the sets it owns.
//!
//! A pool holds what its create info promised: per descriptor type the sum of the pool sizes
//! of that type (an inline uniform block's size in bytes, as the spec counts it), `maxSets`
//! sets, and `VkDescriptorPoolInlineUniformBlockCreateInfo::maxInlineUniformBlockBindings`
//! inline uniform block bindings (0 without the structure). A set takes its layout's
//! descriptors per type (the variable binding at the allocation's count, a `MUTABLE_EXT`
//! binding from the `MUTABLE_EXT` pool sizes) and gives them back when freed. An allocation
//! that any counter cannot take fails with `VK_ERROR_OUT_OF_POOL_MEMORY` — the result the
//! spec requires for a pool out of space (Vulkan 1.1 / `VK_KHR_maintenance1`; before them
//! over-allocation is invalid usage, so the same result serves). Counters do not fragment:
//! `VK_ERROR_FRAGMENTED_POOL` is never returned, which the spec permits (it is a "may").
//!
//! Sets are kit objects in memory from the *pool's* allocator (the one `vkCreateDescriptorPool`
//! got: the spec gives `vkAllocateDescriptorSets` none, and sets are the pool's memory). The
//! pool keeps their handles: `vkResetDescriptorPool` and `vkDestroyDescriptorPool` free them
//! all, and a failed multi-set allocation frees the ones it made before returning.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use vkgen_abi::vk_error;
use vkgen_generated::entries::EntryTable;
use vkgen_generated::vk;

use super::super::resources::desc::store;
use super::layout::INVALID;
use super::layout::{DescriptorSetLayout, SetLayout};
use super::set::DescriptorSet;
use super::store::DescriptorStore;
use crate::handles::{destroy_object, HostAllocator, HostBox, Object, ObjectKind};
use crate::util::{find_in_chain, guard, lock, slice};

/// What a set takes from its pool.
#[derive(Clone, Debug, Default)]
struct Usage {
    per_type: Vec<(vk::DescriptorType, u64)>,
    inline_bindings: u64,
}

impl Usage {
    fn of(layout: &SetLayout, variable_count: u32) -> Usage {
        let mut u = Usage::default();
        for b in layout.bindings.iter() {
            let n = u64::from(layout.effective_count(b, variable_count));
            if n == 0 {
                continue;
            }
            u.add(b.descriptor_type, n);
            if b.descriptor_type == vk::DescriptorType::INLINE_UNIFORM_BLOCK {
                u.inline_bindings += 1;
            }
        }
        u
    }

    fn add(&mut self, ty: vk::DescriptorType, n: u64) {
        match self.per_type.iter_mut().find(|(t, _)| *t == ty) {
            Some((_, have)) => *have += n,
            None => self.per_type.push((ty, n)),
        }
    }

    fn get(&self, ty: vk::DescriptorType) -> u64 {
        self.per_type
            .iter()
            .find(|(t, _)| *t == ty)
            .map_or(0, |&(_, n)| n)
    }
}

#[derive(Default)]
struct PoolState {
    used: Usage,
    /// Live sets (handles) and what each took.
    sets: HashMap<u64, Usage>,
}

/// A `VkDescriptorPool` of the kit.
pub struct DescriptorPool {
    pub flags: vk::DescriptorPoolCreateFlags,
    pub max_sets: u32,
    /// Descriptors per type (bytes for inline uniform blocks).
    capacity: Usage,
    allocator: HostAllocator,
    state: Mutex<PoolState>,
}

impl ObjectKind for DescriptorPool {
    const OBJECT_TYPE: vk::ObjectType = vk::ObjectType::DESCRIPTOR_POOL;
}

impl DescriptorPool {
    /// The pool behind `h`.
    ///
    /// # Safety
    /// `h` is null or a live `VkDescriptorPool` of a driver with the component on.
    pub unsafe fn from_handle<'a>(h: vk::DescriptorPool) -> Option<&'a Self> {
        // SAFETY: the caller promises a null or live handle; `from_handle` checks the type.
        unsafe { Object::<Self>::from_handle(h) }.map(|o| &**o)
    }

    /// Sets allocated from the pool now.
    pub fn allocated_sets(&self) -> u32 {
        lock(&self.state).sets.len() as u32
    }

    /// Descriptors of `ty` (bytes for inline uniform blocks) still free.
    pub fn available(&self, ty: vk::DescriptorType) -> u64 {
        self.capacity.get(ty) - lock(&self.state).used.get(ty)
    }

    /// Inline uniform block bindings still free.
    pub fn available_inline_bindings(&self) -> u64 {
        self.capacity.inline_bindings - lock(&self.state).used.inline_bindings
    }

    /// Whether `u` fits beside what `state` uses.
    fn fits(&self, state: &PoolState, u: &Usage) -> Result<(), String> {
        if state.sets.len() as u64 >= u64::from(self.max_sets) {
            return Err(format!("all {} sets allocated", self.max_sets));
        }
        if let Some(&(ty, n)) = u
            .per_type
            .iter()
            .find(|&&(ty, n)| state.used.get(ty) + n > self.capacity.get(ty))
        {
            return Err(format!(
                "{n} x {ty:?} wanted, {} of {} left",
                self.capacity.get(ty) - state.used.get(ty),
                self.capacity.get(ty)
            ));
        }
        if state.used.inline_bindings + u.inline_bindings > self.capacity.inline_bindings {
            return Err(format!(
                "{} inline uniform block bindings wanted, {} of {} left",
                u.inline_bindings,
                self.capacity.inline_bindings - state.used.inline_bindings,
                self.capacity.inline_bindings
            ));
        }
        Ok(())
    }

    /// Allocates one set per `(layout, variable count)`, all or none.
    pub fn allocate(
        &self,
        sets: &[(Arc<SetLayout>, u32)],
    ) -> Result<Vec<vk::DescriptorSet>, vk::Result> {
        let mut state = lock(&self.state);
        let mut made = Vec::with_capacity(sets.len());
        for (layout, variable) in sets {
            match self.allocate_one(&mut state, layout, *variable) {
                Ok(h) => made.push(h),
                Err(e) => {
                    for h in made {
                        Self::release(&mut state, h);
                    }
                    return Err(e);
                }
            }
        }
        Ok(made.into_iter().map(vk::Handle::from_raw).collect())
    }

    fn allocate_one(
        &self,
        state: &mut PoolState,
        layout: &Arc<SetLayout>,
        variable: u32,
    ) -> Result<u64, vk::Result> {
        let usage = Usage::of(layout, variable);
        if let Err(e) = self.fits(state, &usage) {
            log::debug!("vkAllocateDescriptorSets: pool out of space: {e}");
            return Err(vk::Result::ERROR_OUT_OF_POOL_MEMORY);
        }
        let set = DescriptorSet {
            store: DescriptorStore::new(layout.clone(), variable),
        };
        let b = HostBox::try_new(
            Object::new(set),
            self.allocator,
            vk::SystemAllocationScope::OBJECT,
        )?;
        let h = HostBox::into_raw(b).as_ptr() as usize as u64;
        for &(ty, n) in &usage.per_type {
            state.used.add(ty, n);
        }
        state.used.inline_bindings += usage.inline_bindings;
        state.sets.insert(h, usage);
        Ok(h)
    }

    /// Frees set `h` if the pool owns it (`false` otherwise).
    fn release(state: &mut PoolState, h: u64) -> bool {
        let Some(usage) = state.sets.remove(&h) else {
            return false;
        };
        for &(ty, n) in &usage.per_type {
            if let Some((_, used)) = state.used.per_type.iter_mut().find(|(t, _)| *t == ty) {
                *used -= n;
            }
        }
        state.used.inline_bindings -= usage.inline_bindings;
        // SAFETY: `h` was made by `allocate_one` (a `HostBox` of an `Object<DescriptorSet>`)
        // and was still in the pool's list, so it is live; the application no longer uses it
        // (VUID-vkFreeDescriptorSets-pDescriptorSets-00309, -vkResetDescriptorPool-descriptorPool-00313).
        unsafe { destroy_object::<DescriptorSet>(h) };
        true
    }

    /// Frees `sets` (null handles skipped; handles the pool does not own logged and skipped).
    pub fn free(&self, sets: &[vk::DescriptorSet]) {
        let mut state = lock(&self.state);
        for &s in sets.iter().filter(|s| **s != vk::DescriptorSet::null()) {
            if !Self::release(&mut state, vk::Handle::as_raw(s)) {
                log::error!("vkFreeDescriptorSets: {s:?} is not a set of this pool");
            }
        }
    }

    /// Frees every set (`vkResetDescriptorPool`).
    pub fn reset(&self) {
        let mut state = lock(&self.state);
        let live: Vec<u64> = state.sets.keys().copied().collect();
        for h in live {
            Self::release(&mut state, h);
        }
    }
}

impl Drop for DescriptorPool {
    fn drop(&mut self) {
        self.reset();
    }
}

/// [`vkCreateDescriptorPool`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkCreateDescriptorPool.html)
unsafe extern "system" fn create_descriptor_pool(
    _device: vk::Device,
    p_info: *const vk::DescriptorPoolCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_pool: *mut vk::DescriptorPool,
) -> vk::Result {
    guard(
        "vkCreateDescriptorPool",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: `pCreateInfo` is a valid structure with a valid chain and arrays
            // (VUID-vkCreateDescriptorPool-pCreateInfo-parameter).
            let Some(info) = (unsafe { p_info.as_ref() }) else {
                return vk_error!(INVALID, "vkCreateDescriptorPool: null pCreateInfo");
            };
            let mut capacity = Usage::default();
            // SAFETY: `pPoolSizes` holds `poolSizeCount` structures.
            for s in unsafe { slice(info.p_pool_sizes, info.pool_size_count) } {
                capacity.add(s.ty, u64::from(s.descriptor_count));
            }
            // SAFETY: the create info's valid chain; the sType names the structure.
            let inline = unsafe {
                find_in_chain::<vk::DescriptorPoolInlineUniformBlockCreateInfo<'_>>(
                    info.p_next,
                    vk::StructureType::DESCRIPTOR_POOL_INLINE_UNIFORM_BLOCK_CREATE_INFO,
                )
            };
            capacity.inline_bindings =
                inline.map_or(0, |i| u64::from(i.max_inline_uniform_block_bindings));
            let pool = DescriptorPool {
                flags: info.flags,
                max_sets: info.max_sets,
                capacity,
                // SAFETY: the application's allocator, valid while the pool lives (the spec's rule
                // for `pAllocator`); the pool's sets are freed before the pool.
                allocator: unsafe { HostAllocator::from_ptr(p_allocator) },
                state: Mutex::default(),
            };
            // SAFETY: the application's allocator and output pointer (the command's -pAllocator-
            // and -pDescriptorPool-parameter VUIDs).
            unsafe { store(pool, p_allocator, p_pool) }
        },
    )
}

/// [`vkDestroyDescriptorPool`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkDestroyDescriptorPool.html):
/// its sets go with it.
unsafe extern "system" fn destroy_descriptor_pool(
    _device: vk::Device,
    pool: vk::DescriptorPool,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard("vkDestroyDescriptorPool", (), || {
        // SAFETY: `pool` is null or a live pool of this device whose sets no pending work uses
        // (VUID-vkDestroyDescriptorPool-descriptorPool-00303).
        unsafe { destroy_object::<DescriptorPool>(vk::Handle::as_raw(pool)) };
    });
}

/// [`vkResetDescriptorPool`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkResetDescriptorPool.html)
unsafe extern "system" fn reset_descriptor_pool(
    _device: vk::Device,
    pool: vk::DescriptorPool,
    _flags: vk::DescriptorPoolResetFlags,
) -> vk::Result {
    guard("vkResetDescriptorPool", vk::Result::ERROR_UNKNOWN, || {
        // SAFETY: the application's live pool handle (VUID-vkResetDescriptorPool-descriptorPool-parameter);
        // `from_handle` checks the type.
        match unsafe { DescriptorPool::from_handle(pool) } {
            Some(p) => {
                p.reset();
                vk::Result::SUCCESS
            }
            None => vk_error!(INVALID, "vkResetDescriptorPool: not a pool of this driver"),
        }
    })
}

/// The `(layout, variable count)` of each set an allocate info asks for.
///
/// # Safety
/// `info` is valid: its layout array holds its count, its chain is valid.
unsafe fn requested(
    info: &vk::DescriptorSetAllocateInfo<'_>,
) -> Result<Vec<(Arc<SetLayout>, u32)>, String> {
    // SAFETY: `pSetLayouts` holds `descriptorSetCount` handles (the caller's promise).
    let handles = unsafe { slice(info.p_set_layouts, info.descriptor_set_count) };
    // SAFETY: the caller's valid chain; the sType names the structure.
    let variable = unsafe {
        find_in_chain::<vk::DescriptorSetVariableDescriptorCountAllocateInfo<'_>>(
            info.p_next,
            vk::StructureType::DESCRIPTOR_SET_VARIABLE_DESCRIPTOR_COUNT_ALLOCATE_INFO,
        )
    };
    // SAFETY: `pDescriptorCounts` holds `descriptorSetCount` counts (the caller's chain).
    let counts = variable.map_or(&[][..], |v| unsafe {
        slice(v.p_descriptor_counts, v.descriptor_set_count)
    });
    if !counts.is_empty() && counts.len() != handles.len() {
        return Err(format!(
            "{} variable counts for {} sets",
            counts.len(),
            handles.len()
        ));
    }
    let mut out = Vec::with_capacity(handles.len());
    for (i, &h) in handles.iter().enumerate() {
        // SAFETY: a live set layout (VUID-VkDescriptorSetAllocateInfo-pSetLayouts-parameter);
        // `from_handle` checks the type.
        let layout = unsafe { DescriptorSetLayout::from_handle(h) }
            .ok_or_else(|| format!("set {i}: not a set layout of this driver"))?;
        let layout = layout.layout.clone();
        if layout.is_push_descriptor() {
            return Err(format!("set {i}: a push-descriptor layout"));
        }
        let count = counts.get(i).copied().unwrap_or(0);
        if let Some(v) = layout.variable_binding().filter(|v| count > v.count) {
            return Err(format!(
                "set {i}: variable count {count} over binding {}'s {}",
                v.binding, v.count
            ));
        }
        out.push((layout, count));
    }
    Ok(out)
}

/// [`vkAllocateDescriptorSets`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkAllocateDescriptorSets.html):
/// all sets or none (every output null on failure).
unsafe extern "system" fn allocate_descriptor_sets(
    _device: vk::Device,
    p_info: *const vk::DescriptorSetAllocateInfo<'_>,
    p_sets: *mut vk::DescriptorSet,
) -> vk::Result {
    guard(
        "vkAllocateDescriptorSets",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: `pAllocateInfo` is a valid structure (VUID-vkAllocateDescriptorSets-pAllocateInfo-parameter).
            let Some(info) = (unsafe { p_info.as_ref() }) else {
                return vk_error!(INVALID, "vkAllocateDescriptorSets: null pAllocateInfo");
            };
            let n = info.descriptor_set_count as usize;
            for i in 0..n {
                // SAFETY: `pDescriptorSets` holds `descriptorSetCount` elements
                // (VUID-vkAllocateDescriptorSets-pDescriptorSets-parameter).
                unsafe { p_sets.add(i).write(vk::DescriptorSet::null()) };
            }
            // SAFETY: the application's valid pool handle; `from_handle` checks the type.
            let Some(pool) = (unsafe { DescriptorPool::from_handle(info.descriptor_pool) }) else {
                return vk_error!(
                    INVALID,
                    "vkAllocateDescriptorSets: not a pool of this driver"
                );
            };
            // SAFETY: the application's valid allocate info.
            let wanted = match unsafe { requested(info) } {
                Ok(w) => w,
                Err(e) => return vk_error!(INVALID, "vkAllocateDescriptorSets: {e}"),
            };
            let update_after_bind = vk::DescriptorSetLayoutCreateFlags::UPDATE_AFTER_BIND_POOL;
            if !pool
                .flags
                .contains(vk::DescriptorPoolCreateFlags::UPDATE_AFTER_BIND)
                && wanted
                    .iter()
                    .any(|(l, _)| l.flags.contains(update_after_bind))
            {
                return vk_error!(
                    INVALID,
                    "vkAllocateDescriptorSets: an update-after-bind layout from a pool without \
                 UPDATE_AFTER_BIND_BIT (VUID-VkDescriptorSetAllocateInfo-pSetLayouts-03044)"
                );
            }
            match pool.allocate(&wanted) {
                Ok(sets) => {
                    for (i, s) in sets.into_iter().enumerate() {
                        // SAFETY: `pDescriptorSets` holds `descriptorSetCount` elements and `i` is below it.
                        unsafe { p_sets.add(i).write(s) };
                    }
                    vk::Result::SUCCESS
                }
                Err(e) => e,
            }
        },
    )
}

/// [`vkFreeDescriptorSets`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkFreeDescriptorSets.html):
/// only from a pool created with `FREE_DESCRIPTOR_SET_BIT` (refused, nothing freed, otherwise).
unsafe extern "system" fn free_descriptor_sets(
    _device: vk::Device,
    pool: vk::DescriptorPool,
    count: u32,
    p_sets: *const vk::DescriptorSet,
) -> vk::Result {
    guard("vkFreeDescriptorSets", vk::Result::ERROR_UNKNOWN, || {
        // SAFETY: the application's live pool handle; `from_handle` checks the type.
        let Some(p) = (unsafe { DescriptorPool::from_handle(pool) }) else {
            return vk_error!(INVALID, "vkFreeDescriptorSets: not a pool of this driver");
        };
        if !p
            .flags
            .contains(vk::DescriptorPoolCreateFlags::FREE_DESCRIPTOR_SET)
        {
            return vk_error!(
                INVALID,
                "vkFreeDescriptorSets: the pool was created without FREE_DESCRIPTOR_SET_BIT \
                 (VUID-vkFreeDescriptorSets-descriptorPool-00312); nothing freed"
            );
        }
        // SAFETY: `pDescriptorSets` holds `descriptorSetCount` handles
        // (VUID-vkFreeDescriptorSets-pDescriptorSets-00310).
        p.free(unsafe { slice(p_sets, count) });
        vk::Result::SUCCESS
    })
}

pub(super) fn entries() -> EntryTable {
    EntryTable {
        create_descriptor_pool: Some(create_descriptor_pool),
        destroy_descriptor_pool: Some(destroy_descriptor_pool),
        reset_descriptor_pool: Some(reset_descriptor_pool),
        allocate_descriptor_sets: Some(allocate_descriptor_sets),
        free_descriptor_sets: Some(free_descriptor_sets),
        ..EntryTable::EMPTY
    }
}
