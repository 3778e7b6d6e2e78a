//! WhatsApp's app-state and history protobufs (the generated views of
//! waproto's schema in quarry-proto-tests): the first byte picks
//! `SyncActionData` (even) or `HistorySync` (odd), the rest is the message;
//! see `quarry_fuzz::proto::check`.
#![no_main]

use quarry_proto_tests::wa::{HistorySyncView, SyncActionDataView};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Some((&root, message)) = data.split_first() {
        let table = if root % 2 == 0 {
            SyncActionDataView::TABLE
        } else {
            HistorySyncView::TABLE
        };
        quarry_fuzz::proto::check(table, message);
    }
});
