//! Byte-level field helpers every text format shares: splitting, trimming, number parsing
//! and quoting a field in an error message.

use super::TimeVal;

/// Exactly `N` comma-separated fields of a CSV line (MSR, csv), each trimmed; `names` is the
/// columns, for the error.
#[inline]
pub(super) fn comma_fields<'a, const N: usize>(
    line: &'a [u8],
    names: &str,
) -> std::result::Result<[&'a [u8]; N], String> {
    let mut out: [&[u8]; N] = [&[]; N];
    let mut got = 0;
    for f in line.split(|&c| c == b',') {
        if let Some(slot) = out.get_mut(got) {
            *slot = trim(f);
        }
        got += 1;
    }
    if got != N {
        return Err(format!(
            "expected {N} comma-separated fields `{names}`, got {got}"
        ));
    }
    Ok(out)
}

/// Strip leading and trailing ASCII whitespace (including the `\r` of CRLF files).
#[inline]
pub(super) fn trim(mut b: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = b {
        if first.is_ascii_whitespace() {
            b = rest;
        } else {
            break;
        }
    }
    while let [rest @ .., last] = b {
        if last.is_ascii_whitespace() {
            b = rest;
        } else {
            break;
        }
    }
    b
}

/// Splits a line on runs of blanks (space, tab, and stray `\r`).
pub(super) struct Fields<'a> {
    rest: &'a [u8],
}

impl<'a> Iterator for Fields<'a> {
    type Item = &'a [u8];
    #[inline]
    fn next(&mut self) -> Option<&'a [u8]> {
        let mut start = 0;
        while start < self.rest.len() && is_blank(self.rest[start]) {
            start += 1;
        }
        if start == self.rest.len() {
            self.rest = &[];
            return None;
        }
        let mut end = start;
        while end < self.rest.len() && !is_blank(self.rest[end]) {
            end += 1;
        }
        let (field, rest) = self.rest.split_at(end);
        self.rest = rest;
        field.get(start..)
    }
}

#[inline]
pub(super) fn is_blank(c: u8) -> bool {
    c == b' ' || c == b'\t' || c == b'\r' || c == b'\n'
}

pub(super) fn fields(line: &[u8]) -> Fields<'_> {
    Fields { rest: line }
}

/// A field for messages: lossy UTF-8 with control characters escaped (a garbage line cannot
/// echo raw bytes to the terminal), truncated to 40 characters so it cannot flood it either.
pub(super) fn show(b: &[u8]) -> String {
    let s = String::from_utf8_lossy(b);
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i == 40 {
            out.push_str("...");
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// Decimal `u64` from ASCII digits, `None` on anything else or overflow.
#[inline]
pub(super) fn parse_u64(b: &[u8]) -> Option<u64> {
    if b.is_empty() || b.len() > 20 {
        return None;
    }
    let mut v: u64 = 0;
    for &c in b {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(u64::from(d))?;
    }
    Some(v)
}

/// A time field: exact integer, or a finite non-negative float when it has `.`/`e`/`E` or is an
/// integer too large for u64.
#[inline]
pub(super) fn parse_time(b: &[u8]) -> Option<TimeVal> {
    if let Some(v) = parse_u64(b) {
        return Some(TimeVal::Int(v));
    }
    // An integer past u64 goes on as a float, so that the clock's limit, not the syntax,
    // is what refuses it.
    let digits = !b.is_empty() && b.iter().all(u8::is_ascii_digit);
    if !digits && !b.iter().any(|&c| c == b'.' || c == b'e' || c == b'E') {
        return None;
    }
    // Only digits, one sign after an exponent, `.` and exponent letters: rejects `inf`, `nan`.
    if !b
        .iter()
        .all(|&c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-'))
    {
        return None;
    }
    let f: f64 = std::str::from_utf8(b).ok()?.parse().ok()?;
    (f.is_finite() && f >= 0.0).then_some(TimeVal::Float(f))
}

/// Lowercase hex digit value.
#[inline]
pub(super) fn hex(c: u8) -> Option<u64> {
    match c {
        b'0'..=b'9' => Some(u64::from(c - b'0')),
        b'a'..=b'f' => Some(u64::from(c - b'a' + 10)),
        b'A'..=b'F' => Some(u64::from(c - b'A' + 10)),
        _ => None,
    }
}
