//! `quarry_proto::well_known` is this generator's output for protobuf's
//! well-known types, checked in (quarry-proto cannot build-depend on its
//! own generator). This test regenerates it and requires the checked-in
//! file to be that output; `QUARRY_BLESS=1` rewrites the file instead.

use quarry_proto_build::{Builder, WELL_KNOWN_FILES};

#[test]
fn checked_in_well_known_module_is_the_generators_output() {
    // Files built into protox: an include directory without them, so that
    // the names are looked up as imports are.
    let mut b = Builder::new()
        .well_known_types(false)
        .rustfmt(false)
        .include(concat!(env!("CARGO_MANIFEST_DIR"), "/tests"));
    for f in WELL_KNOWN_FILES {
        b = b.file(f);
    }
    let code = b.generate().expect("generates the well-known types");
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../quarry-proto/src/well_known_generated.rs");
    if std::env::var_os("QUARRY_BLESS").is_some() {
        std::fs::write(&path, &code).expect("write the well-known module");
    }
    let on_disk = std::fs::read_to_string(&path).expect("read the well-known module");
    assert!(
        on_disk == code,
        "{} is not the generator's output: run QUARRY_BLESS=1 cargo test -p quarry-proto-build --test well_known",
        path.display()
    );
    // Every type the default extern paths name is in the module, as a view
    // or as an enum (a message's builder too).
    for t in quarry_proto_build::WELL_KNOWN_TYPES {
        let view = format!("pub struct {t}View<'a>");
        let builder = format!("pub struct {t}Builder<'a>");
        let enm = format!("pub enum {t} {{");
        assert!(
            (code.contains(&view) && code.contains(&builder)) || code.contains(&enm),
            "{t} missing"
        );
    }
}
