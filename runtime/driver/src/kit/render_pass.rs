// STAND-IN for rp's module (contract)
//! Render passes as the formats of their subpasses — a stand-in with the contract's shape so
//! `kit::pipeline` resolves a graphics pipeline's render pass before the rp helper's module
//! lands (it replaces this file).

#![allow(clippy::missing_safety_doc)]

use vkgen_generated::vk;

use crate::handles::{Object, ObjectKind};

#[derive(Clone, Debug, Default, PartialEq)]
pub struct SubpassRendering {
    pub view_mask: u32,
    pub color_formats: Vec<vk::Format>,
    pub depth_format: vk::Format,
    pub stencil_format: vk::Format,
    pub samples: vk::SampleCountFlags,
}

pub struct RenderPass {
    pub subpasses: Vec<SubpassRendering>,
}

impl ObjectKind for RenderPass {
    const OBJECT_TYPE: vk::ObjectType = vk::ObjectType::RENDER_PASS;
}

impl RenderPass {
    pub unsafe fn from_handle<'a>(h: vk::RenderPass) -> Option<&'a Self> {
        // SAFETY: the caller's null or live handle; the signature is checked.
        unsafe { Object::<Self>::from_handle(h) }.map(|o| &**o)
    }

    pub fn subpass_rendering(&self, subpass: u32) -> Option<SubpassRendering> {
        self.subpasses.get(subpass as usize).cloned()
    }
}
