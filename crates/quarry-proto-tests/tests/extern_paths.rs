//! Generated views of `proto/ext/order.proto` refer to the hand-written
//! `hand::shared::MoneyView` (an extern path maps `.quarry.shared`) and to
//! `quarry_proto::well_known` (the default for well-known types) instead
//! of types of their own; the bytes are written out by hand from the
//! protobuf encoding rules.

use quarry_core::Arena;
use quarry_proto::well_known::{
    StringValueBuilder, StringValueView, TimestampBuilder, TimestampView,
};
use quarry_proto_tests::ext::quarry::order::{OrderBuilder, OrderPayOneof, OrderView};
use quarry_proto_tests::hand::shared::MoneyView;

/// Money { units: 5, currency: "EUR" }: field 1 varint 5, field 2 "EUR".
const EUR5: [u8; 7] = [0x08, 0x05, 0x12, 0x03, b'E', b'U', b'R'];

/// Order { total: EUR5, at: { seconds: 2 }, items: [EUR5, {units: 1}],
/// by_sku: {"a": EUR5}, cash: {units: 1}, note: "hi" }.
fn order_bytes() -> Vec<u8> {
    let mut b = vec![0x0A, 7];
    b.extend(EUR5);
    b.extend([0x12, 2, 0x08, 0x02]); // at: Timestamp { seconds: 2 }
    b.extend([0x1A, 7]);
    b.extend(EUR5);
    b.extend([0x1A, 2, 0x08, 0x01]); // items[1]: Money { units: 1 }
    // by_sku entry: key (1) "a", value (2) EUR5.
    b.extend([0x22, 12, 0x0A, 1, b'a', 0x12, 7]);
    b.extend(EUR5);
    b.extend([0x2A, 2, 0x08, 0x01]); // cash: Money { units: 1 }
    b.extend([0x3A, 4, 0x0A, 2, b'h', b'i']); // note: StringValue { value: "hi" }
    b
}

#[test]
fn getters_return_the_extern_and_well_known_views() {
    let arena = Arena::new();
    let bytes = order_bytes();
    let order = OrderView::decode(&arena, &bytes).unwrap();
    let total: Option<MoneyView<'_>> = order.total();
    let total = total.unwrap();
    assert_eq!((total.units(), total.currency()), (5, "EUR"));
    let at: Option<TimestampView<'_>> = order.at();
    assert_eq!(at.unwrap().seconds(), 2);
    let items: Vec<(i64, &str)> = order.items().map(|m| (m.units(), m.currency())).collect();
    assert_eq!(items, [(5, "EUR"), (1, "")]);
    let by_sku = order.by_sku().get("a").unwrap();
    assert_eq!(by_sku.currency(), "EUR");
    match order.pay() {
        Some(OrderPayOneof::Cash(m)) => assert_eq!(m.units(), 1),
        other => panic!("{other:?}"),
    }
    let note: Option<StringValueView<'_>> = order.note();
    assert_eq!(note.unwrap().value(), "hi");
    // The extern view decodes through its own table what the order's
    // tables decoded: the same fields.
    assert_eq!(MoneyView::decode(&arena, &EUR5).unwrap(), total);
}

#[test]
fn builders_take_the_extern_and_well_known_views() {
    let arena = Arena::new();
    let eur5 = MoneyView::decode(&arena, &EUR5).unwrap();
    let one = MoneyView::decode(&arena, &[0x08, 0x01]).unwrap();
    let mut at = TimestampBuilder::new(&arena);
    at.set_seconds(2);
    let mut note = StringValueBuilder::new(&arena);
    note.set_value("hi");
    let mut order = OrderBuilder::new(&arena);
    order
        .set_total(eur5)
        .set_at(at.build())
        .set_items([eur5, one])
        .set_by_sku([("a", eur5)])
        .set_cash(one)
        .set_note(note.build());
    assert_eq!(order.build().encode().unwrap(), order_bytes());
}
