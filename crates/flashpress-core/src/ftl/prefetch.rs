//! A hint to the CPU that the FTL will soon touch a value of its tables: the map entry of a
//! request about to arrive, or of a page GC is about to move. The page map and the reverse map
//! are several megabytes read at random, and the core runs thousands of instructions between
//! two such accesses, so the out-of-order window never overlaps their cache misses as a tight
//! loop would; a prefetch issued one request (or a few GC moves) early lets the line arrive
//! while the core does other work. A hint never changes a result: it reads nothing into the
//! program and faults on nothing.

/// Ask for the cache line holding `value` to be brought into the caches (x86-64: `prefetcht0`;
/// elsewhere nothing).
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` is `unsafe` only for its `#[target_feature(enable = "sse")]`,
    // which every x86-64 CPU has (it is in the x86-64 baseline the crate is built for); a
    // prefetch reads no memory into the program and cannot fault, and the pointer comes from
    // a live reference anyway.
    unsafe {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((value as *const T).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
