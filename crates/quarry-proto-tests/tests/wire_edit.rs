//! The wire editor the forward-compatible variants are made with
//! (`src/wire_edit.rs`), compiled here on its own: the library's own test
//! build would compile the generated WhatsApp code a second time. The
//! expected bytes are written out by hand from the protobuf encoding.

#[path = "../src/wire_edit.rs"]
mod wire_edit;

use wire_edit::{appended, edit, put_varint, with_varint};

#[test]
fn edit_rewrites_lengths_on_the_path() {
    // { 1: { 2: { 3: 1 } }, 4: 9 }: field 3 gains a sibling 5 = 2.
    let msg = [0x0A, 0x04, 0x12, 0x02, 0x18, 0x01, 0x20, 0x09];
    let got = edit(&msg, &[(1, Some(0)), (2, Some(0))], &|m| {
        appended(m, |out| put_varint(5, 2, out))
    });
    assert_eq!(
        got,
        [0x0A, 0x06, 0x12, 0x04, 0x18, 0x01, 0x28, 0x02, 0x20, 0x09]
    );
}

#[test]
fn with_varint_replaces_the_value_in_place() {
    let msg = [0x08, 0x01, 0x20, 0x03, 0x28, 0x07];
    assert_eq!(
        with_varint(&msg, 4, 300),
        [0x08, 0x01, 0x20, 0xAC, 0x02, 0x28, 0x07]
    );
}
