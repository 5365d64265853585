//! Braid's protocol cores on real packets (`docs/udp.md`). The senders and receivers the
//! simulator runs are sans-IO state machines (`braid_proto::transport`, `braid_proto::receiver`);
//! this crate is a second driver for the same code, unchanged: UDP sockets and a monotonic clock
//! instead of the event queue.
//!
//! - [`wire`]: the datagram format (version 1), decoded without panics;
//! - [`stream`]: the byte stream a transfer carries and its end-to-end digest;
//! - [`send`] / [`recv`]: `braid send` and `braid recv` (one transfer: hand-shake, path round
//!   trips, the transport's packets and ACKs, a FIN carrying the digest, the receiver's report);
//! - [`emulate`]: `braid emulate`, N emulated paths between two local endpoints (Rondo §6.1's
//!   testbed switch in software);
//! - [`io`]: the clock and socket waits they share.

pub mod emulate;
pub mod io;
pub mod recv;
pub mod send;
pub mod stream;
pub mod wire;
