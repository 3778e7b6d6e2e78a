//! Protobuf messages of quarry-proto's test schemas: the first byte picks
//! `quarry.test2.All2` (even) or `quarry.test3.All3` (odd), the rest is the
//! message; see `quarry_fuzz::proto::check`.
#![no_main]

use quarry_proto_tests::views::{quarry::test2::All2View, quarry::test3::All3View};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Some((&schema, message)) = data.split_first() {
        let table = if schema % 2 == 0 {
            All2View::TABLE
        } else {
            All3View::TABLE
        };
        quarry_fuzz::proto::check(table, message);
    }
});
