//! Dense typed identifiers. Each indexes a `Vec` of the entity it names.

macro_rules! id_type {
    ($(#[$m:meta])* $name:ident) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub u32);
        impl $name {
            /// The index this id stands for.
            #[inline]
            pub const fn idx(self) -> usize {
                self.0 as usize
            }
            /// An id from an index.
            #[inline]
            pub const fn from_idx(i: usize) -> Self {
                Self(i as u32)
            }
        }
        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}", self.0)
            }
        }
    };
}

id_type!(
    /// A node of the network: a host or a switch.
    NodeId
);
id_type!(
    /// An egress port: the sending end of one direction of a link.
    PortId
);
id_type!(
    /// A bidirectional link between two nodes (two ports, one per direction).
    LinkId
);
id_type!(
    /// A flow (one message from a source host to a destination host).
    FlowId
);
id_type!(
    /// A packet's handle in the packet arena.
    PktId
);
