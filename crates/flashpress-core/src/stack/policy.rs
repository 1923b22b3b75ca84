//! The compression-placement seam: for each cluster a file system writes, who compresses it
//! (device, host, or nobody); for each read of device-compressed data, who decompresses it.
//! Each scheme cites the seed it comes from; see [`PolicyKind`].

use crate::config::{CocoRest, FpcFrequency, PolicyKind, StackConfig};
use crate::workload::{FileAttrs, FileType, Hotness};

/// Who compresses a write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CompressSide {
    /// The CCSD's engine (CCF flag clear).
    Device,
    /// The file system on a host core (CCF flag: host-compressed).
    Host,
    /// Nobody (CCF incompressible label): stored as written.
    Skip,
}

/// Who decompresses a read of device-compressed data (host-compressed data is always
/// decompressed by the host, Waltz §4.2 ③).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DecompressSide {
    /// The CCSD's engine (extended read).
    Device,
    /// The host, from the compressed chunks (normal read; needs the CCF mount agreement).
    Host,
}

/// What a policy knows about the file being written or read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FileView {
    /// Hotness and type the workload gave the file.
    pub attrs: FileAttrs,
    /// Reads and writes of the file so far (FPC's access frequency).
    pub accesses: u32,
    /// Compression ratio of the file's first `coco.sample_blocks` blocks, once written
    /// (COCO's estimate; the host codec's ratio).
    pub sample_ratio: Option<f64>,
}

/// Temperature band of the last SMART reading (TCS, Waltz §4.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Band {
    /// `T < T_soft`.
    Cool,
    /// `T_soft <= T < T_hard`: temperature regulation phase.
    Regulate,
    /// `T >= T_hard`: temperature guard phase.
    Guard,
}

/// A placement policy with its thresholds and the last temperature it read.
#[derive(Debug, Clone)]
pub struct Policy {
    kind: PolicyKind,
    t_soft: f64,
    t_hard: f64,
    coco_tc: f64,
    coco_tags: bool,
    coco_rest: CompressSide,
    fpc_hot: u32,
    fpc_frequency: FpcFrequency,
    fpc_types: Vec<FileType>,
    temp_c: f64,
}

impl Policy {
    /// Policy `kind` with the thresholds of `cfg`.
    pub fn new(kind: PolicyKind, cfg: &StackConfig) -> Policy {
        Policy {
            kind,
            t_soft: cfg.tcs.t_soft_c,
            t_hard: cfg.tcs.t_hard_c,
            coco_tc: cfg.coco.tc,
            coco_tags: cfg.coco.tags,
            coco_rest: match cfg.coco.rest {
                CocoRest::Uncompressed => CompressSide::Skip,
                CocoRest::Host => CompressSide::Host,
            },
            fpc_hot: cfg.fpc.hot_accesses,
            fpc_frequency: cfg.fpc.frequency,
            fpc_types: FileType::NAMES
                .iter()
                .enumerate()
                .filter(|(_, n)| cfg.fpc.host_types.iter().any(|t| t == *n))
                .map(|(i, _)| FileAttrs((i as u8) << 2).file_type())
                .collect(),
            temp_c: f64::NEG_INFINITY,
        }
    }

    /// The scheme.
    pub fn kind(&self) -> PolicyKind {
        self.kind
    }

    /// A SMART temperature reading (the host reads it once per `smart_interval_ms`).
    pub fn on_smart(&mut self, temp_c: f64) {
        self.temp_c = temp_c;
    }

    /// The last SMART temperature read (°C; -inf before the first read).
    pub fn smart_c(&self) -> f64 {
        self.temp_c
    }

    /// Band of the last reading.
    pub fn band(&self) -> Band {
        if self.temp_c >= self.t_hard {
            Band::Guard
        } else if self.temp_c >= self.t_soft {
            Band::Regulate
        } else {
            Band::Cool
        }
    }

    /// Whether the host manages the device's temperature (the cooperative schemes), so the
    /// device's own throttling is off (Waltz §6.3.1: TCS "eliminat\[es\] throttling").
    pub fn host_managed_thermal(&self) -> bool {
        matches!(
            self.kind,
            PolicyKind::Tcs | PolicyKind::WaltzS | PolicyKind::WaltzP
        )
    }

    /// Who compresses a cluster of file `f`.
    pub fn compress_side(&self, f: &FileView) -> CompressSide {
        let media = f.attrs.file_type() == FileType::Media;
        match self.kind {
            // The vanilla CCSD compresses whatever it is given; F2FS compresses every
            // cluster of a compression-enabled file (and keeps it raw if it saves nothing).
            PolicyKind::Baseline => CompressSide::Device,
            PolicyKind::F2fsc => CompressSide::Host,
            _ if media => CompressSide::Skip,
            PolicyKind::Fpc => {
                let frequent = match self.fpc_frequency {
                    FpcFrequency::Tag => self.coco_temperature(f) == Hotness::Hot,
                    FpcFrequency::Accesses => f.accesses >= self.fpc_hot,
                };
                if self.fpc_types.contains(&f.attrs.file_type()) && !frequent {
                    CompressSide::Host
                } else {
                    CompressSide::Device
                }
            }
            // COCO: cold data whose first blocks compress better than Tc go to the CSD; the
            // rest is not compressed (COCO has no software compression, Waltz Table 1) or,
            // in the other reading of the slides, compressed by F2FS (`coco.rest`). Its tag
            // is two-way (hot or cold), so warm data counts as cold.
            PolicyKind::Coco => {
                let cold = self.coco_temperature(f) != Hotness::Hot;
                let good = f.sample_ratio.is_none_or(|r| r > self.coco_tc);
                if cold && good {
                    CompressSide::Device
                } else {
                    self.coco_rest
                }
            }
            PolicyKind::Tcs | PolicyKind::WaltzS => match self.band() {
                Band::Cool | Band::Regulate => CompressSide::Device,
                Band::Guard => CompressSide::Host,
            },
            PolicyKind::WaltzP => match self.band() {
                Band::Cool | Band::Regulate => CompressSide::Device,
                Band::Guard => CompressSide::Skip,
            },
        }
    }

    /// The temperature COCO's tag reads: F2FS's own classification with `coco.tags` (mkfs.f2fs
    /// registers `db` as a hot extension and media and archive extensions as cold; data
    /// F2FS's cleaning moves is cold too, but cleaning does not consult the policy), else the
    /// hotness the workload gives the file.
    pub fn coco_temperature(&self, f: &FileView) -> Hotness {
        if !self.coco_tags {
            return f.attrs.hotness();
        }
        match f.attrs.file_type() {
            FileType::Db => Hotness::Hot,
            FileType::Media => Hotness::Cold,
            _ => Hotness::Warm,
        }
    }

    /// Who decompresses device-compressed data of file `f`.
    pub fn decompress_side(&self, _f: &FileView) -> DecompressSide {
        match self.kind {
            PolicyKind::Tcs | PolicyKind::WaltzS => match self.band() {
                Band::Cool => DecompressSide::Device,
                Band::Regulate | Band::Guard => DecompressSide::Host,
            },
            PolicyKind::WaltzP => match self.band() {
                Band::Cool | Band::Regulate => DecompressSide::Device,
                Band::Guard => DecompressSide::Host,
            },
            _ => DecompressSide::Device,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(h: Hotness, t: FileType, accesses: u32, ratio: Option<f64>) -> FileView {
        FileView {
            attrs: FileAttrs::new(h, t),
            accesses,
            sample_ratio: ratio,
        }
    }

    fn policy(kind: PolicyKind, temp: f64) -> Policy {
        let mut p = Policy::new(kind, &StackConfig::default());
        p.on_smart(temp);
        p
    }

    #[test]
    fn waltz_table_2() {
        use CompressSide as C;
        use DecompressSide as D;
        let f = view(Hotness::Warm, FileType::Data, 0, None);
        // (kind, temperature, compression, decompression) for T < T_soft, between, >= T_hard.
        let rows = [
            (PolicyKind::WaltzS, 60.0, C::Device, D::Device),
            (PolicyKind::WaltzS, 80.0, C::Device, D::Host),
            (PolicyKind::WaltzS, 85.0, C::Host, D::Host),
            (PolicyKind::WaltzP, 60.0, C::Device, D::Device),
            (PolicyKind::WaltzP, 80.0, C::Device, D::Device),
            (PolicyKind::WaltzP, 85.0, C::Skip, D::Host),
            (PolicyKind::Tcs, 80.0, C::Device, D::Host),
            (PolicyKind::Tcs, 90.0, C::Host, D::Host),
            (PolicyKind::Baseline, 90.0, C::Device, D::Device),
            (PolicyKind::F2fsc, 20.0, C::Host, D::Device),
        ];
        for (k, t, c, d) in rows {
            let p = policy(k, t);
            assert_eq!(p.compress_side(&f), c, "{k:?} at {t} °C");
            assert_eq!(p.decompress_side(&f), d, "{k:?} at {t} °C");
        }
    }

    #[test]
    fn coco_sends_cold_compressible_files_to_the_device_and_skips_the_rest() {
        let p = policy(PolicyKind::Coco, 30.0);
        let tc = StackConfig::default().coco.tc;
        let cold_good = view(Hotness::Cold, FileType::Data, 0, Some(tc + 0.5));
        let cold_poor = view(Hotness::Cold, FileType::Data, 0, Some(tc - 0.5));
        let hot_good = view(Hotness::Hot, FileType::Data, 0, Some(tc + 0.5));
        let warm_good = view(Hotness::Warm, FileType::Data, 0, Some(tc + 0.5));
        assert_eq!(p.compress_side(&cold_good), CompressSide::Device);
        assert_eq!(p.compress_side(&warm_good), CompressSide::Device);
        assert_eq!(p.compress_side(&cold_poor), CompressSide::Skip);
        assert_eq!(p.compress_side(&hot_good), CompressSide::Skip);
    }

    /// Both tag sources and both readings of the rest, over every (hotness, type) a
    /// workload can give: the CCSD gets exactly the data whose tag is not hot and whose
    /// sample beats Tc (media never), the rest goes to `coco.rest`.
    #[test]
    fn coco_tags_and_rest_choose_each_path() {
        use crate::config::CocoRest;
        let tc = StackConfig::default().coco.tc;
        for tags in [false, true] {
            for rest in [CocoRest::Uncompressed, CocoRest::Host] {
                let mut cfg = StackConfig::default();
                cfg.coco.tags = tags;
                cfg.coco.rest = rest;
                let p = Policy::new(PolicyKind::Coco, &cfg);
                let other = match rest {
                    CocoRest::Uncompressed => CompressSide::Skip,
                    CocoRest::Host => CompressSide::Host,
                };
                for h in [Hotness::Hot, Hotness::Warm, Hotness::Cold] {
                    for (i, _) in FileType::NAMES.iter().enumerate() {
                        let t = FileAttrs((i as u8) << 2).file_type();
                        for ratio in [tc - 0.5, tc + 0.5] {
                            let f = view(h, t, 0, Some(ratio));
                            // F2FS's classification: `db` hot, media cold, the rest warm.
                            let hot = if tags {
                                t == FileType::Db
                            } else {
                                h == Hotness::Hot
                            };
                            let want = if t == FileType::Media {
                                CompressSide::Skip
                            } else if !hot && ratio > tc {
                                CompressSide::Device
                            } else {
                                other
                            };
                            assert_eq!(
                                p.compress_side(&f),
                                want,
                                "{tags} {rest:?} {h:?} {t:?} {ratio}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn fpc_reads_access_frequency_from_the_hot_cold_tag_by_default() {
        let p = policy(PolicyKind::Fpc, 95.0);
        // A warm text file is compressed on the host however often it is accessed; a hot one
        // (webserver's log, OLTP's database) is left to the CCSD; an unselected type too.
        for accesses in [0, 1_000] {
            assert_eq!(
                p.compress_side(&view(Hotness::Warm, FileType::Text, accesses, None)),
                CompressSide::Host
            );
        }
        assert_eq!(
            p.compress_side(&view(Hotness::Cold, FileType::Log, 0, None)),
            CompressSide::Host
        );
        for t in [FileType::Log, FileType::Db] {
            assert_eq!(
                p.compress_side(&view(Hotness::Hot, t, 0, None)),
                CompressSide::Device
            );
        }
        assert_eq!(
            p.compress_side(&view(Hotness::Cold, FileType::Data, 0, None)),
            CompressSide::Device
        );
    }

    #[test]
    fn fpc_compresses_rarely_used_text_on_the_host() {
        let mut cfg = StackConfig::default();
        cfg.fpc.frequency = FpcFrequency::Accesses;
        let p = Policy::new(PolicyKind::Fpc, &cfg);
        let hot = cfg.fpc.hot_accesses;
        assert_eq!(
            p.compress_side(&view(Hotness::Warm, FileType::Text, 0, None)),
            CompressSide::Host
        );
        assert_eq!(
            p.compress_side(&view(Hotness::Warm, FileType::Text, hot, None)),
            CompressSide::Device
        );
        assert_eq!(
            p.compress_side(&view(Hotness::Warm, FileType::Data, 0, None)),
            CompressSide::Device
        );
        assert_eq!(
            p.compress_side(&view(Hotness::Warm, FileType::Media, 0, None)),
            CompressSide::Skip
        );
    }
}
