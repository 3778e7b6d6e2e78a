//! A walk over a decoded record and its nested messages with an explicit
//! stack instead of recursion, for the text printer.
//!
//! A record may nest as deep as the decoder's `max_depth` allows, and that
//! is the caller's choice (the decoder reads any depth on stack segments it
//! adds as it goes). A printer or encoder that recursed once per level would
//! then overflow the thread's stack on a record the decoder accepted. The
//! walk keeps [`INLINE_LEVELS`] levels in a local array, so a walk of
//! ordinary messages allocates nothing, and the levels below them in a
//! `Vec` (an [`InlineStack`]).

use std::cmp::Ordering;

use crate::inline_stack::InlineStack;
use crate::record::{Record, Slot, UNKNOWN, Val};
use crate::table::{FieldTable, Kind, MessageRef};

/// Levels of nesting the walk tracks without allocating.
pub(crate) const INLINE_LEVELS: usize = 32;

/// What the walk meets next.
#[derive(Clone, Copy)]
pub(crate) enum Step<'r> {
    /// A slot that is not a nested message: a scalar, string or bytes
    /// value, a repeated field of those, or an unknown field (`field` is
    /// `None`), of a message of type `message`.
    Leaf {
        message: MessageRef,
        field: Option<&'static FieldTable>,
        slot: &'r Slot<'r>,
    },
    /// The start of a nested message, `record`: the value, or one
    /// element, of `field` of a message of type `message`.
    Enter {
        message: MessageRef,
        field: &'static FieldTable,
        record: Record<'r>,
    },
    /// The end of a nested message (`field` as at its `Enter`), or of the
    /// root (`None`). `mark` is what the consumer set with
    /// [`Walk::set_mark`] after the `Enter`, 0 if nothing.
    Leave {
        field: Option<&'static FieldTable>,
        mark: usize,
    },
}

/// The elements of a repeated message field not visited yet.
#[derive(Clone, Copy)]
enum Elements<'r> {
    /// In input order.
    Slice(&'r [&'r [Slot<'r>]]),
    /// A map's entries in key order (see [`Walk::sorting_maps`]): indices
    /// `next..end` of the walk's `sorted` buffer, whose run for this map
    /// starts at `start`.
    Sorted {
        start: usize,
        next: usize,
        end: usize,
    },
}

/// The next element of a repeated message field, as [`Walk::next`] finds
/// it.
enum Pick<'r> {
    Element(&'r [Slot<'r>]),
    /// At this index of the sorted buffer.
    Sorted(usize),
    /// None left; for a sorted map, where its run of the buffer starts.
    Done(Option<usize>),
}

/// One message being walked. `Copy`, so the inline levels need no drop
/// and cost nothing to clear.
#[derive(Clone, Copy)]
struct Frame<'r> {
    message: MessageRef,
    /// The field this message is the value of; `None` for the root.
    field: Option<&'static FieldTable>,
    /// Slots not visited yet.
    rest: &'r [Slot<'r>],
    /// While a repeated message field is walked: the field and the
    /// elements not visited yet.
    list: Option<(&'static FieldTable, Elements<'r>)>,
    mark: usize,
}

impl<'r> Frame<'r> {
    fn new(message: MessageRef, field: Option<&'static FieldTable>, slots: &'r [Slot<'r>]) -> Self {
        Self {
            message,
            field,
            rest: slots,
            list: None,
            mark: 0,
        }
    }
}

/// The walk: fields in record order (known fields by number, then unknown
/// ones as they came).
pub(crate) struct Walk<'r> {
    levels: InlineStack<Frame<'r>, INLINE_LEVELS>,
    sort_maps: bool,
    /// The entries of the maps being walked in key order, each map's run
    /// above the runs of the maps it is nested in (a stack, as the levels).
    sorted: Vec<&'r [Slot<'r>]>,
}

impl<'r> Walk<'r> {
    /// A walk of `record`, a message of type `message`.
    pub(crate) fn new(message: MessageRef, record: Record<'r>) -> Self {
        let mut walk = Self {
            levels: InlineStack::new(),
            sort_maps: false,
            sorted: Vec::new(),
        };
        walk.push(Frame::new(message, None, record.slots()));
        walk
    }

    /// Visit a map field's entries as protobuf's text printer does: in key
    /// order, entries with equal keys all, in input order.
    pub(crate) fn sorting_maps(mut self) -> Self {
        self.sort_maps = true;
        self
    }

    /// Levels of nesting below the root of the message the walk is in: 0
    /// for the root's fields, 1 after the `Enter` of one of its message
    /// fields, back to 0 after the matching `Leave`.
    pub(crate) fn depth(&self) -> usize {
        self.levels.len().saturating_sub(1)
    }

    /// Set the mark of the message the walk is in (the one just entered
    /// after an `Enter`); its `Leave` returns it.
    pub(crate) fn set_mark(&mut self, mark: usize) {
        if let Some(top) = self.top() {
            top.mark = mark;
        }
    }

    /// The type of the message the walk is in; `None` once the root has
    /// left.
    pub(crate) fn message(&mut self) -> Option<MessageRef> {
        self.top().map(|top| top.message)
    }

    fn top(&mut self) -> Option<&mut Frame<'r>> {
        self.levels.top()
    }

    fn push(&mut self, frame: Frame<'r>) {
        self.levels.push(frame);
    }

    fn pop(&mut self) -> Option<Frame<'r>> {
        self.levels.pop()
    }

    /// Step into `slots`, the value (or one element) of message field
    /// `field` of a message of type `message`.
    fn enter(
        &mut self,
        message: MessageRef,
        field: &'static FieldTable,
        slots: &'r [Slot<'r>],
    ) -> Step<'r> {
        self.push(Frame::new(message.sub_message(field), Some(field), slots));
        Step::Enter {
            message,
            field,
            record: Record::new(slots),
        }
    }

    /// The next step, `None` after the root's `Leave`.
    #[inline]
    pub(crate) fn next(&mut self) -> Option<Step<'r>> {
        loop {
            let sort_maps = self.sort_maps;
            let top = self.top()?;
            let message = top.message;
            if let Some((field, elements)) = &mut top.list {
                let field = *field;
                // Which element comes next; the sorted buffer is read once
                // `top`'s borrow of the walk has ended.
                let pick = match elements {
                    Elements::Slice(slice) => match slice.split_first() {
                        Some((&element, rest)) => {
                            *slice = rest;
                            Pick::Element(element)
                        }
                        None => Pick::Done(None),
                    },
                    Elements::Sorted { start, next, end } => {
                        if *next < *end {
                            *next += 1;
                            Pick::Sorted(*next - 1)
                        } else {
                            Pick::Done(Some(*start))
                        }
                    }
                };
                let element = match pick {
                    Pick::Element(element) => Some(element),
                    Pick::Sorted(at) => self.sorted.get(at).copied(),
                    Pick::Done(run) => {
                        if let Some(start) = run {
                            // This map's run is the top one: the runs of
                            // maps nested in its entries are gone already.
                            self.sorted.truncate(start);
                        }
                        None
                    }
                };
                let Some(element) = element else {
                    if let Some(top) = self.top() {
                        top.list = None;
                    }
                    continue;
                };
                return Some(self.enter(message, field, element));
            }
            let Some((slot, rest)) = top.rest.split_first() else {
                let done = self.pop()?;
                return Some(Step::Leave {
                    field: done.field,
                    mark: done.mark,
                });
            };
            top.rest = rest;
            let field = match slot.field() {
                UNKNOWN => None,
                i => message.table().fields.get(i as usize),
            };
            match (field, &slot.val()) {
                (_, Val::Absent) => {}
                (Some(field), Val::Msg(slots)) if !field.is_repeated() => {
                    return Some(self.enter(message, field, slots));
                }
                (Some(field), Val::Msg(_) | Val::Msgs(_)) => {
                    let elements = slot.elements();
                    let entry = message.sub_message(field);
                    if sort_maps && entry.table().map_entry {
                        let start = self.sorted.len();
                        self.sorted.extend(map_in_key_order(entry, elements, false));
                        let end = self.sorted.len();
                        if let Some(top) = self.top() {
                            top.list = Some((
                                field,
                                Elements::Sorted {
                                    start,
                                    next: start,
                                    end,
                                },
                            ));
                        }
                    } else {
                        top.list = Some((field, Elements::Slice(elements)));
                    }
                }
                _ => {
                    return Some(Step::Leaf {
                        message,
                        field,
                        slot,
                    });
                }
            }
        }
    }
}

/// A map's entries sorted by key (integers by value, signed or not as the
/// key's type says, strings bytewise, `false` before `true`). Entries with
/// equal keys stay in input order; with `one_per_key` only the last of them
/// is kept (the one a parsed map holds, what the JSON printer shows), and
/// without it all are (the text printer shows every entry on the wire, as
/// `protoc --decode` does).
pub(crate) fn map_in_key_order<'r>(
    entry: MessageRef,
    elements: &'r [&'r [Slot<'r>]],
    one_per_key: bool,
) -> Vec<&'r [Slot<'r>]> {
    let table = entry.table();
    let key = table.field_index(1);
    let kind = key
        .and_then(|k| table.fields.get(k as usize))
        .map(|f| f.kind);
    let key_cmp = |a: &[Slot<'_>], b: &[Slot<'_>]| -> Ordering {
        let (a, b) = (Record::new(a), Record::new(b));
        let Some(k) = key else {
            return Ordering::Equal;
        };
        match kind {
            Some(Kind::String | Kind::Bytes) => {
                let (a, b) = (
                    a.bytes(k).unwrap_or_default(),
                    b.bytes(k).unwrap_or_default(),
                );
                a.cmp(b)
            }
            Some(
                Kind::Int32
                | Kind::Int64
                | Kind::SInt32
                | Kind::SInt64
                | Kind::SFixed32
                | Kind::SFixed64,
            ) => {
                // Stored sign-extended to 64 bits.
                let (a, b) = (a.scalar(k).unwrap_or(0), b.scalar(k).unwrap_or(0));
                (a as i64).cmp(&(b as i64))
            }
            _ => a.scalar(k).unwrap_or(0).cmp(&b.scalar(k).unwrap_or(0)),
        }
    };
    let mut sorted: Vec<&[Slot<'r>]> = elements.to_vec();
    // Stable: entries with equal keys stay in input order, the last last.
    sorted.sort_by(|a, b| key_cmp(a, b));
    if !one_per_key {
        return sorted;
    }
    let mut kept = Vec::with_capacity(sorted.len());
    for (i, &element) in sorted.iter().enumerate() {
        let superseded = sorted
            .get(i + 1)
            .is_some_and(|next| key_cmp(next, element) == Ordering::Equal);
        if !superseded {
            kept.push(element);
        }
    }
    kept
}
