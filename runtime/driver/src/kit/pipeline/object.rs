//! The kit's pipelines as data: what the vendor's
//! [`Kit::compile_pipeline`](crate::kit::Kit::compile_pipeline) looks at, apart from the create
//! commands that call it.

use std::sync::Arc;

use vkgen_generated::recorder::Owned;
use vkgen_generated::vk;

use crate::handles::{Object, ObjectKind};
use crate::kit::descriptor::pipeline_layout::PipelineLayoutInfo;
use crate::kit::resources::desc::VendorData;
use crate::kit::shader::stage::ShaderStage;
use crate::kit::state::graphics::GraphicsState;

/// A compute pipeline.
pub struct ComputePipeline {
    pub stage: ShaderStage,
    pub layout: Arc<PipelineLayoutInfo>,
    /// `VkPipelineCreateFlags2` (the 32-bit flags widened, or the chained 64-bit ones).
    pub flags: vk::PipelineCreateFlags2KHR,
    /// The base pipeline of a derivative.
    pub base: Option<vk::Pipeline>,
    /// The create info, deep-copied (its handles are the application's: the module may be
    /// destroyed by now; the resolved [`ComputePipeline::stage`] holds the code).
    pub create_info: Owned<vk::ComputePipelineCreateInfo<'static>>,
    pub vendor: VendorData,
}

/// A graphics pipeline or pipeline library.
pub struct GraphicsPipeline {
    /// Its own stages, then those of the libraries it links, in library order.
    pub stages: Vec<ShaderStage>,
    /// Its layout, or the first linked library's when it names none.
    pub layout: Option<Arc<PipelineLayoutInfo>>,
    pub state: GraphicsState,
    pub flags: vk::PipelineCreateFlags2KHR,
    pub base: Option<vk::Pipeline>,
    /// The linked libraries' handles (each was alive at creation; the state and stages are
    /// copied, so the libraries may be destroyed afterwards).
    pub libraries: Vec<vk::Pipeline>,
    /// The create info with ignored pointers nulled, deep-copied.
    pub create_info: Owned<vk::GraphicsPipelineCreateInfo<'static>>,
    pub vendor: VendorData,
}

impl GraphicsPipeline {
    /// Whether it was created as a library (`VK_PIPELINE_CREATE_LIBRARY_BIT_KHR`).
    pub fn is_library(&self) -> bool {
        self.flags.contains(vk::PipelineCreateFlags2KHR::LIBRARY)
    }

    /// The stage of `stage`, if the pipeline has one.
    pub fn stage(&self, stage: vk::ShaderStageFlags) -> Option<&ShaderStage> {
        self.stages.iter().find(|s| s.stage == stage)
    }
}

/// A `VkPipeline` of the kit.
// One heap object per pipeline (`create_object`): the variants' size difference costs no copies.
#[allow(clippy::large_enum_variant)]
pub enum Pipeline {
    Compute(ComputePipeline),
    Graphics(GraphicsPipeline),
}

impl ObjectKind for Pipeline {
    const OBJECT_TYPE: vk::ObjectType = vk::ObjectType::PIPELINE;
}

impl Pipeline {
    /// The pipeline behind `h`.
    ///
    /// # Safety
    /// `h` is null or a live `VkPipeline` of a driver with the component on.
    pub unsafe fn from_handle<'a>(h: vk::Pipeline) -> Option<&'a Pipeline> {
        // SAFETY: the caller promises a null or live handle; `from_handle` checks the type.
        unsafe { Object::<Pipeline>::from_handle(h) }.map(|o| &**o)
    }

    pub fn bind_point(&self) -> vk::PipelineBindPoint {
        match self {
            Pipeline::Compute(_) => vk::PipelineBindPoint::COMPUTE,
            Pipeline::Graphics(_) => vk::PipelineBindPoint::GRAPHICS,
        }
    }

    pub fn layout(&self) -> Option<&Arc<PipelineLayoutInfo>> {
        match self {
            Pipeline::Compute(c) => Some(&c.layout),
            Pipeline::Graphics(g) => g.layout.as_ref(),
        }
    }

    pub fn compute(&self) -> Option<&ComputePipeline> {
        match self {
            Pipeline::Compute(c) => Some(c),
            Pipeline::Graphics(_) => None,
        }
    }

    pub fn graphics(&self) -> Option<&GraphicsPipeline> {
        match self {
            Pipeline::Graphics(g) => Some(g),
            Pipeline::Compute(_) => None,
        }
    }

    pub fn vendor(&self) -> &VendorData {
        match self {
            Pipeline::Compute(c) => &c.vendor,
            Pipeline::Graphics(g) => &g.vendor,
        }
    }

    /// Every stage the pipeline runs.
    pub fn stages(&self) -> &[ShaderStage] {
        match self {
            Pipeline::Compute(c) => std::slice::from_ref(&c.stage),
            Pipeline::Graphics(g) => &g.stages,
        }
    }
}
