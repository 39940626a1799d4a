//! The vendor's data types of the kit's objects, as a leaf trait: the objects
//! ([`Instance`](crate::kit::Instance), [`Device`](crate::kit::Device),
//! [`CommandBuffer`](crate::kit::command::CommandBuffer), …) are bounded on it rather than on
//! [`Kit`](crate::kit::Kit), so that the object types do not depend on the trait whose hooks
//! take them. A driver never implements it: every [`Kit`](crate::kit::Kit) has it, with the
//! associated types it declares there (the blanket implementation in `api.rs`).

/// The vendor data carried by the kit's objects: [`Kit`](crate::kit::Kit)'s associated types,
/// seen by the object types. Implemented for every [`Kit`](crate::kit::Kit).
pub trait KitTypes {
    /// [`Kit::Instance`](crate::kit::Kit::Instance).
    type Instance: Default + Send + Sync + 'static;
    /// [`Kit::PhysicalDevice`](crate::kit::Kit::PhysicalDevice).
    type PhysicalDevice: Default + Send + Sync + 'static;
    /// [`Kit::Device`](crate::kit::Kit::Device).
    type Device: Default + Send + Sync + 'static;
    /// [`Kit::Queue`](crate::kit::Kit::Queue).
    type Queue: Default + Send + Sync + 'static;
    /// [`Kit::CommandBuffer`](crate::kit::Kit::CommandBuffer).
    type CommandBuffer: Default + Send + Sync + 'static;
    /// [`Kit::CommandPool`](crate::kit::Kit::CommandPool).
    type CommandPool: Default + Send + Sync + 'static;
}
