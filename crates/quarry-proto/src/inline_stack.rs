//! A stack whose first `N` entries live in a local array and the rest in a
//! `Vec`: the explicit stacks with which the encoder and the text printer
//! follow nested messages instead of recursing. A record nested no deeper
//! than `N` levels is walked without allocating.

use std::mem::MaybeUninit;

/// The stack; `T` is `Copy`, so entries need no drop.
///
/// The invariants the unsafe code below rests on: `inline_len <= N`, the
/// first `inline_len` entries of `inline` are initialized, and `spill`
/// holds entries only while `inline_len == N`.
pub(crate) struct InlineStack<T: Copy, const N: usize> {
    /// Left uninitialized until used: an array of `None`s would take one
    /// write per entry on every walk (31 instructions an encode,
    /// callgrind), one of placeholder entries a write of each whole.
    inline: [MaybeUninit<T>; N],
    inline_len: usize,
    /// Entries past the inline ones; only used while those are all taken.
    spill: Vec<T>,
}

impl<T: Copy, const N: usize> InlineStack<T, N> {
    /// An empty stack; allocates and writes nothing.
    pub(crate) fn new() -> Self {
        Self {
            inline: [const { MaybeUninit::uninit() }; N],
            inline_len: 0,
            spill: Vec::new(),
        }
    }

    /// Entries on the stack.
    pub(crate) fn len(&self) -> usize {
        self.inline_len + self.spill.len()
    }

    #[inline]
    pub(crate) fn push(&mut self, entry: T) {
        match self.inline.get_mut(self.inline_len) {
            Some(slot) => {
                slot.write(entry);
                self.inline_len += 1;
            }
            None => self.spill.push(entry),
        }
    }

    /// The entry pushed last.
    #[inline]
    pub(crate) fn top(&mut self) -> Option<&mut T> {
        match self.spill.last_mut() {
            Some(top) => Some(top),
            None => {
                let slot = self.inline.get_mut(self.inline_len.checked_sub(1)?)?;
                // SAFETY: the entries below `inline_len` are initialized
                // (the invariants in the type's doc).
                Some(unsafe { slot.assume_init_mut() })
            }
        }
    }

    /// Empty the stack, keeping the spill's buffer.
    pub(crate) fn clear(&mut self) {
        self.inline_len = 0;
        self.spill.clear();
    }

    #[inline]
    pub(crate) fn pop(&mut self) -> Option<T> {
        if let Some(entry) = self.spill.pop() {
            return Some(entry);
        }
        self.inline_len = self.inline_len.checked_sub(1)?;
        let slot = self.inline.get(self.inline_len)?;
        // SAFETY: the entry at `inline_len` was below it until just now,
        // so it is initialized (the invariants in the type's doc).
        Some(unsafe { slot.assume_init_read() })
    }
}

#[cfg(test)]
mod tests {
    use super::InlineStack;

    #[test]
    fn encoder_stack_entries_come_back_last_in_first_out_across_the_spill() {
        let mut stack = InlineStack::<u32, 3>::new();
        assert_eq!(stack.pop(), None);
        assert_eq!(stack.top(), None);
        assert_eq!(stack.len(), 0);
        for i in 0..7 {
            stack.push(i);
            assert_eq!(stack.top(), Some(&mut { i }));
            assert_eq!(stack.len(), i as usize + 1);
        }
        // Four past the three inline entries.
        assert_eq!(stack.spill.len(), 4);
        if let Some(top) = stack.top() {
            *top = 60;
        }
        let popped: Vec<u32> = std::iter::from_fn(|| stack.pop()).collect();
        assert_eq!(popped, [60, 5, 4, 3, 2, 1, 0]);
        // Pushed again after emptying: inline first, the spill's buffer kept.
        stack.push(9);
        assert_eq!((stack.inline_len, stack.spill.len()), (1, 0));
        assert!(stack.spill.capacity() >= 4);
        assert_eq!(stack.pop(), Some(9));
    }
}
