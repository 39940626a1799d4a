//! AOSP's ATRACE markers as the loader writes them to its `trace_marker` stand-in
//! (`VKGEN_TRACE_MARKER`): libcutils' `B|<pid>|<name>` / `E|<pid>` lines, read back as the tree
//! of sections they open and close.

/// A section and the sections inside it.
#[derive(Debug)]
pub struct Section {
    pub name: String,
    pub inner: Vec<Section>,
}

/// The markers as a tree, checking each is libcutils' with this process's id and that every
/// section ends.
///
/// # Panics
/// On a marker of another form or process, an end without a begin, or a section left open.
pub fn sections(markers: &str) -> Vec<Section> {
    let pid = std::process::id();
    let mut stack = vec![Section {
        name: String::new(),
        inner: Vec::new(),
    }];
    for line in markers.lines() {
        if let Some(name) = line.strip_prefix(&format!("B|{pid}|")) {
            stack.push(Section {
                name: name.to_owned(),
                inner: Vec::new(),
            });
        } else {
            assert_eq!(line, format!("E|{pid}"), "not a libcutils marker");
            let done = stack.pop().expect("an end without a begin");
            stack
                .last_mut()
                .expect("an end without a begin")
                .inner
                .push(done);
        }
    }
    assert_eq!(stack.len(), 1, "sections left open: {stack:?}");
    stack.pop().unwrap().inner
}

/// The names of `sections`, in order.
pub fn names(sections: &[Section]) -> Vec<&str> {
    sections.iter().map(|s| s.name.as_str()).collect()
}

/// The `n`th (0-based) section named `name` among `sections`.
///
/// # Panics
/// When there is none.
pub fn nth<'a>(sections: &'a [Section], name: &str, n: usize) -> &'a Section {
    sections
        .iter()
        .filter(|s| s.name == name)
        .nth(n)
        .unwrap_or_else(|| panic!("no section {name} #{n} in {:?}", names(sections)))
}
