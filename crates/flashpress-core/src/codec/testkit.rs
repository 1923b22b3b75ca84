//! Property checks every lightweight codec's decoder must pass (test builds only): junk never
//! panics, and a truncated or bit-flipped stream is an error or a block of the right length.

use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::TestCaseError;

/// A codec's compress function.
pub(crate) type CompressFn = fn(&[u8], &mut Vec<u8>);
/// A codec's decompress function.
pub(crate) type DecompressFn = fn(&[u8], usize, &mut Vec<u8>) -> Result<(), String>;

/// Decoding arbitrary bytes as a block of `len` either fails or yields `len` bytes.
pub(crate) fn junk_is_handled(
    decompress: DecompressFn,
    junk: &[u8],
    len: usize,
) -> Result<(), TestCaseError> {
    let mut out = Vec::new();
    if decompress(junk, len, &mut out).is_ok() {
        prop_assert_eq!(out.len(), len);
    }
    Ok(())
}

/// Compress `data`, then decode it cut at `cut` (must fail when `truncation_fails` and the cut
/// is short) and with one bit flipped (must fail or yield a block of the right length).
pub(crate) fn damage_is_handled(
    compress: CompressFn,
    decompress: DecompressFn,
    data: &[u8],
    (cut, flip, bit): (Index, Index, u8),
    truncation_fails: bool,
) -> Result<(), TestCaseError> {
    let mut c = Vec::new();
    compress(data, &mut c);
    let mut out = Vec::new();
    let cut_at = cut.index(c.len() + 1);
    let r = decompress(&c[..cut_at], data.len(), &mut out);
    if truncation_fails && cut_at < c.len() {
        prop_assert!(r.is_err(), "truncated at {} of {} decoded", cut_at, c.len());
    }
    if !c.is_empty() {
        let at = flip.index(c.len());
        c[at] ^= 1 << bit;
        if decompress(&c, data.len(), &mut out).is_ok() {
            prop_assert_eq!(out.len(), data.len());
        }
    }
    Ok(())
}

/// The two decoder properties as proptests over the calling module's `compress`,
/// `decompress` and `block()` strategy; `$truncation_fails` as in [`damage_is_handled`].
macro_rules! decoder_properties {
    ($truncation_fails:expr) => {
        proptest! {
            #![proptest_config(ProptestConfig::with_cases(300))]

            #[test]
            fn arbitrary_input_never_panics(junk in proptest::collection::vec(any::<u8>(), 0..600), len in 0usize..20000) {
                $crate::codec::testkit::junk_is_handled(decompress, &junk, len)?;
            }

            #[test]
            fn damaged_input_never_panics(data in block(), cut in any::<prop::sample::Index>(), flip in any::<prop::sample::Index>(), bit in 0u8..8) {
                $crate::codec::testkit::damage_is_handled(compress, decompress, &data, (cut, flip, bit), $truncation_fails)?;
            }
        }
    };
}
pub(crate) use decoder_properties;

/// Compress and decompress `data`, assert the round trip, and return the compressed size.
pub(crate) fn round_trip(compress: CompressFn, decompress: DecompressFn, data: &[u8]) -> usize {
    let mut c = Vec::new();
    compress(data, &mut c);
    let mut back = Vec::new();
    decompress(&c, data.len(), &mut back).unwrap();
    assert!(back == data, "round trip of {} bytes", data.len());
    c.len()
}
