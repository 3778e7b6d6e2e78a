//! Generates prost 0.14 types for WhatsApp's schema, as a consumer's
//! `build.rs` would (protox instead of protoc, prost-build's defaults).

#[path = "../../../crates/quarry-proto-tests/waproto_src.rs"]
mod waproto_src;

fn main() {
    let dir =
        waproto_src::waproto_src().expect("waproto 0.7 in the resolved graph (cargo metadata)");
    let proto = dir.join("whatsapp.proto");
    println!("cargo:rerun-if-changed={}", proto.display());
    let fds = protox::compile([&proto], [&dir]).expect("compile whatsapp.proto");
    prost_build::Config::new()
        .compile_fds(fds)
        .expect("prost-build");
}
