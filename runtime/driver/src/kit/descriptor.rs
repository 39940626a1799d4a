// STAND-IN for desc's module (contract)
//! Set layouts, pipeline layouts, descriptor stores and update templates — a stand-in with the
//! contract's shape so `kit::pipeline` and `kit::state` build and test before the desc
//! helper's module lands (it replaces this file). No entry points: tests make the objects.

#![allow(clippy::missing_safety_doc)]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use vkgen_generated::vk;

use crate::handles::{Object, ObjectKind};
use crate::util::{lock, slice};

#[derive(Clone, Debug)]
pub struct SetLayoutBinding {
    pub binding: u32,
    pub descriptor_type: vk::DescriptorType,
    pub count: u32,
    pub stages: vk::ShaderStageFlags,
    pub flags: vk::DescriptorBindingFlags,
    pub immutable_samplers: Vec<vk::Sampler>,
}

#[derive(Clone, Debug)]
pub struct SetLayout {
    pub flags: vk::DescriptorSetLayoutCreateFlags,
    pub bindings: Vec<SetLayoutBinding>,
}

pub struct DescriptorSetLayout {
    pub layout: Arc<SetLayout>,
}

pub struct PipelineLayoutInfo {
    pub flags: vk::PipelineLayoutCreateFlags,
    pub set_layouts: Vec<Option<Arc<SetLayout>>>,
    pub push_constant_ranges: Vec<vk::PushConstantRange>,
    pub identity: [u8; 32],
}

pub struct PipelineLayout {
    pub layout: Arc<PipelineLayoutInfo>,
}

macro_rules! object {
    ($t:ty, $h:ty, $o:ident) => {
        impl ObjectKind for $t {
            const OBJECT_TYPE: vk::ObjectType = vk::ObjectType::$o;
        }
        impl $t {
            pub unsafe fn from_handle<'a>(h: $h) -> Option<&'a Self> {
                // SAFETY: the caller's null or live handle; the signature is checked.
                unsafe { Object::<Self>::from_handle(h) }.map(|o| &**o)
            }
        }
    };
}
object!(
    DescriptorSetLayout,
    vk::DescriptorSetLayout,
    DESCRIPTOR_SET_LAYOUT
);
object!(PipelineLayout, vk::PipelineLayout, PIPELINE_LAYOUT);
object!(DescriptorSet, vk::DescriptorSet, DESCRIPTOR_SET);
object!(
    DescriptorUpdateTemplate,
    vk::DescriptorUpdateTemplate,
    DESCRIPTOR_UPDATE_TEMPLATE
);

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Descriptor {
    Empty,
    Sampler(vk::Sampler),
    Image {
        view: vk::ImageView,
        layout: vk::ImageLayout,
        sampler: vk::Sampler,
    },
    Buffer {
        buffer: vk::Buffer,
        offset: u64,
        range: u64,
    },
    TexelBuffer(vk::BufferView),
    AccelerationStructure(u64),
}

pub struct DescriptorStore {
    layout: Arc<SetLayout>,
    content: Mutex<BTreeMap<(u32, u32), Descriptor>>,
}

fn buffer_descriptor(b: &vk::DescriptorBufferInfo) -> Descriptor {
    let range = match b.range {
        vk::WHOLE_SIZE => {
            // SAFETY: a live buffer of this driver (valid usage) or one `from_handle` refuses.
            let size = unsafe { super::resources::Buffer::from_handle(b.buffer) }
                .map_or(0, |x| x.desc.size);
            size.saturating_sub(b.offset)
        }
        r => r,
    };
    Descriptor::Buffer {
        buffer: b.buffer,
        offset: b.offset,
        range,
    }
}

impl DescriptorStore {
    pub fn new(layout: Arc<SetLayout>, variable_count: u32) -> Self {
        let _ = variable_count;
        Self {
            layout,
            content: Mutex::new(BTreeMap::new()),
        }
    }

    pub fn layout(&self) -> &Arc<SetLayout> {
        &self.layout
    }

    fn put(&self, binding: u32, element: u32, d: Descriptor) {
        lock(&self.content).insert((binding, element), d);
    }

    pub unsafe fn write(&self, write: &vk::WriteDescriptorSet<'_>) {
        let (b, e, n) = (
            write.dst_binding,
            write.dst_array_element,
            write.descriptor_count,
        );
        type T = vk::DescriptorType;
        for i in 0..n {
            let d = match write.descriptor_type {
                T::UNIFORM_BUFFER
                | T::STORAGE_BUFFER
                | T::UNIFORM_BUFFER_DYNAMIC
                | T::STORAGE_BUFFER_DYNAMIC => {
                    // SAFETY: `descriptorCount` buffer infos for these types.
                    buffer_descriptor(unsafe { &slice(write.p_buffer_info, n)[i as usize] })
                }
                T::UNIFORM_TEXEL_BUFFER | T::STORAGE_TEXEL_BUFFER => {
                    // SAFETY: `descriptorCount` views for these types.
                    Descriptor::TexelBuffer(
                        unsafe { slice(write.p_texel_buffer_view, n) }[i as usize],
                    )
                }
                T::SAMPLER => {
                    // SAFETY: `descriptorCount` image infos.
                    Descriptor::Sampler(unsafe { slice(write.p_image_info, n) }[i as usize].sampler)
                }
                _ => {
                    // SAFETY: `descriptorCount` image infos for the image types.
                    let im = unsafe { slice(write.p_image_info, n) }[i as usize];
                    Descriptor::Image {
                        view: im.image_view,
                        layout: im.image_layout,
                        sampler: im.sampler,
                    }
                }
            };
            self.put(b, e + i, d);
        }
    }

    pub unsafe fn write_with_template(
        &self,
        template: &UpdateTemplate,
        data: *const std::ffi::c_void,
    ) {
        for entry in &template.entries {
            for i in 0..entry.descriptor_count {
                // SAFETY: the template's layout of `data` (the application's promise).
                let p = unsafe {
                    data.cast::<u8>()
                        .add(entry.offset + i as usize * entry.stride)
                };
                let w = vk::WriteDescriptorSet {
                    dst_binding: entry.dst_binding,
                    dst_array_element: entry.dst_array_element + i,
                    descriptor_count: 1,
                    descriptor_type: entry.descriptor_type,
                    p_image_info: p.cast(),
                    p_buffer_info: p.cast(),
                    p_texel_buffer_view: p.cast(),
                    ..Default::default()
                };
                // SAFETY: `p` points at one element of the entry's type.
                unsafe { self.write(&w) };
            }
        }
    }

    pub fn descriptor(&self, binding: u32, element: u32) -> Option<Descriptor> {
        let has = self
            .layout
            .bindings
            .iter()
            .any(|b| b.binding == binding && element < b.count);
        has.then(|| {
            lock(&self.content)
                .get(&(binding, element))
                .copied()
                .unwrap_or(Descriptor::Empty)
        })
    }

    pub fn inline_uniform(&self, binding: u32) -> Option<Vec<u8>> {
        let _ = binding;
        None
    }
}

pub struct DescriptorSet {
    pub store: DescriptorStore,
}

pub struct UpdateTemplate {
    pub entries: Vec<vk::DescriptorUpdateTemplateEntry>,
    /// The bind point of a push-descriptor template (`kit::state` needs it).
    pub pipeline_bind_point: vk::PipelineBindPoint,
}

impl UpdateTemplate {
    /// Bytes of application data one update reads (the recorder copies push-template data
    /// this long).
    pub fn data_size(&self) -> usize {
        type T = vk::DescriptorType;
        self.entries
            .iter()
            .filter(|e| e.descriptor_count > 0)
            .map(|e| {
                let (n, stride, elem) = match e.descriptor_type {
                    // The count of an inline uniform block is its byte size; the stride unused.
                    T::INLINE_UNIFORM_BLOCK => (1, 0, e.descriptor_count as usize),
                    T::UNIFORM_TEXEL_BUFFER | T::STORAGE_TEXEL_BUFFER => {
                        (e.descriptor_count as usize, e.stride, 8)
                    }
                    T::ACCELERATION_STRUCTURE_KHR => (e.descriptor_count as usize, e.stride, 8),
                    _ => (e.descriptor_count as usize, e.stride, 24),
                };
                e.offset + (n - 1) * stride + elem
            })
            .max()
            .unwrap_or(0)
    }
}

pub struct DescriptorUpdateTemplate {
    pub template: Arc<UpdateTemplate>,
}
