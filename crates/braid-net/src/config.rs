//! Network-wide parameters of a simulation: packet sizes, switch buffers, ECN, PFC, priority
//! classes, the NIC reorder buffer and the routing mode.
//!
//! Defaults follow the HPCC ns-3 model where one exists (`docs/baselines.md`, conventions): ECN
//! marking at dequeue with RED-like Kmin/Kmax/Pmax scaled with the port rate (400 KB / 1600 KB /
//! 0.2 at 100 Gb/s), a shared switch buffer, PFC with a dynamic XOFF threshold
//! `free_buffer >> shift`.

use braid_core::Time;

/// Number of priority classes per port. Class 0 is served first. Three are used (control,
/// data, probes); every port holds a queue, byte counts and pause state per class, so a class
/// nothing uses cost every port 64 bytes.
pub const NUM_CLASSES: usize = 3;
/// Class of ACKs, NAKs and other control packets.
pub const CLASS_CONTROL: u8 = 0;
/// Class of data packets.
pub const CLASS_DATA: u8 = 1;
/// Class of capacity probes (Rondo): below data, with a small drop threshold.
pub const CLASS_PROBE: u8 = 2;

/// How a switch picks among its candidate next hops (`routing.kind`): the sans-IO
/// [`braid_proto::routing::RoutingKind`] (ECMP, entropy-indexed, WCMP, UCMP, LCMP, adaptive).
pub use braid_proto::routing::RoutingKind as RoutingMode;
/// The knobs of `[routing]` (LCMP weights and profile switches, adaptive quantisation, WCMP table).
pub use braid_proto::routing::RoutingParams;

/// ECN marking (RED-like, at dequeue, on the egress queue of the packet's class).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EcnConfig {
    /// Mark at all.
    pub enabled: bool,
    /// Below this many queued bytes, never mark.
    pub kmin_bytes: u64,
    /// Above this many queued bytes, always mark.
    pub kmax_bytes: u64,
    /// Marking probability at Kmax (linear from 0 at Kmin).
    pub pmax: f64,
    /// Kmin/Kmax are given for 100 Gb/s and scale linearly with each port's rate (as the HPCC
    /// scripts do); false: the same thresholds on every port.
    pub scale_with_rate: bool,
}

impl Default for EcnConfig {
    fn default() -> Self {
        EcnConfig {
            enabled: true,
            kmin_bytes: 400_000,
            kmax_bytes: 1_600_000,
            pmax: 0.2,
            scale_with_rate: true,
        }
    }
}

/// Priority flow control (IEEE 802.1Qbb) on the data class.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PfcConfig {
    /// PFC on.
    pub enabled: bool,
    /// Static XOFF threshold per ingress port and class in bytes; `None` = dynamic
    /// (`(buffer − used) >> shift`, as the HPCC MMU does).
    pub xoff_bytes: Option<u64>,
    /// Shift of the dynamic threshold (3 ⇒ 1/8 of the free buffer).
    pub shift: u32,
    /// RESUME is sent once the ingress counter falls this far below the XOFF threshold.
    pub resume_offset_bytes: u64,
}

impl Default for PfcConfig {
    fn default() -> Self {
        PfcConfig { enabled: false, xoff_bytes: None, shift: 3, resume_offset_bytes: 3 * 1024 }
    }
}

/// NDP-style packet trimming at switch egress queues (Handley et al., SIGCOMM'17; the UET
/// behaviour htsim's `CompositeQueue` models). Off by default: full queues drop.
///
/// When on, each switch port's data class is the low-priority queue and trimmed headers share
/// the control class (ACKs, NAKs, pulls), served first. A data packet arriving at a full data
/// queue is trimmed with probability ½; otherwise the most recently queued data packet is trimmed
/// and the arrival queued. A trimmed packet keeps its header fields and becomes `size_bytes`
/// long; if the header queue (twice the data-queue limit) is full too, it is dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TrimConfig {
    /// Trim instead of dropping.
    pub enabled: bool,
    /// Size of a trimmed packet on the wire.
    pub size_bytes: u32,
}

impl Default for TrimConfig {
    fn default() -> Self {
        TrimConfig { enabled: false, size_bytes: 64 }
    }
}

/// Bytes of a PFC frame on the wire (the ns-3 fork's PAUSE header 9 + IPv4 20 + PPP 14).
pub const PFC_FRAME_BYTES: u64 = 43;

/// How the largest RTT and BDP handed to window-based controllers are computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WindowBdp {
    /// Braid's: over the workload's host pairs, each pair's base RTT on its best path (one data
    /// packet and one ACK serialised per hop, both ways) times the sender's NIC rate.
    Braid,
    /// The ns-3 HPCC fork's: over every pair of hosts, the path of the LCMP artifact's ideal FCT,
    /// RTT = 2 × delay + one payload per hop, BDP = RTT × its bottleneck; `wrap` keeps the fork's
    /// 64-bit product and 32-bit storage (`crate::path::ns3_max_rtt_bdp`).
    Ns3 {
        /// The fork's integer wraps.
        wrap: bool,
    },
}

/// The switch memory-management model of the lossless data class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MmuModel {
    /// Braid's: one shared buffer per switch; an ingress is paused past `(buffer − used) >>
    /// shift`; a packet is refused only when the buffer is full.
    Braid,
    /// The ns-3 HPCC fork's (`crate::sim` MMU module, `docs/ns3-equivalence.md`): per-ingress
    /// reserve, shared pool and headroom; `wrap32` reproduces its 32-bit arithmetic.
    Hpcc {
        /// 32-bit arithmetic (`network.mmu_arith = "u32-wrap"`).
        wrap32: bool,
    },
}

/// Every network-wide parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct NetConfig {
    /// Maximum payload per packet.
    pub mtu_bytes: u32,
    /// Header bytes added to each data packet on the wire.
    pub header_bytes: u32,
    /// Size of ACKs, NAKs and other control packets on the wire.
    pub ack_bytes: u32,
    /// Shared buffer per intra-DC switch.
    pub switch_buffer_bytes: u64,
    /// Shared buffer per DCI switch.
    pub dci_buffer_bytes: u64,
    /// Egress dynamic threshold α for lossy classes: a port class may hold at most
    /// `α · (buffer − used)` bytes.
    pub dt_alpha: f64,
    /// Per-class byte limit of each egress queue (0 = none). The probe class needs a small one.
    pub class_limit_bytes: [u64; NUM_CLASSES],
    /// ECN marking.
    pub ecn: EcnConfig,
    /// PFC.
    pub pfc: PfcConfig,
    /// Stamp INT records on data packets (HPCC).
    pub int_enabled: bool,
    /// Per-NIC reorder buffer shared by all flows arriving at the NIC.
    pub reorder_buffer_bytes: u64,
    /// RNIC limit for RDMA WRITE (Rondo Appendix A): a QP's new PSNs must lie within this many
    /// packets of its oldest unacknowledged one (`network.max_outstanding_psn`; ConnectX-7:
    /// 512). `None`: unlimited.
    pub max_outstanding_psn: Option<u32>,
    /// RNIC limit for RDMA READ: READ operations a requester keeps outstanding per QP
    /// (`network.max_outstanding_reads`; ConnectX-7: 16). `None`: unlimited.
    pub max_outstanding_reads: Option<u32>,
    /// Next-hop selection.
    pub routing: RoutingMode,
    /// Knobs of the next-hop selection.
    pub routing_params: RoutingParams,
    /// Random drop probability on every link (per packet, both directions).
    pub loss_rate: f64,
    /// `loss_on = "forward"`: the random loss spares ACKs, NAKs and CNPs (a switch configured to
    /// drop data, as in Rondo §2.2's set-up); `"all"` (default) drops any packet.
    pub loss_forward_only: bool,
    /// Packet trimming at switch egress queues (off by default).
    pub trim: TrimConfig,
    /// The class ACKs and NAKs take at switches (`network.ack_class`): [`CLASS_CONTROL`]
    /// (default: strict priority ahead of data, outside PFC and the ECN queue length) or
    /// [`CLASS_DATA`] (the ns-3 HPCC fork's: its switches never set `AckHighPrio`, so an ACK
    /// joins the data FIFO of its egress, is admitted and PFC-accounted like data and counts in
    /// the queue ECN marks by; `docs/ns3-equivalence.md`). At hosts ACKs are always sent ahead of
    /// data.
    pub ack_class: u8,
    /// The switch MMU of the lossless data class (`network.mmu`, `network.mmu_arith`).
    pub mmu: MmuModel,
    /// Per-port egress cap over all classes (`network.egress_queue_cap`; 0 = none): an arrival
    /// that would bring the port's queued bytes to it is dropped (the ns-3 fork's `BEgressQueue`
    /// `MaxBytes`, 1000 MiB).
    pub egress_cap_bytes: u64,
    /// A packet dropped at the egress cap keeps its MMU accounting, and its bytes in the ECN
    /// queue counter of its egress port, forever (`network.egress_cap_leak`; the fork drops after
    /// admission and never releases either).
    pub egress_cap_leak: bool,
    /// PFC frames wait for the frame in transmission on the port toward the upstream and take
    /// `PFC_FRAME_BYTES` of serialisation before the link delay (`network.pfc_frame =
    /// "queued"`; default `"instant"`: the link delay only).
    pub pfc_frame_queued: bool,
    /// How the driver computes the network's largest RTT and BDP, the `T` and `W` of window-based
    /// controllers (`network.window_bdp`).
    pub window_bdp: WindowBdp,
    /// Every serialisation time (links, NIC pacing) in whole nanoseconds, rounded down
    /// (`network.tx_time = "floor-ns"`, the ns-3 fork's; default `"exact"`: picoseconds, up).
    pub tx_time_floor_ns: bool,
    /// Flows take source ports `10000 + n` per (source, destination) pair in workload order, as
    /// the ns-3 fork's hosts (`network.sport = "ns3-pair-counter"`); false: a random ephemeral
    /// port per flow. The switches hash the source port (ECMP, UCMP, LCMP's hash).
    pub sport_pair_counter: bool,
    /// A host NIC's ACK queue stops while its data class is paused by PFC
    /// (`network.host_ack_pausable`; the ns-3 fork with `ACK_HIGH_PRIO 0` queues ACKs under
    /// priority 3, the data priority). Default false: ACKs are never paused.
    pub host_ack_pausable: bool,
}

impl Default for NetConfig {
    fn default() -> Self {
        NetConfig {
            mtu_bytes: 4096,
            header_bytes: 64,
            ack_bytes: 64,
            switch_buffer_bytes: 32 * 1024 * 1024,
            dci_buffer_bytes: 128 * 1024 * 1024,
            dt_alpha: 1.0,
            class_limit_bytes: [0, 0, 64 * 1024],
            ecn: EcnConfig::default(),
            pfc: PfcConfig::default(),
            int_enabled: false,
            reorder_buffer_bytes: 1_200_000,
            max_outstanding_psn: None,
            max_outstanding_reads: None,
            routing: RoutingMode::Ecmp,
            routing_params: RoutingParams::default(),
            loss_rate: 0.0,
            loss_forward_only: false,
            trim: TrimConfig::default(),
            ack_class: CLASS_CONTROL,
            host_ack_pausable: false,
            mmu: MmuModel::Braid,
            egress_cap_bytes: 0,
            egress_cap_leak: false,
            pfc_frame_queued: false,
            window_bdp: WindowBdp::Braid,
            tx_time_floor_ns: false,
            sport_pair_counter: false,
        }
    }
}

/// A change scheduled on a link during the run (heterogeneity and failure injection).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkEvent {
    /// When.
    pub at: Time,
    /// Which link (index into the topology's links).
    pub link: u32,
    /// What.
    pub change: LinkChange,
}

/// What happens to a link.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LinkChange {
    /// The link goes down: queued packets are dropped, routing avoids it.
    Down,
    /// The link comes back up.
    Up,
    /// The link's rate becomes this many bit/s.
    Rate(u64),
    /// The link's propagation delay becomes this.
    Delay(Time),
    /// The link's random loss probability becomes this.
    Loss(f64),
}
