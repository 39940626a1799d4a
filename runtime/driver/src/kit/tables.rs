//! Placeholder for the generated flat feature/property tables (`vkgen_generated::features`),
//! replaced when that emitter lands: same method names, 1.0 structures only.

use crate::util::find_in_chain;
use vkgen_generated::vk;

#[derive(Clone, Debug, PartialEq)]
pub struct Features {
    pub core: [bool; 55],
}

impl Default for Features {
    fn default() -> Self {
        Self { core: [false; 55] }
    }
}

const N10: usize = size_of::<vk::PhysicalDeviceFeatures>() / size_of::<vk::Bool32>();

impl Features {
    fn from10(f: &vk::PhysicalDeviceFeatures) -> Self {
        // SAFETY: PhysicalDeviceFeatures is N10 Bool32s.
        let w: &[vk::Bool32; N10] = unsafe { &*(f as *const _ as *const [vk::Bool32; N10]) };
        let mut out = Features::default();
        for (i, b) in w.iter().enumerate() {
            out.core[i] = *b != 0;
        }
        out
    }
    fn to10(&self) -> vk::PhysicalDeviceFeatures {
        let mut f = vk::PhysicalDeviceFeatures::default();
        // SAFETY: as above.
        let w: &mut [vk::Bool32; N10] =
            unsafe { &mut *(&mut f as *mut _ as *mut [vk::Bool32; N10]) };
        for (i, b) in w.iter_mut().enumerate() {
            *b = self.core[i].into();
        }
        f
    }
    /// # Safety
    /// `out` is a valid `VkPhysicalDeviceFeatures2` chain.
    pub unsafe fn write_chain(&self, out: *mut vk::PhysicalDeviceFeatures2<'_>) {
        // SAFETY: per contract.
        if let Some(o) = unsafe { out.as_mut() } {
            o.features = self.to10();
        }
    }
    /// # Safety
    /// `out` is writable.
    pub unsafe fn write_features10(&self, out: *mut vk::PhysicalDeviceFeatures) {
        // SAFETY: per contract.
        if let Some(o) = unsafe { out.as_mut() } {
            *o = self.to10();
        }
    }
    /// # Safety
    /// `info` is a valid create info.
    pub unsafe fn from_device_create_info(info: *const vk::DeviceCreateInfo<'_>) -> Features {
        // SAFETY: per contract.
        let Some(ci) = (unsafe { info.as_ref() }) else {
            return Features::default();
        };
        let mut f = Features::default();
        // SAFETY: per contract.
        if let Some(p) = unsafe { ci.p_enabled_features.as_ref() } {
            f = Self::from10(p);
        }
        // SAFETY: valid chain.
        if let Some(f2) = unsafe {
            find_in_chain::<vk::PhysicalDeviceFeatures2<'_>>(
                ci.p_next,
                vk::StructureType::PHYSICAL_DEVICE_FEATURES_2,
            )
        } {
            let g = Self::from10(&f2.features);
            for i in 0..N10 {
                f.core[i] |= g.core[i];
            }
        }
        f
    }
    pub fn first_missing(&self, requested: &Features) -> Option<&'static str> {
        (0..N10)
            .find(|&i| requested.core[i] && !self.core[i])
            .map(|_| "a VkPhysicalDeviceFeatures member")
    }
}

#[derive(Clone, Debug, Default)]
pub struct Properties {
    p10: vk::PhysicalDeviceProperties,
}

impl Properties {
    pub fn from_properties10(&mut self, p: &vk::PhysicalDeviceProperties) {
        self.p10 = *p;
    }
    pub fn properties10(&self) -> vk::PhysicalDeviceProperties {
        self.p10
    }
    /// # Safety
    /// `out` is a valid `VkPhysicalDeviceProperties2` chain.
    pub unsafe fn write_chain(&self, out: *mut vk::PhysicalDeviceProperties2<'_>) {
        // SAFETY: per contract.
        if let Some(o) = unsafe { out.as_mut() } {
            o.properties = self.p10;
        }
    }
}
