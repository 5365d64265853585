//! Braid's sans-IO protocol logic.
//!
//! Nothing here reads a clock, sleeps or touches the simulator: every object is driven by calls
//! carrying the current time and returns what should be sent. The simulator (`braid-net`) is one
//! driver; a real datapath can be another.
//!
//! - [`events`]: what a sender exchanges with its driver (`TxPacket`, `AckIn`, `FlowEnv`) and its
//!   timer table; loss recovery and the transports both use them, neither through the other.
//! - [`cc`]: congestion control (DCQCN, HPCC, TIMELY, DCTCP, Swift, fixed window).
//! - [`recovery`]: loss recovery (go-back-N, selective repeat, IRN, RACK-TLP, early recovery, RTO).
//! - [`receiver`]: the receiving end: in-order delivery, reorder-buffer bitmap, OOD/RBO, ACK/NAK replies.
//! - [`pull_pacer`]: the receiver-side pull pacer of receiver-driven transports (EQDS).
//! - [`transport`]: senders that combine the above (RoCE; Rondo and the multipath baselines).
//! - [`routing`]: switch-side next-hop decisions (ECMP, WCMP, UCMP, LCMP, adaptive routing).
//! - [`testing`]: [`testing::Pair`], a sender and its receiver over in-memory paths, driven
//!   without the simulator (for transport and congestion-control tests).
pub mod cc;
pub mod events;
pub mod hash;
pub mod pull_pacer;
pub mod receiver;
pub mod recovery;
mod registry;
pub mod routing;
pub mod testing;
pub mod transport;
