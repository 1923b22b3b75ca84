"""fio options with timing meaning, checked against fio's documented behaviour on small runs
(each expectation is computed from the job's options, not from flashpress's output)."""

from __future__ import annotations

import re
from typing import Any

import pytest

import flashpress
from flashpress.errors import JobFileError


def run(jobs: list[dict[str, Any]], preset: str = "tiny", **over: Any) -> dict[str, Any]:
    cfg = flashpress.Config.preset(preset).with_overrides(
        {"workload": {"type": "fio", "jobs": jobs}, "precondition.fill_fraction": 0.0, **over},
        source_name="test",
    )
    return flashpress.simulate(cfg, progress=False).summary


def test_rate_iops_is_achieved_within_one_percent() -> None:
    # The tiny device does ~5k random 4k writes/s at depth 4; 400/s is well below.
    s = run(
        [
            {
                "rw": "randwrite",
                "bs": "4k",
                "size": "8m",
                "iodepth": 4,
                "rate_iops": 400,
                "runtime": "2s",
                "time_based": True,
            }
        ]
    )
    iops = s["write"]["requests"] / s["window"]["seconds"]
    assert iops == pytest.approx(400, rel=0.01)


def test_rate_bytes_per_second() -> None:
    s = run([{"rw": "read", "bs": "16k", "size": "8m", "rate": "2m", "runtime": "1s", "time_based": True}])
    assert s["host_read_bytes"] / s["window"]["seconds"] == pytest.approx(2 << 20, rel=0.01)


def test_ramp_time_is_left_out_of_the_statistics_and_lengthens_the_run() -> None:
    # fio: ramp_time is lead-in time; with runtime given, the job runs ramp + runtime.
    s = run(
        [
            {
                "rw": "randread",
                "bs": "4k",
                "size": "8m",
                "rate_iops": 1000,
                "runtime": "1s",
                "ramp_time": "500ms",
                "time_based": True,
            }
        ]
    )
    assert s["sim_time_s"] == pytest.approx(1.5, abs=0.002)
    assert s["read"]["requests"] == pytest.approx(1000, abs=2)


def test_thinktime_adds_its_gaps() -> None:
    base = {"rw": "write", "bs": "4k", "size": "4m", "number_ios": 200}
    plain = run([base])
    think = run([{**base, "thinktime": "5ms", "thinktime_blocks": 10}])
    # 200 I/Os, a 5 ms think after every 10 of them: 19 or 20 gaps (the last may end the job).
    extra = think["sim_time_s"] - plain["sim_time_s"]
    assert 19 * 0.005 <= extra <= 20 * 0.005 + 1e-3


def test_startdelay_shifts_the_job() -> None:
    base = {"rw": "read", "bs": "4k", "size": "1m", "number_ios": 100}
    plain = run([base])
    late = run([{**base, "startdelay": "250ms"}])
    assert late["sim_time_s"] - plain["sim_time_s"] == pytest.approx(0.25, abs=1e-6)


def test_trims_free_pages_and_lower_write_amplification() -> None:
    # Fill the device, then overwrite half of it at random. Trimming the other half first gives
    # GC free space to work with, so fewer pages migrate.
    # One device for every job (without a filename each job would get its own file).
    dev = {"filename": "/dev/nvme0n1"}
    fill = {**dev, "rw": "write", "bs": "128k", "size": "100%"}
    overwrite = {
        **dev,
        "rw": "randwrite",
        "bs": "4k",
        "offset": "50%",
        "size": "50%",
        "io_size": "32m",
        "stonewall": True,
    }
    trim = {**dev, "rw": "trim", "bs": "128k", "size": "50%", "stonewall": True}
    without = run([fill, overwrite])
    with_trim = run([fill, trim, overwrite])
    assert with_trim["host_trim_bytes"] > 0
    assert with_trim["gc_pages_migrated"] < 0.8 * without["gc_pages_migrated"]
    assert with_trim["waf"] < without["waf"]


def test_loops_repeat_the_io() -> None:
    s = run([{"rw": "write", "bs": "4k", "size": "1m", "loops": 3}])
    assert s["host_write_bytes"] == 3 << 20


def test_steadystate_ends_the_job_once_reached() -> None:
    # A rate-limited job's IOPS is flat: steady from the first full window. fio ends the job
    # then, long before its 60 s runtime.
    s = run(
        [
            {
                "rw": "randread",
                "bs": "4k",
                "size": "8m",
                "rate_iops": 200,
                "runtime": "60s",
                "time_based": True,
                "ss": "iops:5%",
                "ss_dur": "2s",
                "ss_ramp": "1s",
            }
        ]
    )
    assert 2.9 <= s["sim_time_s"] <= 3.1


def test_end_fsync_and_fsync_flush_the_write_buffer() -> None:
    # With a write buffer, writes are acknowledged from DRAM; a flush waits for the programs.
    base = {"rw": "write", "bs": "4k", "size": "1m"}
    over = {"ftl.write_buffer_pages": 1024}
    plain = run([base], **over)
    synced = run([{**base, "end_fsync": True}], **over)
    assert synced["trim"]["requests"] == 1  # the flush (counted with trims and other commands)
    # The flush completes only when the last buffered page is programmed.
    assert synced["sim_time_s"] >= plain["controller"]["flash_quiet_s"] - 1e-9


def test_verify_reads_back_what_was_written() -> None:
    cfg = flashpress.Config.preset("tiny").with_overrides(
        {"workload": {"type": "fio", "jobs": [{"rw": "randwrite", "bs": "4k", "size": "2m", "verify": "crc32c"}]}}
    )
    result = flashpress.simulate(cfg, progress=False)
    # fio's verify turns on flashpress's verify mode: every read is checked against the last write.
    assert result.config["check"]["verify"] is True
    s = result.summary
    assert s["host_write_bytes"] == 2 << 20
    assert s["host_read_bytes"] == 2 << 20  # every written block, once


def test_flow_keeps_jobs_in_their_weight_ratio() -> None:
    s = run(
        [
            {
                "name": "a",
                "rw": "randread",
                "bs": "4k",
                "size": "4m",
                "flow": 3,
                "runtime": "200ms",
                "time_based": True,
            },
            {
                "name": "b",
                "rw": "randwrite",
                "bs": "4k",
                "size": "4m",
                "flow": 1,
                "runtime": "200ms",
                "time_based": True,
            },
        ]
    )
    ratio = s["read"]["requests"] / s["write"]["requests"]
    assert ratio == pytest.approx(3.0, rel=0.05)


def test_every_unsupported_option_reported_in_one_error(tmp_path: Any) -> None:
    job = tmp_path / "j.fio"
    job.write_text(
        "[a]\nioengine=http\nhttp_mode=s3\n[b]\nverify_pattern=0xff\npi_act=1\napptag=0x1234\n"
        "[c]\nrw=write\nverify_pattern=0xff%o\n"
    )
    cfg = flashpress.Config.preset("tiny").with_overrides({"workload": {"type": "fio", "path": str(job)}})
    with pytest.raises(JobFileError) as e:
        flashpress.simulate(cfg, progress=False)
    msg = str(e.value)
    for needle in ["j.fio:2", "`http`", "j.fio:10", "verify_pattern=0xff%o", "j.fio:6", "j.fio:7"]:
        assert needle in msg, msg
    assert len(e.value.problems) == 4


def test_ignored_options_are_listed_in_the_summary() -> None:
    s = run([{"rw": "read", "bs": "4k", "size": "1m", "group_reporting": True, "thread": True}])
    notes = s["workload_notes"]
    assert any("`group_reporting` ignored" in n for n in notes)
    assert any("`thread` ignored" in n for n in notes)


def test_verify_backlog_reads_back_as_it_goes() -> None:
    # fio: after every 16 blocks written, those 16 are read back; the last partial batch at the end.
    s = run([{"rw": "randwrite", "bs": "4k", "size": "1m", "verify": "md5", "verify_backlog": 16}])
    assert s["host_write_bytes"] == 1 << 20
    assert s["host_read_bytes"] == 1 << 20


def test_atomic_writes_are_plain_writes_and_say_so() -> None:
    s = run([{"rw": "write", "bs": "4k", "size": "1m", "atomic": 1}])
    assert s["host_write_bytes"] == 1 << 20
    assert any("`atomic` ignored: no power loss is simulated" in n for n in s["workload_notes"])


def test_queue_depth_is_kept_after_waits() -> None:
    # A start delay or think time must not leave a QD16 job at depth 1 afterwards.
    base = {"rw": "randwrite", "bs": "4k", "size": "8m", "iodepth": 16, "runtime": "200ms", "time_based": True}
    qd16 = run([base])["write"]["iops"]
    qd1 = run([{**base, "iodepth": 1}])["write"]["iops"]
    assert qd16 > 2 * qd1  # the device is faster at depth (otherwise the checks below prove nothing)
    delayed = run([{**base, "startdelay": "1ms"}])["write"]["iops"]
    assert delayed == pytest.approx(qd16, rel=0.05)
    # Think 1 us after every 64 I/Os: nearly no time, so nearly the QD16 rate.
    think = run([{**base, "thinktime": 1, "thinktime_blocks": 64}])["write"]["iops"]
    assert think > 0.8 * qd16


def test_ramp_time_shared_by_every_job_is_the_warmup() -> None:
    s = run(
        [
            {
                "rw": "randread",
                "bs": "4k",
                "size": "8m",
                "rate_iops": 1000,
                "runtime": "1s",
                "ramp_time": "500ms",
                "time_based": True,
            }
        ]
    )
    # The rate over the measured window, not halved by the ramp in the divisor.
    assert s["read"]["iops"] == pytest.approx(1000, rel=0.01)
    assert s["window"]["from_s"] == pytest.approx(0.5)
    # A write job's WAF on a fresh device stays 1 with a ramp.
    w = run([{"rw": "randwrite", "bs": "4k", "size": "4m", "ramp_time": "20ms", "runtime": "50ms", "time_based": True}])
    assert w["waf"] == pytest.approx(1.0, abs=0.02)


def test_rate_limit_on_one_direction_leaves_the_other_free() -> None:
    mixed = {"rw": "randrw", "bs": "4k", "size": "8m", "runtime": "500ms", "time_based": True}
    free = run([mixed])["read"]["iops"]
    capped = run([{**mixed, "rate": ",1m"}])
    assert capped["host_write_bytes"] / capped["window"]["seconds"] == pytest.approx(1 << 20, rel=0.02)
    assert capped["read"]["iops"] > 0.7 * free


def test_rate_min_checks_only_directions_that_move() -> None:
    # A write-only job with rate_min for every direction does not fail on reads it never does.
    s = run(
        [
            {
                "rw": "randwrite",
                "bs": "4k",
                "size": "8m",
                "rate_min": "1k",
                "runtime": "3s",
                "time_based": True,
                "rate_iops": 100,
            }
        ]
    )
    assert s["write"]["requests"] > 0
    with pytest.raises(flashpress.errors.WorkloadError, match="below rate_min"):
        run(
            [
                {
                    "rw": "randwrite",
                    "bs": "4k",
                    "size": "8m",
                    "rate_min": "1m",
                    "rate_iops": 10,
                    "runtime": "4s",
                    "time_based": True,
                }
            ]
        )


def test_filesize_sizes_the_file_and_size_the_io() -> None:
    # fio: filesize overrides size as the file's size; size is then the I/O to do.
    s = run([{"rw": "randwrite", "bs": "4k", "filesize": "8m", "size": "1m", "filename": "f"}])
    assert s["host_write_bytes"] == 1 << 20


def test_flow_across_stonewall_groups_is_refused() -> None:
    with pytest.raises(flashpress.errors.ConfigError, match="flow_id 0"):
        run([{"rw": "write", "size": "1m", "flow": 1}, {"rw": "write", "size": "1m", "flow": 1, "stonewall": True}])


def test_exitall_ends_the_other_jobs_of_the_group() -> None:
    # fio: when a job with exitall finishes, the other jobs of its group are terminated.
    # Side by side at depth 1, the 8 MiB job has written about as much as the 1 MiB one then.
    short = {"rw": "write", "bs": "4k", "size": "1m", "exitall": True}
    long = {"rw": "write", "bs": "4k", "size": "8m"}
    s = run([short, long])
    assert (1 << 20) < s["host_write_bytes"] < 4 << 20
    assert run([dict(short, exitall=False), long])["host_write_bytes"] == 9 << 20
    with pytest.raises(flashpress.errors.ConfigError, match="exit_what"):
        run([dict(short, exit_what="sometimes"), long])


def test_a_read_job_reads_its_file_laid_out_before_the_run() -> None:
    # fio writes a file a job reads before the job starts (extend_file): 1 MiB here, none
    # of it in the job's 256 reads of 4 KiB, and every read finds data.
    from flashpress.cli import format_summary

    s = run([{"rw": "read", "bs": "4k", "size": "1m"}])
    assert s["precondition"]["layout_bytes"] == 1 << 20
    assert s["requests_issued"] == 256
    assert s["write"]["requests"] == 0
    assert s["unmapped_page_reads"] == 0
    assert re.search(r"\n  laid out +1,048,576 bytes of fio job files", format_summary(s, "t"))
    # On the device nothing is laid out: the reads of never-written pages are counted.
    s = run([{"rw": "read", "bs": "4k", "size": "1m", "filename": "/dev/sdb"}])
    assert s["precondition"]["layout_bytes"] == 0
    assert s["unmapped_page_reads"] == 256
    assert "laid out" not in format_summary(s, "t")
