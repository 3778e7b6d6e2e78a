//! WhatsApp's `Message` protobuf (the generated view of waproto's schema in
//! quarry-proto-tests); see `quarry_fuzz::proto::check`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    quarry_fuzz::proto::check(quarry_proto_tests::wa::MessageView::TABLE, data)
});
