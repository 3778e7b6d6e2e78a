//! A self-contained copy of an event for keeping: no borrow of the input,
//! all tag text back to back, `u32` offsets instead of string handles.

use std::mem::size_of;

use quarry_core::Arena;
use quarry_core::bumpalo::collections::{String as ArenaString, Vec as ArenaVec};

use crate::event::{Event, EventRec, TagsRepr};

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl<'a> Event<'a> {
    /// Copy this event into `arena` in the compacted form: the record, the
    /// content, all tag text in one string and one `u32` table (per-tag
    /// element counts, per-element end offsets). The copy borrows nothing
    /// from the input or the decode arena, and takes
    /// [`compacted_size`](Self::compacted_size) bytes, which for real
    /// events is less than their JSON (ids stay 32 bytes, not 64 hex
    /// digits; no quotes, commas or keys). The wire span
    /// ([`raw`](Self::raw)) is not kept.
    ///
    /// ```
    /// use quarry_core::Arena;
    ///
    /// let timeline = Arena::new();
    /// let kept = {
    ///     let mut scratch = Arena::new();
    ///     let json = quarry_nostr::SAMPLE_EVENT.to_owned();
    ///     let event = quarry_nostr::decode_event(&scratch, json.as_bytes())?;
    ///     let kept = event.compact_into(&timeline);
    ///     assert!(event.compacted_size() < json.len());
    ///     kept
    /// }; // the input and the decode arena are gone
    /// assert_eq!(kept.tags().get(1).unwrap().name(), "p");
    /// assert_eq!(kept.id_valid(), Some(true));
    /// # Ok::<(), quarry_core::DecodeError>(())
    /// ```
    pub fn compact_into<'b>(self, arena: &'b Arena) -> Event<'b> {
        let bump = arena.bump();
        let tags = self.tags();
        let ntags = tags.len();
        let nelems = tags.element_count();
        let text_len = tags.text_len();
        let mut text = ArenaString::with_capacity_in(text_len, bump);
        let mut idx = ArenaVec::with_capacity_in(ntags + nelems, bump);
        let mut count = 0usize;
        for t in tags.iter() {
            count += t.len();
            idx.push(to_u32(count));
        }
        for e in tags.iter().flat_map(|t| t.iter()) {
            text.push_str(e);
            idx.push(to_u32(text.len()));
        }
        let content: &'b str = bump.alloc_str(self.content());
        let rec = bump.alloc(EventRec {
            id: self.rec.id,
            pubkey: self.rec.pubkey,
            sig: self.rec.sig,
            created_at: self.rec.created_at,
            kind: self.rec.kind,
            id_state: self.rec.id_state,
            content,
            tags: TagsRepr::Packed {
                text: text.into_bump_str(),
                idx: idx.into_bump_slice(),
                ntags: to_u32(ntags),
            },
            letters: self.rec.letters,
            raw: &[],
        });
        Event::from_rec(rec)
    }

    /// Bytes [`compact_into`](Self::compact_into) writes into its arena for
    /// this event (before alignment padding).
    pub fn compacted_size(self) -> usize {
        let tags = self.tags();
        let text_len = tags.text_len();
        size_of::<EventRec<'_>>()
            + self.content().len()
            + text_len
            + 4 * (tags.len() + tags.element_count())
    }
}
