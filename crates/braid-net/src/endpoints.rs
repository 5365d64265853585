//! Run-time records of the end hosts (their NIC state), of the connections between them (the
//! `braid-proto` sender and receiver of each queue pair) and of the messages (flows) the
//! connections carry.
//!
//! A workload's flow is one message. By default every message has a connection of its own (a
//! new flow with fresh transport state), and then a [`Flow`] and its [`Conn`] are one and the
//! same transfer. A persistent connection (`workload.connections = "per-pair"`) carries many
//! messages: they are posted on it when they start, in that order, each taking the next PSNs of
//! the connection's space, and each completes when the connection's cumulative ACK passes its
//! last PSN (at the receiver: when the in-order delivery point does).

use braid_core::{FlowId, NodeId, PortId, Time};
use braid_proto::pull_pacer::{FlowPulls, PullPacer};
use braid_proto::receiver::Receiver;
use braid_proto::recovery::RecoveryStats;
use braid_proto::transport::{FlowEnv, Sender};

/// Per-host NIC state.
#[derive(Clone, Debug)]
pub struct Host {
    /// The host's node.
    pub node: NodeId,
    /// Its (first) egress port.
    pub port: PortId,
    /// Connections this host is sending on that have posted data not yet acknowledged (indices
    /// into [`crate::sim::Sim::conns`], as `FlowId`s: packets name their connection).
    pub active: Vec<FlowId>,
    /// Round-robin position in `active`.
    pub rr: usize,
    /// Time of the earliest pending `NicWake`, `Time::MAX` if none.
    pub wake_at: Time,
    /// Bytes held in the shared reorder buffer.
    pub reorder_used: u64,
    /// NIC-level OOD: sum of the OOD of all connections arriving here.
    pub nic_ood: u64,
    /// NIC-level RBO: out-of-order packets held, summed over connections.
    pub nic_rbo: u64,
    /// Largest NIC-level OOD seen.
    pub nic_ood_max: u64,
    /// The pull pacer of the receiver-driven flows arriving here (EQDS).
    pub pull_pacer: PullPacer,
}

/// A connection (queue pair): the sender at one host, the receiver at the other, and the
/// messages posted on it.
#[derive(Clone, Debug)]
pub struct Conn {
    /// Sending host index.
    pub src_host: u32,
    /// Receiving host index.
    pub dst_host: u32,
    /// The flow group (an index into the workload's group names) whose transport it runs.
    pub group: u16,
    /// The sender ([`Conn::sender`]): boxed, since a transport's sender is 0.8–1.2 KB and the
    /// rest of the connection a sixth of that. `None` before a deferred sender is built
    /// (`pending`), after a finished one-message connection released it (`finished_stats`), and
    /// in a partition of a parallel run that does not own the sending host (only the owner's
    /// copy is ever driven, and the merge takes it).
    pub(crate) sender: Option<Box<Sender>>,
    /// What a deferred sender is built from when the connection first starts
    /// ([`crate::sim::Sim::defer_sender`]).
    pub(crate) pending: Option<Box<FlowEnv>>,
    /// The loss-recovery counters of the sender a finished one-message connection released.
    pub(crate) finished_stats: Option<RecoveryStats>,
    /// What the receiving end needs of the transport (fixed when the connection is made; read
    /// there because a partition that owns the receiving host may not hold the sender):
    /// [`Sender::wants_pulls`].
    pub wants_pulls: bool,
    /// [`Sender::pulls_to_target`].
    pub pulls_to_target: bool,
    /// [`Sender::handles_trims`].
    pub handles_trims: bool,
    /// The receiver.
    pub receiver: Receiver,
    /// The receiving end's pull state (receiver-driven transports; unused otherwise).
    pub pulls: FlowPulls,
    /// Earliest pending `FlowTimer` event.
    pub timer_at: Time,
    /// Current OOD (mirrors the receiver; kept for the NIC-level sum).
    pub ood: u32,
    /// Probe packets sent.
    pub probes_sent: u64,
    /// Whether it carries more than one message (a persistent connection: its messages are
    /// posted on it as they start, and per-message counters are kept).
    pub shared: bool,
    /// Its messages' slots in the simulator's message list: `msgs_at .. msgs_at + msgs_len`,
    /// filled in posting (= PSN) order.
    pub msgs_at: u32,
    /// How many messages it carries.
    pub msgs_len: u32,
    /// Messages posted so far.
    pub posted: u32,
    /// Messages whose every byte the sender has had acknowledged.
    pub acked: u32,
    /// Messages the receiver has delivered in order.
    pub delivered: u32,
    /// The sender has been started ([`Sender::begin`]).
    pub started: bool,
}

/// Why a connection has no sender when the driver asks for it.
const NO_SENDER: &str = "the connection holds no sender: not started yet (deferred), finished and released, or held by the partition of its sending host";

impl Conn {
    /// The sender of a connection in progress. Panics when this simulator holds none (see
    /// [`Conn::has_sender`]): before a deferred sender's start, after a finished one-message
    /// connection let it go, and in a partition of a parallel run that does not own the sending
    /// host; [`Conn::sender_opt`] and [`crate::sim::Sim::with_sender`] ask without panicking.
    #[inline]
    pub fn sender(&self) -> &Sender {
        self.sender.as_deref().expect(NO_SENDER)
    }

    /// The sender, to drive it (see [`Conn::sender`]).
    #[inline]
    pub fn sender_mut(&mut self) -> &mut Sender {
        self.sender.as_deref_mut().expect(NO_SENDER)
    }

    /// Whether this simulator holds the sender now (not before a deferred sender's start, after a
    /// finished one-message connection released it, or in another partition).
    #[inline]
    pub fn has_sender(&self) -> bool {
        self.sender.is_some()
    }

    /// Whether this simulator holds the sender, built or still to be built when the connection
    /// starts (false only for a released sender and in a partition that does not own the
    /// sending host).
    #[inline]
    pub fn holds_sender(&self) -> bool {
        self.sender.is_some() || self.pending.is_some()
    }

    /// The sender, if this simulator holds it now (see [`Conn::has_sender`]).
    #[inline]
    pub fn sender_opt(&self) -> Option<&Sender> {
        self.sender.as_deref()
    }

    /// The sender to drive, if this simulator holds it now (see [`Conn::has_sender`]).
    #[inline]
    pub fn sender_opt_mut(&mut self) -> Option<&mut Sender> {
        self.sender.as_deref_mut()
    }

    /// The sender's loss-recovery counters: its own, those it had when it was released, or zeros
    /// for a sender that has not been built (it has sent nothing).
    pub fn recovery_stats(&self) -> RecoveryStats {
        match (&self.sender, self.finished_stats) {
            (Some(s), _) => s.recovery_stats(),
            (None, Some(st)) => st,
            (None, None) => RecoveryStats::default(),
        }
    }

    /// Whether everything posted has been acknowledged (true before anything is posted).
    #[inline]
    pub fn idle(&self) -> bool {
        self.acked == self.posted
    }
}

/// The connection of a compute task ([`crate::sim::Sim::add_task`]), which sends nothing.
pub const NO_CONN: u32 = u32::MAX;

/// Per-message counters of a message on a shared connection (the connection's own counters
/// cover a message of its own).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MessageCounters {
    /// Its packets sent again.
    pub retransmissions: u64,
    /// Copies of its packets that arrived twice.
    pub spurious: u64,
    /// The largest OOD an arrival of its packets saw.
    pub max_ood: u32,
    /// Retransmission timeouts while it was the oldest unacknowledged message.
    pub timeouts: u64,
}

/// A message (a workload flow)'s run-time state.
#[derive(Clone, Debug)]
pub struct Flow {
    /// Sending host index.
    pub src_host: u32,
    /// Receiving host index.
    pub dst_host: u32,
    /// The connection it is sent on ([`NO_CONN`] for a compute task).
    pub conn: u32,
    /// Message size.
    pub size_bytes: u64,
    /// Earliest start (for dependent flows: offset after the last dependency completes).
    pub start: Time,
    /// When it actually became active (was posted on its connection).
    pub started_at: Option<Time>,
    /// When the sender had every byte acknowledged.
    pub finish: Option<Time>,
    /// When the receiver had every byte delivered in order.
    pub delivered_at: Option<Time>,
    /// Its PSNs on the connection, `psn_first .. psn_end` (set when it is posted).
    pub psn_first: u32,
    /// One past its last PSN.
    pub psn_end: u32,
    /// Ideal FCT (the flow alone on its best path at line rate).
    pub ideal_fct: Time,
    /// Dependencies not yet complete.
    pub deps_left: u32,
    /// Application bytes delivered in order.
    pub delivered_bytes: u64,
    /// When the receiver last delivered a new byte of it in order (or it started, before that):
    /// what the progress watchdog reports for a stuck flow.
    pub progress_at: Option<Time>,
    /// Group tag (job) for JCT.
    pub tag: u32,
    /// Counters of a message on a shared connection.
    pub counters: MessageCounters,
}

impl Flow {
    /// Whether this is a compute task (no bytes, no connection), not a message.
    #[inline]
    pub fn is_task(&self) -> bool {
        self.conn == NO_CONN
    }
}
