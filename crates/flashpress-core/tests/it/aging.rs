//! The preconditioning's aging windows (`Simulation::aging_windows`) against the device's own
//! counters and hand arithmetic, and the steady-state rule `make bench-scale` applies to them
//! (`sim::aging_waf_by`, `sim::steady`) on hand-made series.

use crate::support::script_sim;
use flashpress_core::config::SimConfig;
use flashpress_core::sim::{aging_waf_by, spread, steady, AgingWindow};
use flashpress_core::stats::PreconditionSummary;
use flashpress_core::workload::{Drive, Op};

/// The tiny preset (4 planes x 64 blocks x 32 pages of 4 KiB, 15% over-provisioning; map unit
/// = page, no compression) filled to `fill` and aged `aging` overwrites per filled page:
/// its windows, its logical pages and the preconditioning summary.
fn aged(fill: f64, aging: f64) -> (Vec<AgingWindow>, u64, PreconditionSummary) {
    let cfg = SimConfig::from_toml_str(
        &format!(
            "preset = \"tiny\"\n[precondition]\nfill_fraction = {fill}\naging_fraction = {aging}\n"
        ),
        "test",
    )
    .unwrap();
    // One read after the preconditioning (a run needs a request; it changes no window).
    let sim = script_sim(&cfg, vec![(Op::Read, 0, 4096, 0)], Drive::Open);
    let windows = sim.aging_windows().to_vec();
    let logical = sim.device().unwrap().logical_pages();
    let rep = sim.run().unwrap();
    (windows, logical, rep.summary.precondition)
}

/// Window by window: 1% of the filled pages each (the last one the remainder), the fraction
/// aged so far, every program an overwrite or a migration (so programs = writes + migrated
/// and WAF = programs / writes), the migrations adding up to the preconditioning's (the fill
/// alone migrates nothing), and the programs matching the erases (each erase frees a block
/// of 32 pages; the free space at the start and the end of the aging differ by less than the
/// spare pages). Before GC first runs the WAF is exactly 1; over the last 100 windows it is
/// above 1.
#[test]
fn aging_windows_add_up_to_the_device_counters() {
    let (none, logical, fill_only) = aged(0.5, 0.0);
    assert!(none.is_empty(), "no aging, no windows");
    assert_eq!(
        fill_only.gc_pages_migrated, 0,
        "the fill alone migrates nothing"
    );
    let (windows, logical2, s) = aged(0.5, 3.0);
    assert_eq!(logical, logical2);
    let physical = 4 * 64 * 32u64;
    let pages = logical / 2; // floor(0.5 x logical pages)
    assert_eq!(s.fill_pages, pages);
    let aging = 3 * pages;
    assert_eq!(s.aging_pages, aging);
    let window = pages.div_ceil(100);
    assert_eq!(windows.len() as u64, aging.div_ceil(window));
    let mut written = 0;
    for (i, w) in windows.iter().enumerate() {
        let expect = window.min(aging - written);
        assert_eq!(w.writes, expect, "window {i}");
        written += w.writes;
        assert_eq!(w.aged_fraction, written as f64 / pages as f64, "window {i}");
        assert_eq!(w.programs, w.writes + w.gc_pages_migrated, "window {i}");
        assert_eq!(w.waf, w.programs as f64 / w.writes as f64, "window {i}");
    }
    assert_eq!(written, aging);
    let migrated: u64 = windows.iter().map(|w| w.gc_pages_migrated).sum();
    assert_eq!(migrated, s.gc_pages_migrated);
    let programs: u64 = windows.iter().map(|w| w.programs).sum();
    let freed = (s.erases - fill_only.erases) * 32;
    assert!(
        programs.abs_diff(freed) < physical - pages,
        "{programs} programs, {freed} pages erased"
    );
    assert_eq!(windows[0].gc_pages_migrated, 0);
    assert_eq!(windows[0].waf, 1.0);
    let late = &windows[windows.len() - 100..];
    let (p, w) = late
        .iter()
        .fold((0, 0), |(p, w), x| (p + x.programs, w + x.writes));
    assert!(
        p > w,
        "an aged half-full device migrates: {p} programs for {w} writes"
    );
}

fn window(writes: u64, programs: u64) -> AgingWindow {
    AgingWindow {
        aged_fraction: 0.0,
        writes,
        programs,
        gc_pages_migrated: programs - writes,
        waf: programs as f64 / writes as f64,
    }
}

/// Groups of windows: programs and writes summed per group (not the windows' WAF averaged),
/// times the NAND page's mapping units; the last group is shorter.
#[test]
fn grouped_waf_sums_programs_and_writes() {
    let w = [
        window(10, 10),
        window(30, 50),
        window(8, 12),
        window(4, 8),
        window(2, 3),
    ];
    assert_eq!(
        aging_waf_by(&w, 2, 1.0),
        vec![60.0 / 40.0, 20.0 / 12.0, 3.0 / 2.0]
    );
    assert_eq!(aging_waf_by(&w, 5, 4.0), vec![83.0 * 4.0 / 54.0]);
    assert_eq!(aging_waf_by(&w, 10, 1.0), vec![83.0 / 54.0]);
    assert!(aging_waf_by(&[], 10, 1.0).is_empty());
}

/// Steady when and only when there are at least three windows and the last three are all
/// within the tolerance of their mean; what came before does not count. Values exact in
/// binary: 0.75, 1.25 and 1.0 have mean 1.0 and spread 0.25.
#[test]
fn steady_when_and_only_when_the_last_three_are_within_tolerance() {
    let tail = [0.75, 1.25, 1.0];
    assert_eq!(spread(&tail), Some(0.25));
    assert!(steady(&tail, 3, 0.25));
    assert!(!steady(&tail, 3, 0.2499));
    // Earlier windows, however far off, do not matter.
    assert!(steady(&[9.0, 0.1, 0.75, 1.25, 1.0], 3, 0.25));
    // One of the last three further out: not steady; the same value one window earlier is.
    assert!(!steady(&[1.0, 1.0, 1.0, 1.0, 1.5], 3, 0.25));
    assert!(steady(&[1.0, 1.0, 1.5, 1.0, 1.0, 1.0], 3, 0.25));
    // Fewer than three windows are never steady, even if equal.
    assert!(!steady(&[1.0, 1.0], 3, 0.25));
    assert!(!steady(&[], 3, 0.25));
    assert_eq!(spread(&[]), None);
    // Brute force over a grid of series: steady exactly when every one of the last three is
    // within tolerance of their mean.
    let values: [f64; 5] = [0.5, 0.75, 1.0, 1.25, 2.0];
    for &a in &values {
        for &b in &values {
            for &c in &values {
                let mean = (a + b + c) / 3.0;
                let within = [a, b, c].iter().all(|&x| (x / mean - 1.0).abs() <= 0.25);
                assert_eq!(steady(&[3.0, a, b, c], 3, 0.25), within, "{a} {b} {c}");
            }
        }
    }
}
