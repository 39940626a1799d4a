//! The kit's descriptor objects (issue 30): set layouts, pools, sets, writes and copies,
//! update templates and pipeline layouts of a driver that turns `DESCRIPTOR_OBJECTS` (and
//! `RESOURCE_OBJECTS`, for `VK_WHOLE_SIZE`) on and writes none of them itself, driven through
//! the real entry points with ash and read back through the kit's types.

use std::ffi::{c_void, CStr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

mod support;

use ash::vk;
use vkgen_driver::export::DriverModule;
use vkgen_driver::generated::driver::Driver;
use vkgen_driver::kit::descriptor::{
    Descriptor, DescriptorPool, DescriptorSet, DescriptorSetLayout, DescriptorStore,
    DescriptorUpdateTemplate, PipelineLayout, SetLayout, SetLayoutBinding,
};
use vkgen_driver::kit::{self, Kit};

struct Fixture;

impl DriverModule for Fixture {
    const NAME: &'static CStr = c"descriptor fixture";
}

impl Kit for Fixture {
    type Instance = ();
    type PhysicalDevice = ();
    type Device = ();
    type Queue = ();
    type CommandBuffer = ();
    type CommandPool = ();
    const RESOURCE_OBJECTS: bool = true;
    const DESCRIPTOR_OBJECTS: bool = true;
}

impl kit::native_buffer::NativeBuffers for Fixture {}

#[vkgen_driver::driver(kit)]
impl Driver for Fixture {
    const API_VERSION: u32 = vk::API_VERSION_1_3;
}

struct Setup {
    instance: ash::Instance,
    device: ash::Device,
}

impl Drop for Setup {
    fn drop(&mut self) {
        // SAFETY: objects of this test, destroyed once, children first.
        unsafe {
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}

fn setup() -> Setup {
    let (instance, device) = support::instance_and_device::<Fixture>(vk::API_VERSION_1_3, 1);
    Setup { instance, device }
}

fn binding(n: u32, ty: vk::DescriptorType, count: u32) -> vk::DescriptorSetLayoutBinding<'static> {
    vk::DescriptorSetLayoutBinding::default()
        .binding(n)
        .descriptor_type(ty)
        .descriptor_count(count)
        .stage_flags(vk::ShaderStageFlags::COMPUTE)
}

fn set_layout(
    d: &ash::Device,
    bindings: &[vk::DescriptorSetLayoutBinding<'_>],
) -> vk::DescriptorSetLayout {
    let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(bindings);
    // SAFETY: a live device and a valid create info.
    unsafe { d.create_descriptor_set_layout(&info, None) }.unwrap()
}

fn pool(
    d: &ash::Device,
    flags: vk::DescriptorPoolCreateFlags,
    max_sets: u32,
    sizes: &[(vk::DescriptorType, u32)],
) -> vk::DescriptorPool {
    let sizes: Vec<_> = sizes
        .iter()
        .map(|&(ty, n)| vk::DescriptorPoolSize {
            ty,
            descriptor_count: n,
        })
        .collect();
    let info = vk::DescriptorPoolCreateInfo::default()
        .flags(flags)
        .max_sets(max_sets)
        .pool_sizes(&sizes);
    // SAFETY: a live device and a valid create info.
    unsafe { d.create_descriptor_pool(&info, None) }.unwrap()
}

/// `vkAllocateDescriptorSets` raw, so the outputs of a failure can be seen.
fn allocate_raw(
    d: &ash::Device,
    info: &vk::DescriptorSetAllocateInfo<'_>,
) -> (vk::Result, Vec<vk::DescriptorSet>) {
    let mut out = vec![vk::DescriptorSet::from_raw_dummy(); info.descriptor_set_count as usize];
    // SAFETY: a live device, a valid allocate info and room for every set.
    let r = unsafe { (d.fp_v1_0().allocate_descriptor_sets)(d.handle(), info, out.as_mut_ptr()) };
    (r, out)
}

fn allocate(
    d: &ash::Device,
    p: vk::DescriptorPool,
    layouts: &[vk::DescriptorSetLayout],
) -> Result<Vec<vk::DescriptorSet>, vk::Result> {
    let info = vk::DescriptorSetAllocateInfo::default()
        .descriptor_pool(p)
        .set_layouts(layouts);
    // SAFETY: a live device and a valid allocate info.
    unsafe { d.allocate_descriptor_sets(&info) }
}

trait Dummy {
    fn from_raw_dummy() -> Self;
}
impl Dummy for vk::DescriptorSet {
    fn from_raw_dummy() -> Self {
        vk::Handle::from_raw(0xDEAD_0000)
    }
}

fn kit_set<'a>(s: vk::DescriptorSet) -> &'a DescriptorStore {
    // SAFETY: a live set of this test's device.
    &unsafe { DescriptorSet::from_handle(s) }
        .expect("a kit set")
        .store
}

fn kit_pool<'a>(p: vk::DescriptorPool) -> &'a DescriptorPool {
    // SAFETY: a live pool of this test's device.
    unsafe { DescriptorPool::from_handle(p) }.expect("a kit pool")
}

fn buffer(d: &ash::Device, size: u64) -> vk::Buffer {
    let info = vk::BufferCreateInfo::default()
        .size(size)
        .usage(vk::BufferUsageFlags::UNIFORM_BUFFER);
    // SAFETY: a live device and a valid create info.
    unsafe { d.create_buffer(&info, None) }.unwrap()
}

fn sampler(d: &ash::Device) -> vk::Sampler {
    // SAFETY: a live device and a valid create info.
    unsafe { d.create_sampler(&vk::SamplerCreateInfo::default(), None) }.unwrap()
}

#[test]
fn bindings_are_sorted_and_immutable_samplers_read_back() {
    let s = setup();
    let d = &s.device;
    let (s1, s2, other) = (sampler(d), sampler(d), sampler(d));
    let immutable = [s1, s2];
    let bindings = [
        binding(3, vk::DescriptorType::COMBINED_IMAGE_SAMPLER, 2).immutable_samplers(&immutable),
        binding(0, vk::DescriptorType::UNIFORM_BUFFER, 1),
        // Not a sampler type: pImmutableSamplers is ignored (the spec says so).
        binding(1, vk::DescriptorType::SAMPLED_IMAGE, 2).immutable_samplers(&immutable),
        binding(2, vk::DescriptorType::SAMPLER, 1).immutable_samplers(&immutable[..1]),
    ];
    let l = set_layout(d, &bindings);
    // SAFETY: a live layout of this device.
    let layout = unsafe { DescriptorSetLayout::from_handle(l) }
        .unwrap()
        .layout
        .clone();
    let numbers: Vec<u32> = layout.bindings.iter().map(|b| b.binding).collect();
    assert_eq!(numbers, [0, 1, 2, 3]);
    assert!(layout.binding(1).unwrap().immutable_samplers.is_empty());
    assert_eq!(layout.binding(3).unwrap().immutable_samplers, immutable);
    let p = pool(
        d,
        vk::DescriptorPoolCreateFlags::empty(),
        1,
        &[
            (vk::DescriptorType::COMBINED_IMAGE_SAMPLER, 2),
            (vk::DescriptorType::UNIFORM_BUFFER, 1),
            (vk::DescriptorType::SAMPLED_IMAGE, 2),
            (vk::DescriptorType::SAMPLER, 1),
        ],
    );
    let set = allocate(d, p, &[l]).unwrap()[0];
    let store = kit_set(set);
    let fresh = Descriptor::Image {
        view: vk::ImageView::null(),
        layout: vk::ImageLayout::UNDEFINED,
        sampler: s2,
    };
    assert_eq!(store.descriptor(3, 1), Some(fresh));
    assert_eq!(store.descriptor(2, 0), Some(Descriptor::Sampler(s1)));
    assert_eq!(store.descriptor(3, 2), None, "past the binding");
    // A written sampler does not replace an immutable one; the view and layout are written.
    let info = [vk::DescriptorImageInfo {
        sampler: other,
        image_view: vk::ImageView::null(),
        image_layout: vk::ImageLayout::GENERAL,
    }];
    let writes = [
        vk::WriteDescriptorSet::default()
            .dst_set(set)
            .dst_binding(3)
            .dst_array_element(0)
            .descriptor_type(vk::DescriptorType::COMBINED_IMAGE_SAMPLER)
            .image_info(&info),
        vk::WriteDescriptorSet::default()
            .dst_set(set)
            .dst_binding(2)
            .descriptor_type(vk::DescriptorType::SAMPLER)
            .image_info(&info),
        vk::WriteDescriptorSet::default()
            .dst_set(set)
            .dst_binding(1)
            .descriptor_type(vk::DescriptorType::SAMPLED_IMAGE)
            .image_info(&info),
    ];
    // SAFETY: valid writes to a live set.
    unsafe { d.update_descriptor_sets(&writes, &[]) };
    assert_eq!(
        store.descriptor(3, 0),
        Some(Descriptor::Image {
            view: vk::ImageView::null(),
            layout: vk::ImageLayout::GENERAL,
            sampler: s1
        })
    );
    assert_eq!(store.descriptor(2, 0), Some(Descriptor::Sampler(s1)));
    let sampled = Descriptor::Image {
        view: vk::ImageView::null(),
        layout: vk::ImageLayout::GENERAL,
        sampler: vk::Sampler::null(),
    };
    assert_eq!(
        store.descriptor(1, 0),
        Some(sampled),
        "a sampled image's sampler is ignored"
    );
    // SAFETY: objects of this test, unused from here on; the set goes with its pool.
    unsafe {
        d.destroy_descriptor_set_layout(l, None);
        assert_eq!(store.layout().bindings.len(), 4, "the set keeps its layout");
        d.destroy_descriptor_pool(p, None);
        for s in [s1, s2, other] {
            d.destroy_sampler(s, None);
        }
    }
}

#[test]
fn pools_run_out_per_type_and_per_set_with_out_of_pool_memory() {
    let s = setup();
    let d = &s.device;
    let ub = set_layout(d, &[binding(0, vk::DescriptorType::UNIFORM_BUFFER, 1)]);
    let samp = set_layout(d, &[binding(0, vk::DescriptorType::SAMPLER, 1)]);
    let p = pool(
        d,
        vk::DescriptorPoolCreateFlags::empty(),
        10,
        &[
            (vk::DescriptorType::UNIFORM_BUFFER, 1),
            (vk::DescriptorType::UNIFORM_BUFFER, 1),
        ],
    );
    assert_eq!(
        kit_pool(p).available(vk::DescriptorType::UNIFORM_BUFFER),
        2,
        "pool sizes of a type add up"
    );
    allocate(d, p, &[ub, ub]).unwrap();
    assert_eq!(
        allocate(d, p, &[ub]),
        Err(vk::Result::ERROR_OUT_OF_POOL_MEMORY)
    );
    assert_eq!(
        allocate(d, p, &[samp]),
        Err(vk::Result::ERROR_OUT_OF_POOL_MEMORY),
        "a type the pool lacks"
    );

    // maxSets: three sets from a two-set pool fail as a whole, every output null.
    let q = pool(
        d,
        vk::DescriptorPoolCreateFlags::empty(),
        2,
        &[(vk::DescriptorType::UNIFORM_BUFFER, 10)],
    );
    let layouts = [ub, ub, ub];
    let info = vk::DescriptorSetAllocateInfo::default()
        .descriptor_pool(q)
        .set_layouts(&layouts);
    let (r, out) = allocate_raw(d, &info);
    assert_eq!(r, vk::Result::ERROR_OUT_OF_POOL_MEMORY);
    assert!(
        out.iter().all(|s| *s == vk::DescriptorSet::null()),
        "{out:?}"
    );
    assert_eq!(
        kit_pool(q).allocated_sets(),
        0,
        "the sets made before the failure are freed"
    );
    assert_eq!(
        kit_pool(q).available(vk::DescriptorType::UNIFORM_BUFFER),
        10
    );
    allocate(d, q, &[ub, ub]).unwrap();
    // SAFETY: objects of this test, unused from here on.
    unsafe {
        d.destroy_descriptor_pool(p, None);
        d.destroy_descriptor_pool(q, None);
        d.destroy_descriptor_set_layout(ub, None);
        d.destroy_descriptor_set_layout(samp, None);
    }
}

#[test]
fn free_needs_the_free_bit_and_reset_frees_all() {
    let s = setup();
    let d = &s.device;
    let ub = set_layout(d, &[binding(0, vk::DescriptorType::UNIFORM_BUFFER, 2)]);
    let fixed = pool(
        d,
        vk::DescriptorPoolCreateFlags::empty(),
        4,
        &[(vk::DescriptorType::UNIFORM_BUFFER, 8)],
    );
    let sets = allocate(d, fixed, &[ub, ub]).unwrap();
    // SAFETY: sets of this pool.
    let r = unsafe { d.free_descriptor_sets(fixed, &sets) };
    assert_eq!(r, Err(vk::Result::ERROR_VALIDATION_FAILED_EXT));
    assert_eq!(kit_pool(fixed).allocated_sets(), 2, "nothing freed");
    // SAFETY: a pool of this test whose sets are not in use.
    unsafe { d.reset_descriptor_pool(fixed, vk::DescriptorPoolResetFlags::empty()) }.unwrap();
    assert_eq!(kit_pool(fixed).allocated_sets(), 0);
    assert_eq!(
        kit_pool(fixed).available(vk::DescriptorType::UNIFORM_BUFFER),
        8
    );
    allocate(d, fixed, &[ub, ub, ub, ub]).unwrap();

    let freeable = pool(
        d,
        vk::DescriptorPoolCreateFlags::FREE_DESCRIPTOR_SET,
        2,
        &[(vk::DescriptorType::UNIFORM_BUFFER, 4)],
    );
    let sets = allocate(d, freeable, &[ub, ub]).unwrap();
    assert_eq!(
        allocate(d, freeable, &[ub]),
        Err(vk::Result::ERROR_OUT_OF_POOL_MEMORY)
    );
    // SAFETY: a set of this pool, unused; null handles are skipped.
    unsafe { d.free_descriptor_sets(freeable, &[sets[0], vk::DescriptorSet::null()]) }.unwrap();
    assert_eq!(
        kit_pool(freeable).available(vk::DescriptorType::UNIFORM_BUFFER),
        2
    );
    allocate(d, freeable, &[ub]).unwrap();
    // SAFETY: objects of this test, unused from here on.
    unsafe {
        d.destroy_descriptor_pool(fixed, None);
        d.destroy_descriptor_pool(freeable, None);
        d.destroy_descriptor_set_layout(ub, None);
    }
}

static LIVE: AtomicUsize = AtomicUsize::new(0);

unsafe extern "system" fn counting_alloc(
    _: *mut c_void,
    size: usize,
    align: usize,
    _: vk::SystemAllocationScope,
) -> *mut c_void {
    LIVE.fetch_add(1, Ordering::SeqCst);
    // SAFETY: a plain C allocation, freed by `counting_free`.
    unsafe { libc::aligned_alloc(align.max(8), size.next_multiple_of(align.max(8))) }
}

unsafe extern "system" fn counting_realloc(
    _: *mut c_void,
    _: *mut c_void,
    _: usize,
    _: usize,
    _: vk::SystemAllocationScope,
) -> *mut c_void {
    std::ptr::null_mut()
}

unsafe extern "system" fn counting_free(_: *mut c_void, p: *mut c_void) {
    if !p.is_null() {
        LIVE.fetch_sub(1, Ordering::SeqCst);
        // SAFETY: from `counting_alloc`.
        unsafe { libc::free(p) };
    }
}

#[test]
fn sets_live_in_the_pools_allocator_and_die_with_the_pool() {
    let s = setup();
    let d = &s.device;
    let cb = vk::AllocationCallbacks {
        pfn_allocation: Some(counting_alloc),
        pfn_reallocation: Some(counting_realloc),
        pfn_free: Some(counting_free),
        ..Default::default()
    };
    let ub = set_layout(d, &[binding(0, vk::DescriptorType::UNIFORM_BUFFER, 1)]);
    let sizes = [vk::DescriptorPoolSize {
        ty: vk::DescriptorType::UNIFORM_BUFFER,
        descriptor_count: 3,
    }];
    let info = vk::DescriptorPoolCreateInfo::default()
        .max_sets(3)
        .pool_sizes(&sizes);
    // SAFETY: a live device, valid structures, callbacks that live for the whole test.
    let p = unsafe { d.create_descriptor_pool(&info, Some(&cb)) }.unwrap();
    assert_eq!(LIVE.load(Ordering::SeqCst), 1, "the pool");
    allocate(d, p, &[ub, ub, ub]).unwrap();
    assert_eq!(
        LIVE.load(Ordering::SeqCst),
        4,
        "the pool and its three sets"
    );
    // SAFETY: the pool of this test, its sets unused; same callbacks.
    unsafe { d.destroy_descriptor_pool(p, Some(&cb)) };
    assert_eq!(
        LIVE.load(Ordering::SeqCst),
        0,
        "destroying the pool freed its sets"
    );
    // SAFETY: a layout of this test.
    unsafe { d.destroy_descriptor_set_layout(ub, None) };
}

#[test]
fn variable_counts_size_the_last_binding_and_its_pool_share() {
    let s = setup();
    let d = &s.device;
    let bindings = [
        binding(0, vk::DescriptorType::UNIFORM_BUFFER, 1),
        binding(1, vk::DescriptorType::STORAGE_BUFFER, 64),
    ];
    let flags = [
        vk::DescriptorBindingFlags::empty(),
        vk::DescriptorBindingFlags::VARIABLE_DESCRIPTOR_COUNT
            | vk::DescriptorBindingFlags::PARTIALLY_BOUND,
    ];
    let mut flag_info =
        vk::DescriptorSetLayoutBindingFlagsCreateInfo::default().binding_flags(&flags);
    let info = vk::DescriptorSetLayoutCreateInfo::default()
        .bindings(&bindings)
        .push_next(&mut flag_info);
    // SAFETY: a live device and a valid create info.
    let l = unsafe { d.create_descriptor_set_layout(&info, None) }.unwrap();
    let p = pool(
        d,
        vk::DescriptorPoolCreateFlags::FREE_DESCRIPTOR_SET,
        4,
        &[
            (vk::DescriptorType::UNIFORM_BUFFER, 4),
            (vk::DescriptorType::STORAGE_BUFFER, 70),
        ],
    );
    let with_count = |counts: &[u32], layouts: &[vk::DescriptorSetLayout]| {
        let mut v = vk::DescriptorSetVariableDescriptorCountAllocateInfo::default()
            .descriptor_counts(counts);
        let info = vk::DescriptorSetAllocateInfo::default()
            .descriptor_pool(p)
            .set_layouts(layouts)
            .push_next(&mut v);
        allocate_raw(d, &info)
    };
    let (r, sets) = with_count(&[10], &[l]);
    assert_eq!(r, vk::Result::SUCCESS);
    let store = kit_set(sets[0]);
    assert_eq!(
        (store.variable_count(), store.binding_count(1)),
        (10, Some(10))
    );
    assert_eq!(store.descriptor(1, 9), Some(Descriptor::Empty));
    assert_eq!(store.descriptor(1, 10), None);
    assert_eq!(
        kit_pool(p).available(vk::DescriptorType::STORAGE_BUFFER),
        60
    );
    assert_eq!(
        with_count(&[65], &[l]).0,
        vk::Result::ERROR_VALIDATION_FAILED_EXT,
        "over the binding's count"
    );
    assert_eq!(
        with_count(&[61], &[l]).0,
        vk::Result::ERROR_OUT_OF_POOL_MEMORY
    );
    // Without the structure the count is 0.
    let none = allocate(d, p, &[l]).unwrap();
    assert_eq!(kit_set(none[0]).binding_count(1), Some(0));
    // SAFETY: objects of this test, unused from here on.
    unsafe {
        d.destroy_descriptor_pool(p, None);
        d.destroy_descriptor_set_layout(l, None);
    }
}

fn buffer_info(buffer: vk::Buffer, offset: u64, range: u64) -> vk::DescriptorBufferInfo {
    vk::DescriptorBufferInfo {
        buffer,
        offset,
        range,
    }
}

#[test]
fn writes_overflow_into_consecutive_bindings_and_resolve_whole_size() {
    let s = setup();
    let d = &s.device;
    let ty = vk::DescriptorType::UNIFORM_BUFFER;
    // Binding 1 has no elements and binding 3 does not exist: both are skipped.
    let l = set_layout(
        d,
        &[
            binding(0, ty, 2),
            binding(1, ty, 0),
            binding(2, ty, 3),
            binding(4, ty, 1),
        ],
    );
    let p = pool(d, vk::DescriptorPoolCreateFlags::empty(), 2, &[(ty, 12)]);
    let sets = allocate(d, p, &[l, l]).unwrap();
    let (a, b) = (buffer(d, 256), buffer(d, 1000));
    let infos = [
        buffer_info(a, 64, vk::WHOLE_SIZE),
        buffer_info(b, 0, 16),
        buffer_info(b, 16, 32),
        buffer_info(b, 900, vk::WHOLE_SIZE),
        buffer_info(a, 0, 8),
    ];
    let write = vk::WriteDescriptorSet::default()
        .dst_set(sets[0])
        .dst_binding(0)
        .dst_array_element(1)
        .descriptor_type(ty)
        .buffer_info(&infos);
    // SAFETY: a valid write to a live set.
    unsafe { d.update_descriptor_sets(&[write], &[]) };
    let st = kit_set(sets[0]);
    let buf = |buffer, offset, range| {
        Some(Descriptor::Buffer {
            buffer,
            offset,
            range,
        })
    };
    assert_eq!(st.descriptor(0, 0), Some(Descriptor::Empty));
    assert_eq!(
        st.descriptor(0, 1),
        buf(a, 64, 192),
        "WHOLE_SIZE is the rest of the buffer"
    );
    assert_eq!(
        st.descriptors(2).unwrap(),
        [
            buf(b, 0, 16).unwrap(),
            buf(b, 16, 32).unwrap(),
            buf(b, 900, 100).unwrap()
        ]
    );
    assert_eq!(
        st.descriptor(4, 0),
        buf(a, 0, 8),
        "past the missing binding 3"
    );

    // Copies: two elements from set 0's binding 2 element 2 on land in set 1's binding 0.
    let copy = vk::CopyDescriptorSet::default()
        .src_set(sets[0])
        .src_binding(2)
        .src_array_element(2)
        .dst_set(sets[1])
        .dst_binding(0)
        .descriptor_count(2);
    // SAFETY: a valid copy between live sets.
    unsafe { d.update_descriptor_sets(&[], &[copy]) };
    let dst = kit_set(sets[1]);
    assert_eq!(
        dst.descriptors(0).unwrap(),
        [buf(b, 900, 100).unwrap(), buf(a, 0, 8).unwrap()]
    );
    assert_eq!(dst.descriptor(2, 0), Some(Descriptor::Empty));
    // A write past the set's end stops there and is logged (no panic, nothing after it).
    let long = [buffer_info(b, 0, 4); 3];
    let past = vk::WriteDescriptorSet::default()
        .dst_set(sets[1])
        .dst_binding(4)
        .descriptor_type(ty)
        .buffer_info(&long);
    // SAFETY: a write to a live set (invalid in its count, which the kit refuses).
    unsafe { d.update_descriptor_sets(&[past], &[]) };
    assert_eq!(dst.descriptor(4, 0), Some(Descriptor::Empty));
    // SAFETY: objects of this test, unused from here on.
    unsafe {
        d.destroy_descriptor_pool(p, None);
        d.destroy_descriptor_set_layout(l, None);
        d.destroy_buffer(a, None);
        d.destroy_buffer(b, None);
    }
}

#[test]
fn inline_uniform_blocks_hold_bytes_and_count_pool_bindings() {
    let s = setup();
    let d = &s.device;
    let ty = vk::DescriptorType::INLINE_UNIFORM_BLOCK;
    let l = set_layout(d, &[binding(0, ty, 16), binding(1, ty, 8)]);
    let sizes = [vk::DescriptorPoolSize {
        ty,
        descriptor_count: 48,
    }];
    let mut inline = vk::DescriptorPoolInlineUniformBlockCreateInfo::default()
        .max_inline_uniform_block_bindings(2);
    let info = vk::DescriptorPoolCreateInfo::default()
        .max_sets(2)
        .pool_sizes(&sizes)
        .push_next(&mut inline);
    // SAFETY: a live device and valid structures.
    let p = unsafe { d.create_descriptor_pool(&info, None) }.unwrap();
    let set = allocate(d, p, &[l]).unwrap()[0];
    assert_eq!(
        allocate(d, p, &[l]),
        Err(vk::Result::ERROR_OUT_OF_POOL_MEMORY),
        "two inline bindings per pool"
    );
    let bytes: Vec<u8> = (1..=12).collect();
    let mut block = vk::WriteDescriptorSetInlineUniformBlock::default().data(&bytes);
    let write = vk::WriteDescriptorSet {
        descriptor_count: 12,
        ..vk::WriteDescriptorSet::default()
            .dst_set(set)
            .dst_binding(0)
            .dst_array_element(8)
            .descriptor_type(ty)
            .push_next(&mut block)
    };
    // SAFETY: a valid inline uniform block write to a live set: 8 bytes into binding 0, the
    // other 4 into binding 1 (consecutive binding updates count bytes).
    unsafe { d.update_descriptor_sets(&[write], &[]) };
    let st = kit_set(set);
    assert_eq!(
        st.inline_uniform(0).unwrap(),
        [0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8]
    );
    assert_eq!(st.inline_uniform(1).unwrap(), [9, 10, 11, 12, 0, 0, 0, 0]);
    // In place, as a dispatch reads it (`Bound::buffer` of an inline block).
    let (ptr, len) = st.inline_uniform_bytes(1).unwrap();
    // SAFETY: the set is alive and not updated while the bytes are read.
    let in_place = unsafe { std::slice::from_raw_parts(ptr, len) };
    assert_eq!(in_place, [9, 10, 11, 12, 0, 0, 0, 0]);
    assert!(st.inline_uniform_bytes(7).is_none(), "no binding 7");
    assert_eq!(
        st.descriptor(0, 0),
        None,
        "an inline block has bytes, not descriptors"
    );

    let plain = pool(d, vk::DescriptorPoolCreateFlags::empty(), 1, &[(ty, 64)]);
    assert_eq!(
        allocate(d, plain, &[l]),
        Err(vk::Result::ERROR_OUT_OF_POOL_MEMORY),
        "no inline bindings without the structure"
    );
    // SAFETY: objects of this test, unused from here on.
    unsafe {
        d.destroy_descriptor_pool(p, None);
        d.destroy_descriptor_pool(plain, None);
        d.destroy_descriptor_set_layout(l, None);
    }
}

/// An application's template record: a tag, then the descriptor (stride 32).
#[repr(C)]
#[derive(Clone, Copy)]
struct Record {
    tag: u32,
    info: vk::DescriptorBufferInfo,
}

fn entry(
    binding: u32,
    element: u32,
    count: u32,
    ty: vk::DescriptorType,
    offset: usize,
    stride: usize,
) -> vk::DescriptorUpdateTemplateEntry {
    vk::DescriptorUpdateTemplateEntry {
        dst_binding: binding,
        dst_array_element: element,
        descriptor_count: count,
        descriptor_type: ty,
        offset,
        stride,
    }
}

#[test]
fn templates_read_records_with_offset_and_stride() {
    let s = setup();
    let d = &s.device;
    let ty = vk::DescriptorType::STORAGE_BUFFER;
    let l = set_layout(
        d,
        &[
            binding(0, ty, 3),
            binding(1, vk::DescriptorType::INLINE_UNIFORM_BLOCK, 8),
        ],
    );
    let stride = std::mem::size_of::<Record>();
    let records_at = std::mem::offset_of!(Record, info);
    let entries = [
        entry(0, 1, 2, ty, records_at, stride),
        entry(0, 0, 0, ty, 0, 0),
        entry(
            1,
            4,
            4,
            vk::DescriptorType::INLINE_UNIFORM_BLOCK,
            3 * stride,
            0,
        ),
    ];
    let info = vk::DescriptorUpdateTemplateCreateInfo::default()
        .descriptor_update_entries(&entries)
        .template_type(vk::DescriptorUpdateTemplateType::DESCRIPTOR_SET)
        .descriptor_set_layout(l);
    // SAFETY: a live device and a valid create info.
    let t = unsafe { d.create_descriptor_update_template(&info, None) }.unwrap();
    // SAFETY: a live template of this device.
    let template = unsafe { DescriptorUpdateTemplate::from_handle(t) }
        .unwrap()
        .template
        .clone();
    assert_eq!(template.entries.len(), 2, "the zero-count entry is dropped");
    assert_eq!(
        (template.entries[0].offset, template.entries[0].stride),
        (records_at, stride)
    );

    let b = buffer(d, 512);
    let mut data = vec![0u8; 3 * stride + 4];
    for (i, r) in [
        Record {
            tag: 1,
            info: buffer_info(b, 0, 64),
        },
        Record {
            tag: 2,
            info: buffer_info(b, 256, vk::WHOLE_SIZE),
        },
    ]
    .iter()
    .enumerate()
    {
        // SAFETY: record `i` lies inside `data` (3 records of room); unaligned writes.
        unsafe {
            data.as_mut_ptr()
                .add(i * stride)
                .cast::<Record>()
                .write_unaligned(*r)
        };
    }
    data[3 * stride..].copy_from_slice(&[7, 8, 9, 10]);
    let sizes = [
        vk::DescriptorPoolSize {
            ty,
            descriptor_count: 3,
        },
        vk::DescriptorPoolSize {
            ty: vk::DescriptorType::INLINE_UNIFORM_BLOCK,
            descriptor_count: 8,
        },
    ];
    let mut inline = vk::DescriptorPoolInlineUniformBlockCreateInfo::default()
        .max_inline_uniform_block_bindings(1);
    let pinfo = vk::DescriptorPoolCreateInfo::default()
        .max_sets(1)
        .pool_sizes(&sizes)
        .push_next(&mut inline);
    // SAFETY: a live device and valid structures.
    let p = unsafe { d.create_descriptor_pool(&pinfo, None) }.unwrap();
    let set = allocate(d, p, &[l]).unwrap()[0];
    // SAFETY: `data` holds every record the template addresses.
    unsafe { d.update_descriptor_set_with_template(set, t, data.as_ptr().cast()) };
    let st = kit_set(set);
    assert_eq!(st.descriptor(0, 0), Some(Descriptor::Empty));
    assert_eq!(
        st.descriptor(0, 1),
        Some(Descriptor::Buffer {
            buffer: b,
            offset: 0,
            range: 64
        })
    );
    assert_eq!(
        st.descriptor(0, 2),
        Some(Descriptor::Buffer {
            buffer: b,
            offset: 256,
            range: 256
        })
    );
    assert_eq!(st.inline_uniform(1).unwrap(), [0, 0, 0, 0, 7, 8, 9, 10]);
    // SAFETY: objects of this test, unused from here on.
    unsafe {
        d.destroy_descriptor_update_template(t, None);
        assert_eq!(
            template.entries.len(),
            2,
            "the definition outlives the handle"
        );
        d.destroy_descriptor_pool(p, None);
        d.destroy_descriptor_set_layout(l, None);
        d.destroy_buffer(b, None);
    }
}

#[test]
fn push_descriptor_templates_keep_their_set_and_write_a_store() {
    let s = setup();
    let d = &s.device;
    let ty = vk::DescriptorType::UNIFORM_BUFFER;
    let plain = set_layout(d, &[binding(0, ty, 1)]);
    let bindings = [binding(0, ty, 2)];
    let info = vk::DescriptorSetLayoutCreateInfo::default()
        .flags(vk::DescriptorSetLayoutCreateFlags::PUSH_DESCRIPTOR_KHR)
        .bindings(&bindings);
    // SAFETY: a live device and a valid create info.
    let push = unsafe { d.create_descriptor_set_layout(&info, None) }.unwrap();
    let set_layouts = [plain, push];
    // SAFETY: a live device and a valid create info.
    let pl = unsafe {
        d.create_pipeline_layout(
            &vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts),
            None,
        )
    }
    .unwrap();
    let entries = [entry(
        0,
        0,
        2,
        ty,
        0,
        std::mem::size_of::<vk::DescriptorBufferInfo>(),
    )];
    let tinfo = vk::DescriptorUpdateTemplateCreateInfo::default()
        .descriptor_update_entries(&entries)
        .template_type(vk::DescriptorUpdateTemplateType::PUSH_DESCRIPTORS_KHR)
        .pipeline_bind_point(vk::PipelineBindPoint::COMPUTE)
        .pipeline_layout(pl)
        .set(1);
    // SAFETY: a live device and a valid create info.
    let t = unsafe { d.create_descriptor_update_template(&tinfo, None) }.unwrap();
    // SAFETY: a live template of this device.
    let template = unsafe { DescriptorUpdateTemplate::from_handle(t) }
        .unwrap()
        .template
        .clone();
    assert!(template.is_push());
    assert_eq!(
        (template.set, template.bind_point),
        (1, vk::PipelineBindPoint::COMPUTE)
    );
    let layout = template.set_layout.clone().unwrap();
    assert!(layout.is_push_descriptor());
    // SAFETY: a live pipeline layout of this device.
    let pipeline_layout = unsafe { PipelineLayout::from_handle(pl) }
        .unwrap()
        .layout
        .clone();
    assert_eq!(
        template.pipeline_layout.as_ref().unwrap().identity,
        pipeline_layout.identity
    );

    // What vkCmdPushDescriptorSetWithTemplate / vkCmdPushDescriptorSet apply.
    let b = buffer(d, 128);
    let data = [buffer_info(b, 0, 32), buffer_info(b, 64, vk::WHOLE_SIZE)];
    let store = DescriptorStore::new(layout, 0);
    // SAFETY: `data` holds the template's two records.
    unsafe { store.write_with_template(&template, data.as_ptr().cast()) };
    assert_eq!(
        store.descriptor(0, 1),
        Some(Descriptor::Buffer {
            buffer: b,
            offset: 64,
            range: 64
        })
    );
    let one = [buffer_info(b, 8, 8)];
    // SAFETY: a valid write (dstSet is ignored for a store).
    unsafe {
        store.write(
            &vk::WriteDescriptorSet::default()
                .dst_binding(0)
                .descriptor_type(ty)
                .buffer_info(&one),
        )
    };
    let snapshot = store.clone();
    store.clear();
    assert_eq!(
        snapshot.descriptor(0, 0),
        Some(Descriptor::Buffer {
            buffer: b,
            offset: 8,
            range: 8
        })
    );
    assert_eq!(store.descriptor(0, 0), Some(Descriptor::Empty));
    // SAFETY: objects of this test, unused from here on.
    unsafe {
        d.destroy_descriptor_update_template(t, None);
        d.destroy_pipeline_layout(pl, None);
        d.destroy_descriptor_set_layout(plain, None);
        d.destroy_descriptor_set_layout(push, None);
        d.destroy_buffer(b, None);
    }
}

fn pipeline_layout(
    d: &ash::Device,
    sets: &[vk::DescriptorSetLayout],
    ranges: &[vk::PushConstantRange],
) -> Arc<vkgen_driver::kit::descriptor::PipelineLayoutInfo> {
    let info = vk::PipelineLayoutCreateInfo::default()
        .set_layouts(sets)
        .push_constant_ranges(ranges);
    // SAFETY: a live device and a valid create info.
    let h = unsafe { d.create_pipeline_layout(&info, None) }.unwrap();
    // SAFETY: the layout just made.
    let layout = unsafe { PipelineLayout::from_handle(h) }
        .unwrap()
        .layout
        .clone();
    // SAFETY: the handle is not used again; the definition lives on in the Arc.
    unsafe { d.destroy_pipeline_layout(h, None) };
    layout
}

#[test]
fn pipeline_layouts_are_compatible_per_set_by_definition() {
    let s = setup();
    let d = &s.device;
    let ub = [binding(0, vk::DescriptorType::UNIFORM_BUFFER, 1)];
    let sb = [binding(0, vk::DescriptorType::STORAGE_BUFFER, 1)];
    let (l1, l1_again, l2, l3) = (
        set_layout(d, &ub),
        set_layout(d, &ub),
        set_layout(d, &sb),
        set_layout(d, &sb[..0]),
    );
    let pc = [vk::PushConstantRange {
        stage_flags: vk::ShaderStageFlags::COMPUTE,
        offset: 0,
        size: 16,
    }];
    let a = pipeline_layout(d, &[l1, l2], &pc);
    let b = pipeline_layout(d, &[l1_again, l2], &pc);
    assert_eq!(
        a.identity, b.identity,
        "identically defined layouts are compatible"
    );
    assert!(a.compatible_up_to(&b, 1) && a.push_constants_compatible(&b));
    let c = pipeline_layout(d, &[l1, l3], &pc);
    assert_ne!(a.identity, c.identity);
    assert!(a.compatible_up_to(&c, 0) && !a.compatible_up_to(&c, 1));
    let no_push = pipeline_layout(d, &[l1, l2], &[]);
    assert!(
        !a.compatible_up_to(&no_push, 0),
        "push constant ranges are part of every set's compatibility"
    );
    assert!(!a.push_constants_compatible(&no_push));
    let shorter = pipeline_layout(d, &[l1], &pc);
    assert!(a.compatible_up_to(&shorter, 0) && !a.compatible_up_to(&shorter, 1));
    assert_ne!(a.identity, shorter.identity);
    // INDEPENDENT_SETS: a null set layout is allowed and acts as an empty one.
    let info = vk::PipelineLayoutCreateInfo::default()
        .flags(vk::PipelineLayoutCreateFlags::INDEPENDENT_SETS_EXT);
    let nulls = [l1, vk::DescriptorSetLayout::null()];
    // SAFETY: a live device and a valid create info.
    let h = unsafe { d.create_pipeline_layout(&info.set_layouts(&nulls), None) }.unwrap();
    // SAFETY: the layout just made.
    let independent = unsafe { PipelineLayout::from_handle(h) }
        .unwrap()
        .layout
        .clone();
    assert!(independent.set_layout(1).is_none());
    assert!(
        !independent.compatible_up_to(&a, 0),
        "the independent-sets bit must match"
    );
    let empty = [l1, l3];
    // SAFETY: a live device and a valid create info (null-free set layouts).
    let h2 = unsafe { d.create_pipeline_layout(&info.set_layouts(&empty), None) }.unwrap();
    // SAFETY: the layout just made.
    let with_empty = unsafe { PipelineLayout::from_handle(h2) }
        .unwrap()
        .layout
        .clone();
    assert_eq!(independent.identity, with_empty.identity);
    // SAFETY: objects of this test, unused from here on.
    unsafe {
        d.destroy_pipeline_layout(h, None);
        d.destroy_pipeline_layout(h2, None);
        for l in [l1, l1_again, l2, l3] {
            d.destroy_descriptor_set_layout(l, None);
        }
    }
    assert_eq!(
        a.set_layout(0).unwrap().bindings.len(),
        1,
        "pipeline layouts keep their set layouts"
    );
}

#[test]
fn layout_support_answers_from_the_limits() {
    let s = setup();
    let d = &s.device;
    let mut m3 = vk::PhysicalDeviceMaintenance3Properties::default();
    let mut inline = vk::PhysicalDeviceInlineUniformBlockProperties::default();
    let mut props = vk::PhysicalDeviceProperties2::default()
        .push_next(&mut m3)
        .push_next(&mut inline);
    // SAFETY: the test's instance and its physical device; valid output structures.
    unsafe {
        let pd = s.instance.enumerate_physical_devices().unwrap()[0];
        s.instance.get_physical_device_properties2(pd, &mut props);
    }
    let limit = m3.max_per_set_descriptors;
    assert!(limit >= 1024);
    let query = |bindings: &[vk::DescriptorSetLayoutBinding<'_>], variable: bool| {
        let flags = [
            vk::DescriptorBindingFlags::empty(),
            vk::DescriptorBindingFlags::VARIABLE_DESCRIPTOR_COUNT,
        ];
        let mut flag_info = vk::DescriptorSetLayoutBindingFlagsCreateInfo::default()
            .binding_flags(&flags[2 - bindings.len()..]);
        let mut info = vk::DescriptorSetLayoutCreateInfo::default().bindings(bindings);
        if variable {
            info = info.push_next(&mut flag_info);
        }
        let mut count = vk::DescriptorSetVariableDescriptorCountLayoutSupport {
            max_variable_descriptor_count: 12345,
            ..Default::default()
        };
        let mut out = vk::DescriptorSetLayoutSupport::default().push_next(&mut count);
        // SAFETY: a live device and valid structures.
        unsafe { d.get_descriptor_set_layout_support(&info, &mut out) };
        (
            out.supported == vk::TRUE,
            count.max_variable_descriptor_count,
        )
    };
    let ty = vk::DescriptorType::STORAGE_BUFFER;
    assert_eq!(
        query(&[binding(0, ty, 4), binding(1, ty, 8)], true),
        (true, limit - 4)
    );
    assert_eq!(
        query(&[binding(0, ty, 4), binding(1, ty, limit)], false),
        (false, 0)
    );
    assert_eq!(
        query(&[binding(0, ty, 4), binding(1, ty, 8)], false),
        (true, 0),
        "no variable binding"
    );
    let ib = vk::DescriptorType::INLINE_UNIFORM_BLOCK;
    let max = inline.max_inline_uniform_block_size;
    assert_eq!(
        query(&[binding(0, ty, 1), binding(1, ib, 16)], true),
        (true, max)
    );
    assert_eq!(
        query(&[binding(0, ty, 1), binding(1, ib, max + 4)], false),
        (false, 0)
    );
    // A malformed layout (variable count not on the last binding) is unsupported, not a crash.
    let bad_flags = [
        vk::DescriptorBindingFlags::VARIABLE_DESCRIPTOR_COUNT,
        vk::DescriptorBindingFlags::empty(),
    ];
    let mut fi = vk::DescriptorSetLayoutBindingFlagsCreateInfo::default().binding_flags(&bad_flags);
    let bindings = [binding(0, ty, 1), binding(1, ty, 1)];
    let info = vk::DescriptorSetLayoutCreateInfo::default()
        .bindings(&bindings)
        .push_next(&mut fi);
    let mut out = vk::DescriptorSetLayoutSupport::default();
    // SAFETY: a live device and valid structures.
    unsafe { d.get_descriptor_set_layout_support(&info, &mut out) };
    assert_eq!(out.supported, vk::FALSE);
    // SAFETY: a live device and structures valid in form; creation refuses the layout with
    // the invalid-usage result.
    let refused = unsafe { d.create_descriptor_set_layout(&info, None) };
    assert_eq!(refused, Err(vk::Result::ERROR_VALIDATION_FAILED_EXT));
}

#[test]
fn stores_walk_mutable_bindings_and_copy_within_themselves() {
    let mutable = SetLayoutBinding {
        binding: 0,
        descriptor_type: vk::DescriptorType::MUTABLE_EXT,
        count: 4,
        mutable_types: vec![
            vk::DescriptorType::UNIFORM_BUFFER,
            vk::DescriptorType::SAMPLED_IMAGE,
        ],
        ..Default::default()
    };
    let layout = Arc::new(SetLayout::new(
        vk::DescriptorSetLayoutCreateFlags::empty(),
        vec![mutable],
    ));
    let store = DescriptorStore::new(layout.clone(), 0);
    assert_eq!(
        store.descriptor_type(0, 0),
        Some(vk::DescriptorType::MUTABLE_EXT)
    );
    let b: vk::Buffer = vk::Handle::from_raw(0x1000);
    let infos = [buffer_info(b, 0, 16)];
    // SAFETY: a valid write of one buffer (a non-kit handle: the range is given).
    unsafe {
        store.write(
            &vk::WriteDescriptorSet::default()
                .dst_binding(0)
                .descriptor_type(vk::DescriptorType::UNIFORM_BUFFER)
                .buffer_info(&infos),
        )
    };
    assert_eq!(
        store.descriptor_type(0, 0),
        Some(vk::DescriptorType::UNIFORM_BUFFER)
    );
    let texel = [vk::BufferView::null()];
    // SAFETY: a valid write, of a type the mutable list lacks: refused and logged.
    unsafe {
        store.write(
            &vk::WriteDescriptorSet::default()
                .dst_binding(0)
                .dst_array_element(1)
                .descriptor_type(vk::DescriptorType::UNIFORM_TEXEL_BUFFER)
                .texel_buffer_view(&texel),
        )
    };
    assert_eq!(
        store.descriptor_type(0, 1),
        Some(vk::DescriptorType::MUTABLE_EXT)
    );
    let copy = vk::CopyDescriptorSet::default()
        .src_binding(0)
        .dst_binding(0)
        .dst_array_element(3)
        .descriptor_count(1);
    store.copy_from(&store, &copy);
    assert_eq!(
        store.descriptor(0, 3),
        Some(Descriptor::Buffer {
            buffer: b,
            offset: 0,
            range: 16
        })
    );
    assert_eq!(
        store.descriptor_type(0, 3),
        Some(vk::DescriptorType::UNIFORM_BUFFER)
    );
    assert_eq!(layout.dynamic_descriptor_count(), 0);
    let dynamic = SetLayout::new(
        vk::DescriptorSetLayoutCreateFlags::empty(),
        vec![
            SetLayoutBinding {
                binding: 5,
                descriptor_type: vk::DescriptorType::STORAGE_BUFFER_DYNAMIC,
                count: 2,
                ..Default::default()
            },
            SetLayoutBinding {
                binding: 1,
                descriptor_type: vk::DescriptorType::UNIFORM_BUFFER_DYNAMIC,
                count: 3,
                ..Default::default()
            },
        ],
    );
    assert_eq!(dynamic.dynamic_descriptor_count(), 5);
    assert_eq!(
        dynamic.dynamic_offset_index(5, 1),
        Some(4),
        "binding order, then element"
    );
}

#[test]
fn update_after_bind_layouts_need_an_update_after_bind_pool() {
    let s = setup();
    let d = &s.device;
    let bindings = [binding(0, vk::DescriptorType::STORAGE_BUFFER, 1)];
    let flags = [vk::DescriptorBindingFlags::UPDATE_AFTER_BIND];
    let mut flag_info =
        vk::DescriptorSetLayoutBindingFlagsCreateInfo::default().binding_flags(&flags);
    let info = vk::DescriptorSetLayoutCreateInfo::default()
        .flags(vk::DescriptorSetLayoutCreateFlags::UPDATE_AFTER_BIND_POOL)
        .bindings(&bindings)
        .push_next(&mut flag_info);
    // SAFETY: a live device and a valid create info.
    let l = unsafe { d.create_descriptor_set_layout(&info, None) }.unwrap();
    // SAFETY: the layout just made.
    let layout = unsafe { DescriptorSetLayout::from_handle(l) }
        .unwrap()
        .layout
        .clone();
    assert_eq!(
        layout.bindings[0].flags,
        vk::DescriptorBindingFlags::UPDATE_AFTER_BIND
    );
    let sizes = [(vk::DescriptorType::STORAGE_BUFFER, 1)];
    let plain = pool(d, vk::DescriptorPoolCreateFlags::empty(), 1, &sizes);
    assert_eq!(
        allocate(d, plain, &[l]),
        Err(vk::Result::ERROR_VALIDATION_FAILED_EXT)
    );
    let uab = pool(
        d,
        vk::DescriptorPoolCreateFlags::UPDATE_AFTER_BIND,
        1,
        &sizes,
    );
    allocate(d, uab, &[l]).unwrap();
    // SAFETY: objects of this test, unused from here on.
    unsafe {
        d.destroy_descriptor_pool(plain, None);
        d.destroy_descriptor_pool(uab, None);
        d.destroy_descriptor_set_layout(l, None);
    }
}
