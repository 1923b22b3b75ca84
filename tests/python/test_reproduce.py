"""``flashpress reproduce``: experiment definitions, figures and report on synthetic result
tables, the CLI's checks, and (slow, needs the storage stack and the ``waltz`` preset) an
end-to-end ``--quick`` run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from flashpress import Config, errors
from flashpress.cli import main
from flashpress.reproduce import describe, render, reproduce
from flashpress.reproduce.claims import Verdict
from flashpress.reproduce.experiments import LABEL_KEYS, PresetValue, figures, normalise_figure_key
from flashpress.reproduce.figures import PLOTTERS, plot_figure
from flashpress.reproduce.papers import claims
from flashpress.reproduce.report import write_report
from flashpress.reproduce.runner import controller_overrides, plan, resolve_values
from flashpress.reproduce.scale import SCALES, get_scale
from flashpress.thermal_fit import RACK_NEIGHBOUR_C

QUICK = get_scale("quick")


@pytest.mark.parametrize("paper", ["waltz", "coco"])
@pytest.mark.parametrize("scale", list(SCALES))
def test_runs_are_well_formed(paper: str, scale: str) -> None:
    from flashpress.reproduce.papers import get_paper

    for fig in figures(paper, get_scale(scale)):
        ids = [r.run_id for r in fig.runs]
        assert len(ids) == len(set(ids)), f"{fig.key}: duplicate run ids"
        assert fig.kind in PLOTTERS or fig.kind in get_paper(paper).plotters
        for r in fig.runs:
            assert set(r.labels) == set(LABEL_KEYS)
            assert r.overrides["preset"] == "waltz"
            assert "stack.policy" in r.overrides
            assert r.overrides["stack.ccsd.thermal.tau_s"] == PresetValue(
                "stack.ccsd.thermal.tau_s", SCALES[scale].time_scale
            )


@pytest.mark.parametrize("scale", list(SCALES))
def test_prssd_runs_are_well_formed(scale: str) -> None:
    from flashpress.reproduce.papers import get_paper

    sc = get_scale(scale)
    for fig in figures("prssd", sc):
        ids = [r.run_id for r in fig.runs]
        assert len(ids) == len(set(ids)), f"{fig.key}: duplicate run ids"
        assert fig.kind in PLOTTERS or fig.kind in get_paper("prssd").plotters
        for r in fig.runs:
            assert set(r.labels) == set(LABEL_KEYS)
            assert r.overrides["scheme"] == f"prssd/{r.labels['scheme']}"
            assert r.overrides["nand.blocks_per_plane"] == sc.prssd_blocks_per_plane
            job = r.overrides["workload"]["jobs"][0]
            assert job["number_ios"] == sc.prssd_requests
            assert job["name"] == r.labels["workload"]


def test_prssd_configs_validate_and_split_tables_scale_with_the_device() -> None:
    from flashpress.reproduce.runner import plan

    planned = plan(figures("prssd", QUICK))
    assert all(p.config is not None for p in planned)
    for p in planned:
        assert p.config is not None
        if p.spec.labels["scheme"].startswith("PR"):
            ch = p.config.get("nand.channels")
            # The seed's 262,144 split pages on 8 channels of 1024-block planes, scaled.
            want = 262_144 * QUICK.prssd_blocks_per_plane // 1024 * ch // 8
            assert p.config.get("ftl.compression.split.max_split_pages") == want


def test_prssd_map_budgets_are_shares_of_s_table_and_a_budget_holding_a_table_is_full() -> None:
    """Our DRAM-budget study: every scheme gets the same bytes, a share of S's table on the
    scaled device; a scheme whose whole table fits keeps it in DRAM (the Fig. 14 run)."""
    from flashpress.reproduce.papers.prssd.experiments import MAP_BUDGETS, MAP_SCHEMES, budget_label, mapcache

    fig = mapcache(QUICK)
    planned = plan([fig])
    assert len(planned) == len(MAP_BUDGETS) * len(MAP_SCHEMES) * len(QUICK.prssd_workloads)
    s_table = next(p.config for p in planned if p.spec.labels["scheme"] == "S").mapping_table_bytes()  # type: ignore[union-attr]
    for p in planned:
        assert p.config is not None
        assert p.config.get("ftl.op_ratio") == 0.08
        own = p.config.map_cache_table_bytes()
        split = p.config.get("ftl.compression.split") is not None
        # The split schemes' whole table is the packed map and the split table at capacity.
        assert (own > p.config.mapping_table_bytes()) == split
        share = next(b for b in MAP_BUDGETS if budget_label(b) == p.spec.labels["variant"])
        budget = int(s_table * share)
        if budget >= own:
            assert "map_cache" not in p.config.to_dict()["ftl"]
        else:
            assert p.config.get("ftl.map_cache") == {"type": "demand", "dram_bytes": budget, "policy": "lru"}
    # DP's table is the smaller (37% on the seed's device), SP's the larger (its partial bitmap).
    dp = next(p for p in planned if p.spec.labels["scheme"] == "DP" and p.spec.labels["variant"] == "map-25%")
    assert dp.config is not None
    assert dp.config.get("ftl.map_cache.dram_bytes") == int(s_table * 0.25)


def _budget_rows(s: dict[str, tuple[float, float]], dp: dict[str, tuple[float, float]]) -> pd.DataFrame:
    """``mapcache`` rows: per seed and budget label, (S, DP) mean read response times on one
    workload."""
    rows = []
    for rep in range(2):
        for scheme, vals in (("S", s), ("DP", dp)):
            for variant, v in vals.items():
                rows.append(
                    {
                        "figure": "mapcache",
                        "status": "ok",
                        "run_id": f"{scheme}/{variant}/{rep}",
                        "scheme": scheme,
                        "workload": "Ubuntu",
                        "variant": variant,
                        "rep": rep,
                        "read.latency_us.mean": v[rep],
                        "read.latency_us.p99": 10 * v[rep],
                    }
                )
    return pd.DataFrame(rows)


@pytest.mark.parametrize(
    ("s", "dp", "status"),
    [
        # S's budget adds 100 us, DP's 50 us: -50%, outside the band (the seeds agree).
        ({"map-100%": (200, 200), "map-5%": (300, 300)}, {"map-100%": (150, 150), "map-5%": (200, 200)}, "holds"),
        # DP's adds more than S's: the hypothesis fails.
        ({"map-100%": (200, 200), "map-5%": (300, 300)}, {"map-100%": (150, 150), "map-5%": (300, 300)}, "fails"),
        # Equal costs: inside the band.
        (
            {"map-100%": (200, 200), "map-5%": (300, 300)},
            {"map-100%": (100, 100), "map-5%": (200, 200)},
            "inconclusive",
        ),
        # The seeds disagree by more than the change: inside their spread.
        (
            {"map-100%": (200, 200), "map-5%": (300, 300)},
            {"map-100%": (150, 150), "map-5%": (240, 320)},
            "inconclusive",
        ),
        # The budget costs S nothing: no cost to compare with.
        (
            {"map-100%": (200, 200), "map-5%": (200, 200)},
            {"map-100%": (150, 150), "map-5%": (140, 140)},
            "inconclusive",
        ),
        # No DP runs under the budget.
        ({"map-100%": (200, 200), "map-5%": (300, 300)}, {"map-100%": (150, 150)}, "not run"),
    ],
)
def test_prssd_budget_hypotheses_are_ours_and_can_fail(
    s: dict[str, tuple[float, float]], dp: dict[str, tuple[float, float]], status: str
) -> None:
    ours = [c for c in claims("prssd") if c.figure == "mapcache"]
    assert len(ours) == 3
    assert all(c.ours and c.seed.startswith("Our hypothesis, not the seed's") for c in ours)
    mean5 = next(c for c in ours if "budget of 5% of S's table" in c.seed and "mean" in c.seed)
    p99 = next(c for c in ours if "p99" in c.seed)
    table = _budget_rows(s, dp)
    assert mean5.check(table, QUICK).status == status
    # The p99 metric is ten times the mean here: the same verdict.
    assert p99.check(table, QUICK).status == status


def test_prssd_workloads_follow_table_2() -> None:
    """Each workload's fio job as generated: its size mix averages Table 2's sizes (to the
    4 KiB rounding of the large size), and a short run on a small device reads and writes in
    Table 2's proportion with those mean sizes."""
    import flashpress
    from flashpress.codec import codec_bench
    from flashpress.reproduce import testdata
    from flashpress.reproduce.papers.prssd.experiments import SMALL_MIX, TABLE2, workload

    for name, (rr, rkb, wkb, rrand, wrand, _) in TABLE2.items():
        job = workload(name, QUICK)["workload"]["jobs"][0]
        assert job["rwmixread"] == round(100 * rr)
        assert job["percentage_random"] == f"{round(100 * rrand)},{round(100 * wrand)}"
        for split, mean in zip(job["bssplit"].split(","), (rkb, wkb), strict=True):
            sizes = [(int(x.split("/")[0][:-1]), int(x.split("/")[1])) for x in split.split(":")]
            assert sizes[: len(SMALL_MIX)] == list(SMALL_MIX)
            got = sum(k * p for k, p in sizes) / 100
            assert abs(got - mean) <= 0.3 * 2 + 1e-9, (name, got, mean)
    for name in ("DB", "ML"):
        rr, rkb, wkb, _, _, _ = TABLE2[name]
        w = workload(name, QUICK)
        w["workload"]["jobs"][0]["number_ios"] = 20_000
        w["workload"]["jobs"][0]["size"] = "50%"
        cfg = flashpress.Config.preset("tiny").with_overrides(
            {**w, "nand.page_size": 16384, "content.granularity": 16384}
        )
        s = flashpress.simulate(cfg, progress=False).summary
        nr, nw = s["read"]["requests"], s["write"]["requests"]
        assert abs(nr / (nr + nw) - rr) < 0.02, name
        assert s["read"]["bytes"] / nr / 1024 == pytest.approx(rkb, rel=0.08), name
        assert s["write"]["bytes"] / nw / 1024 == pytest.approx(wkb, rel=0.08), name
        # The blocks are the workload's ext4 image, written in order and over again: the run
        # saves what LZ4 saves on the image's 16 KiB units, measured by the codec bench
        # (which reads the file itself, not through the content model).
        image = testdata.image("prssd", name)
        want = codec_bench(image, ["lz4"], ["16k"], progress=False).row("lz4", "16k")["saving"]
        assert s["content"]["saving"] == pytest.approx(want, abs=0.03), name


def test_quick_is_smaller_than_default_and_full() -> None:
    for paper in ("waltz", "coco", "prssd", "cagc"):
        n = {s: sum(d["runs"] for d in describe(paper, s)) for s in SCALES}
        assert n["quick"] < n["default"] <= n["full"]


def test_scaled_run_lengths_and_ratio() -> None:
    fig14 = figures("waltz", QUICK, ["14"])[0]
    job = fig14.runs[0].overrides["workload"]["jobs"][0]
    # measured with the temperature control triggered: 30 s warm-up + 300 s window, x 0.01
    assert job["runtime"] == "3300ms"
    assert fig14.runs[0].overrides["stats.warmup_ms"] == pytest.approx(300.0)
    assert fig14.runs[0].overrides["stack.ccsd.thermal.initial_c"] == 77.0
    # the timelines of Fig 12 stay cold-start 20-minute runs
    fig12 = figures("waltz", QUICK, ["12"])[0]
    assert fig12.runs[0].overrides["workload"]["jobs"][0]["runtime"] == "12000ms"
    assert "stats.warmup_ms" not in fig12.runs[0].overrides
    assert "stack.ccsd.thermal.initial_c" not in fig12.runs[0].overrides
    assert job["numjobs"] == 8
    assert job["buffer_compress_percentage"] == 50
    fig3 = figures("waltz", QUICK, ["fig3"])[0]
    assert all(r.overrides["content.ratio"] == {"type": "fixed", "ratio": 1.0} for r in fig3.runs)
    assert [r.optional for r in fig3.runs] == [False, True, False], "only the engine-off curve may be skipped"
    rack = fig3.runs[2].overrides["stack.ccsd.thermal.neighbour_c"]
    assert rack == RACK_NEIGHBOUR_C, "the rack heating is the value fitted to the seed's 420 s"


def test_coco_runs_both_readings_of_the_rest() -> None:
    runs = figures("coco", QUICK, ["throughput"])[0].runs
    by_scheme: dict[str, list[dict[str, Any]]] = {}
    for r in runs:
        by_scheme.setdefault(r.labels["scheme"], []).append(r.overrides)
    assert list(by_scheme) == ["Baseline", "F2FSC", "FACS", "COCO", "FACS+F2FS", "COCO+F2FS"]
    rest = {"FACS": "uncompressed", "COCO": "uncompressed", "FACS+F2FS": "host", "COCO+F2FS": "host"}
    for scheme, want in rest.items():
        for o in by_scheme[scheme]:
            assert o["stack.policy"] == "coco"
            assert o["stack.coco.tags"] is True
            assert o["stack.coco.rest"] == want
    # Each "+F2FS" variant differs from its seed scheme only in the rest.
    for seed, variant in (("FACS", "FACS+F2FS"), ("COCO", "COCO+F2FS")):
        for a, b in zip(by_scheme[seed], by_scheme[variant], strict=True):
            assert {k: v for k, v in a.items() if k != "stack.coco.rest"} == {
                k: v for k, v in b.items() if k != "stack.coco.rest"
            }
    assert all("stack.coco.rest" not in o for o in by_scheme["Baseline"] + by_scheme["F2FSC"])


def test_preset_values_resolve_and_scale() -> None:
    preset = {"stack": {"fs": {"partition_bytes": 200 << 30}}, "nand": {"blocks_per_plane": 1000}}
    out = resolve_values(
        {
            "a": PresetValue("stack.fs.partition_bytes", 1 / 16, align=512 * 4096),
            "b": [PresetValue("nand.blocks_per_plane", 0.001, minimum=16)],
        },
        preset,
        "test",
    )
    assert out == {"a": (200 << 30) // 16, "b": [16]}
    with pytest.raises(errors.ConfigError, match=r"no key `stack\.nope`"):
        resolve_values(PresetValue("stack.nope"), preset, "test")


def test_figure_selection() -> None:
    assert normalise_figure_key("Fig 14") == "fig14" == normalise_figure_key("14")
    assert [f.key for f in figures("waltz", QUICK, ["3", "fig14"])] == ["fig3", "fig14"]
    with pytest.raises(ValueError, match="unknown figure 'fig7'"):
        figures("waltz", QUICK, ["7"])


# -- synthetic results --------------------------------------------------------------------

SPEED = {"Baseline": 100.0, "F2FSC": 40.0, "FPC": 100.0, "TCS": 450.0, "Waltz_s": 460.0, "Waltz_p": 520.0}


def _row(fig: str, run_id: str, run: int, status: str = "ok", **labels: Any) -> dict[str, Any]:
    row: dict[str, Any] = {"figure": fig, "run_id": run_id, "run": run, "status": status, "error": None}
    row.update({k: labels.get(k) for k in LABEL_KEYS})
    row.update({k: v for k, v in labels.items() if k not in LABEL_KEYS})
    return row


def synthetic_table() -> pd.DataFrame:
    rows = []
    i = 0
    for pattern in ("seq-write", "rand-read"):
        for scheme, mbps in SPEED.items():
            # Reads under F2FSC are faster than Baseline (the seed's +367%), writes slower.
            v = 300.0 if (scheme == "F2FSC" and pattern == "rand-read") else mbps
            direction = "write" if pattern.endswith("write") else "read"
            rows.append(
                _row(
                    "fig14",
                    f"{scheme}/{pattern}",
                    i,
                    scheme=scheme,
                    pattern=pattern,
                    sc=False,
                    ratio=2,
                    **{
                        f"{direction}.throughput_mb_s": v,
                        "waf": 0.6,
                        "stack.temperature.max_c": 87.0 if scheme == "Baseline" else 84.0,
                        "stack.temperature.shutdown_s": 10.0 if scheme == "Baseline" else None,
                        "stack.temperature.first_throttle_s": 5.82 if scheme == "Baseline" else None,
                        "stack.tasks.host_share": 0.1 if scheme.startswith("Waltz") else None,
                    },
                )
            )
            i += 1
    # Fig 12 shares its runs with Fig 14 (Baseline, Waltz_s and Waltz_p without SC).
    rows += [{**r, "figure": "fig12"} for r in rows if r["scheme"] in ("Baseline", "Waltz_s", "Waltz_p")]
    rows.append(_row("fig14", "TCS/seq-read", i, status="failed", scheme="TCS", pattern="seq-read", error="boom"))
    rows[-1]["error"] = "InvariantError: boom"
    rows.append(
        _row(
            "fig3",
            "with/23C",
            0,
            variant="W/ Compr. (23 °C)",
            scheme="Baseline",
            **{
                "stack.temperature.shutdown_s": 10.0,
                "stack.temperature.first_throttle_s": 5.82,
                "stack.temperature.max_c": 86.0,
            },
        )
    )
    rows.append(_row("fig3", "without/23C", None, status="skipped", variant="W/o Compr. (23 °C)", scheme="Baseline"))  # type: ignore[arg-type]
    rows[-1]["error"] = "ConfigError: unknown key `stack.ccsd.engine`"
    return pd.DataFrame(rows)


def test_claims_follow_the_measured_ordering() -> None:
    table = synthetic_table()
    by_seed = {c.seed: c.check(table, QUICK) for c in claims("waltz")}

    def verdict(start: str) -> Verdict:
        (v,) = [v for s, v in by_seed.items() if s.startswith(start)]
        return v

    v = verdict("§6.3.1: F2FSC 'on average 67% write throughput degradation'")
    assert v.status == "holds"
    assert v.measured == pytest.approx(-60.0)
    assert "-60.0%" in v.why
    assert "within a factor of 2 of the seed's -67% (ratio 0.90)" in v.why
    v = verdict("§6.3.1: F2FSC '367% read throughput improvement'")
    # +200% against the seed's +367%: the direction holds and the size is 0.54x, inside a factor 2.
    assert v.status == "holds"
    assert v.measured == pytest.approx(200.0)
    # +13.0% (520 against 460 MB/s) against the seed's +13.9%.
    assert verdict("§6.3.1: 'On average, the throughput of Waltzp is 13.9% higher").status == "holds"
    # 5.82 simulated seconds at time scale 0.01 are 582 paper seconds: a prediction now (the fit is §3.1's), scored.
    v = verdict("§6.2: 'the CCSD gets overheated in 582 seconds")
    assert v.status == "holds"
    assert v.measured == pytest.approx(582.0)
    assert verdict("§6.2: 'Waltzs and Waltzp are effective in controlling the SSD temperatures").status == "holds"
    # Reverse the ordering: F2FSC writes faster than Baseline -> the claim fails.
    flipped = table.copy()
    mask = (flipped["scheme"] == "F2FSC") & (flipped["pattern"] == "seq-write")
    flipped.loc[mask, "write.throughput_mb_s"] = 250.0
    (c,) = [c for c in claims("waltz") if c.seed.startswith("§6.3.1: F2FSC 'on average 67% write")]
    assert c.check(flipped, QUICK).status == "fails"
    # No runs at all: not run, never an agreement.
    v = verdict("§6.3.2: 'The write throughput of Waltzs is improved by 95.5%")
    assert v.status == "not run"
    assert v.measured is None


def test_figures_and_report_from_synthetic_results(tmp_path: Path) -> None:
    table = synthetic_table()
    figs = figures("waltz", QUICK, ["3", "14"])
    timelines = {
        0: pd.DataFrame(
            {"time_s": [0.0, 2.0, 10.0], "temperature_c": [23.0, 70.0, 86.0], "write_mb_s": [900.0, 800.0, 0.0]}
        )
    }
    files: dict[str, list[str]] = {}
    for fig in figs:
        paths = plot_figure(fig, table, timelines, QUICK, tmp_path / "figures")
        assert [p.suffix for p in paths] == [".png", ".svg"]
        assert all(p.stat().st_size > 0 for p in paths)
        files[fig.key] = [f"figures/{p.name}" for p in paths]
    text = write_report("waltz", figs, table, QUICK, figure_files=files, wall_s=12.5, preset="waltz")
    assert "## fig14" in text
    assert "## fig3" in text
    assert "![fig14](figures/fig14.png)" in text
    assert "[figures/fig14.svg](figures/fig14.svg)" in text
    assert (
        "| §6.3.1: F2FSC 'on average 67% write throughput degradation' vs Baseline (without SC) | magnitude | -67% "
        "| -60.0% | **holds** |"
    ) in text
    assert text.split("\n")[2].startswith("Seed statements: "), "the counts are the report's first line"
    assert "by construction (shown, not scored)" in text
    assert "## Null model" in text
    assert "`TCS/seq-read` failed: InvariantError: boom" in text, "failed runs are reported with their error"
    assert "`without/23C` skipped: ConfigError: unknown key `stack.ccsd.engine`" in text
    assert "time x 0.01, space x 0.0078125" in text
    assert "Wall time 12.5 s" in text
    # The shutdown time in the measured table is in paper seconds.
    assert "| with/23C |" in text
    assert "582" in text
    # Deterministic: the same inputs give the same text.
    assert text == write_report("waltz", figs, table, QUICK, figure_files=files, wall_s=12.5, preset="waltz")


def test_every_plot_kind_tolerates_no_results(tmp_path: Path) -> None:
    empty = pd.DataFrame(columns=["figure", "run_id", "run", "status", "error", *LABEL_KEYS])
    for paper in ("waltz", "coco"):
        for fig in figures(paper, QUICK):
            plot_figure(fig, empty, {}, QUICK, tmp_path / paper)
            for c in claims(paper):
                assert c.check(empty, QUICK).status == "not run"


# -- CLI ----------------------------------------------------------------------------------


def test_cli_refuses_existing_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "x").write_text("keep")
    assert main(["reproduce", "waltz", "--quick", "--out", str(tmp_path)]) == 2
    assert "not empty" in capsys.readouterr().err
    assert (tmp_path / "x").read_text() == "keep"


def test_cli_rejects_unknown_figure(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(["reproduce", "waltz", "--quick", "--only", "7", "--out", str(tmp_path / "o")])
    assert e.value.code == 2
    assert "unknown figure 'fig7'" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_realistic_controller_puts_every_stack_run_on_the_default_presets_back_end() -> None:
    default = Config.preset("default").to_dict()
    for paper in ("waltz", "coco"):
        for preset_runs, realistic_runs in zip(
            plan(figures(paper, QUICK, ["3"] if paper == "waltz" else None)),
            plan(figures(paper, QUICK, ["3"] if paper == "waltz" else None), controller="realistic"),
            strict=True,
        ):
            if preset_runs.config is None:
                continue
            assert realistic_runs.config is not None
            p, r = preset_runs.config.to_dict(), realistic_runs.config.to_dict()
            assert p["controller"]["scheduler"] == "fcfs"
            assert not p["controller"]["suspend"]["enabled"]
            assert r["controller"] == default["controller"]
            assert r["ftl"]["gc"]["preemptible"]
            assert r["ftl"]["striping"] == default["ftl"]["striping"]
            # Nothing else moves: the stack, the workload and the device's other keys are the run's.
            for key in ("stack", "workload", "nand"):
                assert r[key] == p[key], key


def test_unknown_or_misplaced_controller_setting_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ValueError, match="unknown controller setting 'fast'"):
        controller_overrides("fast")
    with pytest.raises(SystemExit) as e:
        main(["reproduce", "prssd", "--quick", "--controller", "realistic", "--out", str(tmp_path / "o")])
    assert e.value.code == 2
    assert "storage-stack papers (waltz, coco)" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


@pytest.mark.slow
def test_quick_end_to_end(tmp_path: Path) -> None:
    """Needs the storage stack ([stack] runs, the `waltz` preset, Filebench): a real quick run
    of two figures, on a local Dask cluster."""
    report = reproduce("waltz", tmp_path / "out", scale="quick", only=["3", "14"], workers=2)
    text = report.read_text()
    out = tmp_path / "out"
    for key in ("fig3", "fig14"):
        assert (out / "figures" / f"{key}.png").is_file()
        assert (out / "figures" / f"{key}.svg").is_file()
        assert f"## {key}" in text
    table = pd.read_csv(out / "results.csv")
    assert list(table["figure"].unique()) == ["fig3", "fig14"]
    ok = table[table["status"] == "ok"]
    assert len(ok) >= len(table) - 1, table[["run_id", "status", "error"]]
    assert ok["stack.policy"].notna().all()
    assert (out / "runs" / "0000" / "timeline.csv").is_file()
    # report.html beside report.md, and both what `flashpress report` makes of the saved files.
    written = {name: (out / name).read_bytes() for name in ("report.md", "report.html")}
    assert "[with/23C](runs/0000/config.json)" in text
    render(out)
    assert {name: (out / name).read_bytes() for name in written} == written


@pytest.mark.slow
def test_prssd_quick_end_to_end(tmp_path: Path) -> None:
    """PR-SSD's quick reproduction of Figs. 14 and 19: figures, Table 2 beside ours, claims."""
    report = reproduce("prssd", tmp_path / "out", scale="quick", only=["14", "19"], workers=2)
    text = report.read_text()
    out = tmp_path / "out"
    for key in ("fig14", "fig19"):
        assert (out / "figures" / f"{key}.png").is_file()
        assert f"## {key}" in text
    assert "## Table 2: the seed's workloads beside ours" in text
    assert "| Copy | 0.6 / " in text
    table = pd.read_csv(out / "results.csv")
    assert (table["status"] == "ok").all(), table[["run_id", "status", "error"]]
    pr = table[(table["figure"] == "fig19") & (table["scheme"] == "PR")]
    assert (pr["compression.split_pages"] > 0).any()
    assert "PR-SSD can reduce the read response time by 18% on average" in text


@pytest.mark.parametrize("scale", list(SCALES))
def test_cagc_runs_are_well_formed(scale: str) -> None:
    from flashpress.reproduce.papers.cagc.experiments import (
        BACKGROUND_THRESHOLD,
        FREE_HASH,
        INDEX_BUDGETS,
        LINUX,
        NO_GC_FLASH,
        NO_REGIONS,
        _logical_bytes,
        index_budget,
        index_bytes,
        no_gc_device,
        trace_dir,
    )

    sc = get_scale(scale)
    figs = figures("cagc", sc)
    assert [f.key for f in figs] == ["fig2", "fig6", "fig9", "fig10", "fig11", "fig12", "fig13", "index-budget"]
    for fig in figs:
        assert fig.runs
        assert fig.prepare is not None
        assert fig.seeded
        ids = [r.run_id for r in fig.runs]
        assert len(ids) == len(set(ids)), fig.key
        for r in fig.runs:
            if r.labels["scheme"] == FREE_HASH:
                # CAGC with a hash that takes no time.
                assert r.overrides["scheme"] == "cagc/CAGC"
                assert r.overrides["ftl.dedup.hash_us"] == 0.0
            else:
                assert r.overrides["scheme"] == f"cagc/{r.labels['scheme']}"
                assert "ftl.dedup.hash_us" not in r.overrides
            w = r.overrides["workload"]
            assert w["format"] == "csv"
            # The generated traces replay at their requests' times; the linux releases have none.
            assert w["replay"] == ("afap" if r.labels["workload"] == LINUX else "timed")
            assert r.overrides["ftl.gc.background"] is True
            assert r.overrides["ftl.gc.background_threshold"] == BACKGROUND_THRESHOLD
            assert Path(w["path"]).parent == trace_dir()
            assert r.overrides["seed"] == r.labels["rep"] + 1
            assert r.labels["workload"] in sc.cagc_workloads
            if r.labels["variant"] == "no-gc":
                assert r.overrides["nand.blocks_per_plane"] == NO_GC_FLASH * sc.cagc_blocks_per_plane
            else:
                assert r.overrides["nand.blocks_per_plane"] == sc.cagc_blocks_per_plane
        # every seed repeat, each its own trace (the linux releases are one)
        reps = {r.labels["rep"] for r in fig.runs}
        assert reps == set(range(sc.seeds))
    by_key = {f.key: f for f in figs}
    assert {r.labels["scheme"] for r in by_key["fig10"].runs} == {"Baseline", "Inline", "CAGC", NO_REGIONS}
    assert {r.labels["scheme"] for r in by_key["fig11"].runs} == {"Baseline", "Inline", "CAGC", FREE_HASH}
    fig13 = by_key["fig13"]
    assert {r.labels["variant"] for r in fig13.runs} == {"random", "greedy", "cost_benefit"}
    assert {r.overrides["ftl.gc.victim"] for r in fig13.runs} == {"random", "greedy", "cost_benefit"}
    # Ours: CAGC with its fingerprint index under 100%, 25% and 5% of it in DRAM, in whole bucket
    # pages; the core accepts the whole index and refuses a page more (its size agrees).
    budget = by_key["index-budget"]
    assert {r.labels["scheme"] for r in budget.runs} == {"CAGC"}
    assert {r.labels["variant"] for r in budget.runs} == set(INDEX_BUDGETS)
    whole = index_bytes(sc)
    for r in budget.runs:
        ic = r.overrides["ftl.dedup.index_cache"]
        assert ic["dram_bytes"] == index_budget(sc, INDEX_BUDGETS[r.labels["variant"]])
        assert ic["dram_bytes"] % 4096 == 0
        assert 4096 <= ic["dram_bytes"] <= whole
    assert index_budget(sc, 1.0) == whole
    dedup = {"mode": "gc", "hash_us": 14.0, "regions": True}
    device = {"nand": {"blocks_per_plane": sc.cagc_blocks_per_plane}}
    Config.from_dict(
        {
            "scheme": "cagc/CAGC",
            **device,
            "ftl": {"dedup": {**dedup, "index_cache": {"type": "demand", "dram_bytes": whole, "policy": "lru"}}},
        }
    )
    with pytest.raises(errors.ConfigError, match="whole fingerprint index"):
        Config.from_dict(
            {
                "scheme": "cagc/CAGC",
                **device,
                "ftl": {
                    "dedup": {**dedup, "index_cache": {"type": "demand", "dram_bytes": whole + 4096, "policy": "lru"}}
                },
            }
        )
    # The no-GC device has at least the same logical space (so the same traces fit it), and
    # not a page more than rounding the OP to 1e-6 gives.
    dev = no_gc_device(sc)
    cfg = Config.from_dict(
        {
            "scheme": "cagc/Baseline",
            "nand": {"blocks_per_plane": dev["nand.blocks_per_plane"]},
            "ftl": {"op_ratio": dev["ftl.op_ratio"]},
        }
    )
    assert 0 <= cfg.logical_bytes() - _logical_bytes(sc) < cfg.logical_bytes() / (1.0 - dev["ftl.op_ratio"]) * 2e-6


@pytest.mark.slow
def test_cagc_quick_end_to_end(tmp_path: Path) -> None:
    """CAGC's quick reproduction: traces made before the runs, every run ok, the figures, the
    Table II comparison, the during-GC CDFs and the claims."""
    report = reproduce("cagc", tmp_path / "out", scale="quick", workers=2)
    text = report.read_text()
    out = tmp_path / "out"
    for key in ("fig2", "fig6", "fig9", "fig10", "fig11", "fig12", "fig13", "index-budget"):
        assert (out / "figures" / f"{key}.png").is_file()
        assert f"## {key}" in text
    assert "## Workloads: Table II beside what the traces did" in text
    table = pd.read_csv(out / "results.csv")
    assert (table["status"] == "ok").all(), table[["run_id", "status", "error"]]
    assert list((out / "runs").glob("*/gc_latency_cdf.csv"))
    row = next(line for line in text.splitlines() if "CAGC erases fewer flash blocks than the Baseline (Mail" in line)
    assert "**holds**" in row, row
    cagc = table[(table["figure"] == "fig9") & (table["scheme"] == "CAGC")]
    assert (cagc["dedup.gc_duplicates"] > 0).all()


def test_webserver_at_the_default_scale_keeps_the_file_system_invariants() -> None:
    """Fig 18's TCS run on Filebench webserver (default scale, about 2 s) once failed its
    invariant check: a write's new direct node block, not yet counted by the space check, made
    the next checkpoint overflow the user space by one block (778,241 of 778,240)."""
    import flashpress
    from flashpress.reproduce.runner import plan

    figs = figures("waltz", get_scale("default"), only=["fig18"])
    runs = [
        p
        for p in plan(figs)
        if p.spec.labels.get("scheme") == "TCS"
        and p.spec.labels.get("personality") == "webserver"
        and p.spec.labels.get("rep", 0) == 0
    ]
    assert len(runs) == 1
    assert runs[0].config is not None
    cfg = runs[0].config.to_dict()
    cfg["check"] = {**cfg.get("check", {}), "invariants": True}
    s = flashpress.simulate(cfg, progress=False).summary
    assert s["stack"]["fs"]["counters"]["enospc"] > 0  # the space really ran out


@pytest.mark.parametrize("paper", ["waltz", "coco", "prssd", "cagc"])
def test_every_claim_the_committed_report_misses_has_a_measured_cause(paper: str) -> None:
    """docs/reproduce/PAPER/report.md (the default-scale run): each claim that fails or is
    inconclusive names its measured cause; claims not run say why."""
    report = Path(__file__).resolve().parents[2] / "docs" / "reproduce" / paper / "report.md"
    text = report.read_text()
    section = text.split("## Claims that do not hold, and why", 1)[1]
    misses = [line for line in section.splitlines() if line.startswith("- **")]
    assert misses
    for line in misses:
        if line.startswith("- **not run**"):
            assert "not run: " in line, line
        else:
            assert " Cause: " in line, line


def test_with_sc_runs_trigger_segment_cleaning_and_adaptive_logging_would_not() -> None:
    """The seed's with-SC figures are measured with segment cleaning triggered; under F2FS's
    default adaptive logging a filled partition absorbs the overwrites by thread logging and
    never cleans, so the with-SC runs mount F2FS with mode = lfs (experiments.SC_MODE)."""
    import json

    from flashpress.reproduce.papers.waltz.experiments import SC_MODE, fig9
    from flashpress.reproduce.runner import plan
    from flashpress.run import simulate

    filled = [p for p in plan([fig9(QUICK)]) if p.spec.labels.get("rs") is not None and p.config]
    run = min(filled, key=lambda p: float(p.spec.labels["rs"]))
    assert run.config is not None
    cfg = run.config.to_dict()
    assert cfg["stack"]["fs"]["mode"] == SC_MODE == "lfs"
    assert cfg["stack"]["fs"]["fill_fraction"] > 0.5

    def cleanings(mode: str) -> int:
        c = run.config.with_overrides({"stack.fs.mode": mode}, source_name="test") if run.config else None
        s = json.loads(simulate(c, progress=False).summary_json)
        return int(s["stack"]["fs"]["counters"]["cleaning_invocations"])

    assert cleanings("lfs") > 0
    assert cleanings("adaptive") == 0
