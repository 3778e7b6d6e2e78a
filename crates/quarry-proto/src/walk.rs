//! A walk over a decoded record and its nested messages with an explicit
//! stack instead of recursion, for the encoder and the text printer.
//!
//! A record may nest as deep as the decoder's `max_depth` allows, and that
//! is the caller's choice (the merging decoder reads any depth within the
//! arena budget). A printer or encoder that recursed once per level would
//! then overflow the thread's stack on a record the decoder accepted. The
//! walk keeps [`INLINE_LEVELS`] levels in a local array, so a walk of
//! ordinary messages allocates nothing, and the levels below them in a
//! `Vec`.

use crate::record::{Record, Slot, UNKNOWN, Val};
use crate::table::{FieldTable, MessageRef};

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
    /// The start of a nested message: the value, or one element, of
    /// `field` of a message of type `message`.
    Enter {
        message: MessageRef,
        field: &'static FieldTable,
    },
    /// The end of a nested message (`field` as at its `Enter`), or of the
    /// root (`None`). `mark` is what the consumer set with
    /// [`Walk::set_mark`] after the `Enter`, 0 if nothing.
    Leave {
        field: Option<&'static FieldTable>,
        mark: usize,
    },
}

/// One message being walked.
#[derive(Clone, Copy)]
pub(crate) struct Frame<'r> {
    message: MessageRef,
    /// The field this message is the value of; `None` for the root.
    field: Option<&'static FieldTable>,
    /// Slots not visited yet.
    rest: &'r [Slot<'r>],
    /// While a repeated message field is walked: the field and the
    /// elements not visited yet.
    list: Option<(&'static FieldTable, &'r [&'r [Slot<'r>]])>,
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
/// ones as they came), or in exactly the reverse order when `REVERSE`.
pub(crate) struct Walk<'r, const REVERSE: bool> {
    inline: [Option<Frame<'r>>; INLINE_LEVELS],
    inline_len: usize,
    /// Levels below the inline ones.
    spill: Vec<Frame<'r>>,
}

/// The first element of `s` and the rest, or with `REVERSE` the last.
#[inline]
fn take<T, const REVERSE: bool>(s: &[T]) -> Option<(&T, &[T])> {
    if REVERSE {
        s.split_last()
    } else {
        s.split_first()
    }
}

impl<'r, const REVERSE: bool> Walk<'r, REVERSE> {
    /// A walk of `record`, a message of type `message`.
    pub(crate) fn new(message: MessageRef, record: Record<'r>) -> Self {
        Self::reusing(message, record, Vec::new())
    }

    /// A walk that keeps the levels past the inline ones in `spill`'s
    /// buffer (what [`into_spill`](Self::into_spill) gave back), so a
    /// second walk of a deep record does not allocate again.
    pub(crate) fn reusing(
        message: MessageRef,
        record: Record<'r>,
        mut spill: Vec<Frame<'r>>,
    ) -> Self {
        spill.clear();
        let mut walk = Self {
            inline: [None; INLINE_LEVELS],
            inline_len: 0,
            spill,
        };
        walk.push(Frame::new(message, None, record.slots()));
        walk
    }

    /// The buffer of the levels past the inline ones, for
    /// [`reusing`](Self::reusing).
    pub(crate) fn into_spill(self) -> Vec<Frame<'r>> {
        self.spill
    }

    /// Levels of nesting below the root of the message the walk is in: 0
    /// for the root's fields, 1 after the `Enter` of one of its message
    /// fields, back to 0 after the matching `Leave`.
    pub(crate) fn depth(&self) -> usize {
        (self.inline_len + self.spill.len()).saturating_sub(1)
    }

    /// Set the mark of the message the walk is in (the one just entered
    /// after an `Enter`); its `Leave` returns it.
    pub(crate) fn set_mark(&mut self, mark: usize) {
        if let Some(top) = self.top() {
            top.mark = mark;
        }
    }

    /// The mark of the message the walk is in; 0 once the root has left.
    pub(crate) fn mark(&mut self) -> usize {
        self.top().map_or(0, |top| top.mark)
    }

    fn top(&mut self) -> Option<&mut Frame<'r>> {
        match self.spill.last_mut() {
            Some(top) => Some(top),
            None => self
                .inline_len
                .checked_sub(1)
                .and_then(|i| self.inline.get_mut(i))
                .and_then(Option::as_mut),
        }
    }

    fn push(&mut self, frame: Frame<'r>) {
        match self.inline.get_mut(self.inline_len) {
            Some(slot) if self.spill.is_empty() => {
                *slot = Some(frame);
                self.inline_len += 1;
            }
            _ => self.spill.push(frame),
        }
    }

    fn pop(&mut self) -> Option<Frame<'r>> {
        if let Some(frame) = self.spill.pop() {
            return Some(frame);
        }
        self.inline_len = self.inline_len.checked_sub(1)?;
        self.inline.get_mut(self.inline_len).and_then(Option::take)
    }

    /// The next step, `None` after the root's `Leave`.
    pub(crate) fn next(&mut self) -> Option<Step<'r>> {
        loop {
            let top = self.top()?;
            let message = top.message;
            if let Some((field, elements)) = top.list {
                match take::<_, REVERSE>(elements) {
                    Some((&element, rest)) => {
                        top.list = Some((field, rest));
                        let child = Frame::new(message.sub_message(field), Some(field), element);
                        self.push(child);
                        return Some(Step::Enter { message, field });
                    }
                    None => {
                        top.list = None;
                        continue;
                    }
                }
            }
            let Some((slot, rest)) = take::<_, REVERSE>(top.rest) else {
                let done = self.pop()?;
                return Some(Step::Leave {
                    field: done.field,
                    mark: done.mark,
                });
            };
            top.rest = rest;
            let field = match slot.field {
                UNKNOWN => None,
                i => message.table().fields.get(i as usize),
            };
            match (field, &slot.val) {
                (_, Val::Absent) => {}
                (Some(field), Val::Msg(slots)) => {
                    let child = Frame::new(message.sub_message(field), Some(field), slots);
                    self.push(child);
                    return Some(Step::Enter { message, field });
                }
                (Some(field), Val::Msgs(elements)) => top.list = Some((field, elements)),
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
