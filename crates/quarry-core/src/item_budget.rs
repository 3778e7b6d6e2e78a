use crate::{DecodeError, DecodeOptions};

/// The items one decode has counted against
/// [`DecodeOptions::max_items`]: every format decoder keeps one and adds
/// what it reads (nodes and attributes, tags and their elements, fields).
///
/// ```
/// use quarry_core::{DecodeError, DecodeOptions, ItemBudget};
///
/// let options = DecodeOptions { max_items: 3, ..DecodeOptions::DEFAULT };
/// let mut items = ItemBudget::new(&options);
/// items.take(2, 0).unwrap();
/// assert_eq!(items.used(), 2);
/// assert_eq!(items.take(2, 9), Err(DecodeError::ItemLimit { offset: 9, limit: 3 }));
/// assert_eq!(items.used(), 2, "a refused count is not added");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ItemBudget {
    used: u32,
    limit: u32,
}

impl ItemBudget {
    /// A budget of `options.max_items`, nothing used.
    pub const fn new(options: &DecodeOptions) -> Self {
        Self {
            used: 0,
            limit: options.max_items,
        }
    }

    /// Count `n` more items, or fail with [`DecodeError::ItemLimit`] at
    /// `offset` (where the list that went past the limit starts) when the
    /// total would pass the limit.
    #[inline(always)]
    pub fn take(&mut self, n: usize, offset: usize) -> Result<(), DecodeError> {
        match u32::try_from(n).ok().and_then(|n| self.used.checked_add(n)) {
            Some(total) if total <= self.limit => {
                self.used = total;
                Ok(())
            }
            _ => Err(DecodeError::ItemLimit {
                offset,
                limit: self.limit,
            }),
        }
    }

    /// True when counting at most `most` items in all cannot pass the
    /// limit: a decoder that knows such a bound from the input's length
    /// may skip [`take`](Self::take) for the whole decode.
    ///
    /// ```
    /// use quarry_core::{DecodeOptions, ItemBudget};
    ///
    /// let items = ItemBudget::new(&DecodeOptions { max_items: 10, ..DecodeOptions::DEFAULT });
    /// assert!(items.cannot_pass(10));
    /// assert!(!items.cannot_pass(11));
    /// ```
    #[inline(always)]
    pub const fn cannot_pass(&self, most: usize) -> bool {
        most <= self.limit.saturating_sub(self.used) as usize
    }

    /// Items counted so far.
    pub const fn used(&self) -> u32 {
        self.used
    }

    /// The limit in force.
    pub const fn limit(&self) -> u32 {
        self.limit
    }
}
