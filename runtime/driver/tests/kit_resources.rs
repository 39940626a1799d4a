//! The kit's resource objects (issue 20): memory, buffers, images, views, samplers, query
//! pools and private data of a driver that turns `RESOURCE_OBJECTS` on and writes no resource
//! command itself, driven through the real entry points with ash.

use std::ffi::CStr;
use std::time::Duration;

mod support;

use ash::vk;
use ash::vk::Handle as _;
use vkgen_driver::export::DriverModule;
use vkgen_driver::generated::driver::Driver;
use vkgen_driver::kit::resources::{Buffer, Image, QueryPool};
use vkgen_driver::kit::{self, Kit, PhysicalDeviceDesc};

/// Heap 0: device-local, not host-visible, 1 MiB; heap 1: host-visible and coherent, 64 MiB.
const LOCAL_HEAP: u64 = 1 << 20;

struct Fixture;

impl DriverModule for Fixture {
    const NAME: &'static CStr = c"resources fixture";
}

impl Kit for Fixture {
    type Instance = ();
    type PhysicalDevice = ();
    type Device = ();
    type Queue = ();
    type CommandBuffer = ();
    type CommandPool = ();
    const RESOURCE_OBJECTS: bool = true;

    fn physical_devices(
        _instance: &kit::Instance<Self>,
    ) -> Result<Vec<PhysicalDeviceDesc<Self>>, vk::Result> {
        let mut d = PhysicalDeviceDesc::new(c"resources fixture", ());
        let mut m = vk::PhysicalDeviceMemoryProperties {
            memory_type_count: 2,
            memory_heap_count: 2,
            ..Default::default()
        };
        m.memory_heaps[0] = vk::MemoryHeap {
            size: LOCAL_HEAP,
            flags: vk::MemoryHeapFlags::DEVICE_LOCAL,
        };
        m.memory_heaps[1] = vk::MemoryHeap {
            size: 64 << 20,
            flags: vk::MemoryHeapFlags::empty(),
        };
        m.memory_types[0] = vk::MemoryType {
            property_flags: vk::MemoryPropertyFlags::DEVICE_LOCAL,
            heap_index: 0,
        };
        m.memory_types[1] = vk::MemoryType {
            property_flags: vk::MemoryPropertyFlags::HOST_VISIBLE
                | vk::MemoryPropertyFlags::HOST_COHERENT,
            heap_index: 1,
        };
        d.memory = m;
        Ok(vec![d])
    }
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

fn allocate(d: &ash::Device, size: u64, type_index: u32) -> Result<vk::DeviceMemory, vk::Result> {
    let info = vk::MemoryAllocateInfo::default()
        .allocation_size(size)
        .memory_type_index(type_index);
    // SAFETY: a live device and a valid allocate info.
    unsafe { d.allocate_memory(&info, None) }
}

#[test]
fn host_visible_memory_maps_and_keeps_its_bytes() {
    let s = setup();
    let d = &s.device;
    let m = allocate(d, 4096, 1).unwrap();
    // SAFETY: host-visible memory of this device, mapped once at a time below.
    unsafe {
        let p = d
            .map_memory(m, 16, 64, vk::MemoryMapFlags::empty())
            .unwrap();
        p.cast::<u8>().write_bytes(0xAB, 64);
        assert_eq!(
            d.map_memory(m, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty()),
            Err(vk::Result::ERROR_MEMORY_MAP_FAILED),
            "mapped twice"
        );
        d.unmap_memory(m);
        let whole = d
            .map_memory(m, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
            .unwrap();
        let bytes = std::slice::from_raw_parts(whole.cast::<u8>(), 4096);
        assert!(
            bytes[..16].iter().all(|&b| b == 0),
            "fresh memory is zeroed"
        );
        assert!(bytes[16..80].iter().all(|&b| b == 0xAB));
        d.unmap_memory(m);
        d.free_memory(m, None);
    }
    let local = allocate(d, 4096, 0).unwrap();
    // SAFETY: device-local memory of this device.
    unsafe {
        assert_eq!(
            d.map_memory(local, 0, 16, vk::MemoryMapFlags::empty()),
            Err(vk::Result::ERROR_MEMORY_MAP_FAILED),
            "not host-visible"
        );
        d.free_memory(local, None);
    }
}

#[test]
fn a_heap_holds_what_its_size_says_and_free_gives_it_back() {
    let s = setup();
    let d = &s.device;
    let a = allocate(d, LOCAL_HEAP / 2, 0).unwrap();
    let b = allocate(d, LOCAL_HEAP / 2, 0).unwrap();
    assert_eq!(
        allocate(d, 1, 0),
        Err(vk::Result::ERROR_OUT_OF_DEVICE_MEMORY)
    );
    assert_eq!(
        allocate(d, 16, 7),
        Err(vk::Result::ERROR_OUT_OF_DEVICE_MEMORY)
    );
    // SAFETY: allocations of this test, unused.
    unsafe { d.free_memory(a, None) };
    let c = allocate(d, LOCAL_HEAP / 2, 0).unwrap();
    // SAFETY: the two allocations left, freed once and no longer used.
    unsafe {
        d.free_memory(b, None);
        d.free_memory(c, None);
    }
}

#[test]
fn buffers_bind_and_expose_their_bytes() {
    let s = setup();
    let d = &s.device;
    let info = vk::BufferCreateInfo::default()
        .size(1000)
        .usage(vk::BufferUsageFlags::TRANSFER_DST | vk::BufferUsageFlags::STORAGE_BUFFER);
    // SAFETY: a live device and valid structures; every object is destroyed below.
    unsafe {
        let buf = d.create_buffer(&info, None).unwrap();
        let req = d.get_buffer_memory_requirements(buf);
        assert_eq!(
            (req.size, req.alignment, req.memory_type_bits),
            (1024, 256, 0b11)
        );
        let mut dedicated = vk::MemoryDedicatedRequirements {
            prefers_dedicated_allocation: vk::TRUE,
            requires_dedicated_allocation: vk::TRUE,
            ..Default::default()
        };
        let mut req2 = vk::MemoryRequirements2::default().push_next(&mut dedicated);
        d.get_buffer_memory_requirements2(
            &vk::BufferMemoryRequirementsInfo2::default().buffer(buf),
            &mut req2,
        );
        assert_eq!(req2.memory_requirements.size, 1024);
        let mut without = vk::MemoryRequirements2::default();
        d.get_device_buffer_memory_requirements(
            &vk::DeviceBufferMemoryRequirements::default().create_info(&info),
            &mut without,
        );
        let w = without.memory_requirements;
        assert_eq!(
            (w.size, w.alignment, w.memory_type_bits),
            (req.size, req.alignment, req.memory_type_bits)
        );
        assert_eq!(dedicated.prefers_dedicated_allocation, vk::FALSE);
        assert_eq!(dedicated.requires_dedicated_allocation, vk::FALSE);

        let m = allocate(d, 4096, 1).unwrap();
        assert_eq!(
            d.bind_buffer_memory(buf, m, 100),
            Err(vk::Result::ERROR_OUT_OF_DEVICE_MEMORY),
            "misaligned"
        );
        assert_eq!(
            d.bind_buffer_memory(buf, m, 3584),
            Err(vk::Result::ERROR_OUT_OF_DEVICE_MEMORY),
            "past the end"
        );
        d.bind_buffer_memory(buf, m, 512).unwrap();
        assert_eq!(
            d.bind_buffer_memory(buf, m, 0),
            Err(vk::Result::ERROR_OUT_OF_DEVICE_MEMORY),
            "bound twice"
        );
        let mapped = d
            .map_memory(m, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
            .unwrap();
        let kit_buffer = Buffer::from_handle(buf).unwrap();
        let host = kit_buffer.host_ptr().unwrap();
        assert_eq!(
            host,
            mapped.cast::<u8>().add(512),
            "an engine writes where the app maps"
        );
        host.write_bytes(7, 1000);
        assert_eq!(*mapped.cast::<u8>().add(512 + 999), 7);
        let address =
            d.get_buffer_device_address(&vk::BufferDeviceAddressInfo::default().buffer(buf));
        assert_eq!(address, host as u64);

        // `vkBindBufferMemory2` reports each binding through VkBindMemoryStatus.
        let other = d.create_buffer(&info, None).unwrap();
        let mut status = vk::Result::ERROR_UNKNOWN;
        // ash 0.38 predates VkBindMemoryStatus: the generated crate's structure, chained by hand.
        let st = vkgen_driver::generated::vk::BindMemoryStatus {
            p_result: &mut status,
            ..Default::default()
        };
        let mut one = vk::BindBufferMemoryInfo::default()
            .buffer(other)
            .memory(m)
            .memory_offset(2048);
        one.p_next = std::ptr::from_ref(&st).cast();
        let bind = [one];
        d.bind_buffer_memory2(&bind).unwrap();
        assert_eq!(status, vk::Result::SUCCESS);
        d.unmap_memory(m);
        d.destroy_buffer(buf, None);
        d.destroy_buffer(other, None);
        d.free_memory(m, None);
    }
}

#[test]
fn images_use_the_packed_linear_layout() {
    let s = setup();
    let d = &s.device;
    let info = vk::ImageCreateInfo::default()
        .image_type(vk::ImageType::TYPE_2D)
        .format(vk::Format::R8G8B8A8_UNORM)
        .extent(vk::Extent3D {
            width: 10,
            height: 6,
            depth: 1,
        })
        .mip_levels(3)
        .array_layers(2)
        .samples(vk::SampleCountFlags::TYPE_1)
        .tiling(vk::ImageTiling::LINEAR)
        .usage(vk::ImageUsageFlags::TRANSFER_DST);
    // SAFETY: a live device and valid structures; every object is destroyed below.
    unsafe {
        let image = d.create_image(&info, None).unwrap();
        let level = |mip, layer| {
            d.get_image_subresource_layout(
                image,
                vk::ImageSubresource {
                    aspect_mask: vk::ImageAspectFlags::COLOR,
                    mip_level: mip,
                    array_layer: layer,
                },
            )
        };
        let l0 = level(0, 0);
        assert_eq!((l0.offset, l0.row_pitch, l0.size), (0, 40, 240));
        // Mip 1 is 5x3 at the next 256-byte boundary; mip 2 2x1 after it.
        let l1 = level(1, 0);
        assert_eq!((l1.offset, l1.row_pitch, l1.size), (256, 20, 60));
        let l2 = level(2, 0);
        assert_eq!((l2.offset, l2.row_pitch, l2.size), (512, 8, 8));
        assert_eq!(l0.array_pitch, 768);
        assert_eq!(level(1, 1).offset, 768 + 256);
        let req = d.get_image_memory_requirements(image);
        assert_eq!(req.size, 2 * 768);
        let m = allocate(d, req.size, 1).unwrap();
        d.bind_image_memory(image, m, 0).unwrap();
        assert!(Image::from_handle(image).unwrap().host_ptr().is_some());

        // A block-compressed format: 8 bytes per 4x4 block.
        let bc1 = info
            .format(vk::Format::BC1_RGBA_UNORM_BLOCK)
            .mip_levels(1)
            .array_layers(1)
            .extent(vk::Extent3D {
                width: 16,
                height: 8,
                depth: 1,
            });
        let mut req2 = vk::MemoryRequirements2::default();
        d.get_device_image_memory_requirements(
            &vk::DeviceImageMemoryRequirements::default().create_info(&bc1),
            &mut req2,
        );
        assert_eq!(
            req2.memory_requirements.size, 256,
            "4x2 blocks of 8 bytes, aligned"
        );

        let view = d
            .create_image_view(
                &vk::ImageViewCreateInfo::default()
                    .image(image)
                    .view_type(vk::ImageViewType::TYPE_2D)
                    .format(vk::Format::R8G8B8A8_UNORM)
                    .subresource_range(vk::ImageSubresourceRange {
                        aspect_mask: vk::ImageAspectFlags::COLOR,
                        base_mip_level: 0,
                        level_count: 1,
                        base_array_layer: 0,
                        layer_count: 1,
                    }),
                None,
            )
            .unwrap();
        let sampler = d
            .create_sampler(
                &vk::SamplerCreateInfo::default().mag_filter(vk::Filter::LINEAR),
                None,
            )
            .unwrap();
        let kit_sampler = kit::resources::Sampler::from_handle(sampler).unwrap();
        assert_eq!(kit_sampler.info.mag_filter, vk::Filter::LINEAR);
        d.destroy_sampler(sampler, None);
        d.destroy_image_view(view, None);
        d.destroy_image(image, None);
        d.free_memory(m, None);
    }
}

#[test]
fn query_results_follow_the_flags() {
    let s = setup();
    let d = &s.device;
    // SAFETY: a live device and valid structures; the pool is destroyed below.
    unsafe {
        let pool = d
            .create_query_pool(
                &vk::QueryPoolCreateInfo::default()
                    .query_type(vk::QueryType::OCCLUSION)
                    .query_count(4),
                None,
            )
            .unwrap();
        let kit_pool = QueryPool::from_handle(pool).unwrap();
        let mut out = [0u64; 2];
        assert_eq!(
            d.get_query_pool_results(pool, 0, &mut out, vk::QueryResultFlags::TYPE_64),
            Err(vk::Result::NOT_READY)
        );
        kit_pool.write(0, &[41]);
        kit_pool.write(1, &[42]);
        d.get_query_pool_results(pool, 0, &mut out, vk::QueryResultFlags::TYPE_64)
            .unwrap();
        assert_eq!(out, [41, 42]);

        // WAIT blocks until the engine writes (from another thread here).
        let raw = pool.as_raw();
        let engine = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            let p = QueryPool::from_handle(vk::QueryPool::from_raw(raw)).unwrap();
            p.write(2, &[7]);
        });
        let mut waited = [0u32; 1];
        d.get_query_pool_results(pool, 2, &mut waited, vk::QueryResultFlags::WAIT)
            .unwrap();
        assert_eq!(waited, [7]);
        engine.join().unwrap();

        // WITH_AVAILABILITY: value then availability, 32-bit; query 3 is not available.
        let mut pairs = [[9u32; 2]; 2];
        assert_eq!(
            d.get_query_pool_results(pool, 2, &mut pairs, vk::QueryResultFlags::WITH_AVAILABILITY),
            Err(vk::Result::NOT_READY)
        );
        assert_eq!(pairs[0], [7, 1]);
        assert_eq!(pairs[1], [9, 0], "no value without PARTIAL, availability 0");

        d.reset_query_pool(pool, 0, 4);
        assert_eq!(
            d.get_query_pool_results(pool, 0, &mut out, vk::QueryResultFlags::TYPE_64),
            Err(vk::Result::NOT_READY)
        );
        d.destroy_query_pool(pool, None);
    }
}

#[test]
fn private_data_is_per_slot_and_object() {
    let s = setup();
    let d = &s.device;
    // SAFETY: a live device; the slots are destroyed below.
    unsafe {
        let a = d
            .create_private_data_slot(&vk::PrivateDataSlotCreateInfo::default(), None)
            .unwrap();
        let b = d
            .create_private_data_slot(&vk::PrivateDataSlotCreateInfo::default(), None)
            .unwrap();
        let object = vk::Buffer::from_raw(0x1234);
        d.set_private_data(object, a, 5).unwrap();
        d.set_private_data(object, b, 6).unwrap();
        assert_eq!(d.get_private_data(object, a), 5);
        assert_eq!(d.get_private_data(object, b), 6);
        assert_eq!(d.get_private_data(vk::Buffer::from_raw(0x99), a), 0);
        d.destroy_private_data_slot(a, None);
        d.destroy_private_data_slot(b, None);
    }
}

#[test]
fn memory_budget_reports_the_kits_allocations() {
    let s = setup();
    let d = &s.device;
    // SAFETY: a live instance of this driver.
    let pd = unsafe { s.instance.enumerate_physical_devices() }.unwrap()[0];
    let budget_now = || {
        let mut budget = vk::PhysicalDeviceMemoryBudgetPropertiesEXT::default();
        let mut props = vk::PhysicalDeviceMemoryProperties2::default().push_next(&mut budget);
        // SAFETY: a physical device of the instance and a valid output chain.
        unsafe {
            s.instance
                .get_physical_device_memory_properties2(pd, &mut props)
        };
        (budget.heap_budget, budget.heap_usage)
    };
    let m = allocate(d, 4096, 0).unwrap();
    let (budget, usage) = budget_now();
    assert_eq!((budget[0], budget[1], budget[2]), (LOCAL_HEAP, 64 << 20, 0));
    assert_eq!((usage[0], usage[1]), (4096, 0));
    // SAFETY: an allocation of this test, unused.
    unsafe { d.free_memory(m, None) };
    assert_eq!(budget_now().1[0], 0);
}
