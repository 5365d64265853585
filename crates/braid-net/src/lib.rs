//! Braid's simulated network.
//!
//! - [`topology`]: the static description of a network (nodes, links).
//! - [`config`]: network-wide parameters (buffers, ECN, PFC, classes, reorder buffer, routing).
//! - [`routes`]: shortest-path next-hop tables.
//! - [`port`]: egress ports with strict-priority queues.
//! - [`sim`]: the event loop that drives `braid-proto` senders and receivers through the network.
//! - [`stats`]: counters and distributions.

pub mod config;
pub mod port;
pub mod routes;
pub mod sim;
pub mod stats;
pub mod topo;
pub mod topology;

pub use config::NetConfig;
pub use sim::Sim;
pub use topology::Topology;
