//! Braid's simulated network: the driver that moves `braid-proto`'s sans-IO senders, receivers
//! and routing decisions through switches and links.
//!
//! - [`topology`]: the static description of a network (nodes, links).
//! - [`config`]: network-wide parameters (buffers, ECN, PFC, classes, reorder buffer, routing).
//! - [`routes`]: shortest-path next-hop tables.
//! - [`port`]: egress ports with strict-priority queues.
//! - [`sim`]: the event loop and its handlers (NICs, switches, links, host receive).
//! - [`endpoints`]: run-time records of hosts and flows.
//! - [`path`]: best paths and ideal FCTs.
//! - [`sampling`]: periodic samples and time series.
//! - [`conservation`]: the data-packet conservation check.
//! - [`stats`]: counters and distributions.
//! - [`switch_routing`]: switches' next-hop choice (ECMP, WCMP, UCMP, LCMP, adaptive) and its
//!   control plane.

pub mod config;
pub mod conservation;
pub mod endpoints;
pub mod parallel;
pub mod path;
pub mod port;
pub mod routes;
pub mod sampling;
pub mod sim;
pub mod stats;
pub mod switch_routing;
pub mod topo;
pub mod topology;
pub mod wire_queue;

pub use config::NetConfig;
pub use sim::Sim;
pub use topology::Topology;
