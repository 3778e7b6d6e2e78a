//! Dense records: `quarry.test2.Point` (five fields, none repeated, none a
//! message) is decoded into one slot per field while the decode's dense
//! budget (one slot per two input bytes) has five slots left, and sparsely
//! otherwise. Readers, the
//! encoder and the JSON printer must not tell the two apart; what a dense
//! slot cannot hold (an unknown field, a closed enum's unlisted value, a
//! message field met again) ends the dense read, and the rest of the
//! message is read sparse above the present slots. Vectors are hand-encoded from the
//! protobuf encoding spec; prost decodes the same bytes as the independent
//! reference.

use prost::Message as _;
use quarry_core::Arena;
use quarry_proto::{MessageTable, UnknownField};
use quarry_proto_tests::pb::test2::{Link, Point};
use quarry_proto_tests::views::{
    quarry::test2::All2View, quarry::test2::Color, quarry::test2::LinkView,
    quarry::test2::PointView,
};

/// The table allows dense records; `Nested` (a repeated field) does not;
/// `Link` (singular message fields) does.
#[test]
fn point_and_link_are_dense_and_nested_is_not() {
    let point = PointView::TABLE.table();
    assert!(point.dense);
    assert_eq!(point.fields.len(), 5);
    assert!(
        !quarry_proto_tests::views::quarry::test2::NestedView::TABLE
            .table()
            .dense
    );
    assert!(MessageTable::dense_of(point.fields));
    assert!(LinkView::TABLE.table().dense);
}

/// A chain of `levels` links, link `i` holding value `i + 1` and the next
/// link; the innermost also holds a point (x = 9, label "pq").
fn chain(levels: u32) -> Vec<u8> {
    let point = [0x08, 9, 0x1A, 2, b'p', b'q', 0x20, 3];
    let mut body = vec![0x08, levels as u8, 0x1A, point.len() as u8];
    body.extend_from_slice(&point);
    for i in (0..levels - 1).rev() {
        let mut link = vec![0x08, i as u8 + 1, 0x12];
        let mut len = body.len();
        while len >= 0x80 {
            link.push(len as u8 | 0x80);
            len >>= 7;
        }
        link.push(len as u8);
        link.extend_from_slice(&body);
        body = link;
    }
    body
}

/// Links inside links: the outer ones dense while the decode's dense
/// budget (one slot per two input bytes) lasts, the inner ones sparse
/// after it; every level reads as prost reads it.
#[test]
fn nested_dense_links_agree_with_prost_past_the_budget() {
    for levels in [1, 2, 5, 40, 90] {
        let bytes = chain(levels);
        let arena = Arena::new();
        let view = LinkView::decode(&arena, &bytes).unwrap();
        let reference = Link::decode(&bytes[..]).unwrap();
        assert_eq!(view.to_prost(), reference, "{levels} levels");
        let mut link = Some(view);
        let mut depth = 0;
        while let Some(l) = link {
            depth += 1;
            assert_eq!(l.value(), depth, "{levels} levels");
            if depth == levels {
                let p = l.point().unwrap();
                assert_eq!((p.x(), p.label(), p.color()), (9, "pq", Color::Blue));
            }
            link = l.next();
        }
        assert_eq!(depth, levels);
        assert_eq!(view.encode().unwrap(), bytes);
    }
}

/// x = 5, label = "ab", y = -3 (zigzag 5), color = GREEN, mask (field 20,
/// a two-byte tag) = 0x01020304, then x = 7 again: 18 bytes, dense. The
/// last x wins, as protobuf says for singular scalars.
#[test]
fn every_field_out_of_order_and_repeated_reads_as_prost_does() {
    let bytes = [
        0x08, 5, // x = 5
        0x1A, 2, b'a', b'b', // label = "ab"
        0x10, 5, // y = zigzag(5) = -3
        0x20, 2, // color = GREEN
        0xA5, 0x01, 4, 3, 2, 1, // mask = 0x01020304
        0x08, 7, // x = 7
    ];
    let arena = Arena::new();
    let view = PointView::decode(&arena, &bytes).unwrap();
    assert_eq!(view.x(), 7);
    assert_eq!(view.y(), -3);
    assert_eq!(view.label(), "ab");
    assert_eq!(view.color(), Color::Green);
    assert_eq!(view.mask(), 0x0102_0304);
    assert!(view.has_x() && view.has_y() && view.has_label() && view.has_color());
    assert!(view.has_mask());
    assert_eq!(view.record().present_fields(), 5);
    assert_eq!(view.unknown_fields().count(), 0);

    let reference = Point::decode(&bytes[..]).unwrap();
    assert_eq!(view.to_prost(), reference);
    // Re-encoded in field order, once each: prost reads the same message.
    let encoded = view.encode().unwrap();
    assert_eq!(
        encoded,
        [
            0x08, 7, 0x10, 5, 0x1A, 2, b'a', b'b', 0x20, 2, 0xA5, 0x01, 4, 3, 2, 1
        ]
    );
    assert_eq!(Point::decode(&encoded[..]).unwrap(), reference);
}

/// label = "hello world" only (13 bytes, dense): the other four slots are
/// absent and read as absent everywhere.
#[test]
fn absent_fields_of_a_dense_record_are_absent_to_every_reader() {
    let mut bytes = vec![0x1A, 11];
    bytes.extend_from_slice(b"hello world");
    let arena = Arena::new();
    let view = PointView::decode(&arena, &bytes).unwrap();
    assert_eq!(view.label(), "hello world");
    assert!(!view.has_x() && !view.has_y() && !view.has_color() && !view.has_mask());
    assert_eq!((view.x(), view.y(), view.mask()), (0, 0, 0));
    // A closed enum with no zero value reads as its first value.
    assert_eq!(view.color(), Color::Red);
    assert_eq!(view.record().present_fields(), 1);
    assert_eq!(view.encode().unwrap(), bytes);
    assert_eq!(view.to_json().unwrap(), r#"{"label":"hello world"}"#);
    assert_eq!(view.to_prost(), Point::decode(&bytes[..]).unwrap());
}

/// x = 1 alone: 2 input bytes give a dense budget of 1 slot, short of
/// Point's 5: a sparse record, read the same way.
#[test]
fn past_the_dense_budget_a_sparse_record_reads_the_same() {
    let bytes = [0x08, 1];
    let arena = Arena::new();
    let view = PointView::decode(&arena, &bytes).unwrap();
    assert_eq!(view.x(), 1);
    assert!(view.has_x() && !view.has_label());
    assert_eq!(view.record().present_fields(), 1);
    assert_eq!(view.encode().unwrap(), bytes);
    assert_eq!(view.to_json().unwrap(), r#"{"x":1}"#);
}

/// `view`'s unknown fields are one, a raw field with `tag` and `value`.
fn assert_one_unknown(view: PointView<'_>, tag: u32, value: &[u8]) {
    let unknown: Vec<UnknownField<'_>> = view.unknown_fields().collect();
    assert_eq!(unknown, vec![UnknownField::Raw { tag, value }]);
}

/// An unknown field (9, varint 5) in a dense body: the body goes on
/// sparse and keeps it, after the known fields.
#[test]
fn an_unknown_field_in_a_dense_body_is_kept() {
    let bytes = [
        0x08, 1, // x = 1
        0x1A, 8, b'a', b'b', b'c', b'd', b'e', b'f', b'g', b'h', // label
        0x48, 5, // field 9, varint 5: unknown
    ];
    let arena = Arena::new();
    let view = PointView::decode(&arena, &bytes).unwrap();
    assert_eq!((view.x(), view.label()), (1, "abcdefgh"));
    assert_one_unknown(view, 72, &[5]);
    assert_eq!(view.encode().unwrap(), bytes);
}

/// Every field of a dense body set, then an unknown field (9, varint 5):
/// no absent slot is left for it, and the record holds the five fields
/// and the unknown one after them.
#[test]
fn an_unknown_field_after_every_field_of_a_dense_body_is_kept() {
    let mut bytes = vec![
        0x08, 1, // x = 1
        0x10, 4, // y = 2 (zigzag)
        0x1A, 8, // label
    ];
    bytes.extend_from_slice(b"abcdefgh");
    bytes.extend_from_slice(&[0x20, 2]); // color = GREEN (2)
    bytes.extend_from_slice(&[0xA5, 0x01, 1, 2, 3, 4]); // mask (20), fixed32
    bytes.extend_from_slice(&[0x48, 5]); // field 9, varint 5: unknown
    let arena = Arena::new();
    let view = PointView::decode(&arena, &bytes).unwrap();
    assert_eq!(
        (view.x(), view.y(), view.label(), view.mask()),
        (1, 2, "abcdefgh", 0x0403_0201)
    );
    assert_eq!(view.to_prost(), Point::decode(&bytes[..]).unwrap());
    assert_one_unknown(view, 72, &[5]);
    assert_eq!(view.record().present_fields(), 5);
    assert_eq!(view.encode().unwrap(), bytes);
}

/// An unknown field (9, varint 5) between known fields of a dense body:
/// the fields after it are read sparse, and the record holds every known
/// field in number order with the unknown one last, as its encoding shows.
#[test]
fn an_unknown_field_between_known_fields_of_a_dense_body_is_kept() {
    let mut bytes = vec![
        0x08, 1, // x = 1
        0x48, 5, // field 9, varint 5: unknown
        0x1A, 8, // label
    ];
    bytes.extend_from_slice(b"abcdefgh");
    bytes.extend_from_slice(&[0x10, 4]); // y = 2, after label
    let arena = Arena::new();
    let view = PointView::decode(&arena, &bytes).unwrap();
    assert_eq!((view.x(), view.y(), view.label()), (1, 2, "abcdefgh"));
    assert!(!view.has_color());
    assert_eq!(view.to_prost(), Point::decode(&bytes[..]).unwrap());
    assert_one_unknown(view, 72, &[5]);
    let mut canonical = vec![0x08, 1, 0x10, 4, 0x1A, 8];
    canonical.extend_from_slice(b"abcdefgh");
    canonical.extend_from_slice(&[0x48, 5]);
    assert_eq!(view.encode().unwrap(), canonical);
}

/// color = 9, which `Color` (a closed proto2 enum) does not list: kept as
/// an unknown field, the field itself absent, as protobuf does.
#[test]
fn a_closed_enums_unknown_value_in_a_dense_body_is_an_unknown_field() {
    let bytes = [
        0x1A, 8, b'a', b'b', b'c', b'd', b'e', b'f', b'g', b'h', // label
        0x20, 9, // color = 9
    ];
    let arena = Arena::new();
    let view = PointView::decode(&arena, &bytes).unwrap();
    assert!(!view.has_color());
    assert_eq!(view.color(), Color::Red);
    assert_one_unknown(view, 32, &[9]);
    assert_eq!(view.encode().unwrap(), bytes);
}

/// Points nested in `All2` (field 90 and repeated 91), dense and sparse
/// side by side, agree with prost.
#[test]
fn nested_points_agree_with_prost() {
    let mut bytes = vec![0xA8, 0x01, 0x01]; // f_required = 1
    // point (90) = { x: 3, label: "abcdefgh" } (12 bytes)
    bytes.extend_from_slice(&[0xD2, 0x05, 12, 0x08, 3, 0x1A, 8]);
    bytes.extend_from_slice(b"abcdefgh");
    // points (91) = [{ y: -1 } four times, { x: 2, y: 1, label: "xyzw",
    // color: BLUE }]: 53 input bytes, a dense budget of 26 slots; the
    // first five points take 25, so the last is read sparse.
    for _ in 0..4 {
        bytes.extend_from_slice(&[0xDA, 0x05, 2, 0x10, 1]);
    }
    bytes.extend_from_slice(&[0xDA, 0x05, 12, 0x08, 2, 0x10, 2, 0x1A, 4]);
    bytes.extend_from_slice(b"xyzw");
    bytes.extend_from_slice(&[0x20, 3]);
    let arena = Arena::new();
    let view = All2View::decode(&arena, &bytes).unwrap();
    let point = view.point().unwrap();
    assert_eq!(
        (point.x(), point.label(), point.has_y()),
        (3, "abcdefgh", false)
    );
    let points: Vec<PointView<'_>> = view.points().collect();
    assert_eq!(points.len(), 5);
    for p in &points[..4] {
        assert_eq!((p.y(), p.has_x()), (-1, false));
    }
    assert_eq!(
        (
            points[4].x(),
            points[4].y(),
            points[4].label(),
            points[4].color()
        ),
        (2, 1, "xyzw", Color::Blue)
    );
    let reference = quarry_proto_tests::pb::test2::All2::decode(&bytes[..]).unwrap();
    assert_eq!(view.to_prost(), reference);
    assert_eq!(view.encode().unwrap(), bytes);
}

/// `Pair` is dense and its two `Nested` fields are not: the first sparse
/// child takes the decoder's scratch buffer as its record, the second
/// starts a new buffer. Every arrangement reads as prost reads it:
/// both children, either alone, out of order, empty, a child whose
/// repeated field makes it gather, and a child sent twice (merged).
#[test]
fn sparse_children_of_a_dense_message_agree_with_prost() {
    use quarry_proto_tests::pb::test2::Pair;
    use quarry_proto_tests::views::quarry::test2::PairView;

    // first = { id: 1, name: "ab" }
    let first = [0x0A, 6, 0x08, 1, 0x12, 2, b'a', b'b'];
    // second = { id: 2, inner: { id: 3 } }
    let second = [0x12, 6, 0x08, 2, 0x1A, 2, 0x08, 3];
    let count = [0x18, 7];
    let cat = |parts: &[&[u8]]| parts.concat();
    let canonical = cat(&[&first, &second, &count]);

    let arena = Arena::new();
    let view = PairView::decode(&arena, &canonical).unwrap();
    let (a, b) = (view.first().unwrap(), view.second().unwrap());
    assert_eq!((a.id(), a.name(), a.inner().is_none()), (1, "ab", true));
    assert_eq!((b.id(), b.inner().map(|i| i.id())), (2, Some(3)));
    assert_eq!(view.count(), 7);
    assert_eq!(view.encode().unwrap(), canonical);

    let cases: [(&str, Vec<u8>); 7] = [
        ("both", canonical.clone()),
        ("second first", cat(&[&count, &second, &first])),
        ("first only", first.to_vec()),
        ("second only", cat(&[&second, &count])),
        ("empty first, then second", cat(&[&[0x0A, 0], &second])),
        // first = { colors: [GREEN, BLUE], id: 4 }: repeated and out of
        // number order, so its slots are gathered.
        (
            "gathered first",
            cat(&[&[0x0A, 6, 0x20, 2, 0x20, 3, 0x08, 4], &second]),
        ),
        // first twice: merged (id from the first, name from the second).
        (
            "first twice",
            cat(&[&[0x0A, 2, 0x08, 5], &second, &[0x0A, 3, 0x12, 1, b'z']]),
        ),
    ];
    for (name, bytes) in cases {
        let arena = Arena::new();
        let view = PairView::decode(&arena, &bytes).unwrap();
        let reference = Pair::decode(&bytes[..]).unwrap();
        assert_eq!(view.to_prost(), reference, "{name}");
        assert_eq!(
            Pair::decode(&view.encode().unwrap()[..]).unwrap(),
            reference,
            "{name}: re-encoded"
        );
    }
}

/// A dense `Link` whose `point` comes three times, with an unknown field
/// (9, varint 5) before the second and `value` written again between the
/// second and the third: the points merge in input order (x from the
/// third, y from the second, label from the first), the last `value`
/// wins, and the unknown field is kept. The same message without the
/// unknown field leaves the dense read at the second point instead. The
/// long label keeps every record within the dense budget.
#[test]
fn later_occurrences_of_a_message_field_merge_around_an_unknown_field() {
    use quarry_proto_tests::pb::test2::Link;

    let label = b"abcdefghijklmnopqrstuvwx";
    let mut first = vec![0x1A, 2 + label.len() as u8, 0x1A, label.len() as u8];
    first.extend_from_slice(label);
    let unknown = [0x48, 5];
    let second = [0x1A, 4, 0x08, 1, 0x10, 3]; // x = 1, y = zigzag(3) = -2
    let value_again = [0x08, 2];
    let third = [0x1A, 2, 0x08, 3]; // x = 3
    let cat = |parts: &[&[u8]]| parts.concat();
    let cases = [
        (
            "around an unknown field",
            cat(&[&[0x08, 1], &first, &unknown, &second, &value_again, &third]),
            true,
        ),
        (
            "no unknown field",
            cat(&[&[0x08, 1], &first, &second, &value_again, &third]),
            false,
        ),
    ];
    for (name, bytes, has_unknown) in cases {
        let arena = Arena::new();
        let view = LinkView::decode(&arena, &bytes).unwrap();
        let point = view.point().unwrap();
        assert_eq!(view.value(), 2, "{name}");
        assert_eq!((point.x(), point.y()), (3, -2), "{name}");
        assert_eq!(point.label().as_bytes(), label, "{name}");
        let unknown: Vec<UnknownField<'_>> = view.unknown_fields().collect();
        let expected = if has_unknown {
            vec![UnknownField::Raw {
                tag: 72,
                value: &[5],
            }]
        } else {
            Vec::new()
        };
        assert_eq!(unknown, expected, "{name}");
        let reference = Link::decode(&bytes[..]).unwrap();
        assert_eq!(view.to_prost(), reference, "{name}");
        let encoded = view.encode().unwrap();
        assert_eq!(
            Link::decode(&encoded[..]).unwrap(),
            reference,
            "{name}: re-encoded"
        );
    }
}
