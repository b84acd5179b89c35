//! Release builds embed every file of `ui/` gzipped at build time as well as plain
//! (`ui::gzipped`), so a daemon's start compresses nothing: gzipping them at start cost
//! ~6 MiB of resident memory the allocator never gave back (issue 32). A file gzip does not
//! make smaller gets an empty `.gz`, which means "send it as it is". Debug builds read and
//! compress the files per request and need nothing from here.

use std::io::Write;
use std::path::{Path, PathBuf};

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let ui = manifest.join("../../ui");
    println!("cargo:rerun-if-changed={}", ui.display());
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var_os("CARGO_CFG_DEBUG_ASSERTIONS").is_some() {
        return;
    }
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR")).join("ui-gz");
    walk(&ui, &ui, &out);
}

fn walk(dir: &Path, base: &Path, out: &Path) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            walk(&path, base, out);
            continue;
        }
        let rel = path.strip_prefix(base).expect("below ui/");
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        enc.write_all(&bytes).expect("gzip in memory");
        let gz = enc.finish().expect("gzip in memory");
        let target = out.join(format!("{}.gz", rel.display()));
        std::fs::create_dir_all(target.parent().expect("a parent")).expect("create OUT_DIR/ui-gz");
        let kept: &[u8] = if gz.len() < bytes.len() { &gz } else { &[] };
        std::fs::write(&target, kept).unwrap_or_else(|e| panic!("{}: {e}", target.display()));
    }
}
