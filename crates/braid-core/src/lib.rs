//! Braid core: the vocabulary every other Braid crate speaks.
//!
//! - [`time`]: simulated time as integer picoseconds ([`Time`]), and link rates ([`Rate`]).
//! - [`units`]: parsing of durations, sizes and rates written with units (`"10us"`, `"1.2MB"`, `"100Gbps"`).
//! - [`ids`]: dense typed identifiers (`NodeId`, `PortId`, `FlowId`, …) that index `Vec`s.
//! - [`rng`]: the project's own seeded generator (Xoshiro256++ seeded by SplitMix64) with per-component
//!   streams, and the few distributions Braid needs, so figures stay bit-stable across crate versions.
//! - [`queue`]: the one event queue, ordered by (time, insertion sequence) for deterministic ties.
//! - [`arena`]: a slab of plain values addressed by `u32` handles (packets travel as handles).
//! - [`prefetch`]: cache prefetch hints for the engine's hot path (hints only: outputs never change).
//! - [`percentile`]: Braid's one percentile rule (nearest rank; `None` for no data).
//! - [`packet`]: the packet: a plain struct with no heap fields, with the header fields that the
//!   transports and switches read and write (RoCEv2-like BTH, ECN, INT stack for HPCC).

pub mod arena;
pub mod ids;
pub mod packet;
pub mod percentile;
pub mod prefetch;
pub mod queue;
pub mod rng;
pub mod time;
pub mod units;

pub use arena::Arena;
pub use ids::{FlowId, LinkId, NodeId, PktId, PortId};
pub use packet::{IntHop, IntStack, Packet, PacketKind};
pub use queue::EventQueue;
pub use rng::Rng;
pub use time::{Rate, Time};
pub use units::Knob;
