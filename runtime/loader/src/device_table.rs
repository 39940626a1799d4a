//! What a device's dispatch table asks its chain for at `vkCreateDevice`, and what
//! `vkGetDeviceProcAddr` can answer from it (issue 22).
//!
//! **Only exposable commands are asked for.** A device exposes a device-level command name when
//! it is core at or below the device's effective API version (the lower of the application's
//! `apiVersion` and the physical device's), or belongs to an extension enabled on the device or
//! its instance, or to one those depend on (`union_with_dependencies`). The table is filled by
//! `DeviceDispatchTable::load_with`, which hands every name to [`load`]'s closure: a name the
//! device cannot expose is answered "absent" without asking anyone, so the chain (layers, the
//! terminator, the driver) is asked for each exposable name once — the defining name first, an
//! alias only while the names before it got no answer. The loader's own needs of the driver
//! (`vkDestroyDevice`, the queue and command-buffer commands, the WSI's) are asked by the
//! terminator (`terminator::device`), not through this table.
//!
//! **Without layers the driver is asked directly.** The chain is then the terminator alone, which
//! hands every name but its own hooks to the driver unchanged (`api::proc_addr::forwarded`); those
//! names are asked of the driver's `vkGetDeviceProcAddr` itself, and of a vkgen driver in one
//! `vkgenGetDeviceProcAddrs` call (`at_once.rs`), with the same answers (issue 35).
//!
//! **What was asked is remembered.** [`TableAnswers`] records which names the chain was asked
//! and which of them it answered. `vkGetDeviceProcAddr` answers an asked name from that record
//! (its table entry, or NULL) without calling down the chain, which gives the chain's own answer
//! as long as the chain answers a name the same way for the life of a device (every layer and
//! driver does; AOSP asks again each time, with the same result). A name the table never asked
//! for (a command above the version or of an extension not enabled, or a name the registry does
//! not know) still goes down the chain, where AOSP sends it.
//!
//! The trampolines dispatch through the same table, so an exported command the device cannot
//! expose reaches its stub: for an exported extension that is AOSP's `disabled…` function (AOSP
//! fills those slots only for enabled extensions too); for a core command above the device's
//! version (invalid usage) the stub returns `VK_ERROR_FEATURE_NOT_PRESENT` or nothing, where
//! AOSP's table holds whatever the chain answered for it.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use vkgen_generated::commands::{self, CommandId, Origin, COMMANDS};

use crate::extensions::ExtensionSet;
use vkgen_generated::dispatch::DeviceDispatchTable;
use vkgen_generated::vk;

const WORDS: usize = COMMANDS.len().div_ceil(64);

/// A set of commands, by generated id.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CommandSet {
    bits: [u64; WORDS],
}

impl CommandSet {
    /// Adds `id`.
    pub fn insert(&mut self, id: CommandId) {
        let i = usize::from(id.0);
        if let Some(word) = self.bits.get_mut(i / 64) {
            *word |= 1 << (i % 64);
        }
    }

    /// Whether `id` is in the set.
    #[inline]
    pub fn contains(&self, id: CommandId) -> bool {
        let i = usize::from(id.0);
        self.bits
            .get(i / 64)
            .is_some_and(|word| word & (1 << (i % 64)) != 0)
    }

    /// Adds every command of `other`.
    pub fn union_with(&mut self, other: &CommandSet) {
        for (word, o) in self.bits.iter_mut().zip(other.bits) {
            *word |= o;
        }
    }

    /// Number of commands in the set.
    pub fn len(&self) -> usize {
        self.bits.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every registry command `keep` says yes to (given its id and row).
    pub fn matching(mut keep: impl FnMut(CommandId, &commands::CommandInfo) -> bool) -> Self {
        let mut set = CommandSet::default();
        for (i, info) in COMMANDS.iter().enumerate() {
            let Ok(i) = u16::try_from(i) else { break };
            if keep(CommandId(i), info) {
                set.insert(CommandId(i));
            }
        }
        set
    }

    /// The commands of both sets.
    pub fn intersection(&self, other: &CommandSet) -> CommandSet {
        let mut out = *self;
        for (word, o) in out.bits.iter_mut().zip(other.bits) {
            *word &= o;
        }
        out
    }

    /// The set's commands in id order.
    pub fn iter(&self) -> impl Iterator<Item = CommandId> + '_ {
        self.bits.iter().enumerate().flat_map(|(w, &word)| {
            let mut rest = word;
            std::iter::from_fn(move || {
                if rest == 0 {
                    return None;
                }
                let bit = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                u16::try_from(w * 64 + bit).ok().map(CommandId)
            })
        })
    }
}

/// Which names a device's table asked its chain for at `vkCreateDevice`, and which of them the
/// chain answered (with the function now in the name's slot).
#[derive(Clone, Copy, Debug, Default)]
pub struct TableAnswers {
    /// Every name asked.
    pub asked: CommandSet,
    /// The asked names the chain answered with a function.
    pub answered: CommandSet,
}

impl TableAnswers {
    /// The chain's answer for `id` as recorded: `Some(true)` answered (the slot holds it),
    /// `Some(false)` asked and answered NULL, `None` never asked.
    #[inline]
    pub fn recorded(&self, id: CommandId) -> Option<bool> {
        self.asked.contains(id).then(|| self.answered.contains(id))
    }
}

/// Every answer `vkGetDeviceProcAddr` gave on one device for a registry command, by id: the
/// table's recorded answers, the loader's filters and the chain's answers to names the table did
/// not ask for (extension commands not enabled, core above the device's version). A name asked
/// again is one word read after its id (issue 35: the rules cost as much again as the name's
/// lookup). One word per command: 0 not answered yet, `ANSWERED_NULL` (1), or the function's
/// address. An answer cannot change within a device's life (the chain, the enabled extensions
/// and the version are fixed at `vkCreateDevice`), so a racing second writer stores the same word.
#[derive(Debug)]
pub struct LaterAnswers([AtomicUsize; COMMANDS.len()]);

/// A [`LaterAnswers`] word for a command answered with NULL (no function is at address 1).
const ANSWERED_NULL: usize = 1;

impl Default for LaterAnswers {
    fn default() -> Self {
        Self([const { AtomicUsize::new(0) }; COMMANDS.len()])
    }
}

impl LaterAnswers {
    /// What was answered for `id` before, if anything.
    #[inline]
    pub fn get(&self, id: CommandId) -> Option<vk::PFN_vkVoidFunction> {
        match self.0.get(usize::from(id.0))?.load(Ordering::Relaxed) {
            0 => None,
            ANSWERED_NULL => Some(None),
            // SAFETY: a non-null address `remember` stored from a `PFN_vkVoidFunction`.
            address => Some(Some(unsafe {
                std::mem::transmute::<usize, unsafe extern "system" fn()>(address)
            })),
        }
    }

    /// Remembers the answer `f` for `id`; returns `f`.
    #[inline]
    pub fn remember(&self, id: CommandId, f: vk::PFN_vkVoidFunction) -> vk::PFN_vkVoidFunction {
        if let Some(word) = self.0.get(usize::from(id.0)) {
            word.store(f.map_or(ANSWERED_NULL, |f| f as usize), Ordering::Relaxed);
        }
        f
    }
}

/// Whether a device-level command name is exposable on a device of `api_version` (major.minor)
/// whose extensions, with the instance's and their dependencies, are `extensions`.
pub fn exposable(id: CommandId, api_version: u32, extensions: &ExtensionSet) -> bool {
    let info = commands::info(id);
    if let Origin::Core(version) = info.origin {
        if version <= api_version {
            return true;
        }
    }
    info.extensions().iter().any(|&e| extensions.contains(e))
}

/// The registry's commands by where they come from, made once per process: one set per core
/// version that defines commands, and each extension's commands.
struct CommandIndex {
    core: Vec<(u32, CommandSet)>,
    by_extension: Vec<Vec<CommandId>>,
}

fn command_index() -> &'static CommandIndex {
    static INDEX: OnceLock<CommandIndex> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut core: Vec<(u32, CommandSet)> = Vec::new();
        let mut by_extension = vec![Vec::new(); vkgen_generated::extensions::EXTENSIONS.len()];
        for i in 0..COMMANDS.len() {
            let Ok(raw) = u16::try_from(i) else { break };
            let id = CommandId(raw);
            let info = commands::info(id);
            if let Origin::Core(version) = info.origin {
                match core.iter_mut().find(|(v, _)| *v == version) {
                    Some((_, set)) => set.insert(id),
                    None => {
                        let mut set = CommandSet::default();
                        set.insert(id);
                        core.push((version, set));
                    }
                }
            }
            for &e in info.extensions() {
                if let Some(list) = by_extension.get_mut(usize::from(e.0)) {
                    list.push(id);
                }
            }
        }
        CommandIndex { core, by_extension }
    })
}

/// Every command [`exposable`] on a device of `api_version` with `extensions`, made from the
/// per-version and per-extension lists (a few word unions) rather than by asking [`exposable`]
/// of each of the table's 700-odd commands at every `vkCreateDevice`.
pub fn exposable_set(api_version: u32, extensions: &ExtensionSet) -> CommandSet {
    let index = command_index();
    let mut set = CommandSet::default();
    for (version, commands) in &index.core {
        if *version <= api_version {
            set.union_with(commands);
        }
    }
    for e in extensions.ids() {
        for &id in index
            .by_extension
            .get(usize::from(e.0))
            .into_iter()
            .flatten()
        {
            set.insert(id);
        }
    }
    set
}

/// The driver under a device whose chain is the terminator alone (no layers), for [`load`].
#[derive(Clone, Copy)]
pub struct Driver {
    /// The driver's own `vkGetDeviceProcAddr`.
    pub gdpa: vk::PFN_vkGetDeviceProcAddr,
    /// The commands the terminator answers with the driver's answer, unchanged.
    pub forwarded: &'static CommandSet,
}

/// What the driver answered for `wanted` in one `vkgenGetDeviceProcAddrs` call, by id
/// ([`crate::at_once`]); `None` where it cannot: the names are asked one by one.
///
/// # Safety
/// `device` is the driver's live device.
unsafe fn driver_answers(
    device: vk::Device,
    driver: &Driver,
    wanted: &CommandSet,
) -> Option<Vec<vk::PFN_vkVoidFunction>> {
    use vkgen_generated::driver::GET_DEVICE_PROC_ADDRS_NAME;
    // SAFETY: the driver's vkGetDeviceProcAddr with its live device (the contract) and a C
    // string; a driver that does not know the name answers NULL.
    let found = unsafe { (driver.gdpa)(device, GET_DEVICE_PROC_ADDRS_NAME.as_ptr()) };
    let ids: Vec<u16> = wanted.iter().map(|id| id.0).collect();
    // SAFETY: `found` is the driver's answer for the batch's name on `device`, its live device.
    unsafe { crate::at_once::answers_by_id("vkgenGetDeviceProcAddrs", found, device, &ids) }
}

/// Fills a device's table from `gdpa`, the head of its chain, asking only for the names
/// [`exposable`] on it; gives the table and what was asked. With `driver` (no layers: `gdpa` is
/// the terminator's) the names the terminator forwards unchanged are the driver's answers,
/// asked of it directly and, where it can, in one call.
///
/// # Safety
/// `device` is the live device the chain whose `vkGetDeviceProcAddr` is `gdpa` created, and
/// `driver` (if any) the driver under that chain's terminator, whose device `device` is.
pub unsafe fn load(
    device: vk::Device,
    gdpa: vk::PFN_vkGetDeviceProcAddr,
    api_version: u32,
    extensions: &ExtensionSet,
    driver: Option<Driver>,
) -> (DeviceDispatchTable, TableAnswers) {
    let mut answers = TableAnswers::default();
    let exposable = exposable_set(api_version, extensions);
    let direct = driver.map(|d| {
        let wanted = exposable.intersection(d.forwarded);
        // SAFETY: `device` is the driver's live device (this function's contract).
        (d, unsafe { driver_answers(device, &d, &wanted) })
    });
    let mut ask = |id: CommandId| {
        if !exposable.contains(id) {
            return None;
        }
        let name = || commands::info(id).name().as_ptr();
        let f = match &direct {
            Some((d, at_once)) if d.forwarded.contains(id) => match at_once {
                Some(by_id) => by_id.get(usize::from(id.0)).copied().flatten(),
                // SAFETY: the driver's vkGetDeviceProcAddr with its live device (the
                // contract) and a NUL-terminated name from the generated table.
                None => unsafe { (d.gdpa)(device, name()) },
            },
            // SAFETY: `device` is the live device `gdpa`'s chain created (this function's
            // contract) and `name` a command name from the generated table, NUL-terminated.
            _ => unsafe { gdpa(device, name()) },
        };
        answers.asked.insert(id);
        if f.is_some() {
            answers.answered.insert(id);
        }
        f
    };
    // SAFETY: `ask` returns what the chain's vkGetDeviceProcAddr answered for the very name it
    // was given (or nothing), and a chain answers a name with a function of that name's type.
    let table = unsafe { DeviceDispatchTable::load_some(exposable.iter(), &mut ask) };
    (table, answers)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;
    use std::sync::Mutex;

    fn id(name: &CStr) -> CommandId {
        commands::lookup(name).unwrap()
    }

    extern "system" fn some_command() {}

    /// The cache tells "not answered yet" from "answered NULL" and from a function, per id, for
    /// the first and the last command of the registry.
    #[test]
    fn later_answers_tell_unknown_from_null_from_a_function() {
        let addr = |f: Option<vk::PFN_vkVoidFunction>| f.map(|f| f.map(|g| g as usize));
        let later = LaterAnswers::default();
        let (first, last) = (CommandId(0), CommandId((COMMANDS.len() - 1) as u16));
        assert_eq!(addr(later.get(first)), None);
        assert_eq!(addr(later.get(last)), None);
        assert!(later.remember(first, None).is_none());
        let f: unsafe extern "system" fn() = some_command;
        assert_eq!(
            addr(Some(later.remember(last, Some(f)))),
            Some(Some(f as usize))
        );
        assert_eq!(addr(later.get(first)), Some(None));
        assert_eq!(addr(later.get(last)), Some(Some(f as usize)));
        // An id outside the registry (a table of another registry) is never remembered.
        let outside = CommandId(COMMANDS.len() as u16);
        assert!(later.remember(outside, Some(f)).is_some());
        assert_eq!(addr(later.get(outside)), None);
    }

    /// The set made from the per-version and per-extension lists is [`exposable`], command by
    /// command, for each core version and for extension sets with and without dependencies.
    #[test]
    fn the_exposable_set_is_exposable_command_by_command() {
        let sets = [
            ExtensionSet::from_names([]),
            ExtensionSet::from_names([c"VK_KHR_swapchain", c"VK_KHR_dynamic_rendering"]),
            ExtensionSet::from_names([
                c"VK_KHR_acceleration_structure",
                c"VK_EXT_multi_draw",
                c"VK_KHR_surface",
                c"VK_ANDROID_native_buffer",
            ]),
        ];
        let versions = [
            vk::API_VERSION_1_0,
            vk::API_VERSION_1_1,
            vk::API_VERSION_1_2,
            vk::API_VERSION_1_3,
            vk::make_api_version(0, 1, 4, 0),
            vk::API_VERSION_1_1 | 203,
        ];
        for extensions in &sets {
            for &version in &versions {
                let set = exposable_set(version, extensions);
                for i in 0..COMMANDS.len() {
                    let id = CommandId(u16::try_from(i).unwrap());
                    assert_eq!(
                        set.contains(id),
                        exposable(id, version, extensions),
                        "{:?} at {version:#x}",
                        commands::info(id).name()
                    );
                }
            }
        }
    }

    #[test]
    fn exposable_by_version_extension_and_dependency() {
        let none = ExtensionSet::from_names([]);
        let v11 = vk::API_VERSION_1_1;
        assert!(exposable(id(c"vkCreateFence"), v11, &none));
        assert!(exposable(id(c"vkTrimCommandPool"), v11, &none));
        assert!(!exposable(id(c"vkCmdBeginRendering"), v11, &none));
        assert!(exposable(
            id(c"vkCmdBeginRendering"),
            vk::API_VERSION_1_3,
            &none
        ));
        assert!(!exposable(
            id(c"vkCmdBeginRenderingKHR"),
            vk::make_api_version(0, 1, 4, 0),
            &none
        ));
        let dynamic = ExtensionSet::from_names([c"VK_KHR_dynamic_rendering"]);
        assert!(exposable(id(c"vkCmdBeginRenderingKHR"), v11, &dynamic));
        assert!(!exposable(id(c"vkCmdBeginRendering"), v11, &dynamic));
        // Reached only through a dependency of what was enabled.
        let accel = ExtensionSet::from_names([c"VK_KHR_acceleration_structure"]);
        let closure = accel.union_with_dependencies(&none);
        let deferred = id(c"vkCreateDeferredOperationKHR");
        assert!(!exposable(deferred, v11, &accel));
        assert!(exposable(deferred, v11, &closure));
    }

    static ASKED: Mutex<Vec<String>> = Mutex::new(Vec::new());

    /// A chain that answers every name with a function (and records the question) except the
    /// core names of 1.3, which it refuses.
    unsafe extern "system" fn recording_gdpa(
        _: vk::Device,
        name: *const std::ffi::c_char,
    ) -> vk::PFN_vkVoidFunction {
        unsafe extern "system" fn any() {}
        // SAFETY: `load` passes names from the generated table, NUL-terminated.
        let name = unsafe { CStr::from_ptr(name) };
        ASKED
            .lock()
            .unwrap()
            .push(name.to_string_lossy().into_owned());
        let core_13 = matches!(
            commands::info(id(name)).origin,
            Origin::Core(v) if v == vk::API_VERSION_1_3
        );
        (!core_13).then_some(any as unsafe extern "system" fn())
    }

    #[test]
    fn load_asks_exposable_names_once_and_records_the_answers() {
        let exts = ExtensionSet::from_names([c"VK_KHR_dynamic_rendering"]);
        // SAFETY: the recording chain ignores the device and reads only the name.
        let (table, answers) = unsafe {
            load(
                vk::Device::null(),
                recording_gdpa,
                vk::API_VERSION_1_3,
                &exts,
                None,
            )
        };
        let asked = std::mem::take(&mut *ASKED.lock().unwrap());
        let expected: Vec<CommandId> = (0..DeviceDispatchTable::LEN)
            .flat_map(|slot| {
                let names = DeviceDispatchTable::slot_commands(slot);
                let wanted: Vec<CommandId> = names
                    .iter()
                    .copied()
                    .filter(|&c| exposable(c, vk::API_VERSION_1_3, &exts))
                    .collect();
                // Asked in order up to the first answer (the 1.3 core name is refused, so
                // its alias of the enabled extension is asked next).
                let stop = wanted
                    .iter()
                    .position(|&c| !matches!(commands::info(c).origin, Origin::Core(v) if v == vk::API_VERSION_1_3))
                    .map_or(wanted.len(), |i| i + 1);
                wanted[..stop].to_vec()
            })
            .collect();
        let expected_names: Vec<String> = expected
            .iter()
            .map(|&c| commands::info(c).name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(asked, expected_names);
        assert_eq!(answers.asked.len(), asked.len(), "each name asked once");
        assert!(asked.contains(&"vkCmdBeginRenderingKHR".to_owned()));
        assert!(!asked.contains(&"vkCmdDrawMultiEXT".to_owned()));
        assert!(!asked.contains(&"vkCmdBeginRendering2KHR".to_owned()));
        assert_eq!(answers.recorded(id(c"vkCmdBeginRendering")), Some(false));
        assert_eq!(answers.recorded(id(c"vkCmdBeginRenderingKHR")), Some(true));
        assert_eq!(answers.recorded(id(c"vkCreateFence")), Some(true));
        assert_eq!(answers.recorded(id(c"vkCmdDrawMultiEXT")), None);
        let slot = commands::info(id(c"vkCmdBeginRendering")).slot().unwrap();
        assert!(table.is_present(slot), "filled from the extension's alias");
        let multi = commands::info(id(c"vkCmdDrawMultiEXT")).slot().unwrap();
        assert!(!table.is_present(multi), "never asked, so a stub");
    }

    /// `load_some` (the slots of the wanted commands only) fills the table `load_with` fills
    /// when the provider refuses everything else, and asks the same names.
    #[test]
    fn filling_the_wanted_slots_only_is_filling_every_slot() {
        unsafe extern "system" fn f() {}
        let sets = [
            exposable_set(vk::API_VERSION_1_0, &ExtensionSet::from_names([])),
            exposable_set(
                vk::API_VERSION_1_1,
                &ExtensionSet::from_names([c"VK_KHR_swapchain", c"VK_KHR_dynamic_rendering"]),
            ),
            exposable_set(
                vk::make_api_version(0, 1, 4, 0),
                &ExtensionSet::from_names([c"VK_EXT_multi_draw", c"VK_KHR_maintenance5"]),
            ),
        ];
        for wanted in sets {
            let run = |some: bool| {
                let mut asked = Vec::new();
                // Refuses one name in three, so that aliases get asked too.
                let mut gpa = |id: CommandId| {
                    if !wanted.contains(id) {
                        return None;
                    }
                    asked.push(id);
                    (!id.0.is_multiple_of(3)).then_some(f as unsafe extern "system" fn())
                };
                // SAFETY: the one function answered is never called.
                let table = unsafe {
                    if some {
                        DeviceDispatchTable::load_some(wanted.iter(), &mut gpa)
                    } else {
                        DeviceDispatchTable::load_with(&mut gpa)
                    }
                };
                let present: Vec<bool> = (0..DeviceDispatchTable::LEN)
                    .map(|s| table.is_present(s))
                    .collect();
                asked.sort();
                (present, asked)
            };
            assert_eq!(run(true), run(false));
        }
    }

    /// The answer of the fake chain and driver below for `name`: a function except for the core
    /// names of 1.3.
    fn fake_answer(name: &CStr) -> vk::PFN_vkVoidFunction {
        unsafe extern "system" fn any() {}
        let core_13 = matches!(
            commands::info(id(name)).origin,
            Origin::Core(v) if v == vk::API_VERSION_1_3
        );
        (!core_13).then_some(any as unsafe extern "system" fn())
    }

    static HEAD_ASKED: Mutex<Vec<String>> = Mutex::new(Vec::new());
    static DRIVER_ASKED: Mutex<Vec<String>> = Mutex::new(Vec::new());
    static AT_ONCE: Mutex<Vec<u32>> = Mutex::new(Vec::new());

    unsafe extern "system" fn head_gdpa(
        _: vk::Device,
        name: *const std::ffi::c_char,
    ) -> vk::PFN_vkVoidFunction {
        // SAFETY: `load` passes names from the generated table, NUL-terminated.
        let name = unsafe { CStr::from_ptr(name) };
        HEAD_ASKED
            .lock()
            .unwrap()
            .push(name.to_string_lossy().into_owned());
        fake_answer(name)
    }

    /// `vkgenGetDeviceProcAddrs` answering as [`fake_answer`], recording each call's count.
    unsafe extern "system" fn at_once(
        _: vk::Device,
        fingerprint: u64,
        count: u32,
        ids: *const u16,
        out: *mut vk::PFN_vkVoidFunction,
    ) -> vk::Result {
        assert_eq!(fingerprint, commands::FINGERPRINT);
        AT_ONCE.lock().unwrap().push(count);
        for i in 0..count as usize {
            // SAFETY: `load` passes `count` ids and room for `count` answers.
            unsafe { *out.add(i) = fake_answer(commands::info(CommandId(*ids.add(i))).name()) };
        }
        vk::Result::SUCCESS
    }

    /// A driver's vkGetDeviceProcAddr; `WITH_AT_ONCE` says whether it answers
    /// `vkgenGetDeviceProcAddrs`.
    unsafe extern "system" fn driver_gdpa<const WITH_AT_ONCE: bool>(
        _: vk::Device,
        name: *const std::ffi::c_char,
    ) -> vk::PFN_vkVoidFunction {
        use vkgen_generated::driver::{PfnGetDeviceProcAddrs, GET_DEVICE_PROC_ADDRS_NAME};
        // SAFETY: `load` passes NUL-terminated names.
        let name = unsafe { CStr::from_ptr(name) };
        if name == GET_DEVICE_PROC_ADDRS_NAME {
            let f: PfnGetDeviceProcAddrs = at_once;
            // SAFETY: function pointers share one representation.
            return WITH_AT_ONCE.then(|| unsafe {
                std::mem::transmute::<PfnGetDeviceProcAddrs, unsafe extern "system" fn()>(f)
            });
        }
        DRIVER_ASKED
            .lock()
            .unwrap()
            .push(name.to_string_lossy().into_owned());
        fake_answer(name)
    }

    /// With the driver under the terminator given, the forwarded names are the driver's (in one
    /// call where it has `vkgenGetDeviceProcAddrs`, else name by name), the rest the head's, and
    /// the table and its record are those of asking the head for every name.
    #[test]
    fn a_driver_under_the_terminator_answers_the_forwarded_names() {
        let exts = ExtensionSet::from_names([c"VK_KHR_dynamic_rendering"]);
        let version = vk::API_VERSION_1_3;
        // Every device command but the extension's alias is forwarded.
        let alias = id(c"vkCmdBeginRenderingKHR");
        static FORWARDED: OnceLock<CommandSet> = OnceLock::new();
        let forwarded = FORWARDED.get_or_init(|| {
            let mut set = CommandSet::default();
            for c in exposable_set(version, &exts).iter().filter(|&c| c != alias) {
                set.insert(c);
            }
            set
        });
        let run = |driver: Option<Driver>| {
            // SAFETY: the fake chain and driver ignore the device and read only the names.
            let (table, answers) =
                unsafe { load(vk::Device::null(), head_gdpa, version, &exts, driver) };
            let head = std::mem::take(&mut *HEAD_ASKED.lock().unwrap());
            let drv = std::mem::take(&mut *DRIVER_ASKED.lock().unwrap());
            let calls = std::mem::take(&mut *AT_ONCE.lock().unwrap());
            let present: Vec<bool> = (0..DeviceDispatchTable::LEN)
                .map(|s| table.is_present(s))
                .collect();
            (present, answers.asked, answers.answered, head, drv, calls)
        };
        let (present, asked, answered, head, drv, calls) = run(None);
        assert!(drv.is_empty() && calls.is_empty());
        assert!(head.contains(&"vkCreateFence".to_owned()));

        for with_at_once in [true, false] {
            let gdpa: vk::PFN_vkGetDeviceProcAddr = if with_at_once {
                driver_gdpa::<true>
            } else {
                driver_gdpa::<false>
            };
            let (p, a, b, h, d, c) = run(Some(Driver { gdpa, forwarded }));
            assert_eq!(
                (p, a, b),
                (present.clone(), asked, answered),
                "{with_at_once}"
            );
            assert_eq!(
                h,
                ["vkCmdBeginRenderingKHR"],
                "only the unforwarded name asked of the head"
            );
            if with_at_once {
                assert!(d.is_empty(), "{d:?}");
                assert_eq!(c, [exposable_set(version, &exts).len() as u32 - 1]);
            } else {
                assert!(c.is_empty());
                assert!(d.contains(&"vkCreateFence".to_owned()));
                assert_eq!(d.len() + h.len(), head.len(), "each name asked once");
            }
        }
    }
}
