//! Every fio option flashpress knows, and what it does with it: honoured (under a canonical
//! name), accepted and listed as ignored in the run's summary (options that shape only fio's
//! own logs and reports, or how a real machine issues I/O, or how a particular engine reaches
//! its storage), or refused with the reason. An option in none of these lists is one fio does
//! not have either (fio's own `examples/` use each listed one at least once, or fio's manual
//! documents it).
//!
//! Engines (`ioengine`) are classified the same way: engines that move block or file data are
//! simulated (the simulated SSD stands in for the device, file or remote volume they reach);
//! engines that do something else are refused by name.

/// What flashpress does with an option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Class {
    /// Honoured, under this canonical name.
    Honoured(&'static str),
    /// Shapes only fio's own logs, statistics and reports.
    Report,
    /// How a real machine issues I/O (threads, CPUs, memory, submission batching, caches),
    /// with no counterpart in the simulator.
    Host,
    /// Where or how a particular engine reaches its storage (URLs, pools, devices, engine
    /// tuning): meaningless once the simulated SSD stands in for that storage.
    Engine,
    /// Refused, with the reason.
    Refused(&'static str),
    /// Accepted: what it asks for holds in the simulation without anything to do; listed
    /// in the summary with why.
    Noted(&'static str),
}

use Class::{Engine, Honoured, Host, Noted, Refused, Report};

const PI: &str = "end-to-end protection information (NVMe PI metadata) is not modelled";
const UNALIGNED: &str = "block sizes that are not whole 512-byte sectors (fio then draws any byte count in the bsrange) are not simulated: leave it out, and lengths are multiples of the smallest block size, as fio draws them by default";

/// The option table: name as written, class.
const TABLE: &[(&str, Class)] = &[
    // The workload itself.
    ("name", Honoured("name")),
    ("description", Report),
    ("rw", Honoured("rw")),
    ("readwrite", Honoured("rw")),
    ("rwmixread", Honoured("rwmix")),
    ("rwmixwrite", Honoured("rwmix")),
    ("bs", Honoured("bs")),
    ("blocksize", Honoured("bs")),
    ("bsrange", Honoured("bs")),
    ("blocksize_range", Honoured("bs")),
    ("bssplit", Honoured("bssplit")),
    ("blockalign", Honoured("blockalign")),
    ("ba", Honoured("blockalign")),
    ("size", Honoured("size")),
    ("filesize", Honoured("filesize")),
    ("offset", Honoured("offset")),
    ("offset_increment", Honoured("offset_increment")),
    ("offset_align", Honoured("offset_align")),
    ("io_size", Honoured("io_size")),
    ("io_limit", Honoured("io_size")),
    ("number_ios", Honoured("number_ios")),
    ("fill_device", Honoured("fill_device")),
    ("fill_fs", Honoured("fill_device")),
    ("iodepth", Honoured("iodepth")),
    ("numjobs", Honoured("numjobs")),
    ("runtime", Honoured("runtime")),
    ("timeout", Honoured("runtime")),
    ("time_based", Honoured("time_based")),
    ("ramp_time", Honoured("ramp_time")),
    ("startdelay", Honoured("startdelay")),
    ("loops", Honoured("loops")),
    ("random_distribution", Honoured("random_distribution")),
    ("norandommap", Honoured("norandommap")),
    ("percentage_random", Honoured("percentage_random")),
    ("random_generator", Honoured("random_generator")),
    ("randseed", Honoured("randseed")),
    ("randrepeat", Honoured("randrepeat")),
    ("allrandrepeat", Honoured("randrepeat")),
    ("buffer_compress_percentage", Honoured("buffer_compress_percentage")),
    ("dedupe_percentage", Honoured("dedupe_percentage")),
    ("dedupe_mode", Honoured("dedupe_mode")),
    ("dedupe_working_set_percentage", Honoured("dedupe_working_set_percentage")),
    ("stonewall", Honoured("stonewall")),
    ("wait_for_previous", Honoured("stonewall")),
    ("wait_for", Honoured("wait_for")),
    ("new_group", Report),
    ("kb_base", Honoured("kb_base")),
    // Files.
    ("ioengine", Honoured("ioengine")),
    ("filename", Honoured("filename")),
    ("directory", Honoured("directory")),
    ("nrfiles", Honoured("nrfiles")),
    ("nr_files", Honoured("nrfiles")),
    ("filename_format", Honoured("filename_format")),
    ("file_service_type", Honoured("file_service_type")),
    ("unlink", Host),
    ("create_on_open", Host),
    ("create_serialize", Host),
    ("allow_file_create", Host),
    ("fallocate", Host),
    ("openfiles", Host),
    ("invalidate", Host),
    ("fadvise_hint", Host),
    // Timing and rates.
    ("rate", Honoured("rate")),
    ("rate_iops", Honoured("rate_iops")),
    ("rate_min", Honoured("rate_min")),
    ("ratemin", Honoured("rate_min")),
    ("rate_process", Honoured("rate_process")),
    ("rate_cycle", Honoured("rate_cycle")),
    ("ratecycle", Honoured("rate_cycle")),
    ("thinktime", Honoured("thinktime")),
    ("thinktime_blocks", Honoured("thinktime_blocks")),
    ("thinktime_spin", Honoured("thinktime_spin")),
    ("flow", Honoured("flow")),
    ("flow_id", Honoured("flow_id")),
    ("flow_sleep", Honoured("flow_sleep")),
    ("steadystate", Honoured("steadystate")),
    ("ss", Honoured("steadystate")),
    ("steadystate_duration", Honoured("ss_dur")),
    ("ss_dur", Honoured("ss_dur")),
    ("steadystate_ramp_time", Honoured("ss_ramp")),
    ("ss_ramp", Honoured("ss_ramp")),
    ("steadystate_check_interval", Honoured("ss_interval")),
    ("ss_interval", Honoured("ss_interval")),
    ("latency_target", Honoured("latency_target")),
    ("latency_window", Honoured("latency_window")),
    ("latency_percentile", Honoured("latency_percentile")),
    ("latency_run", Honoured("latency_run")),
    // Data durability and verification.
    ("fsync", Honoured("fsync")),
    ("fdatasync", Honoured("fsync")),
    ("end_fsync", Honoured("end_fsync")),
    ("fsync_on_close", Honoured("end_fsync")),
    ("sync", Honoured("sync")),
    ("direct", Honoured("direct")),
    ("buffered", Honoured("direct")),
    ("writefua", Honoured("fua")),
    ("readfua", Host),
    ("verify", Honoured("verify")),
    ("do_verify", Honoured("do_verify")),
    ("verify_fatal", Host),
    ("verify_dump", Report),
    ("verify_async", Host),
    ("verify_backlog", Honoured("verify_backlog")),
    ("verify_backlog_batch", Honoured("verify_backlog_batch")),
    ("verify_interval", Host),
    ("verify_pattern", Honoured("verify_pattern")),
    ("verify_write_sequence", Host),
    ("buffer_pattern", Honoured("buffer_pattern")),
    ("zero_buffers", Honoured("zero_buffers")),
    ("scramble_buffers", Host),
    ("refill_buffers", Host),
    ("dedupe_global", Honoured("dedupe_global")),
    // Logs, statistics and reports.
    ("write_lat_log", Report),
    ("write_bw_log", Report),
    ("write_iops_log", Report),
    ("write_hist_log", Report),
    ("log_avg_msec", Report),
    ("log_offset", Report),
    ("log_prio", Report),
    ("log_max_value", Report),
    ("log_compression", Report),
    ("per_job_logs", Report),
    ("group_reporting", Report),
    ("gtod_reduce", Report),
    ("disable_lat", Report),
    ("disable_clat", Report),
    ("disable_slat", Report),
    ("disable_bw_measurement", Report),
    ("clat_percentiles", Report),
    ("lat_percentiles", Report),
    ("slat_percentiles", Report),
    ("percentile_list", Report),
    ("block_error_percentiles", Report),
    ("unified_rw_reporting", Report),
    ("error_dump", Report),
    ("stats", Report),
    // How a real machine issues I/O.
    ("thread", Host),
    ("threads", Host),
    ("cpus_allowed", Host),
    ("cpus_allowed_policy", Host),
    ("cpumask", Host),
    ("numa_cpu_nodes", Host),
    ("numa_mem_policy", Host),
    ("nice", Host),
    ("prio", Host),
    ("prioclass", Host),
    ("cmdprio", Host),
    ("cmdprio_class", Host),
    ("cmdprio_percentage", Host),
    ("cmdprio_bssplit", Host),
    ("mem", Host),
    ("iomem", Host),
    ("iomem_align", Host),
    ("iodepth_batch", Host),
    ("iodepth_batch_submit", Host),
    ("iodepth_batch_complete", Host),
    ("iodepth_batch_complete_min", Host),
    ("iodepth_batch_complete_max", Host),
    ("iodepth_low", Host),
    ("io_submit_mode", Host),
    ("continue_on_error", Host),
    ("ignore_error", Host),
    ("exitall", Honoured("exitall")),
    ("exit_what", Honoured("exit_what")),
    ("std_redirect", Host),
    ("grace_time", Host),
    ("busy_poll", Host),
    ("skip_bad", Host),
    // Engine connection and tuning (for simulated engines).
    ("sqthread_poll", Engine),
    ("sqthread_poll_cpu", Engine),
    ("registerfiles", Engine),
    ("fixedbufs", Engine),
    ("hipri", Engine),
    ("nonvectored", Engine),
    ("cmd_type", Engine),
    ("libblkio_driver", Engine),
    ("libblkio_path", Engine),
    ("uri", Engine),
    ("nfs_url", Engine),
    ("clientname", Engine),
    ("pool", Engine),
    ("cont", Engine),
    ("rbdname", Engine),
    ("volume", Engine),
    ("brick", Engine),
    ("gpu_dev_id", Engine),
    ("gpu_dev_ids", Engine),
    ("cuda_io", Engine),
    ("rocm_io", Engine),
    ("conf", Engine),
    ("busy_poll_rbd", Engine),
    // Options of engines flashpress refuses (the engine's refusal names why).
    ("hostname", Engine),
    ("port", Engine),
    // fio 3.33's librpma engines (remote persistent memory over RDMA).
    ("serverip", Engine),
    ("direct_write_to_pmem", Engine),
    ("busy_wait_polling", Engine),
    ("protocol", Engine),
    ("listen", Engine),
    ("verb", Engine),
    ("bindname", Engine),
    ("interface", Engine),
    ("ttl", Engine),
    ("nodelay", Engine),
    ("window_size", Engine),
    ("mss", Engine),
    ("pingpong", Engine),
    ("https", Engine),
    ("http_host", Engine),
    ("http_user", Engine),
    ("http_pass", Engine),
    ("http_mode", Engine),
    ("http_verbose", Engine),
    ("http_s3_key", Engine),
    ("http_s3_keyid", Engine),
    ("http_s3_region", Engine),
    ("http_s3_storage_class", Engine),
    ("http_s3_sse_customer_key", Engine),
    ("http_s3_sse_customer_algorithm", Engine),
    ("http_swift_auth_token", Engine),
    ("cpuload", Engine),
    ("cpumode", Engine),
    ("cpuchunks", Engine),
    ("exit_on_io_done", Engine),
    ("program", Engine),
    ("arguments", Engine),
    ("donorname", Engine),
    ("inplace", Engine),
    ("sg_write_mode", Honoured("sg_write_mode")),
    ("write_mode", Honoured("write_mode")),
    // Features whose meaning flashpress cannot give.
    ("zonemode", Honoured("zonemode")),
    ("zonesize", Honoured("zonesize")),
    ("zoneskip", Honoured("zoneskip")),
    ("zonerange", Honoured("zonerange")),
    ("zonecapacity", Noted("fio reads a zoned device's zone capacity from the device (flashpress: from [zns]); the option applies only to zones fio emulates on regular files")),
    ("max_open_zones", Honoured("max_open_zones")),
    ("job_max_open_zones", Honoured("job_max_open_zones")),
    ("ignore_zone_limits", Honoured("ignore_zone_limits")),
    ("zone_reset_threshold", Honoured("zone_reset_threshold")),
    ("zone_reset_frequency", Honoured("zone_reset_frequency")),
    ("read_beyond_wp", Honoured("read_beyond_wp")),
    // NVMe Flexible Data Placement (see fdp.rs): writes tagged for the device's [fdp].
    ("fdp", Honoured("fdp")),
    ("dataplacement", Honoured("dataplacement")),
    ("fdp_pli", Honoured("fdp_pli")),
    ("plids", Honoured("fdp_pli")),
    ("fdp_pli_select", Honoured("fdp_pli_select")),
    ("plid_select", Honoured("fdp_pli_select")),
    ("dp_scheme", Refused("placement by offset ranges (dp_scheme) is not modelled: use fdp_pli with roundrobin or random")),
    (
        "atomic",
        Noted("no power loss is simulated, so an atomic write completes as a plain write does"),
    ),
    ("pi_act", Refused(PI)),
    ("pi_chk", Refused(PI)),
    ("apptag", Refused(PI)),
    ("apptag_mask", Refused(PI)),
    ("md_per_io_size", Refused(PI)),
    ("num_range", Refused("multi-range trims are not modelled")),
    // fio's get_next_buflen leaves a `bsrange` length unaligned with it (any byte count).
    ("bs_unaligned", Refused(UNALIGNED)),
    ("blocksize_unaligned", Refused(UNALIGNED)),
    ("random_sequence_stride", Refused("`random_sequence_stride` is not supported")),
    ("sprandom", Refused("fio's sprandom (steady-state random preconditioning by regions) is not supported; use flashpress's own [precondition]")),
    ("spr_op", Refused("goes with sprandom, which is not supported")),
    ("spr_num_regions", Refused("goes with sprandom, which is not supported")),
];

/// The class of option `key`, or `None` for an option fio does not have.
pub(super) fn class_of(key: &str) -> Option<Class> {
    TABLE.iter().find(|(k, _)| *k == key).map(|(_, c)| *c)
}

/// Engines that move block or file data: simulated.
const DATA_ENGINES: &[&str] = &[
    "sync",
    "psync",
    "vsync",
    "pvsync",
    "pvsync2",
    "libaio",
    "io_uring",
    "io_uring_cmd",
    "posixaio",
    "solarisaio",
    "windowsaio",
    "mmap",
    "splice",
    "sg",
    "null",
    "cpp_null",
    "libblkio",
    "xnvme",
    "spdk",
    "dev-dax",
    "libpmem",
    "pmemblk",
    "nbd",
    "libiscsi",
    "rbd",
    "nfs",
    "gfapi",
    "gfapi_async",
    "libhdfs",
    "dfs",
    "ime_psync",
    "ime_psyncv",
    "ime_aio",
    "libcufile",
    "libhipfile",
    "libzbc",
];

/// Engines that do something other than move data, with what they do.
const OTHER_ENGINES: &[(&str, &str)] = &[
    (
        "ftruncate",
        "resizes files with ftruncate(2); it moves no data",
    ),
    (
        "falloc",
        "allocates and punches file space with fallocate(2); it moves no data",
    ),
    ("filecreate", "creates files; it moves no data"),
    ("filestat", "stats files; it moves no data"),
    ("filedelete", "deletes files; it moves no data"),
    ("dircreate", "creates directories; it moves no data"),
    ("dirstat", "stats directories; it moves no data"),
    ("dirdelete", "deletes directories; it moves no data"),
    ("cpuio", "burns CPU time; it does no I/O"),
    ("exec", "runs a program; it does no I/O"),
    (
        "e4defrag",
        "defragments ext4 files with EXT4_IOC_MOVE_EXT; its I/O is the file system's",
    ),
    ("net", "sends data over a network socket, not to storage"),
    (
        "netsplice",
        "sends data over a network socket, not to storage",
    ),
    ("rdma", "sends data over RDMA, not to storage"),
    (
        "librpma_apm_client",
        "writes to remote persistent memory over RDMA, not to storage",
    ),
    (
        "librpma_apm_server",
        "serves remote persistent memory over RDMA, not storage",
    ),
    (
        "librpma_gpspm_client",
        "writes to remote persistent memory over RDMA, not to storage",
    ),
    (
        "librpma_gpspm_server",
        "serves remote persistent memory over RDMA, not storage",
    ),
    ("http", "sends HTTP requests to an object store"),
    ("rados", "writes objects to a Ceph object store, not blocks"),
    (
        "page_fault",
        "touches anonymous memory pages; it does no storage I/O",
    ),
    (
        "mtd",
        "drives raw flash through MTD (erase/program), below the FTL flashpress simulates",
    ),
    ("guasi", "is an obsolete asynchronous wrapper"),
];

/// Whether engine `name` is simulated (`Ok`) or refused (`Err` with why).
pub(super) fn engine_class(name: &str) -> std::result::Result<(), String> {
    if DATA_ENGINES.contains(&name) {
        return Ok(());
    }
    if let Some((_, what)) = OTHER_ENGINES.iter().find(|(n, _)| *n == name) {
        return Err(format!(
            "ioengine `{name}` {what}, so it has no meaning in a storage simulator"
        ));
    }
    if name.starts_with("external:") || name.contains('/') {
        return Err(format!(
            "external ioengine `{name}`: flashpress cannot tell what it does"
        ));
    }
    Err(format!("unknown ioengine `{name}`"))
}

/// Why a class of ignored option is ignored, for the run's summary.
pub(super) fn why_ignored(c: Class) -> &'static str {
    match c {
        Report => "shapes only fio's own logs and reports",
        Host => "how a real machine issues I/O; no counterpart in the simulator",
        Engine => "how the engine reaches its storage, which the simulated SSD stands in for",
        Noted(why) => why,
        _ => "",
    }
}

/// Why the value of an honoured option cannot be honoured (values that ask for a feature
/// flashpress does not model), checked before anything else so one run reports them all.
pub(super) fn refused_value(canonical: &str, value: &str) -> Option<String> {
    let v = value.trim();
    match canonical {
        "ioengine" => engine_class(v).err(),
        "sg_write_mode" => super::sg::SgMode::parse(v).err(),
        "write_mode" if v != "write" => Some(format!(
            "{canonical}={v}: only plain writes are modelled (`write`); uncorrectable, zeroes and verify commands are not"
        )),
        _ => None,
    }
}
