//! Braid's simulated network.
//!
//! - [`topology`]: the static description of a network (nodes, links).
//! - [`config`]: network-wide parameters (buffers, ECN, PFC, classes, reorder buffer, routing).
//! - [`routes`]: shortest-path next-hop tables.
//! - [`port`]: egress ports with strict-priority queues.
//! - [`sim`]: the event loop that drives `braid-proto` senders and receivers through the network.
//! - [`stats`]: counters and distributions.
//! - [`switch_routing`]: switches' next-hop choice (ECMP, WCMP, UCMP, LCMP, adaptive) and its
//!   control plane.

pub mod config;
pub mod port;
pub mod routes;
pub mod sim;
pub mod stats;
pub mod switch_routing;
pub mod topo;
pub mod topology;

pub use config::NetConfig;
pub use sim::Sim;
pub use topology::Topology;
