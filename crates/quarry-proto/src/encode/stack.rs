//! The encoder's explicit stack: the ancestors of the message a pass is
//! in, the first [`INLINE_LEVELS`] in a local array.

use crate::inline_stack::InlineStack;
use crate::record::{Record, Slot};
use crate::table::{FieldTable, MessageRef, MessageTable, Schema};

/// Ancestors of the message being encoded kept in a local array: a record
/// nested deeper than this below its root spills into a `Vec`.
pub(super) const INLINE_LEVELS: usize = 31;

/// The table of a message type a field's `sub` does not name (never the
/// case in a generated or built schema): its fields encode as nothing.
static NO_FIELDS: MessageTable = MessageTable::new("", &[], &[]);

/// A message being encoded: the one a pass is in, or an ancestor of it
/// saved on the [`Stack`].
#[derive(Clone, Copy)]
pub(super) struct Level<'r> {
    pub(super) table: &'static MessageTable,
    /// The field this message is the value of; `None` for the root.
    pub(super) field: Option<&'static FieldTable>,
    /// Slots not visited yet (the measure visits them front to back, the
    /// write back to front).
    pub(super) rest: &'r [Slot<'r>],
    /// While one of its repeated message fields is visited, the elements
    /// not visited yet.
    pub(super) elements: &'r [&'r [Slot<'r>]],
    /// What its pass's cursor was when the message's body began (see
    /// [`Pass::open`](super::Pass::open)); unused for the root.
    pub(super) mark: usize,
}

impl<'r> Level<'r> {
    #[inline]
    pub(super) fn root(message: MessageRef, record: Record<'r>) -> Self {
        Self {
            table: message
                .schema
                .messages
                .get(message.index as usize)
                .unwrap_or(&NO_FIELDS),
            field: None,
            rest: record.slots(),
            elements: &[],
            mark: 0,
        }
    }

    /// The value `slots` of message field `f`.
    #[inline]
    pub(super) fn nested(
        schema: &'static Schema,
        f: &'static FieldTable,
        slots: &'r [Slot<'r>],
        mark: usize,
    ) -> Self {
        Self {
            table: schema.messages.get(f.sub as usize).unwrap_or(&NO_FIELDS),
            field: Some(f),
            rest: slots,
            elements: &[],
            mark,
        }
    }
}

/// The ancestors of the message a pass is in.
pub(super) type Stack<'r> = InlineStack<Level<'r>, INLINE_LEVELS>;
