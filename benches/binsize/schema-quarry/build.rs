//! Generates quarry views of WhatsApp's schema, as a consumer's `build.rs`
//! would (tables and views only: no prost conversions, no rustfmt pass).

#[path = "../../../crates/quarry-proto-tests/waproto_src.rs"]
mod waproto_src;

fn main() {
    let dir =
        waproto_src::waproto_src().expect("waproto 0.7 in the resolved graph (cargo metadata)");
    quarry_proto_build::Builder::new()
        .file(dir.join("whatsapp.proto"))
        .include(&dir)
        .rustfmt(false)
        .compile("wa_views.rs")
        .expect("generate WhatsApp views");
}
