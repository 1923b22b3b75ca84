//! The NVMe Zoned Namespace zone state machine (NVM Express Zoned Namespace Command Set
//! Specification 1.1, section 2.1.1 and its Figure "Zone State Machine"): per zone a state
//! and a write pointer, the device's open and active resources, and the commands that move a
//! zone between states, each either done or failed with the status the specification gives.
//!
//! Where the specification leaves the controller a choice, this follows Linux's `null_blk`
//! zoned emulation (`drivers/block/null_blk/zoned.c`), the reference the kernel's zoned tests
//! run against: a zone that needs an open resource when all are taken first closes one
//! implicitly opened zone (`null_check_open`), and closing an open zone with nothing written
//! makes it empty again (`null_close_zone`).

/// The state of a zone (the specification's ZSE, ZSIO, ZSEO, ZSC, ZSF, ZSRO, ZSO).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ZoneState {
    /// ZSE: nothing written, the write pointer at the zone start.
    Empty,
    /// ZSIO: opened by a write (or an append).
    ImplicitlyOpen,
    /// ZSEO: opened by an Open Zone command.
    ExplicitlyOpen,
    /// ZSC: written and closed; still active.
    Closed,
    /// ZSF: no more writes until a reset.
    Full,
    /// ZSRO: readable only (the media wore out); no command changes it.
    ReadOnly,
    /// ZSO: neither readable nor writable.
    Offline,
}

impl ZoneState {
    /// Open (implicitly or explicitly): holds an open and an active resource.
    pub fn is_open(self) -> bool {
        matches!(self, ZoneState::ImplicitlyOpen | ZoneState::ExplicitlyOpen)
    }

    /// Active (open or closed): holds an active resource.
    pub fn is_active(self) -> bool {
        self.is_open() || self == ZoneState::Closed
    }
}

/// Why a zoned command failed: the status codes of the specification (Figure "Zoned
/// Namespace Command Set Specific Status Codes" and the generic ones it uses).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ZoneError {
    /// 0xB8 Zone Boundary Error: the command would cross the end of the zone's writable
    /// capacity (or, for a read, the zone boundary).
    ZoneBoundary,
    /// 0xB9 Zone Is Full.
    ZoneIsFull,
    /// 0xBA Zone Is Read Only.
    ZoneIsReadOnly,
    /// 0xBB Zone Is Offline.
    ZoneIsOffline,
    /// 0xBC Zone Invalid Write: a write not at the write pointer.
    ZoneInvalidWrite,
    /// 0xBD Too Many Active Zones.
    TooManyActiveZones,
    /// 0xBE Too Many Open Zones.
    TooManyOpenZones,
    /// 0xBF Invalid Zone State Transition.
    InvalidZoneStateTransition,
    /// 0x02 Invalid Field in Command: a Zone Append not addressed to a zone's first block, or
    /// a range not aligned to the logical block.
    InvalidField,
    /// 0x80 LBA Out of Range: past the last zone.
    LbaOutOfRange,
}

impl ZoneError {
    /// Every status, in summary order.
    pub const ALL: [ZoneError; 10] = [
        ZoneError::ZoneBoundary,
        ZoneError::ZoneIsFull,
        ZoneError::ZoneIsReadOnly,
        ZoneError::ZoneIsOffline,
        ZoneError::ZoneInvalidWrite,
        ZoneError::TooManyActiveZones,
        ZoneError::TooManyOpenZones,
        ZoneError::InvalidZoneStateTransition,
        ZoneError::InvalidField,
        ZoneError::LbaOutOfRange,
    ];

    /// Its name in the summary.
    pub fn name(self) -> &'static str {
        match self {
            ZoneError::ZoneBoundary => "zone_boundary_error",
            ZoneError::ZoneIsFull => "zone_is_full",
            ZoneError::ZoneIsReadOnly => "zone_is_read_only",
            ZoneError::ZoneIsOffline => "zone_is_offline",
            ZoneError::ZoneInvalidWrite => "zone_invalid_write",
            ZoneError::TooManyActiveZones => "too_many_active_zones",
            ZoneError::TooManyOpenZones => "too_many_open_zones",
            ZoneError::InvalidZoneStateTransition => "invalid_zone_state_transition",
            ZoneError::InvalidField => "invalid_field",
            ZoneError::LbaOutOfRange => "lba_out_of_range",
        }
    }
}

/// A Zone Management Send action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ZoneAction {
    /// Open Zone: to ZSEO.
    Open,
    /// Close Zone: an open zone to ZSC (or ZSE with nothing written).
    Close,
    /// Finish Zone: to ZSF, the write pointer to the zone's end.
    Finish,
    /// Reset Zone: to ZSE, the write pointer to the zone start; its flash is erased.
    Reset,
}

/// One zone: its state and write pointer (blocks written from its start).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Zone {
    /// State.
    pub state: ZoneState,
    /// Write pointer: logical blocks from the zone start (`cap` when full).
    pub wp: u64,
    /// Blocks holding data since the last reset (a finish moves the write pointer, not this):
    /// what a reset must erase.
    pub written: u64,
}

/// The zones of a namespace and its open and active resources.
#[derive(Debug, Clone)]
pub struct Zones {
    zones: Vec<Zone>,
    /// Writable logical blocks per zone (the specification's zone capacity).
    cap: u64,
    /// Maximum open zones (0: no limit).
    max_open: u32,
    /// Maximum active zones (0: no limit).
    max_active: u32,
    imp_open: u32,
    exp_open: u32,
    closed: u32,
}

impl Zones {
    /// `n` empty zones of `cap` writable blocks, with the limits (0: none) and the zones that
    /// start read-only or offline.
    pub fn new(n: u32, cap: u64, max_open: u32, max_active: u32) -> Zones {
        Zones {
            zones: vec![
                Zone {
                    state: ZoneState::Empty,
                    wp: 0,
                    written: 0,
                };
                n as usize
            ],
            cap,
            max_open,
            max_active,
            imp_open: 0,
            exp_open: 0,
            closed: 0,
        }
    }

    /// Put an empty zone into ZSRO or ZSO (the device's own transitions, on wear).
    pub fn set_media_state(&mut self, z: u32, state: ZoneState) {
        assert!(matches!(state, ZoneState::ReadOnly | ZoneState::Offline));
        let zone = &mut self.zones[z as usize];
        assert_eq!(zone.state, ZoneState::Empty, "only an empty zone is set");
        zone.state = state;
    }

    /// Zones.
    pub fn len(&self) -> u32 {
        self.zones.len() as u32
    }

    /// No zones (never for a validated config).
    pub fn is_empty(&self) -> bool {
        self.zones.is_empty()
    }

    /// Writable blocks per zone.
    pub fn cap(&self) -> u64 {
        self.cap
    }

    /// Zone `z`.
    pub fn zone(&self, z: u32) -> Zone {
        self.zones[z as usize]
    }

    /// Open zones (implicitly, explicitly).
    pub fn open_counts(&self) -> (u32, u32) {
        (self.imp_open, self.exp_open)
    }

    /// Closed zones.
    pub fn closed(&self) -> u32 {
        self.closed
    }

    fn leave(&mut self, s: ZoneState) {
        match s {
            ZoneState::ImplicitlyOpen => self.imp_open -= 1,
            ZoneState::ExplicitlyOpen => self.exp_open -= 1,
            ZoneState::Closed => self.closed -= 1,
            _ => {}
        }
    }

    fn enter(&mut self, z: u32, s: ZoneState) {
        let old = self.zones[z as usize].state;
        self.leave(old);
        match s {
            ZoneState::ImplicitlyOpen => self.imp_open += 1,
            ZoneState::ExplicitlyOpen => self.exp_open += 1,
            ZoneState::Closed => self.closed += 1,
            _ => {}
        }
        self.zones[z as usize].state = s;
    }

    /// Room for zone `z` (empty or closed) to become open: an active resource if it is empty,
    /// then an open resource, closing the lowest implicitly opened zone if that frees one.
    fn take_resources(&mut self, z: u32) -> Result<(), ZoneError> {
        let s = self.zones[z as usize].state;
        if s == ZoneState::Empty
            && self.max_active > 0
            && self.imp_open + self.exp_open + self.closed >= self.max_active
        {
            return Err(ZoneError::TooManyActiveZones);
        }
        if self.max_open > 0 && self.imp_open + self.exp_open >= self.max_open {
            let victim = self
                .zones
                .iter()
                .position(|x| x.state == ZoneState::ImplicitlyOpen)
                .ok_or(ZoneError::TooManyOpenZones)?;
            self.close_open(victim as u32);
        }
        Ok(())
    }

    /// An open zone closes: to ZSC, or to ZSE when nothing is written.
    fn close_open(&mut self, z: u32) {
        let to = if self.zones[z as usize].wp == 0 {
            ZoneState::Empty
        } else {
            ZoneState::Closed
        };
        self.enter(z, to);
    }

    /// The checks a write or append of `n` blocks into zone `z` shares, before its position.
    fn writable(&self, z: u32) -> Result<(), ZoneError> {
        match self.zones[z as usize].state {
            ZoneState::Full => Err(ZoneError::ZoneIsFull),
            ZoneState::ReadOnly => Err(ZoneError::ZoneIsReadOnly),
            ZoneState::Offline => Err(ZoneError::ZoneIsOffline),
            _ => Ok(()),
        }
    }

    /// Write `n` blocks into zone `z` at `at` blocks from its start (a Write command); on
    /// success the write pointer moves past them and the zone is open or full.
    pub fn write(&mut self, z: u32, at: u64, n: u64) -> Result<(), ZoneError> {
        self.writable(z)?;
        if at != self.zones[z as usize].wp {
            return Err(ZoneError::ZoneInvalidWrite);
        }
        self.advance(z, n).map(|_| ())
    }

    /// The checks a Write at `at` (`Some`) or a Zone Append (`None`) of `n` blocks into zone
    /// `z` makes before it takes resources, changing nothing: the zone's state, the write
    /// pointer, the capacity.
    pub fn precheck(&self, z: u32, at: Option<u64>, n: u64) -> Result<(), ZoneError> {
        self.writable(z)?;
        let wp = self.zones[z as usize].wp;
        if at.is_some_and(|a| a != wp) {
            return Err(ZoneError::ZoneInvalidWrite);
        }
        if wp + n > self.cap {
            return Err(ZoneError::ZoneBoundary);
        }
        Ok(())
    }

    /// An open zone whose flash filled before its capacity was written (a compressed zone)
    /// becomes full, as a Finish makes it.
    pub fn fill(&mut self, z: u32) {
        assert!(
            self.zones[z as usize].state.is_open(),
            "a zone being written is open"
        );
        self.finish(z);
    }

    /// Zone Append of `n` blocks to zone `z`: returns where they went (blocks from the zone
    /// start).
    pub fn append(&mut self, z: u32, n: u64) -> Result<u64, ZoneError> {
        self.writable(z)?;
        self.advance(z, n)
    }

    fn advance(&mut self, z: u32, n: u64) -> Result<u64, ZoneError> {
        let zone = self.zones[z as usize];
        if zone.wp + n > self.cap {
            return Err(ZoneError::ZoneBoundary);
        }
        if !zone.state.is_open() {
            self.take_resources(z)?;
            self.enter(z, ZoneState::ImplicitlyOpen);
        }
        let at = zone.wp;
        let zone = &mut self.zones[z as usize];
        zone.wp += n;
        zone.written = zone.wp;
        if zone.wp == self.cap {
            self.enter(z, ZoneState::Full);
        }
        Ok(at)
    }

    /// Whether `n` blocks at `at` of zone `z` can be read; `Ok(k)`: the first `k` of them
    /// hold data (the rest read as deallocated).
    pub fn read(&self, z: u32, at: u64, n: u64) -> Result<u64, ZoneError> {
        if self.zones[z as usize].state == ZoneState::Offline {
            return Err(ZoneError::ZoneIsOffline);
        }
        let written = self.zones[z as usize].written;
        Ok(written.saturating_sub(at).min(n))
    }

    /// A Zone Management Send action on zone `z`. A reset returns the blocks that held data
    /// (to erase); the other actions return 0.
    pub fn manage(&mut self, z: u32, a: ZoneAction) -> Result<u64, ZoneError> {
        use ZoneState::*;
        let s = self.zones[z as usize].state;
        match (s, a) {
            (ReadOnly, _) => Err(ZoneError::ZoneIsReadOnly),
            (Offline, _) => Err(ZoneError::ZoneIsOffline),
            (ExplicitlyOpen, ZoneAction::Open) | (Closed, ZoneAction::Close) => Ok(0),
            (Full, ZoneAction::Finish) | (Empty, ZoneAction::Reset) => Ok(0),
            (Full, ZoneAction::Open) => Err(ZoneError::InvalidZoneStateTransition),
            (Empty | Full, ZoneAction::Close) => Err(ZoneError::InvalidZoneStateTransition),
            (ImplicitlyOpen, ZoneAction::Open) => {
                self.enter(z, ExplicitlyOpen);
                Ok(0)
            }
            (Empty | Closed, ZoneAction::Open) => {
                self.take_resources(z)?;
                self.enter(z, ExplicitlyOpen);
                Ok(0)
            }
            (ImplicitlyOpen | ExplicitlyOpen, ZoneAction::Close) => {
                self.close_open(z);
                Ok(0)
            }
            (Empty | Closed, ZoneAction::Finish) => {
                // A zone finishes through the open state: it needs the resources to get there.
                self.take_resources(z)?;
                self.finish(z);
                Ok(0)
            }
            (ImplicitlyOpen | ExplicitlyOpen, ZoneAction::Finish) => {
                self.finish(z);
                Ok(0)
            }
            (ImplicitlyOpen | ExplicitlyOpen | Closed | Full, ZoneAction::Reset) => {
                let written = self.zones[z as usize].written;
                self.enter(z, Empty);
                let zone = &mut self.zones[z as usize];
                zone.wp = 0;
                zone.written = 0;
                Ok(written)
            }
        }
    }

    fn finish(&mut self, z: u32) {
        self.enter(z, ZoneState::Full);
        self.zones[z as usize].wp = self.cap;
    }

    /// Check the resource counts against the states (tests and the end-of-run check).
    pub fn check(&self) -> Result<(), String> {
        let count = |s: ZoneState| self.zones.iter().filter(|z| z.state == s).count() as u32;
        let (i, e, c) = (
            count(ZoneState::ImplicitlyOpen),
            count(ZoneState::ExplicitlyOpen),
            count(ZoneState::Closed),
        );
        if (i, e, c) != (self.imp_open, self.exp_open, self.closed) {
            return Err(format!(
                "zone counts: {i} implicitly open, {e} explicitly open, {c} closed, but {} / {} / {} counted",
                self.imp_open, self.exp_open, self.closed
            ));
        }
        if self.max_open > 0 && i + e > self.max_open {
            return Err(format!("{} zones open, limit {}", i + e, self.max_open));
        }
        if self.max_active > 0 && i + e + c > self.max_active {
            return Err(format!(
                "{} zones active, limit {}",
                i + e + c,
                self.max_active
            ));
        }
        for (k, z) in self.zones.iter().enumerate() {
            let ok = match z.state {
                ZoneState::Empty => z.wp == 0 && z.written == 0,
                ZoneState::Full => z.wp == self.cap && z.written <= self.cap,
                ZoneState::ImplicitlyOpen | ZoneState::ExplicitlyOpen | ZoneState::Closed => {
                    z.wp < self.cap && z.written == z.wp
                }
                ZoneState::ReadOnly | ZoneState::Offline => true,
            };
            if !ok || (z.state == ZoneState::Closed && z.wp == 0) {
                return Err(format!(
                    "zone {k}: {:?} with write pointer {} and {} blocks written",
                    z.state, z.wp, z.written
                ));
            }
        }
        Ok(())
    }
}
