//! Run-time records of the end hosts (their NIC state) and of the flows between them: what the
//! driver keeps around the `braid-proto` sender and receiver of each flow.

use braid_core::{FlowId, NodeId, PortId, Time};
use braid_proto::receiver::Receiver;
use braid_proto::transport::Sender;

/// Per-host NIC state.
#[derive(Clone, Debug)]
pub struct Host {
    /// The host's node.
    pub node: NodeId,
    /// Its (first) egress port.
    pub port: PortId,
    /// Flows this host is sending, not yet complete.
    pub active: Vec<FlowId>,
    /// Round-robin position in `active`.
    pub rr: usize,
    /// Time of the earliest pending `NicWake`, `Time::MAX` if none.
    pub wake_at: Time,
    /// Bytes held in the shared reorder buffer.
    pub reorder_used: u64,
    /// NIC-level OOD: sum of the OOD of all flows arriving here.
    pub nic_ood: u64,
    /// NIC-level RBO: out-of-order packets held, summed over flows.
    pub nic_rbo: u64,
    /// Largest NIC-level OOD seen.
    pub nic_ood_max: u64,
}

/// A flow's run-time state.
#[derive(Clone, Debug)]
pub struct Flow {
    /// Sending host index.
    pub src_host: u32,
    /// Receiving host index.
    pub dst_host: u32,
    /// Message size.
    pub size_bytes: u64,
    /// Earliest start (for dependent flows: offset after the last dependency completes).
    pub start: Time,
    /// When it actually became active.
    pub started_at: Option<Time>,
    /// When the sender had every byte acknowledged.
    pub finish: Option<Time>,
    /// When the receiver had every byte delivered in order.
    pub delivered_at: Option<Time>,
    /// The sender.
    pub sender: Sender,
    /// The receiver.
    pub receiver: Receiver,
    /// Earliest pending `FlowTimer` event.
    pub timer_at: Time,
    /// Ideal FCT (the flow alone on its best path at line rate).
    pub ideal_fct: Time,
    /// Current OOD (mirrors the receiver; kept for the NIC-level sum).
    pub ood: u32,
    /// Dependencies not yet complete.
    pub deps_left: u32,
    /// Application bytes delivered in order.
    pub delivered_bytes: u64,
    /// When the receiver last delivered a new byte in order (or the flow started, before that):
    /// what the progress watchdog reports for a stuck flow.
    pub progress_at: Option<Time>,
    /// Probe packets sent / acknowledged.
    pub probes_sent: u64,
    /// Group tag (job) for JCT.
    pub tag: u32,
}
