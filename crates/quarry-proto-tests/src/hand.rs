//! Hand-written views that generated code refers to through an extern
//! path instead of generating them: `quarry.shared` of
//! `proto/ext/shared.proto`, written here over a table of its own.

/// Package `quarry.shared`.
pub mod shared {
    use quarry_proto::{FieldTable, Kind, Label, MessageRef, MessageTable, Record, Schema};

    static MONEY: [FieldTable; 2] = [
        FieldTable::new(1, "units", "units", Kind::Int64, Label::Implicit),
        FieldTable::new(2, "currency", "currency", Kind::String, Label::Implicit),
    ];
    static MESSAGES: [MessageTable; 1] = [MessageTable::new("quarry.shared.Money", &MONEY, &[])];
    /// The one table, `quarry.shared.Money`.
    pub static SCHEMA: Schema = Schema {
        messages: &MESSAGES,
        enums: &[],
    };

    /// `quarry.shared.Money`, by hand.
    #[derive(Clone, Copy, Debug, Default, PartialEq)]
    pub struct MoneyView<'a> {
        rec: Record<'a>,
    }

    impl<'a> MoneyView<'a> {
        /// The message's table.
        pub const TABLE: MessageRef = MessageRef::new(&SCHEMA, 0);

        /// Decode `input`.
        pub fn decode(
            arena: &'a quarry_proto::Arena,
            input: &'a [u8],
        ) -> Result<Self, quarry_proto::DecodeError> {
            quarry_proto::decode(Self::TABLE, arena, input).map(|rec| Self { rec })
        }

        /// What generated code wraps a record of this type with.
        #[doc(hidden)]
        pub fn __from_record(rec: Record<'a>) -> Self {
            Self { rec }
        }

        /// The underlying record.
        pub fn record(self) -> Record<'a> {
            self.rec
        }

        /// Field `units` = 1.
        pub fn units(self) -> i64 {
            self.rec.scalar(0).unwrap_or(0) as i64
        }

        /// Field `currency` = 2.
        pub fn currency(self) -> &'a str {
            self.rec.str(1).unwrap_or("")
        }
    }
}
