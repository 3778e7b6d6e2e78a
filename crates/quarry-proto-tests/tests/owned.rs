//! Owned protobuf messages: a record that keeps its input and arena reads
//! the same after moving to another thread, returns a pooled arena when
//! dropped, and frees everything it held (a counting allocator watches the
//! live heap bytes of this thread and the one it moved to).

use prost::Message as _;
use quarry_core::ArenaPool;
use quarry_core::bytes::Bytes;
use quarry_proto::OwnedRecord;
use quarry_proto_tests::samples;
use quarry_proto_tests::wa::MessageView;

#[global_allocator]
static GLOBAL: quarry_testkit::CountingAlloc = quarry_testkit::CountingAlloc;

/// What prost reads from the sample: the independent expectation.
fn expected(bytes: &[u8]) -> (String, String, String) {
    let m = quarry_proto_tests::pb::whatsapp::Message::decode(bytes).unwrap();
    let ext = m.extended_text_message.unwrap();
    let ctx = ext.context_info.unwrap();
    let quoted = ctx.quoted_message.unwrap();
    (
        ext.text.unwrap_or_default(),
        ctx.participant.unwrap_or_default(),
        quoted.conversation.unwrap_or_default(),
    )
}

fn read(rec: &OwnedRecord) -> (String, String, String) {
    let m = MessageView::from_record(rec.get()).unwrap();
    let ext = m.extended_text_message().unwrap();
    let ctx = ext.context_info().unwrap();
    (
        ext.text().to_owned(),
        ctx.participant().to_owned(),
        ctx.quoted_message().unwrap().conversation().to_owned(),
    )
}

#[test]
fn an_owned_record_reads_the_same_on_another_thread_and_frees_everything() {
    let bytes = Bytes::from(samples::text_reply_quoted().encode_to_vec());
    let want = expected(&bytes);
    // Everything the tracked steps make (pool, arena, strings read) must be
    // freed by the end.
    // Cloning `Bytes` made from a `Vec` allocates its shared header once,
    // kept until the last clone goes: made here, outside the count.
    let input = bytes.clone();
    let before = quarry_testkit::live_bytes();
    let pool = quarry_testkit::tracked(ArenaPool::new);
    let rec = quarry_testkit::tracked(|| {
        let rec = OwnedRecord::decode_with(
            &quarry_proto::Decoder::new(),
            MessageView::TABLE,
            pool.get(),
            input,
        )
        .unwrap();
        assert_eq!(read(&rec), want);
        rec
    });
    assert_eq!(pool.stats().checked_out, 1);
    let moved_want = want.clone();
    let rec = std::thread::spawn(move || {
        quarry_testkit::tracked(|| assert_eq!(read(&rec), moved_want));
        rec
    })
    .join()
    .unwrap();
    quarry_testkit::tracked(|| {
        assert_eq!(read(&rec), want);
        // Strings borrow from the input: a zero-copy slice of it.
        let ext = MessageView::from_record(rec.get())
            .unwrap()
            .extended_text_message()
            .unwrap();
        let text = rec.slice_bytes(ext.text().as_bytes());
        assert!(bytes.as_ptr_range().contains(&text.as_ptr()));
        assert_eq!(text, want.0.as_bytes());
        // `with` hands the closure the same record.
        let through_with = rec.with(|r| {
            let ext = MessageView::from_record(r)
                .unwrap()
                .extended_text_message()
                .unwrap();
            ext.text().to_owned()
        });
        assert_eq!(through_with, want.0);
        assert_eq!(rec.backing_bytes(), &bytes);
        drop(rec);
    });
    assert_eq!(pool.stats().checked_out, 0);
    assert_eq!(pool.stats().pooled, 1);

    // A message that fails to decode returns its pooled arena too.
    let err = quarry_testkit::tracked(|| {
        OwnedRecord::decode_with(
            &quarry_proto::Decoder::new(),
            MessageView::TABLE,
            pool.get(),
            Bytes::from_static(&[0x0A, 0x05, 0x01]),
        )
        .unwrap_err()
    });
    assert!(err.offset() <= 3, "{err:?}");
    assert_eq!(pool.stats().checked_out, 0);
    // The error owns what it names (a boxed value): dropped, it frees it.
    quarry_testkit::tracked(|| drop(err));
    quarry_testkit::tracked(|| drop(pool));
    assert_eq!(
        quarry_testkit::live_bytes() - before,
        0,
        "leaked heap bytes"
    );
}
