"""What the PR-SSD seed (Kang et al., IEEE TC 2023) states in its evaluation, quoted, with the
kind of each statement and how it is checked (the rules are in
:mod:`flashpress.reproduce.claims`).

Averages ("on average") are the mean over the workloads run of each workload's change against
Baseline, as the seed's "AVG" bars are. "Up to" figures are not scored: a maximum over eight
traces we do not have says little about our workloads (fio jobs on real files of each kind).
"""

from __future__ import annotations

from flashpress.reproduce.claims import Claim, change, extreme, magnitude, ordering, with_causes
from flashpress.reproduce.papers.prssd.causes import PRSSD_CAUSES
from flashpress.reproduce.papers.prssd.data import GRANULES, PATTERN_BYTES, PATTERNS, SELECTED, config_name

SELECTED_NAME = config_name(*SELECTED)
DPC_CONFIGS = [config_name(g, k, s) for g in GRANULES for k in PATTERNS for s in PATTERN_BYTES if g // s >= 2]


def prssd_claims() -> list[Claim]:
    return with_causes(_claims(), PRSSD_CAUSES)


def _claims() -> list[Claim]:
    rt = "read_rt"
    return [
        # Fig. 14 (section 5.2.1)
        change("fig14", "S increases the read response time by 11% on average", 11.0, "S", "Baseline", rt),
        change("fig14", "SP: the read response time is increased by 5% on average", 5.0, "SP", "Baseline", rt),
        ordering(
            "fig14",
            "memory compression (M) can reduce the read response time compared to the baseline",
            "M",
            "Baseline",
            rt,
            higher=False,
        ),
        ordering(
            "fig14",
            "the partial read-enabled SSD (P) can reduce the read response time",
            "P",
            "Baseline",
            rt,
            higher=False,
        ),
        ordering("fig14", "more improvements when combined with memory compression (MP)", "MP", "P", rt, higher=False),
        ordering("fig14", "DPC (DP) outperforms the memory compression", "DP", "MP", rt, higher=False),
        ordering(
            "fig14", "PR-SSD reduces the response time more significantly (than DP)", "PR", "DP", rt, higher=False
        ),
        change("fig14", "PR-SSD can reduce the read response time by 18% on average", -18.0, "PR", "Baseline", rt),
        # Fig. 15 (section 5.2.2)
        change(
            "fig15",
            "PR-SSD reduces the number of write operations by 29% on average",
            -29.0,
            "PR",
            "Baseline",
            "write_count",
        ),
        change(
            "fig15", "PR-SSD reduces the write response time by 24% on average", -24.0, "PR", "Baseline", "write_rt"
        ),
        change(
            "fig15",
            "the gap between SP and PR is 17% for the number of write operations",
            -17.0,
            "SP",
            "PR",
            "write_count",
        ),
        change("fig15", "the gap between SP and PR is 13% for the write response time", -13.0, "SP", "PR", "write_rt"),
        ordering(
            "fig15",
            "PR-SSD can slightly reduce the number of write operations even in the copy workload",
            "PR",
            "Baseline",
            "write_count",
            higher=False,
            workload="Copy",
        ),
        # Fig. 16 (section 5.2.3)
        change(
            "fig16",
            "PR-SSD can reduce the overall response time by 23% on average",
            -23.0,
            "PR",
            "Baseline",
            "overall_rt",
        ),
        # Fig. 17a (section 5.3.1)
        ordering(
            "fig17",
            "storage compression (S) reduces the number of read operations",
            "S",
            "Baseline",
            "read_count",
            higher=False,
        ),
        # Fig. 18 (section 5.3.2)
        change(
            "fig18",
            "P without compression reduced the read energy consumption by 6% on average",
            -6.0,
            "P",
            "Baseline",
            "read_energy",
        ),
        change(
            "fig18",
            "PR-SSD can reduce the read energy consumption by 26% on average",
            -26.0,
            "PR",
            "Baseline",
            "read_energy",
        ),
        # Fig. 19 (section 5.3.3)
        ordering(
            "fig19",
            "Split All increases the conflict ratio as compared with PR-SSD",
            "PR_SplitAll",
            "PR",
            "conflict_split_share",
            higher=True,
        ),
        ordering(
            "fig19",
            "Split All can increase the read response time (up to 10% in DB)",
            "PR_SplitAll",
            "PR",
            rt,
            higher=True,
            workload="DB",
        ),
        # Fig. 17b (section 5.4)
        change(
            "fig17b",
            "PR-SSD reduces the read response time by 17% on average in a four-channel SSD",
            -17.0,
            "PR",
            "Baseline",
            rt,
            channels=4,
        ),
        # Not run yet
        # Fig. 4 (section 3)
        change(
            "fig4",
            "the number of partial read operations can be increased by 33% on average after compression",
            33.0,
            "SP",
            "P",
            "partial_reads",
        ),
        magnitude(
            "fig4",
            "the decompression overhead is 13% on average (share of the read response time)",
            13.0,
            "%",
            "decompress_share",
            points=True,
            scale_pct=True,
            scheme="SP",
        ),
        # Fig. 6a and Fig. 8 (section 3.2): studies of the workloads' data.
        magnitude(
            "fig6a",
            "The ratio of the most dominant pattern is almost 45% for the 1-byte pattern size",
            45.0,
            "%",
            "dominant_first",
            scale_pct=True,
            scheme="1 B",
            variant="32",
        ),
        ordering(
            "fig6a",
            "As the pattern size increases, the portions of the dominant patterns decrease (1 B against 8 B)",
            "8 B",
            "1 B",
            "dominant_first",
            higher=False,
        ),
        *(
            ordering(
                "fig6a",
                "as the granularity increases, the ratios of the dominant patterns also decrease "
                f"(32 B against 1024 B granules, {s} B patterns)",
                "1024",
                "32",
                "dominant_first",
                higher=False,
                key="variant",
                scheme=f"{s} B",
            )
            for s in PATTERN_BYTES
        ),
        extreme(
            "fig8",
            "we select only the most dominant pattern, and 1-byte pattern size, and 128-byte compression granularity "
            "because this configuration shows the best compression ratio",
            SELECTED_NAME,
            [n for n in DPC_CONFIGS if n != SELECTED_NAME],
            "data_saving",
            lowest=False,
        ),
        magnitude(
            "fig8",
            "This configuration shows 25% compression ratio",
            25.0,
            "%",
            "data_saving",
            scale_pct=True,
            scheme=SELECTED_NAME,
        ),
        ordering(
            "fig8",
            "This configuration shows 25% compression ratio which is higher than conventional (BDI 12%, ...): BDI",
            SELECTED_NAME,
            "BDI",
            "data_saving",
            higher=True,
        ),
        ordering(
            "fig8",
            "This configuration shows 25% compression ratio which is higher than conventional (..., FPC 14%): FPC",
            SELECTED_NAME,
            "FPC",
            "data_saving",
            higher=True,
        ),
        magnitude(
            "fig8", "conventional BDI 12% (compression ratio)", 12.0, "%", "data_saving", scale_pct=True, scheme="BDI"
        ),
        magnitude(
            "fig8", "conventional FPC 14% (compression ratio)", 14.0, "%", "data_saving", scale_pct=True, scheme="FPC"
        ),
        magnitude(
            "fig6b",
            "the ratio of the partial zero page requests is 6% on average",
            6.0,
            "%",
            "partial_zero_share",
            scale_pct=True,
            scheme="DP",
        ),
    ]


__all__ = ["prssd_claims"]
