//! `[transport]`: the kind, its congestion control and loss recovery and its own knobs (checked
//! by the transport), and the RDMA verb that sets the PSN space.

use super::*;

/// The RDMA operation every flow's data moves by (`transport.verb`; Rondo Appendix A).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verb {
    /// RDMA WRITE (the default): the sender pushes; `network.max_outstanding_psn` applies.
    Write,
    /// RDMA READ: the flow's destination is the requester, which issues READs of `read_bytes`
    /// each; its source, the responder, streams the responses; `network.max_outstanding_reads`
    /// applies.
    Read {
        /// Bytes per READ operation (`transport.read_size`, default 16 KiB).
        read_bytes: u64,
    },
}

/// `transport.verb` (`write` or `read`) and `transport.read_size`.
pub(super) fn parse_verb(f: &Fields) -> Result<Verb, String> {
    let read_size = f.size("read_size")?;
    match f.str("verb")? {
        None | Some("write") => {
            if read_size.is_some() {
                return Err("`transport.read_size` applies to `transport.verb = \"read\"`".into());
            }
            Ok(Verb::Write)
        }
        Some("read") => {
            let read_bytes = read_size.unwrap_or(16 * 1024);
            if read_bytes == 0 {
                return Err("`transport.read_size` must be positive".into());
            }
            Ok(Verb::Read { read_bytes })
        }
        Some(s) => Err(format!("`transport.verb`: unknown value `{s}` (known: write, read)")),
    }
}

/// The RNIC's PSN limit for `verb` under the network's `max_outstanding_*` knobs.
pub(super) fn psn_limit(net: &NetConfig, verb: Verb) -> braid_proto::recovery::PsnLimit {
    use braid_proto::recovery::PsnLimit;
    match verb {
        Verb::Write => net.max_outstanding_psn.map_or(PsnLimit::None, PsnLimit::Range),
        Verb::Read { read_bytes } => match net.max_outstanding_reads {
            None => PsnLimit::None,
            Some(max_reads) => {
                let ppr = read_bytes.div_ceil(net.mtu_bytes.max(1) as u64).clamp(1, u32::MAX as u64)
                    as u32;
                PsnLimit::Reads { packets_per_read: ppr, max_reads }
            }
        },
    }
}

/// A transport configured as a scenario's `[transport]` table `t` would configure it (for
/// `braid send`: `kind`, `cc`, `recovery`, the `*_params` tables and the transport's own knobs),
/// with `header_bytes` of header per packet; every knob is checked.
pub fn transport_from_table(t: &Table, header_bytes: u32) -> Result<TransportConfig, String> {
    let f = Fields::new("transport", t);
    parse_verb(&f)?;
    let mut tc = parse_transport(&f)?;
    tc.header_bytes = header_bytes;
    tc.validate().map_err(|e| format!("[transport] {e}"))?;
    Ok(tc)
}

pub(super) fn parse_transport(f: &Fields) -> Result<TransportConfig, String> {
    let kind =
        TransportKind::parse(f.req_str("kind")?).map_err(|e| format!("`transport.kind`: {e}"))?;
    let cc_kind = match f.str("cc")? {
        Some(s) => CcKind::parse(s).map_err(|e| format!("`transport.cc`: {e}"))?,
        None => kind.default_cc(),
    };
    let mut cc = CcConfig::new(cc_kind);
    if let Some(p) = f.table("cc_params")? {
        for (k, v) in p.rest_as_knobs()? {
            cc.overrides.push((k, v));
        }
    }
    let window = if f.str("window").ok().flatten() == Some("unlimited") {
        Some(braid_core::Knob::Str("unlimited".into()))
    } else {
        f.size("window")?.map(|w| braid_core::Knob::Str(format!("{w}B")))
    };
    if let Some(w) = window {
        if cc_kind != CcKind::Fixed {
            return Err("`transport.window` applies to `cc = \"fixed\"`; set the window of other controllers in `transport.cc_params`".into());
        }
        cc.overrides.push(("window".into(), w));
    }
    cc.validate().map_err(|e| format!("`transport.cc_params`: {e}"))?;
    let rec_kind = match f.str("recovery")? {
        Some(s) => RecoveryKind::parse(s).map_err(|e| format!("`transport.recovery`: {e}"))?,
        None => kind.default_recovery(),
    };
    let mut recovery = RecoveryConfig::new(rec_kind);
    if let Some(p) = f.table("recovery_params")? {
        for (k, v) in p.rest_as_knobs()? {
            braid_proto::transport::knobs::recovery_knob(&mut recovery, &k, &v)
                .map_err(|e| format!("`transport.recovery_params.{k}`: {e}"))?;
        }
    }
    // Everything else is transport-specific; the transport checks it.
    let params = f.rest_as_knobs()?;
    Ok(TransportConfig { kind, cc, recovery, header_bytes: 0, network_trims: false, params })
}
