fn main() {
    let args: Vec<String> = std::env::args().collect();
    let opts = vkgen::Options { registry: Some(args[1].clone().into()), api_version: None, ..Default::default() };
    let t = std::time::Instant::now();
    match vkgen::generate(&opts) {
        Ok(g) => { vkgen::write(&g.files, std::path::Path::new(&args[2])).unwrap(); println!("{} in {:?}", g.summary, t.elapsed()); for w in g.warnings { println!("warning: {w}"); } }
        Err(e) => { eprintln!("{e}"); std::process::exit(e.exit_code()) }
    }
}
