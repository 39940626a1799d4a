//! The flat feature and property tables, generated from the registry
//! (`vkgen_generated::features`): every member of every `VkPhysicalDevice*Features` /
//! `*Properties` structure of the selected version and extensions, aliases merged, with the code
//! that fills any `…2` chain from them and reads a `VkDeviceCreateInfo`'s requested features.

pub use vkgen_generated::features::{Features, Properties};
