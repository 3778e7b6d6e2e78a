//! Shared by the generator and the run-time builder: the dense
//! number-to-index lookup.

/// `lookup[n]` = index of field number `n` plus one, for numbers up to a
/// bound where the table stays small; empty when the numbers are too
/// sparse (the decoder then binary-searches).
pub(crate) fn dense_lookup(numbers: &[u32]) -> Vec<u16> {
    let Some(&max) = numbers.iter().max() else {
        return Vec::new();
    };
    let bound = 4 * numbers.len() as u64 + 16;
    if u64::from(max) > bound || numbers.len() >= u16::MAX as usize {
        return Vec::new();
    }
    let mut out = vec![0u16; max as usize + 1];
    for (i, &n) in numbers.iter().enumerate() {
        out[n as usize] = i as u16 + 1;
    }
    out
}
