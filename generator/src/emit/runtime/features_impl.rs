// The methods of `Features` (hand-written: vkgen's `generator/src/emit/runtime/features_impl.rs`),
// copied verbatim into the generated file after the tables, where it is compiled and linted:
// the slice views and the chain readers and writers, the same for every selection (the
// per-selection part is the slot tables they walk).
impl Features {
    /// The fields in [`Self::NAMES`] order.
    pub fn as_slice(&self) -> &[bool] {
        // SAFETY: `Features` is `#[repr(C)]` with only `bool` fields (size and alignment 1), so it
        // is laid out as `[bool; NAMES.len()]`.
        unsafe { core::slice::from_raw_parts((self as *const Self).cast::<bool>(), Self::NAMES.len()) }
    }

    /// The fields in [`Self::NAMES`] order, writable.
    pub fn as_mut_slice(&mut self) -> &mut [bool] {
        // SAFETY: `Features` is `#[repr(C)]` with only `bool` fields, laid out as
        // `[bool; NAMES.len()]` (see `as_slice`); `&mut self` makes the borrow unique.
        unsafe { core::slice::from_raw_parts_mut((self as *mut Self).cast::<bool>(), Self::NAMES.len()) }
    }

    /// Every feature on (tests, and drivers that support everything).
    pub fn all_true() -> Self {
        let mut f = Self::default();
        f.as_mut_slice().fill(true);
        f
    }

    /// The field named `name` (a name from [`Self::NAMES`]).
    pub fn get(&self, name: &str) -> Option<bool> {
        let i = Self::NAMES.iter().position(|n| *n == name)?;
        Some(self.as_slice()[i])
    }

    /// Sets the field named `name`; false when there is none.
    pub fn set(&mut self, name: &str, value: bool) -> bool {
        match Self::NAMES.iter().position(|n| *n == name) {
            Some(i) => {
                self.as_mut_slice()[i] = value;
                true
            }
            None => false,
        }
    }

    /// Turns on every feature `other` has on.
    pub fn union_with(&mut self, other: &Features) {
        for (a, b) in self.as_mut_slice().iter_mut().zip(other.as_slice()) {
            *a |= *b;
        }
    }

    /// The name (from [`Self::NAMES`]) of the first feature `requested` has on and `self` lacks:
    /// `vkCreateDevice` then fails with `VK_ERROR_FEATURE_NOT_PRESENT`.
    pub fn first_missing(&self, requested: &Features) -> Option<&'static str> {
        let have = self.as_slice();
        let i = requested.as_slice().iter().zip(have).position(|(r, h)| *r && !*h)?;
        Some(Self::NAMES[i])
    }

    /// Fills a `VkPhysicalDeviceFeatures` (`vkGetPhysicalDeviceFeatures`). NULL is ignored.
    ///
    /// # Safety
    /// `out` is NULL or valid for writes.
    pub unsafe fn write_features10(&self, out: *mut vk::PhysicalDeviceFeatures) {
        if !out.is_null() {
            // SAFETY: `out` is a writable `VkPhysicalDeviceFeatures`, what `FEATURES10` describes.
            unsafe { write_slots(self, out.cast(), FEATURES10) }
        }
    }

    /// Turns on the features a `VkPhysicalDeviceFeatures` has on.
    pub fn read_features10(&mut self, p: &vk::PhysicalDeviceFeatures) {
        // SAFETY: `p` is a `VkPhysicalDeviceFeatures`, what `FEATURES10` describes.
        unsafe { read_bools(self, (p as *const vk::PhysicalDeviceFeatures).cast(), FEATURES10) }
    }

    /// Fills one structure of a pNext chain when its `sType` is one of [`FEATURE_STRUCTS`];
    /// returns whether it was. Its `sType` and `pNext` are not touched.
    ///
    /// # Safety
    /// `s` is NULL or a writable structure whose `sType` tells its type.
    pub unsafe fn write_struct(&self, s: *mut vk::BaseOutStructure<'_>) -> bool {
        // SAFETY: `s` is NULL or readable (the caller's contract).
        let Some(header) = (unsafe { s.as_ref() }) else {
            return false;
        };
        match find(FEATURE_SLOTS, header.s_type.as_raw()) {
            // SAFETY: the sType says `s` is the structure these slots describe.
            Some(slots) => unsafe { write_slots(self, s.cast(), slots) },
            None => return false,
        }
        true
    }

    /// Turns on the features one pNext structure has on, when its `sType` is one of
    /// [`FEATURE_STRUCTS`]; returns whether it was.
    ///
    /// # Safety
    /// `s` is NULL or a readable structure whose `sType` tells its type.
    pub unsafe fn read_struct(&mut self, s: *const vk::BaseInStructure<'_>) -> bool {
        // SAFETY: `s` is NULL or readable (the caller's contract).
        let Some(header) = (unsafe { s.as_ref() }) else {
            return false;
        };
        match find(FEATURE_SLOTS, header.s_type.as_raw()) {
            // SAFETY: the sType says `s` is the structure these slots describe.
            Some(slots) => unsafe { read_bools(self, s.cast(), slots) },
            None => return false,
        }
        true
    }

    /// `vkGetPhysicalDeviceFeatures2`: fills `features` and every known structure of the pNext
    /// chain, in any order; unknown structures are left untouched. NULL is ignored.
    ///
    /// # Safety
    /// `features2` is NULL or a writable `VkPhysicalDeviceFeatures2` whose chain is valid.
    pub unsafe fn write_chain(&self, features2: *mut vk::PhysicalDeviceFeatures2<'_>) {
        if features2.is_null() {
            return;
        }
        // SAFETY: `features2` is writable and its chain holds valid writable structures (the
        // caller's contract), each of which `write_struct` may fill; `for_each_out` reads each
        // link before the structure is written.
        unsafe {
            self.write_features10(&mut (*features2).features);
            for_each_out((*features2).p_next, |s| {
                self.write_struct(s);
            });
        }
    }

    /// The features a `VkDeviceCreateInfo` enables: the union of `pEnabledFeatures` and of every
    /// feature structure in its pNext chain (a `VkPhysicalDeviceFeatures2` there included).
    ///
    /// # Safety
    /// `info` is NULL or a valid `VkDeviceCreateInfo` with a valid chain.
    pub unsafe fn from_device_create_info(info: *const vk::DeviceCreateInfo<'_>) -> Features {
        let mut out = Features::default();
        // SAFETY: `info`, `pEnabledFeatures` and the chain are valid or NULL (the caller's
        // contract); each link is read before it is followed.
        unsafe {
            let Some(info) = info.as_ref() else {
                return out;
            };
            if let Some(f) = info.p_enabled_features.as_ref() {
                out.read_features10(f);
            }
            for s in chain(info.p_next) {
                if s.s_type == vk::StructureType::PHYSICAL_DEVICE_FEATURES_2 {
                    out.read_features10(&(*core::ptr::from_ref(s).cast::<vk::PhysicalDeviceFeatures2<'_>>()).features);
                } else {
                    out.read_struct(s);
                }
            }
        }
        out
    }
}
