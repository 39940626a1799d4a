//! Uses the tables vkgen generated in build.rs: looks commands up by name and prints what a
//! loader would build from them.

// The generated modules refer to each other as `crate::…`: include them at the crate root.
include!(concat!(env!("OUT_DIR"), "/vkgen.rs"));

fn main() {
    let major = API_VERSION >> 22;
    let minor = (API_VERSION >> 12) & 0x3ff;
    println!("Vulkan {major}.{minor} (header {HEADER_VERSION})");
    println!("commands: {}", commands::COMMANDS.len());
    println!("extensions: {}", extensions::EXTENSIONS.len());
    for name in [c"vkCreateInstance", c"vkCmdDraw", c"vkNoSuchCommand"] {
        match commands::lookup(name) {
            Some(id) => println!("{}: {:?}", name.to_string_lossy(), commands::info(id).level),
            None => println!("{}: unknown", name.to_string_lossy()),
        }
    }
}
