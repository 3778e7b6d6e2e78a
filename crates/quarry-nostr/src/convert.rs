//! Conversion to and from `nostr` 0.45's owned `Event` (feature `nostr`).

use quarry_core::bumpalo::collections::Vec as ArenaVec;
use quarry_core::{Arena, DecodeError};

use crate::event::{Event, EventRec, IdState, TagSpan, TagsRepr, letter_bit};

impl<'a> Event<'a> {
    /// An owned `nostr::Event` with the same fields (1 + tags + elements
    /// + 1 heap allocations, as rust-nostr's own parse).
    ///
    /// ```
    /// let arena = quarry_core::Arena::new();
    /// let json = quarry_nostr::SAMPLE_EVENT;
    /// let event = quarry_nostr::decode_event(&arena, json.as_bytes())?;
    /// let owned = event.to_nostr();
    /// assert_eq!(owned, nostr::event::Event::from_json(json).unwrap());
    /// # Ok::<(), quarry_core::DecodeError>(())
    /// ```
    pub fn to_nostr(self) -> nostr::event::Event {
        // Decoded and converted events never hold an empty tag (both
        // reject it), so `parse` keeps every tag.
        let tags = self
            .tags()
            .iter()
            .filter_map(|t| nostr::event::Tag::parse(t.iter()).ok());
        nostr::event::Event::new(
            nostr::event::EventId::from_byte_array(*self.id()),
            nostr::key::PublicKey::from_byte_array(*self.pubkey()),
            nostr::types::Timestamp::from_secs(self.created_at()),
            nostr::event::Kind::from_u16(self.kind()),
            tags,
            self.content(),
            nostr::event::Signature::from_byte_array(*self.sig()),
        )
    }

    /// A view of `event` whose strings borrow from it and whose tables
    /// live in `arena` (one element table, one span per tag). The id is
    /// not checked ([`id_valid`](Self::id_valid) is `None`).
    ///
    /// ```
    /// let arena = quarry_core::Arena::new();
    /// let owned = nostr::event::Event::from_json(quarry_nostr::SAMPLE_EVENT).unwrap();
    /// let event = quarry_nostr::Event::from_nostr(&arena, &owned)?;
    /// assert_eq!(event.tags().len(), 2);
    /// assert!(event.verify_id());
    /// # Ok::<(), quarry_core::DecodeError>(())
    /// ```
    pub fn from_nostr(
        arena: &'a Arena,
        event: &'a nostr::event::Event,
    ) -> Result<Self, DecodeError> {
        let bump = arena.bump();
        let nelems: usize = event.tags.iter().map(|t| t.len()).sum();
        let mut elems = ArenaVec::with_capacity_in(nelems, bump);
        let mut spans = ArenaVec::with_capacity_in(event.tags.len(), bump);
        let mut letters = 0u64;
        for tag in event.tags.iter() {
            let items = tag.as_slice();
            let Some(name) = items.first() else {
                return Err(DecodeError::Malformed {
                    offset: 0,
                    what: "empty tag",
                });
            };
            letters |= letter_bit(name);
            spans.push(TagSpan {
                start: elems.len() as u32,
                len: items.len() as u32,
            });
            elems.extend(items.iter().map(String::as_str));
        }
        let rec = bump.alloc(EventRec {
            id: event.id.to_bytes(),
            pubkey: event.pubkey.to_bytes(),
            sig: *event.sig.as_bytes(),
            created_at: event.created_at.as_secs(),
            kind: event.kind.as_u16(),
            id_state: IdState::Unchecked,
            content: &event.content,
            tags: TagsRepr::Flat {
                elems: elems.into_bump_slice(),
                spans: spans.into_bump_slice(),
            },
            letters,
            raw: &[],
        });
        Ok(Event::from_rec(rec))
    }
}
