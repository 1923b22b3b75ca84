"""What the PR-SSD seed (Kang et al., IEEE TC 2023) states in its evaluation, quoted, with the
kind of each statement and how it is checked (the rules are in
:mod:`flashpress.reproduce.claims`).

Averages ("on average") are the mean over the workloads run of each workload's change against
Baseline, as the seed's "AVG" bars are. "Up to" figures are not scored: a maximum over eight
traces we do not have says little about our workloads (fio jobs on real files of each kind).
"""

from __future__ import annotations

from flashpress.reproduce.causes import PRSSD_CAUSES
from flashpress.reproduce.claims import Claim, change, magnitude, not_run, ordering, with_causes


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
        not_run(
            "fig8",
            "DPC configurations (granularity 32-1024 B, 1-2 patterns, 1-8 byte patterns) against LZ4, FPC and BDI",
            "ordering",
            "Fig. 8 needs DPC with a configurable granularity, pattern count and pattern size; our DPC is the "
            "configuration the seed selects (one 1-byte pattern per 128 bytes) only",
        ),
        magnitude(
            "fig6",
            "the ratio of the partial zero page requests is 6% on average",
            6.0,
            "%",
            "partial_zero_share",
            scale_pct=True,
            scheme="DP",
        ),
    ]


__all__ = ["prssd_claims"]
