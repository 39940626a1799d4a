//! Writing a [`DescriptorStore`]: `VkWriteDescriptorSet`s (also the push-descriptor ones),
//! update-template data and `VkCopyDescriptorSet`s.
//!
//! One walker serves the three: `count` elements from `(binding, element)` on, crossing into
//! the following bindings as the spec's "consecutive binding updates" rule says (the remainder
//! continues at element 0 of the next binding; bindings of size 0, and binding numbers the
//! layout lacks, are skipped). For an inline uniform block the elements are bytes. Each source
//! (write arrays, template data, another store) only says what element `i` is; the conversion
//! to a [`Descriptor`] applies the spec's per-type rules once: the members a type ignores are
//! dropped, immutable samplers win over written ones, `VK_WHOLE_SIZE` is resolved.
//!
//! Writes that break valid usage (an unknown binding, a type the binding cannot hold, a run
//! past the set's end, a missing array) are logged and stop at the first bad element: no
//! VkResult carries them (the update commands return nothing), and no panic may.

use vkgen_generated::vk;

use super::layout::SetLayout;
use super::store::{is_inline, Descriptor, DescriptorStore};
use super::template::UpdateTemplate;
use crate::util::{find_in_chain, slice};

/// An element of a write before the type rules apply.
#[derive(Clone, Copy)]
pub(super) enum Raw {
    Image(vk::DescriptorImageInfo),
    Buffer(vk::DescriptorBufferInfo),
    Texel(vk::BufferView),
    Acceleration(u64),
}

/// Which member of a write (or which template record) a type reads.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Source {
    Image,
    Buffer,
    Texel,
    Acceleration,
    Bytes,
}

pub(super) fn source_of(ty: vk::DescriptorType) -> Option<Source> {
    use vk::DescriptorType as T;
    Some(match ty {
        T::SAMPLER
        | T::COMBINED_IMAGE_SAMPLER
        | T::SAMPLED_IMAGE
        | T::STORAGE_IMAGE
        | T::INPUT_ATTACHMENT
        | T::SAMPLE_WEIGHT_IMAGE_QCOM
        | T::BLOCK_MATCH_IMAGE_QCOM => Source::Image,
        T::UNIFORM_BUFFER
        | T::STORAGE_BUFFER
        | T::UNIFORM_BUFFER_DYNAMIC
        | T::STORAGE_BUFFER_DYNAMIC => Source::Buffer,
        T::UNIFORM_TEXEL_BUFFER | T::STORAGE_TEXEL_BUFFER => Source::Texel,
        T::ACCELERATION_STRUCTURE_KHR | T::ACCELERATION_STRUCTURE_NV => Source::Acceleration,
        T::INLINE_UNIFORM_BLOCK => Source::Bytes,
        _ => return None,
    })
}

/// A run of a walk: binding index, first element, elements.
type Run = (usize, u32, u32);

/// Whether binding `index` of `layout` can hold a descriptor of type `ty`.
fn holds(layout: &SetLayout, index: usize, ty: vk::DescriptorType) -> bool {
    let b = &layout.bindings[index];
    b.descriptor_type == ty
        || (b.descriptor_type == vk::DescriptorType::MUTABLE_EXT
            && !is_inline(ty)
            && (b.mutable_types.is_empty() || b.mutable_types.contains(&ty)))
}

impl DescriptorStore {
    /// The runs of `count` consecutive elements of type `ty` from `(binding, element)` on.
    fn walk(
        &self,
        binding: u32,
        element: u32,
        count: u32,
        ty: vk::DescriptorType,
    ) -> Result<Vec<Run>, String> {
        let layout = self.layout();
        let Some(mut index) = layout.binding_index(binding) else {
            return Err(format!("binding {binding} is not in the set's layout"));
        };
        let (mut element, mut left, mut runs) = (element, count, Vec::new());
        while left > 0 {
            let Some(&(_, n)) = self.runs.get(index) else {
                return Err(format!(
                    "{count} elements from binding {binding} run past the set's last binding"
                ));
            };
            if element < n {
                if !holds(layout, index, ty) {
                    return Err(format!(
                        "binding {} ({:?}) cannot hold {ty:?}",
                        layout.bindings[index].binding, layout.bindings[index].descriptor_type
                    ));
                }
                let take = (n - element).min(left);
                runs.push((index, element, take));
                left -= take;
                element = 0;
            } else {
                element -= n;
            }
            index += 1;
        }
        Ok(runs)
    }

    /// Writes `count` elements of type `ty` from `(binding, element)` on, the `i`th from
    /// `source(i)`; stops (with the error) at the first element the source lacks.
    pub(super) fn write_run(
        &self,
        (binding, element, count): (u32, u32, u32),
        ty: vk::DescriptorType,
        mut source: impl FnMut(u32) -> Option<Raw>,
    ) -> Result<(), String> {
        let runs = self.walk(binding, element, count, ty)?;
        let layout = self.layout().clone();
        let mut content = self.write_lock();
        let mut i = 0;
        for (index, first, n) in runs {
            let b = &layout.bindings[index];
            for e in first..first + n {
                let raw =
                    source(i).ok_or_else(|| format!("no element {i} in the write's array"))?;
                i += 1;
                let slot = &mut content.slots[self.runs[index].0 + e as usize];
                if let Some(d) = convert(&layout, b.immutable_samplers.get(e as usize), ty, raw) {
                    *slot = (ty, d);
                }
            }
        }
        Ok(())
    }

    /// Writes `data` into inline uniform block bytes from `(binding, offset)` on.
    pub(super) fn write_bytes(&self, binding: u32, offset: u32, data: &[u8]) -> Result<(), String> {
        let count =
            u32::try_from(data.len()).map_err(|_| "inline uniform data over 4 GiB".to_string())?;
        let runs = self.walk(
            binding,
            offset,
            count,
            vk::DescriptorType::INLINE_UNIFORM_BLOCK,
        )?;
        let mut content = self.write_lock();
        let mut at = 0usize;
        for (index, first, n) in runs {
            let start = self.runs[index].0 + first as usize;
            content.bytes[start..start + n as usize].copy_from_slice(&data[at..at + n as usize]);
            at += n as usize;
        }
        Ok(())
    }

    /// Applies one `VkWriteDescriptorSet` (`dstSet` ignored: the caller picked this store),
    /// `VkWriteDescriptorSetInlineUniformBlock` and the acceleration-structure writes included.
    ///
    /// # Safety
    /// `write` is valid: its arrays hold `descriptorCount` elements for its type, its chain is
    /// valid, and the handles in it are null or live.
    pub unsafe fn write(&self, write: &vk::WriteDescriptorSet<'_>) {
        // SAFETY: the caller's valid write.
        if let Err(e) = unsafe { self.try_write(write) } {
            log::error!(
                "descriptor write of {} x {:?}: {e}",
                write.descriptor_count,
                write.descriptor_type
            );
        }
    }

    /// # Safety
    /// As for [`DescriptorStore::write`].
    unsafe fn try_write(&self, w: &vk::WriteDescriptorSet<'_>) -> Result<(), String> {
        let ty = w.descriptor_type;
        let at = (w.dst_binding, w.dst_array_element, w.descriptor_count);
        match source_of(ty).ok_or_else(|| format!("unsupported descriptor type {ty:?}"))? {
            Source::Bytes => {
                // SAFETY: the write's valid chain; the sType names the structure.
                let block = unsafe {
                    find_in_chain::<vk::WriteDescriptorSetInlineUniformBlock<'_>>(
                        w.p_next,
                        vk::StructureType::WRITE_DESCRIPTOR_SET_INLINE_UNIFORM_BLOCK,
                    )
                }
                .ok_or("no VkWriteDescriptorSetInlineUniformBlock in the chain")?;
                // SAFETY: `pData` holds `dataSize` bytes (VUID-VkWriteDescriptorSetInlineUniformBlock-pData-parameter).
                let data = unsafe { slice(block.p_data.cast::<u8>(), block.data_size) };
                self.write_bytes(w.dst_binding, w.dst_array_element, data)
            }
            Source::Image => {
                // SAFETY: `pImageInfo` holds `descriptorCount` structures for this type.
                let a = unsafe { slice(w.p_image_info, w.descriptor_count) };
                self.write_run(at, ty, |i| a.get(i as usize).copied().map(Raw::Image))
            }
            Source::Buffer => {
                // SAFETY: `pBufferInfo` holds `descriptorCount` structures for this type.
                let a = unsafe { slice(w.p_buffer_info, w.descriptor_count) };
                self.write_run(at, ty, |i| a.get(i as usize).copied().map(Raw::Buffer))
            }
            Source::Texel => {
                // SAFETY: `pTexelBufferView` holds `descriptorCount` handles for this type.
                let a = unsafe { slice(w.p_texel_buffer_view, w.descriptor_count) };
                self.write_run(at, ty, |i| a.get(i as usize).copied().map(Raw::Texel))
            }
            Source::Acceleration => {
                // SAFETY: the write's valid chain.
                let a = unsafe { acceleration_structures(w) };
                self.write_run(at, ty, |i| {
                    a.get(i as usize).copied().map(Raw::Acceleration)
                })
            }
        }
    }

    /// Applies `template` with the application's `data` (`vkUpdateDescriptorSetWithTemplate`,
    /// `vkCmdPushDescriptorSetWithTemplate*`): each entry reads element `i` at
    /// `data + offset + i * stride` (an inline uniform block: `count` bytes at `offset`).
    ///
    /// # Safety
    /// `data` holds every record the template's entries address, each a valid
    /// `VkDescriptorImageInfo` / `VkDescriptorBufferInfo` / `VkBufferView` /
    /// `VkAccelerationStructureKHR` for the entry's type (unaligned is fine).
    pub unsafe fn write_with_template(
        &self,
        template: &UpdateTemplate,
        data: *const std::ffi::c_void,
    ) {
        let base = data.cast::<u8>();
        for e in &template.entries {
            let at = (e.binding, e.array_element, e.count);
            let r = match source_of(e.descriptor_type) {
                None => Err(format!(
                    "unsupported descriptor type {:?}",
                    e.descriptor_type
                )),
                Some(Source::Bytes) => {
                    // SAFETY: an inline uniform block entry names `count` bytes at `offset` of
                    // the caller's `data` (this function's contract).
                    let bytes = unsafe { slice(base.wrapping_add(e.offset), e.count) };
                    self.write_bytes(e.binding, e.array_element, bytes)
                }
                Some(source) => self.write_run(at, e.descriptor_type, |i| {
                    let p = base.wrapping_add(e.offset + i as usize * e.stride);
                    // SAFETY: `p` is record `i` of entry `e` in the caller's `data`, valid for
                    // the entry's type (this function's contract).
                    unsafe { read_record(source, p) }
                }),
            };
            if let Err(err) = r {
                log::error!("descriptor template entry at binding {}: {err}", e.binding);
            }
        }
    }

    /// Applies one `VkCopyDescriptorSet` from `src` into this store (`srcSet`/`dstSet` ignored:
    /// the caller resolved them). `src` may be this store.
    pub fn copy_from(&self, src: &DescriptorStore, copy: &vk::CopyDescriptorSet<'_>) {
        if let Err(e) = self.try_copy(src, copy) {
            log::error!("descriptor copy of {} elements: {e}", copy.descriptor_count);
        }
    }

    fn try_copy(&self, src: &DescriptorStore, c: &vk::CopyDescriptorSet<'_>) -> Result<(), String> {
        let ty = src
            .layout()
            .binding(c.src_binding)
            .map(|b| b.descriptor_type)
            .ok_or_else(|| format!("source binding {} is not in its layout", c.src_binding))?;
        if is_inline(ty) {
            let runs = src.walk(c.src_binding, c.src_array_element, c.descriptor_count, ty)?;
            let bytes: Vec<u8> = {
                let content = src.read();
                runs.iter()
                    .flat_map(|&(i, first, n)| {
                        let start = src.runs[i].0 + first as usize;
                        content.bytes[start..start + n as usize].iter().copied()
                    })
                    .collect()
            };
            return self.write_bytes(c.dst_binding, c.dst_array_element, &bytes);
        }
        // Read the source out first: the two stores may be one (one lock, never two).
        let elements: Vec<(vk::DescriptorType, Descriptor)> = {
            let runs = src.walk_any(c.src_binding, c.src_array_element, c.descriptor_count)?;
            let content = src.read();
            runs.iter()
                .flat_map(|&(i, first, n)| {
                    let start = src.runs[i].0 + first as usize;
                    content.slots[start..start + n as usize].iter().copied()
                })
                .collect()
        };
        self.copy_elements(c, &elements)
    }

    /// The runs of a copy's source: types as they are (a mutable source's vary per element).
    fn walk_any(&self, binding: u32, element: u32, count: u32) -> Result<Vec<Run>, String> {
        let ty = self
            .layout()
            .binding(binding)
            .map_or(vk::DescriptorType::MUTABLE_EXT, |b| b.descriptor_type);
        self.walk(binding, element, count, ty)
    }

    fn copy_elements(
        &self,
        c: &vk::CopyDescriptorSet<'_>,
        elements: &[(vk::DescriptorType, Descriptor)],
    ) -> Result<(), String> {
        let layout = self.layout().clone();
        let dst_ty = layout
            .binding(c.dst_binding)
            .map(|b| b.descriptor_type)
            .ok_or_else(|| format!("destination binding {} is not in its layout", c.dst_binding))?;
        let runs = self.walk(
            c.dst_binding,
            c.dst_array_element,
            c.descriptor_count,
            dst_ty,
        )?;
        let mut content = self.write_lock();
        let mut it = elements.iter();
        for (index, first, n) in runs {
            let b = &layout.bindings[index];
            for e in first..first + n {
                let Some(&(ty, d)) = it.next() else {
                    return Err("the source ran out of elements".into());
                };
                if !holds(&layout, index, ty) && ty != vk::DescriptorType::MUTABLE_EXT {
                    return Err(format!("binding {} cannot hold a copied {ty:?}", b.binding));
                }
                let d = match (d, b.immutable_samplers.get(e as usize)) {
                    // The destination's immutable sampler stays (copies cannot replace it).
                    (Descriptor::Sampler(_), Some(&s)) => Descriptor::Sampler(s),
                    (Descriptor::Image { view, layout, .. }, Some(&s)) => Descriptor::Image {
                        view,
                        layout,
                        sampler: s,
                    },
                    (d, _) => d,
                };
                content.slots[self.runs[index].0 + e as usize] = (ty, d);
            }
        }
        Ok(())
    }
}

/// The record at `p` as `source` reads it (`None` for bytes, which are not records).
///
/// # Safety
/// `p` points at a valid record of the type `source` reads; it need not be aligned.
unsafe fn read_record(source: Source, p: *const u8) -> Option<Raw> {
    // SAFETY: the caller's valid record of this type; `read_unaligned` because template data
    // is laid out by the application.
    unsafe {
        Some(match source {
            Source::Image => Raw::Image(p.cast::<vk::DescriptorImageInfo>().read_unaligned()),
            Source::Buffer => Raw::Buffer(p.cast::<vk::DescriptorBufferInfo>().read_unaligned()),
            Source::Texel => Raw::Texel(p.cast::<vk::BufferView>().read_unaligned()),
            Source::Acceleration => Raw::Acceleration(p.cast::<u64>().read_unaligned()),
            Source::Bytes => return None,
        })
    }
}

/// The acceleration structures of a write's `VkWriteDescriptorSetAccelerationStructure{KHR,NV}`.
///
/// # Safety
/// `w`'s chain is valid and its arrays hold their counts.
unsafe fn acceleration_structures<'a>(w: &'a vk::WriteDescriptorSet<'_>) -> &'a [u64] {
    // SAFETY: the caller's valid chain; each sType names its structure.
    let khr = unsafe {
        find_in_chain::<vk::WriteDescriptorSetAccelerationStructureKHR<'_>>(
            w.p_next,
            vk::StructureType::WRITE_DESCRIPTOR_SET_ACCELERATION_STRUCTURE_KHR,
        )
    };
    if let Some(k) = khr {
        // SAFETY: the array holds `accelerationStructureCount` handles; a handle is a `u64`.
        return unsafe {
            slice(
                k.p_acceleration_structures.cast::<u64>(),
                k.acceleration_structure_count,
            )
        };
    }
    // SAFETY: as for the KHR structure.
    let nv = unsafe {
        find_in_chain::<vk::WriteDescriptorSetAccelerationStructureNV<'_>>(
            w.p_next,
            vk::StructureType::WRITE_DESCRIPTOR_SET_ACCELERATION_STRUCTURE_NV,
        )
    };
    // SAFETY: as for the KHR structure.
    nv.map_or(&[], |n| unsafe {
        slice(
            n.p_acceleration_structures.cast::<u64>(),
            n.acceleration_structure_count,
        )
    })
}

/// Element `raw` written as type `ty` into an element whose immutable sampler is `immutable`;
/// `None` keeps the element as it is (a `SAMPLER` with an immutable sampler: the write is
/// ignored).
fn convert(
    layout: &SetLayout,
    immutable: Option<&vk::Sampler>,
    ty: vk::DescriptorType,
    raw: Raw,
) -> Option<Descriptor> {
    use vk::DescriptorType as T;
    Some(match (ty, raw) {
        (T::SAMPLER, _) if immutable.is_some() => return None,
        (T::SAMPLER, Raw::Image(i)) => Descriptor::Sampler(i.sampler),
        (T::COMBINED_IMAGE_SAMPLER, Raw::Image(i)) => Descriptor::Image {
            view: i.image_view,
            layout: i.image_layout,
            sampler: immutable.copied().unwrap_or(i.sampler),
        },
        (_, Raw::Image(i)) => Descriptor::Image {
            view: i.image_view,
            layout: i.image_layout,
            sampler: vk::Sampler::null(),
        },
        (_, Raw::Buffer(b)) => Descriptor::Buffer {
            buffer: b.buffer,
            offset: b.offset,
            range: resolve_range(layout, b),
        },
        (_, Raw::Texel(v)) => Descriptor::TexelBuffer(v),
        (_, Raw::Acceleration(a)) => Descriptor::AccelerationStructure(a),
    })
}

/// `range`, with `VK_WHOLE_SIZE` made the rest of the buffer from `offset` (a null buffer's
/// range is 0; an unknown buffer's stays `VK_WHOLE_SIZE`).
fn resolve_range(layout: &SetLayout, b: vk::DescriptorBufferInfo) -> u64 {
    if b.range != vk::WHOLE_SIZE {
        return b.range;
    }
    if b.buffer == vk::Buffer::null() {
        return 0;
    }
    (layout.buffer_size)(b.buffer).map_or(vk::WHOLE_SIZE, |size| size.saturating_sub(b.offset))
}
