//! The packer against a list-based reference.

use super::*;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// The reference: pages as lists of (lpn, len) appended in order, a page closing when the
/// next chunk does not fit or it holds `max` chunks; a raw page is a page of its own.
#[test]
fn packing_matches_a_list_reference_and_counts_stay_consistent() {
    for (page, max) in [(16_384u32, 12u32), (16_384, 20), (4096, 3), (8192, 255)] {
        let logical = 500u64;
        let mut p = PagePacker::new(page, max, logical, logical as u32 + 1);
        let mut rng = Pcg64Mcg::seed_from_u64(page as u64 * max as u64);
        let mut open: Vec<(u64, u32)> = Vec::new();
        let mut closed = 0u64;
        let mut pad = 0u64;
        let mut last = vec![u32::MAX; logical as usize];
        for step in 0..20_000 {
            let lpn = rng.random_range(0..logical);
            let mut fx = Effects::default();
            if rng.random_range(0..50) == 0 {
                p.trim(lpn, &mut fx);
                last[lpn as usize] = u32::MAX;
                assert!(fx.write.is_empty());
            } else {
                let len = match rng.random_range(0..10) {
                    0 | 1 => page,
                    2 => 0,
                    _ => rng.random_range(1..page),
                };
                let c = p.write(lpn, len, &mut fx).unwrap();
                last[lpn as usize] = len;
                if len == 0 {
                    assert!(c.zero() && fx.write.is_empty());
                } else if len == page {
                    assert_eq!(c.offset, 0);
                    assert!(fx.write.contains(&c.vpn));
                } else {
                    let fill: u32 = open.iter().map(|x| x.1).sum();
                    if !open.is_empty() && (fill + len > page || open.len() as u32 == max) {
                        closed += 1;
                        pad += (page - fill) as u64;
                        open.clear();
                    }
                    let fill: u32 = open.iter().map(|x| x.1).sum();
                    assert_eq!(c.offset, fill, "step {step}: offset");
                    open.push((lpn, len));
                    if fill + len == page || open.len() as u32 == max {
                        closed += 1;
                        pad += (page - fill - len) as u64;
                        open.clear();
                    }
                }
            }
            // A freed page may be open only if this very write took it again.
            for v in &fx.freed {
                assert!(
                    !p.is_open(*v)
                        || fx.freed.len() == 1 && p.lookup(lpn).is_some_and(|c| c.vpn == *v)
                );
            }
            if step % 997 == 0 {
                p.check().unwrap();
            }
        }
        p.check().unwrap();
        assert_eq!(p.counters.merged_pages, closed, "page {page} max {max}");
        assert_eq!(p.counters.pad_bytes, pad);
        for (lpn, &len) in last.iter().enumerate() {
            assert_eq!(
                p.lookup(lpn as u64).map(|c| c.len),
                (len != u32::MAX).then_some(len),
                "logical page {lpn}"
            );
        }
    }
}

/// One spare VPN is enough: the open page emptied by overwrites while every logical page
/// sits in a page of its own (the old data is released before new data takes a page).
#[test]
fn one_spare_virtual_page_is_enough() {
    let mut p = PagePacker::new(4096, 4, 3, 4);
    let mut fx = Effects::default();
    p.write(0, 1000, &mut fx).unwrap();
    for (lpn, len) in [
        (0, 4096),
        (1, 4096),
        (2, 4096),
        (1, 4096),
        (2, 4096),
        (0, 4096),
    ] {
        let mut fx = Effects::default();
        let c = p.write(lpn, len, &mut fx).unwrap();
        assert!(fx.write.contains(&c.vpn));
        p.check().unwrap();
    }
    // With one chunk per page, a chunk closes its page at once and the page is written.
    let mut p = PagePacker::new(4096, 1, 3, 4);
    let mut fx = Effects::default();
    let c = p.write(0, 1000, &mut fx).unwrap();
    assert_eq!(fx.write, vec![c.vpn]);
    p.check().unwrap();
}

#[test]
fn a_page_whose_chunks_all_went_is_freed_and_reused() {
    let mut p = PagePacker::new(4096, 4, 10, 11);
    let mut fx = Effects::default();
    let a = p.write(0, 1000, &mut fx).unwrap();
    p.write(1, 1000, &mut fx).unwrap();
    p.flush(&mut fx);
    assert_eq!(fx.write, vec![a.vpn]);
    let mut fx = Effects::default();
    p.write(0, 4096, &mut fx).unwrap();
    assert!(fx.freed.is_empty(), "page 0 still holds logical page 1");
    p.trim(1, &mut fx);
    assert_eq!(fx.freed, vec![a.vpn]);
    p.check().unwrap();
}

/// Split pages against a reference of groups: a group closes after `pieces` pages joined
/// (those still mapped), its pieces are the VPNs it took, in order, at the member's slot; a
/// group's VPNs are freed together exactly when its last member goes, and unsplitting a
/// group makes each member the whole of one of its VPNs.
#[test]
fn split_groups_match_a_reference() {
    let (page, unit, logical, capacity) = (16_384u32, 4096u32, 300u64, 40u64);
    let vpns = (logical + 1 + 3 * (capacity / 4)) as u32;
    let mut p = PagePacker::new(page, 12, logical, vpns).with_split(unit, capacity);
    let mut rng = Pcg64Mcg::seed_from_u64(7);
    // Reference: the pending set, and per split page its group's VPNs and its slot.
    let mut pending: Vec<u64> = Vec::new();
    let mut split: std::collections::HashMap<u64, ([u32; 4], u32)> = Default::default();
    let mut members: std::collections::HashMap<[u32; 4], usize> = Default::default();
    let (mut closed, mut unsplit) = (0, 0);
    for step in 0..40_000 {
        let lpn = rng.random_range(0..logical);
        let mut fx = Effects::default();
        // The old data goes first in the reference too.
        pending.retain(|&l| l != lpn);
        let old = split.remove(&lpn);
        match rng.random_range(0..10) {
            0 => p.trim(lpn, &mut fx),
            1..=3 => {
                p.write(lpn, rng.random_range(1..page), &mut fx).unwrap();
            }
            _ if p.can_split() => {
                let c = p.write_split(lpn, &mut fx).unwrap();
                assert!(c.split());
                pending.push(lpn);
                if let Some(_g) = fx.group {
                    closed += 1;
                    assert_eq!(pending.len(), 4, "step {step}");
                    let m = p.closed_members().to_vec();
                    let mut sorted = m.clone();
                    sorted.sort_unstable();
                    pending.sort_unstable();
                    assert_eq!(sorted, pending, "step {step}: the members");
                    pending.clear();
                    let v: [u32; 4] = fx.write[fx.write.len() - 4..].try_into().unwrap();
                    if rng.random_range(0..5) == 0 {
                        unsplit += 1;
                        p.unsplit();
                        for (k, &l) in m.iter().enumerate() {
                            let c = p.lookup(l).unwrap();
                            assert_eq!((c.vpn, c.offset, c.len), (v[k], 0, page));
                        }
                    } else {
                        for (slot, &l) in m.iter().enumerate() {
                            split.insert(l, (v, slot as u32));
                        }
                        members.insert(v, 4);
                    }
                } else {
                    assert!(p.split_pending(c), "step {step}");
                }
            }
            _ => {
                p.write(lpn, page, &mut fx).unwrap();
            }
        }
        if let Some((v, _)) = old {
            let left = members.get_mut(&v).unwrap();
            *left -= 1;
            if *left == 0 {
                members.remove(&v);
                for x in v {
                    assert!(fx.freed.contains(&x), "step {step}: group {v:?} freed");
                }
            } else {
                assert!(v.iter().all(|x| !fx.freed.contains(x)), "step {step}");
            }
        }
        for (&l, &(v, slot)) in &split {
            let c = p.lookup(l).unwrap();
            assert!(c.split() && !p.split_pending(c), "step {step}: page {l}");
            for i in 0..4 {
                let piece = p.piece(c, i);
                assert_eq!(
                    (piece.vpn, piece.offset, piece.len),
                    (v[i as usize], slot * unit, unit),
                    "step {step}: page {l} piece {i}"
                );
            }
        }
        if step % 499 == 0 {
            p.check().unwrap();
        }
    }
    p.check().unwrap();
    assert!(closed > 500 && unsplit > 50, "{closed} {unsplit}");
    assert!(p.counters.split_live_max <= capacity);
}
