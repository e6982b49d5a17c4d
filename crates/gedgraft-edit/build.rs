//! Finds the shared corpus and specs for this crate's tests: sets the cfgs `has_corpus` and `has_spec` and the
//! variable `GEDGRAFT_SHARED_DIR`. `shared_data.rs` is a link to `tests/support/shared.rs` at the workspace root,
//! so the packaged crate carries the file (as a copy) and still builds.

include!("shared_data.rs");

fn main() {
    configure(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."));
}
