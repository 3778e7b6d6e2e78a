//! Merging the occurrences of a singular message field.
//!
//! Protobuf reads a singular message field that occurs several times as one
//! message: scalars of later occurrences win, repeated fields are
//! concatenated, nested messages merge the same way, the oneof member set
//! last wins. The one-pass decoder reads each occurrence into a record of
//! its own, settled when it ends, and merges a field's occurrences when
//! their parent ends ([`merge_run`]): two occurrences in one walk over both
//! records ([`Merger::merge_two`]), more by sorting their slots by field.
//! The merge writes the records it combines and the paths they share.
//!
//! A record merged so is copied again when an ancestor's occurrences are
//! merged, once per level, so these merges have a budget per decode; past
//! it, a field's occurrences stay side by side in their parent's record,
//! which is marked *pending*, and so is every ancestor's slot up to the
//! root ([`Slot::pending`]). When the root ends, [`settle`] walks down the
//! pending slots only and merges each field's occurrences once, from the
//! top: occurrences nested in occurrences are gathered into one list and
//! merged in one step, so every slot is copied at most once whatever the
//! nesting, and the work stays in proportion to the records on the pending
//! paths.
// Decoder code reads untrusted bytes: no indexing, unwrap or arithmetic that
// can panic on them.
#![deny(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::arithmetic_side_effects
)]

use std::cell::Cell;

use quarry_core::bumpalo::collections::Vec as ArenaVec;
use quarry_core::{BoundedAlloc, DecodeError};

use crate::one_pass::{MAX_RECURSION, STACK_RED_ZONE, STACK_SEGMENT};
use crate::record::{self, Slot, UNKNOWN, Val};
use crate::table::{FieldTable, Kind, MessageTable, Schema};
use crate::values::internal;

/// The record `slots` of message type `table` with every pending merge in
/// it and below it done: a record in reader order. `at` is the offset
/// errors (the arena limit) point at.
pub(crate) fn settle<'a>(
    alloc: &BoundedAlloc<'a>,
    schema: &'static Schema,
    table: &'static MessageTable,
    slots: &'a [Slot<'a>],
    at: usize,
) -> Result<&'a [Slot<'a>], DecodeError> {
    let m = Merger {
        alloc,
        schema,
        at,
        depth: Cell::new(0),
    };
    m.merge(table, &[slots])
}

struct Merger<'s, 'a> {
    alloc: &'s BoundedAlloc<'a>,
    schema: &'static Schema,
    at: usize,
    /// Levels of [`Merger::merge`] on the stack.
    depth: Cell<u32>,
}

/// The occurrences `run` (in input order, two or more) of singular message
/// field `f` (index `fi`) of a message that ends, merged into one slot,
/// within the decode's merge budget (`MERGE_BYTES_PER_INPUT_BYTE` per
/// byte of its `input_len` bytes), of which `spent` were written by the
/// merges before; what this one writes is added. `None` when the merge
/// would pass the budget (the occurrences then stay side by side and are
/// merged once the root ends, by [`settle`]).
///
/// Each occurrence is settled already (merged at its own parents' ends, or
/// pending below, which the merge settles too), so the merge writes the
/// records it combines and the shared paths below them. A record merged
/// here can be copied again when an ancestor is merged, once per level:
/// the budget keeps that within a bound per input byte (see
/// `decode::MERGE_BYTES_PER_INPUT_BYTE`).
#[expect(
    clippy::too_many_arguments,
    reason = "the field, its occurrences, and the decode's arena and budget"
)]
#[inline]
pub(crate) fn merge_run<'r, 'a: 'r>(
    alloc: &BoundedAlloc<'a>,
    schema: &'static Schema,
    f: &FieldTable,
    fi: u32,
    run: impl Iterator<Item = &'r Slot<'a>>,
    input_len: usize,
    spent: &mut usize,
    at: usize,
) -> Result<Option<Slot<'a>>, DecodeError> {
    let mut run = run;
    merge_slots(alloc, schema, f, fi, &mut run, input_len, spent, at)
}

/// [`merge_run`] without the type of its iterator, which it reads once
/// (its size hint's upper bound sizing the list of three or more).
#[expect(
    clippy::too_many_arguments,
    reason = "the field, its occurrences, and the decode's arena and budget"
)]
#[inline(never)]
fn merge_slots<'r, 'a: 'r>(
    alloc: &BoundedAlloc<'a>,
    schema: &'static Schema,
    f: &FieldTable,
    fi: u32,
    run: &mut dyn Iterator<Item = &'r Slot<'a>>,
    input_len: usize,
    spent: &mut usize,
    at: usize,
) -> Result<Option<Slot<'a>>, DecodeError> {
    let Some(table) = schema.messages.get(f.sub as usize) else {
        return Err(internal(at));
    };
    let budget = input_len.saturating_mul(crate::decode::MERGE_BYTES_PER_INPUT_BYTE);
    let (Some(x), Some(y)) = (run.next(), run.next()) else {
        return Err(internal(at));
    };
    // At most this many more occurrences.
    let more = run.size_hint().1.unwrap_or(usize::MAX);
    let third = if more == 0 { None } else { run.next() };
    let pending = x.is_pending() || y.is_pending();
    if third.is_none()
        && table.dense
        && let (Some(a), Some(b)) = (x.as_msg(), y.as_msg())
        && !pending
        && dense_record(table, a)
        && dense_record(table, b)
        && !table.fields.iter().any(|f| f.kind.is_message())
    {
        // Two dense records of a narrow message of scalars (a message key,
        // a sync action): a copy of the first with the second's fields
        // written over it, within the budget.
        let bytes = size_of_val(a);
        if spent.saturating_add(bytes) <= budget {
            *spent = spent.saturating_add(bytes);
            let out = alloc.alloc_slice_copy(a, at)?;
            for (o, s) in out.iter_mut().zip(b) {
                if !s.is_absent() {
                    *o = *s;
                }
            }
            // A oneof member that displaced another keeps the mark, as
            // the merge below keeps it.
            let slot = Slot::new(fi, Val::Msg(out));
            return Ok(Some(if x.is_reset() || y.is_reset() {
                slot.with_reset()
            } else {
                slot
            }));
        }
    }
    let mut reset = x.is_reset() || y.is_reset();
    let part = alloc.capped(budget.saturating_sub(*spent));
    let m = Merger {
        alloc: &part,
        schema,
        at,
        depth: Cell::new(0),
    };
    let merged = match (x.as_msg(), y.as_msg(), third) {
        // A field written twice, each occurrence settled (nothing pending
        // in it): one walk over both.
        (Some(a), Some(b), None) if !pending => m.merge_pair(table, a, b),
        (Some(a), Some(b), None) => m.merge(table, &[a, b]),
        (_, _, Some(z)) => {
            let n = more.saturating_add(2);
            part.charge_slice::<&'a [Slot<'a>]>(n, at).and_then(|()| {
                let mut list = ArenaVec::with_capacity_in(n, part.bump());
                for s in [x, y, z]
                    .into_iter()
                    .chain(run.take(more.saturating_sub(1)))
                {
                    reset |= s.is_reset();
                    list.extend(s.as_msg());
                }
                match list.as_slice() {
                    [_, _, ..] => m.merge(table, &list),
                    _ => Err(internal(at)),
                }
            })
        }
        _ => Err(internal(at)),
    };
    *spent = spent.saturating_add(part.used().saturating_sub(alloc.used()));
    alloc.absorb(&part);
    match merged {
        Ok(slots) => {
            let slot = Slot::new(fi, Val::Msg(slots));
            Ok(Some(if reset { slot.with_reset() } else { slot }))
        }
        // Past the budget (or the arena's limit, which the merge when the
        // root ends meets again).
        Err(DecodeError::ArenaLimit { .. }) => {
            *spent = budget;
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// True if `slots` is a dense record of `table`: slot `i` holds field `i`,
/// present or absent.
fn dense_record(table: &MessageTable, slots: &[Slot<'_>]) -> bool {
    slots.len() == table.fields.len()
        && slots
            .iter()
            .enumerate()
            .all(|(i, s)| s.word() as usize == i)
}

/// `v` sorted by `key` (distinct for distinct elements): a heapsort, which
/// takes little code and at most `n log n` steps whatever the order. The
/// key behind a reference: one copy of the sort serves every caller.
#[inline(never)]
pub(crate) fn heapsort(v: &mut [u32], key: &dyn Fn(u32) -> u64) {
    // Moves `v[node]` down the max-heap `v[..end]` until no child of it
    // has a greater key.
    let sift_down = |v: &mut [u32], mut node: usize, end: usize| {
        loop {
            let left = node.saturating_mul(2).saturating_add(1);
            let right = left.saturating_add(1);
            let (Some(&n), Some(&l)) = (v.get(node), v.get(left).filter(|_| left < end)) else {
                return;
            };
            let (child, ck) = match v.get(right).filter(|_| right < end) {
                Some(&r) if key(r) > key(l) => (right, key(r)),
                _ => (left, key(l)),
            };
            if key(n) >= ck {
                return;
            }
            v.swap(node, child);
            node = child;
        }
    };
    let len = v.len();
    for node in (0..len / 2).rev() {
        sift_down(v, node, len);
    }
    for end in (1..len).rev() {
        v.swap(0, end);
        sift_down(v, 0, end);
    }
}

/// True if `slots` is in reader order with nothing pending: a record no
/// merge has to settle first.
fn settled(slots: &[Slot<'_>]) -> bool {
    !unsettled(slots)
}

/// True if `slots` holds occurrences to merge: a known field twice, or a
/// pending slot.
#[inline(never)]
fn unsettled(slots: &[Slot<'_>]) -> bool {
    slots.iter().any(Slot::is_pending)
        || slots
            .windows(2)
            .any(|w| matches!(w, [a, b] if a.field() < UNKNOWN && a.field() == b.field()))
}

impl<'a> Merger<'_, 'a> {
    fn sub(&self, f: &FieldTable) -> Result<&'static MessageTable, DecodeError> {
        self.schema
            .messages
            .get(f.sub as usize)
            .ok_or_else(|| internal(self.at))
    }

    /// The records `recs` of message type `table`, in input order, merged
    /// into one settled record. Recursion follows the records' nesting,
    /// which `max_depth` bounds: plain for the first [`MAX_RECURSION`]
    /// levels, past them checking the stack left and going on in a new
    /// segment when it runs short, as the decoder does.
    #[inline(never)]
    fn merge(
        &self,
        table: &'static MessageTable,
        recs: &[&'a [Slot<'a>]],
    ) -> Result<&'a [Slot<'a>], DecodeError> {
        let depth = self.depth.get();
        self.depth.set(depth.saturating_add(1));
        let merged = if depth < MAX_RECURSION {
            self.merge_here(table, recs)
        } else {
            stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || {
                self.merge_here(table, recs)
            })
        };
        self.depth.set(depth);
        merged
    }

    /// [`merge`](Self::merge) on the current stack.
    fn merge_here(
        &self,
        table: &'static MessageTable,
        recs: &[&'a [Slot<'a>]],
    ) -> Result<&'a [Slot<'a>], DecodeError> {
        if let [one] = recs {
            if settled(one) {
                return Ok(one);
            }
            // In decode order already (a field's occurrences side by side,
            // see `record::in_decode_order`; its displaced oneof members
            // dropped when it was read): run by run, nothing to sort.
            return self.merge_sorted(table, one.len(), &|k| one.get(k), None);
        }
        if let [a, b] = recs
            && settled(a)
            && settled(b)
        {
            return self.merge_two(table, a, b);
        }
        let at = self.at;
        // Every present slot, record after record, with its record's index.
        let total = recs
            .iter()
            .map(|r| r.len())
            .fold(0usize, usize::saturating_add);
        let mut all: ArenaVec<'a, (&'a Slot<'a>, u32)> = {
            self.alloc.charge_slice::<(&'a Slot<'a>, u32)>(total, at)?;
            ArenaVec::with_capacity_in(total, self.alloc.bump())
        };
        for (r, rec) in recs.iter().enumerate() {
            let r = u32::try_from(r).map_err(|_| internal(at))?;
            all.extend(rec.iter().filter(|s| !s.is_absent()).map(|s| (s, r)));
        }
        let oneofs = if table.oneofs.is_empty() {
            None
        } else {
            Some(self.drop_displaced(table, &mut all)?)
        };
        // By field, then record, then position: input order within a field.
        let perm = self
            .alloc
            .alloc_slice_fill_with(all.len(), at, |i| i as u32)?;
        heapsort(perm, &|i| {
            let field = all.get(i as usize).map_or(UNKNOWN, |s| s.0.field());
            u64::from(field) << 32 | u64::from(i)
        });
        self.merge_sorted(
            table,
            perm.len(),
            &|k| perm.get(k).and_then(|&i| all.get(i as usize)).map(|s| s.0),
            oneofs.as_ref(),
        )
    }

    /// The `n` slots `slot_at` finds (of records of `table`, by field,
    /// each field's occurrences in input order; absent slots of a dense
    /// record skipped) merged into one record, run of equal fields by run:
    /// unknown fields kept, a scalar's last occurrence, a repeated field's
    /// values concatenated, a message field's occurrences merged. `oneofs`:
    /// the oneofs of several records, whose displaced members are dropped
    /// already.
    fn merge_sorted<'r>(
        &self,
        table: &'static MessageTable,
        n: usize,
        slot_at: &dyn Fn(usize) -> Option<&'r Slot<'a>>,
        oneofs: Option<&Oneofs<'a>>,
    ) -> Result<&'a [Slot<'a>], DecodeError>
    where
        'a: 'r,
    {
        let at = self.at;
        self.alloc.charge_slice::<Slot<'a>>(n, at)?;
        let mut out: ArenaVec<'a, Slot<'a>> = ArenaVec::with_capacity_in(n, self.alloc.bump());
        let mut k = 0usize;
        while let Some(first) = slot_at(k) {
            let fi = first.field();
            let mut stop = k.saturating_add(1);
            while slot_at(stop).is_some_and(|s| s.field() == fi) {
                stop = stop.saturating_add(1);
            }
            let count = stop.saturating_sub(k);
            let start = k;
            k = stop;
            let run = (start..stop).filter_map(slot_at);
            if first.is_absent() {
                continue;
            }
            match table.fields.get(fi as usize) {
                None => out.extend(run.copied()),
                Some(f) if f.is_repeated() => {
                    out.push(self.concat(
                        f,
                        fi,
                        count,
                        &|i| slot_at(start.saturating_add(i)),
                        false,
                    )?);
                }
                Some(f) if f.kind.is_message() => {
                    // A oneof member that displaced another, here or in
                    // its own record, keeps the mark for a later merge.
                    let reset = run.clone().any(Slot::is_reset)
                        || oneofs.is_some_and(|o| o.displaced_any(first));
                    let slot = if count == 1 && !first.is_pending() {
                        *first
                    } else {
                        let occurrences = self.alloc.alloc_slice_fill_copy(count, &[][..], at)?;
                        for (o, s) in occurrences.iter_mut().zip(run) {
                            *o = s.as_msg().unwrap_or(&[]);
                        }
                        let merged = self.merge(self.sub(f)?, occurrences)?;
                        Slot::new(fi, Val::Msg(merged))
                    };
                    out.push(if reset { slot.with_reset() } else { slot });
                }
                // A scalar, string or bytes field: the last occurrence wins.
                Some(_) => {
                    if let Some(last) = slot_at(stop.saturating_sub(1)) {
                        out.push(*last);
                    }
                }
            }
        }
        let out = out.into_bump_slice();
        debug_assert!(record::in_reader_order(out));
        Ok(out)
    }

    /// [`merge_two`](Self::merge_two) behind the depth accounting of
    /// [`merge`](Self::merge).
    fn merge_pair(
        &self,
        table: &'static MessageTable,
        a: &'a [Slot<'a>],
        b: &'a [Slot<'a>],
    ) -> Result<&'a [Slot<'a>], DecodeError> {
        let depth = self.depth.get();
        self.depth.set(depth.saturating_add(1));
        let merged = if depth < MAX_RECURSION {
            self.merge_two(table, a, b)
        } else {
            stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || {
                self.merge_two(table, a, b)
            })
        };
        self.depth.set(depth);
        merged
    }

    /// Two settled records of `table` (each in reader order, no field
    /// twice, nothing pending; absent slots of a dense record skipped)
    /// merged in one walk over both, as [`merge_here`](Self::merge_here)
    /// merges them without listing and sorting their slots: a field in
    /// one record is copied; in both, `b`'s scalar wins, repeated fields
    /// are concatenated and messages merged; `a`'s unknown fields, then
    /// `b`'s. A oneof member of `b` displaces `a`'s other member of its
    /// oneof, or `a`'s occurrence of itself when `b`'s is marked reset.
    fn merge_two(
        &self,
        table: &'static MessageTable,
        a: &'a [Slot<'a>],
        b: &'a [Slot<'a>],
    ) -> Result<&'a [Slot<'a>], DecodeError> {
        let at = self.at;
        let n = a.len().saturating_add(b.len());
        self.alloc.charge_slice::<Slot<'a>>(n, at)?;
        let mut out: ArenaVec<'a, Slot<'a>> = ArenaVec::with_capacity_in(n, self.alloc.bump());
        let oneofs = !table.oneofs.is_empty();
        // The oneof of a known slot's field, 0 for none.
        let oneof = |s: &Slot<'_>| table.fields.get(s.field() as usize).map_or(0, |f| f.oneof);
        // Another member of `o` than field `fi` among `rec`'s slots.
        let other = |rec: &[Slot<'_>], o: u16, fi: u32| {
            rec.iter()
                .any(|s| s.field() != fi && !s.is_absent() && oneof(s) == o)
        };
        let (mut xs, mut ys) = (
            a.iter().filter(|s| !s.is_absent()).peekable(),
            b.iter().filter(|s| !s.is_absent()).peekable(),
        );
        loop {
            let kx = xs.peek().map_or(UNKNOWN, |s| s.field());
            let ky = ys.peek().map_or(UNKNOWN, |s| s.field());
            if kx == UNKNOWN && ky == UNKNOWN {
                break;
            }
            if kx < ky {
                let Some(&x) = xs.next() else {
                    return Err(internal(at));
                };
                if oneofs
                    && let o @ 1.. = oneof(&x)
                    && other(b, o, kx)
                {
                    // Displaced by `b`'s member.
                    continue;
                }
                out.push(x);
                continue;
            }
            let Some(&y) = ys.next() else {
                return Err(internal(at));
            };
            let displaced = oneofs && matches!(oneof(&y), o @ 1.. if other(a, o, ky));
            if ky < kx {
                out.push(if displaced { y.with_reset() } else { y });
                continue;
            }
            let Some(&x) = xs.next() else {
                return Err(internal(at));
            };
            let f = table.fields.get(ky as usize).ok_or_else(|| internal(at))?;
            out.push(if f.is_repeated() {
                self.concat(f, ky, 2, &|i| [&x, &y].get(i).copied(), true)?
            } else if f.kind.is_message() && !y.is_reset() {
                let (Some(p), Some(q)) = (x.as_msg(), y.as_msg()) else {
                    return Err(internal(at));
                };
                // Settled records hold settled messages.
                let merged = Slot::new(ky, Val::Msg(self.merge_pair(self.sub(f)?, p, q)?));
                if x.is_reset() {
                    merged.with_reset()
                } else {
                    merged
                }
            } else {
                // A scalar, string or bytes field, or a member that
                // restarted in `b`: `b`'s occurrence.
                y
            });
        }
        out.extend(xs.copied());
        out.extend(ys.copied());
        let out = out.into_bump_slice();
        debug_assert!(record::in_reader_order(out));
        Ok(out)
    }

    /// `elements` with each unsettled one settled (a new array), or as they
    /// are when none is.
    fn settle_elements(
        &self,
        sub: &'static MessageTable,
        elements: &'a [&'a [Slot<'a>]],
    ) -> Result<&'a [&'a [Slot<'a>]], DecodeError> {
        if !elements.iter().any(|e| unsettled(e)) {
            return Ok(elements);
        }
        let out = self.alloc.alloc_slice_copy(elements, self.at)?;
        for e in out.iter_mut() {
            if unsettled(e) {
                *e = self.merge(sub, &[*e])?;
            }
        }
        Ok(out)
    }

    /// The values of repeated field `f` (index `fi`) from its `n` slots
    /// `slot_at` finds, in input order, as one slot. `settled`: the slots
    /// come from settled records, so their elements need no settling.
    fn concat<'r>(
        &self,
        f: &FieldTable,
        fi: u32,
        n: usize,
        slot_at: &dyn Fn(usize) -> Option<&'r Slot<'a>>,
        settled: bool,
    ) -> Result<Slot<'a>, DecodeError>
    where
        'a: 'r,
    {
        let at = self.at;
        Ok(match f.kind {
            Kind::Message | Kind::Group => {
                let sub = self.sub(f)?;
                if let (1, Some(list)) = (n, slot_at(0).and_then(Slot::element_list)) {
                    // One record's array, one entry per key already: its
                    // elements settled, copied only if one of them is not.
                    return Ok(Slot::new(fi, Val::Msgs(self.settle_elements(sub, list)?)));
                }
                let list = self.concat_values(n, slot_at, &[][..], Slot::elements)?;
                // A map's entries from several records: the last of each
                // key stays (a key is a scalar, settled already).
                let start = if sub.map_entry {
                    crate::map::last_per_key(self.alloc, sub, list, at)?
                } else {
                    0
                };
                let list = list.get(start..).unwrap_or_default();
                if settled {
                    Slot::new(fi, Val::Msgs(list))
                } else {
                    Slot::new(fi, Val::Msgs(self.settle_elements(sub, list)?))
                }
            }
            Kind::String if f.utf8 => {
                let list = self.concat_values(n, slot_at, "", |s| match s.val() {
                    Val::Strs(l) => l,
                    _ => &[],
                })?;
                Slot::new(fi, Val::Strs(list))
            }
            Kind::String | Kind::Bytes => {
                let list = self.concat_values(n, slot_at, &[][..], |s| match s.val() {
                    Val::BytesList(l) => l,
                    _ => &[],
                })?;
                Slot::new(fi, Val::BytesList(list))
            }
            _ => {
                let list = self.concat_values(n, slot_at, 0u64, |s| match s.val() {
                    Val::Scalars(l) => l,
                    _ => &[],
                })?;
                Slot::new(fi, Val::Scalars(list))
            }
        })
    }

    /// The arrays `pick` finds in the `n` slots `slot_at` finds, one after
    /// another, in a new array. Each value is written once, as the array
    /// is filled: no fill first, and a loop short enough for cold code.
    fn concat_values<'r, T: Copy + 'a>(
        &self,
        n: usize,
        slot_at: &dyn Fn(usize) -> Option<&'r Slot<'a>>,
        empty: T,
        pick: impl Fn(&'r Slot<'a>) -> &'r [T],
    ) -> Result<&'a mut [T], DecodeError>
    where
        'a: 'r,
    {
        let values = |i: usize| slot_at(i).map_or(&[][..], &pick);
        let count = (0..n)
            .map(|i| values(i).len())
            .fold(0, usize::saturating_add);
        // The values not written yet: of slot `next - 1`, then the slots
        // from `next`.
        let (mut next, mut left): (usize, &[T]) = (0, &[]);
        self.alloc.alloc_slice_fill_with(count, self.at, |_| {
            loop {
                if let Some((&v, rest)) = left.split_first() {
                    left = rest;
                    break v;
                }
                if next >= n {
                    break empty;
                }
                left = values(next);
                next = next.saturating_add(1);
            }
        })
    }

    /// Drop, from the slots of several records in input order, the oneof
    /// members a later record's member displaced. Each record holds one
    /// member of a oneof at most (its own displaced ones were dropped when
    /// it was read), so of each oneof the member of the last record that
    /// has one stays, with its occurrences in the records after the last
    /// record holding another member.
    fn drop_displaced(
        &self,
        table: &'static MessageTable,
        all: &mut ArenaVec<'a, (&'a Slot<'a>, u32)>,
    ) -> Result<Oneofs<'a>, DecodeError> {
        let mut oneofs = Oneofs::new(self.alloc, table, all.len(), self.at)?;
        for (slot, r) in all.iter().rev() {
            oneofs.note(slot, *r);
        }
        all.retain(|(slot, r)| oneofs.keeps(slot, *r));
        Ok(oneofs)
    }
}

/// Which member of each oneof stays, found walking slots from the last read
/// to the first: the first member met (the one read last) wins, and the
/// first other member met marks where the winner's occurrences start to
/// count. Positions are what the caller counts in (a slot's index, or its
/// record's).
pub(crate) struct Oneofs<'a> {
    table: &'static MessageTable,
    /// `(oneof, winner, one past the last other member's position)`, one
    /// entry per oneof met, searched in order: a message sets few oneofs,
    /// and the entries never outnumber the slots walked (so their arena
    /// bytes stay within the slots' own).
    entries: ArenaVec<'a, (u16, u32, u32)>,
}

impl<'a> Oneofs<'a> {
    /// Room for the oneofs of `table` that `slots` slots can set.
    pub(crate) fn new(
        alloc: &BoundedAlloc<'a>,
        table: &'static MessageTable,
        slots: usize,
        at: usize,
    ) -> Result<Self, DecodeError> {
        let cap = table.oneofs.len().min(slots);
        alloc.charge_slice::<(u16, u32, u32)>(cap, at)?;
        Ok(Self {
            table,
            entries: ArenaVec::with_capacity_in(cap, alloc.bump()),
        })
    }

    /// The slot's oneof and field, if it is a oneof member.
    fn member(&self, slot: &Slot<'_>) -> Option<(u16, u32)> {
        let fi = slot.field();
        let oneof = self.table.fields.get(fi as usize)?.oneof;
        (oneof != 0).then_some((oneof, fi))
    }

    /// Note `slot` at position `pos`, walking backwards.
    pub(crate) fn note(&mut self, slot: &Slot<'_>, pos: u32) {
        let Some((oneof, fi)) = self.member(slot) else {
            return;
        };
        // A winner marked reset displaced another member in its own
        // record: the occurrences before that record no longer count.
        let reset = if slot.is_reset() { pos } else { 0 };
        let room = self.entries.len() < self.entries.capacity();
        match self.entries.iter_mut().find(|e| e.0 == oneof) {
            Some(e) if e.2 == 0 => {
                e.2 = if e.1 != fi {
                    pos.saturating_add(1)
                } else {
                    reset
                };
            }
            Some(_) => {}
            // One entry per oneof, within the capacity: at most one per
            // slot and per oneof of the table.
            None if room => self.entries.push((oneof, fi, reset)),
            None => {}
        }
    }

    /// True if `slot` is a member of a oneof another member of which was
    /// displaced.
    pub(crate) fn displaced_any(&self, slot: &Slot<'_>) -> bool {
        self.member(slot)
            .is_some_and(|(oneof, _)| self.entries.iter().any(|e| e.0 == oneof && e.2 != 0))
    }

    /// True unless `slot`, at position `pos`, is a displaced member.
    pub(crate) fn keeps(&self, slot: &Slot<'_>, pos: u32) -> bool {
        match self.member(slot) {
            Some((oneof, fi)) => self
                .entries
                .iter()
                .find(|e| e.0 == oneof)
                .is_some_and(|e| e.1 == fi && pos >= e.2),
            None => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::heapsort;

    #[test]
    fn heapsort_orders_as_the_standard_sort() {
        // A small linear congruential generator: lengths 0 to 64, keys
        // with many repeats (the key's low half, the element, breaks ties).
        let mut x = 0x2545_f491_u32;
        for len in 0..=64u32 {
            let fields: Vec<u32> = (0..len)
                .map(|_| {
                    x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                    (x >> 24) % 7
                })
                .collect();
            let field = |i: u32| fields.get(i as usize).copied().unwrap_or(u32::MAX);
            let key = |i: u32| u64::from(field(i)) << 32 | u64::from(i);
            let mut v: Vec<u32> = (0..len).rev().collect();
            heapsort(&mut v, &key);
            let mut expected: Vec<u32> = (0..len).collect();
            expected.sort_by_key(|&i| (field(i), i));
            assert_eq!(v, expected, "length {len}");
        }
    }
}
