"""How big and how long the reproduction runs are: every per-scale choice lives here.

The seeds' testbed (Waltz §6.1, COCO's setup slide) is a 200 GB F2FS partition on a 3 TB CCSD,
20-minute runs with 8 threads. That is far beyond two cores, so a :class:`Scale` shrinks it:

* ``time_scale`` multiplies every run time *and* every time constant of the control loops
  (the thermal time constant ``stack.ccsd.thermal.tau_s``, the S.M.A.R.T. polling period of TCS
  and the decision periods of OSA / COCO's OP growth), so temperature trajectories and the
  controllers keep their shape. Times in the report are divided back by ``time_scale`` so they
  compare with the seeds' seconds.
* ``space_scale`` multiplies the F2FS partition (``stack.fs.partition_bytes``) and the device
  (``nand.blocks_per_plane``), keeping their proportion; fill fractions and reserved-space
  ratios are fractions, so they need no scaling.
* The axis tuples choose how many points of each figure run (the paper's full grids at
  ``full``; the grids are thinned, never changed in meaning, at smaller scales).

``quick`` is CI-sized (a few small runs per figure), ``default`` is meant to finish the whole
``reproduce waltz`` in under 30 minutes on two cores, ``full`` is the paper's scale. The
wall time of every run is recorded in the report, so the scales can be checked against their
budgets whenever the simulator's speed changes.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from flashpress.lossy.fields import DATASETS

#: The four FIO access patterns of Waltz §3.2.1 / §6.1 (128 KiB sequential, 4 KiB random).
PATTERNS = ("seq-write", "seq-read", "rand-write", "rand-read")
#: The four Filebench personalities (Waltz §6.4, COCO's workload table).
PERSONALITIES = ("webserver", "varmail", "fileserver", "oltp")
#: F2FS codecs of Fig 4/5 (the seed's ZSTD, LZ4 and LZO; our LZO is lzokay's LZO1X, see
#: ``experiments.LZO_NOTE``).
F2FS_CODECS = ("zstd-3", "lz4", "lzo")
#: PR-SSD's eight workloads (Table 2).
PRSSD_WORKLOADS = ("Ubuntu", "Window", "Compile", "Internet", "Office", "Copy", "DB", "ML")
#: CAGC's workloads: Table II's three traces (generated) and the linux releases (real data).
CAGC_WORKLOADS = ("homes", "web-vm", "mail", "linux")
#: Lossy: every built-in data set.
LOSSY_DATASETS = tuple(DATASETS)


@dataclass(frozen=True)
class Scale:
    """One scale of the reproduction (see the module docstring)."""

    name: str
    time_scale: float
    space_scale: float
    #: FIO patterns of Fig 12-15 (and Fig 4/5).
    patterns: tuple[str, ...]
    #: Codecs of Fig 4/5.
    codecs: tuple[str, ...]
    #: Reserved-space ratios of Fig 9/11 (and COCO's OP-size study).
    rs_values: tuple[float, ...]
    #: Fill fractions of Fig 11 (Fig 9 uses the with-SC fill).
    fill_values: tuple[float, ...]
    #: Compression ratios of Fig 16.
    ratios: tuple[int, ...]
    #: FIO patterns of Fig 16.
    ratio_patterns: tuple[str, ...]
    #: Filebench personalities of Fig 17/18 and COCO.
    personalities: tuple[str, ...]
    #: Repeats of every run with a different seed (``seed`` 1, 2, ...): the spread between them
    #: is the noise band of the claim checks (COCO averages three runs).
    seeds: int = 1
    #: PR-SSD: blocks per plane of the ``prssd`` device (the seed's is 1024; 128 is the
    #: smallest whose 7% over-provisioning leaves room for the GC reserve).
    prssd_blocks_per_plane: int = 128
    #: PR-SSD: requests per run.
    prssd_requests: int = 100_000
    #: PR-SSD: Table 2's workloads run.
    prssd_workloads: tuple[str, ...] = PRSSD_WORKLOADS
    #: PR-SSD: channel counts of the channel study (Fig. 17b).
    prssd_channels: tuple[int, ...] = (4, 8, 16)
    #: PR-SSD: 16 KiB pages per workload image read by the data studies (Figs. 6a and 8).
    prssd_data_pages: int = 512
    #: CAGC: blocks per plane of the ``cagc`` device (the seed's 80 GB has 5120; 256 gives
    #: 4 GiB, room for two linux releases).
    cagc_blocks_per_plane: int = 256
    #: CAGC: read and write requests of each generated trace (after its prefill).
    cagc_requests: int = 1_000_000
    #: CAGC: workloads run (Table II's and ``linux``, the real releases).
    cagc_workloads: tuple[str, ...] = CAGC_WORKLOADS
    #: CAGC: linux-source releases the ``linux`` workload writes (2..6).
    cagc_releases: int = 6
    #: CAGC: victim policies of Fig. 13, and the workloads it runs.
    cagc_victims: tuple[str, ...] = ("random", "greedy", "cost_benefit")
    cagc_victim_workloads: tuple[str, ...] = ("homes", "web-vm", "mail")
    #: Lossy: the data sets (``flashpress.lossy.fields.DATASETS``) and the repeats of every timed
    #: measurement (their spread is the claims' noise band).
    lossy_datasets: tuple[str, ...] = LOSSY_DATASETS
    lossy_repeats: int = 3

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def seconds(self, paper_s: float) -> float:
        """Simulated seconds of a span that lasts ``paper_s`` seconds in the paper."""
        return paper_s * self.time_scale

    def paper_seconds(self, sim_s: float) -> float:
        """A simulated time expressed in the paper's seconds."""
        return sim_s / self.time_scale


SCALES: dict[str, Scale] = {
    "quick": Scale(
        name="quick",
        time_scale=0.01,
        space_scale=1 / 128,
        patterns=("seq-write", "rand-read"),
        codecs=("zstd-3",),
        rs_values=(0.01, 0.20),
        fill_values=(0.9,),
        ratios=(2, 4),
        ratio_patterns=("seq-write",),
        personalities=("fileserver", "oltp"),
        seeds=1,
        prssd_requests=10_000,
        prssd_workloads=("Copy", "DB", "ML"),
        prssd_channels=(4, 8),
        prssd_data_pages=64,
        cagc_blocks_per_plane=128,
        cagc_requests=100_000,
        cagc_workloads=("homes", "mail"),
        cagc_victim_workloads=("mail",),
        lossy_datasets=("levitus_temp", "navy_uwnd", "coads_sst", "nc4uvt_t"),
        lossy_repeats=2,
    ),
    "default": Scale(
        name="default",
        time_scale=0.03,
        space_scale=1 / 64,
        patterns=PATTERNS,
        codecs=F2FS_CODECS,
        rs_values=(0.01, 0.05, 0.10, 0.15, 0.20, 0.25),
        fill_values=(0.8, 0.9, 0.99),
        ratios=(2, 3, 4),
        ratio_patterns=("seq-write", "rand-read"),
        personalities=PERSONALITIES,
        seeds=2,
    ),
    "full": Scale(
        name="full",
        time_scale=1.0,
        space_scale=1.0,
        patterns=PATTERNS,
        codecs=F2FS_CODECS,
        rs_values=(0.01, 0.03, 0.05, 0.07, 0.10, 0.13, 0.15, 0.17, 0.20, 0.23, 0.25),
        fill_values=(0.8, 0.85, 0.9, 0.95, 0.99),
        ratios=(2, 3, 4),
        ratio_patterns=PATTERNS,
        personalities=PERSONALITIES,
        seeds=3,
        prssd_blocks_per_plane=1024,
        prssd_requests=1_000_000,
        prssd_data_pages=4096,
        cagc_blocks_per_plane=5120,
        cagc_requests=10_000_000,
    ),
}


def get_scale(name: str) -> Scale:
    """The scale called ``name`` (``quick``, ``default`` or ``full``)."""
    try:
        return SCALES[name]
    except KeyError:
        raise ValueError(f"unknown scale {name!r} (expected one of: {', '.join(SCALES)})") from None


__all__ = [
    "CAGC_WORKLOADS",
    "F2FS_CODECS",
    "PATTERNS",
    "PRSSD_WORKLOADS",
    "PERSONALITIES",
    "SCALES",
    "Scale",
    "get_scale",
]
