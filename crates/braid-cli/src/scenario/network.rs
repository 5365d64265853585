//! `[network]`: packet sizes, buffers, ECN, PFC, loss and trimming, and the semantics choices
//! (`tx_time`, `wire`, …) into a [`NetConfig`].

use super::*;

pub(super) fn parse_network(f: &Fields) -> Result<NetConfig, String> {
    let mut n = NetConfig::default();
    network_packet_sizes(f, &mut n)?;
    network_buffers(f, &mut n)?;
    n.ecn = network_ecn(f)?;
    n.pfc = network_pfc(f)?;
    if let Some(b) = f.bool("int")? {
        n.int_enabled = b;
    }
    for (key, slot) in [
        ("max_outstanding_psn", &mut n.max_outstanding_psn),
        ("max_outstanding_reads", &mut n.max_outstanding_reads),
    ] {
        if let Some(v) = f.pos_uint(key)? {
            *slot =
                Some(u32::try_from(v).map_err(|_| {
                    format!("`network.{key}` must be at most {}, got {v}", u32::MAX)
                })?);
        }
    }
    if let Some(r) = f.size("reorder_buffer")? {
        n.reorder_buffer_bytes = r;
    }
    network_loss_and_trim(f, &mut n)?;
    network_semantics(f, &mut n)?;
    crate::profile::check(f.str("profile")?)?;
    network_trim_size(f, &mut n)?;
    f.finish(&[
        "mtu",
        "header",
        "ack_size",
        "buffer",
        "dci_buffer",
        "dt_alpha",
        "probe_queue_limit",
        "queue_limit",
        "ecn",
        "kmin",
        "kmax",
        "pmax",
        "ecn_scale_with_rate",
        "pfc",
        "pfc_xoff",
        "pfc_shift",
        "pfc_resume_offset",
        "int",
        "reorder_buffer",
        "max_outstanding_psn",
        "max_outstanding_reads",
        "loss_rate",
        "loss_on",
        "trim",
        "trim_size",
        "ack_class",
        "host_ack_pausable",
        "mmu",
        "mmu_arith",
        "egress_queue_cap",
        "egress_cap_leak",
        "pfc_frame",
        "window_bdp",
        "tx_time",
        "sport",
        "profile",
    ])?;
    Ok(n)
}

/// `network.<key>`: one of `options` by name (absent: the first).
pub(super) fn network_choice<T: Copy>(
    f: &Fields,
    key: &str,
    options: &[(&str, T)],
) -> Result<T, String> {
    match f.str(key)? {
        None => Ok(options[0].1),
        Some(s) => options.iter().find(|o| o.0 == s).map(|o| o.1).ok_or_else(|| {
            let names: Vec<&str> = options.iter().map(|o| o.0).collect();
            format!("`network.{key}`: unknown value `{s}` (known: {})", names.join(", "))
        }),
    }
}

/// `mtu`, `header`, `ack_size`.
pub(super) fn network_packet_sizes(f: &Fields, n: &mut NetConfig) -> Result<(), String> {
    if let Some(m) = f.size("mtu")? {
        if m == 0 || m > 65_536 {
            return Err(format!("`network.mtu` must be between 1 and 65536 bytes, got {m}"));
        }
        n.mtu_bytes = m as u32;
    }
    if let Some(h) = f.size("header")? {
        n.header_bytes = h.min(4096) as u32;
    }
    if let Some(a) = f.size("ack_size")? {
        if a == 0 {
            return Err("`network.ack_size` must be positive".into());
        }
        n.ack_bytes = a.min(4096) as u32;
    }
    Ok(())
}

/// The switch buffer and its per-class limits: `buffer`, `dci_buffer`, `dt_alpha`,
/// `probe_queue_limit`, `queue_limit`.
pub(super) fn network_buffers(f: &Fields, n: &mut NetConfig) -> Result<(), String> {
    if let Some(b) = f.size("buffer")? {
        if b == 0 {
            return Err("`network.buffer` must be positive".into());
        }
        n.switch_buffer_bytes = b;
    }
    if let Some(b) = f.size("dci_buffer")? {
        n.dci_buffer_bytes = b;
    }
    if let Some(a) = f.float("dt_alpha")? {
        if a <= 0.0 {
            return Err("`network.dt_alpha` must be positive".into());
        }
        n.dt_alpha = a;
    }
    if let Some(p) = f.size("probe_queue_limit")? {
        n.class_limit_bytes[CLASS_PROBE as usize] = p;
    }
    if let Some(q) = f.size("queue_limit")? {
        n.class_limit_bytes[braid_net::config::CLASS_DATA as usize] = q;
    }
    Ok(())
}

/// ECN marking: `ecn`, `kmin`, `kmax`, `pmax`, `ecn_scale_with_rate`.
pub(super) fn network_ecn(f: &Fields) -> Result<EcnConfig, String> {
    let mut ecn = EcnConfig::default();
    if let Some(b) = f.bool("ecn")? {
        ecn.enabled = b;
    }
    if let Some(k) = f.size("kmin")? {
        ecn.kmin_bytes = k;
    }
    if let Some(k) = f.size("kmax")? {
        ecn.kmax_bytes = k;
    }
    if let Some(p) = f.prob("pmax")? {
        ecn.pmax = p;
    }
    if let Some(b) = f.bool("ecn_scale_with_rate")? {
        ecn.scale_with_rate = b;
    }
    if ecn.kmax_bytes < ecn.kmin_bytes {
        return Err(format!(
            "`network.kmax` ({}) is below `network.kmin` ({})",
            ecn.kmax_bytes, ecn.kmin_bytes
        ));
    }
    Ok(ecn)
}

/// PFC: `pfc`, `pfc_xoff`, `pfc_shift`, `pfc_resume_offset`.
pub(super) fn network_pfc(f: &Fields) -> Result<PfcConfig, String> {
    let mut pfc = PfcConfig::default();
    if let Some(b) = f.bool("pfc")? {
        pfc.enabled = b;
    }
    if let Some(x) = f.size("pfc_xoff")? {
        pfc.xoff_bytes = Some(x);
    }
    if let Some(s) = f.uint("pfc_shift")? {
        pfc.shift = s.min(32) as u32;
    }
    if let Some(r) = f.size("pfc_resume_offset")? {
        pfc.resume_offset_bytes = r;
    }
    Ok(pfc)
}

/// Random loss and trimming: `loss_rate`, `loss_on`, `trim`.
pub(super) fn network_loss_and_trim(f: &Fields, n: &mut NetConfig) -> Result<(), String> {
    if let Some(l) = f.prob("loss_rate")? {
        n.loss_rate = l;
    }
    n.loss_forward_only = network_choice(f, "loss_on", &[("all", false), ("forward", true)])?;
    if let Some(b) = f.bool("trim")? {
        n.trim.enabled = b;
    }
    Ok(())
}

/// The switch and NIC semantics a peer simulator may differ on (`docs/ns3-equivalence.md`):
/// `ack_class`, `host_ack_pausable`, `mmu`, `mmu_arith`, `egress_queue_cap`, `egress_cap_leak`,
/// `window_bdp`, `tx_time`, `sport`, `pfc_frame`.
pub(super) fn network_semantics(f: &Fields, n: &mut NetConfig) -> Result<(), String> {
    use braid_net::config::{MmuModel, WindowBdp, CLASS_CONTROL, CLASS_DATA};
    n.ack_class =
        network_choice(f, "ack_class", &[("control", CLASS_CONTROL), ("data", CLASS_DATA)])?;
    if let Some(b) = f.bool("host_ack_pausable")? {
        n.host_ack_pausable = b;
    }
    let wrap32 = network_choice(f, "mmu_arith", &[("u64", false), ("u32-wrap", true)])?;
    n.mmu = match network_choice(f, "mmu", &[("braid", false), ("hpcc", true)])? {
        false if wrap32 => {
            return Err("`network.mmu_arith = \"u32-wrap\"` needs `network.mmu = \"hpcc\"`".into())
        }
        false => MmuModel::Braid,
        true => MmuModel::Hpcc { wrap32 },
    };
    if let Some(c) = f.size("egress_queue_cap")? {
        n.egress_cap_bytes = c;
    }
    if let Some(b) = f.bool("egress_cap_leak")? {
        n.egress_cap_leak = b;
    }
    n.window_bdp = network_choice(
        f,
        "window_bdp",
        &[
            ("braid", WindowBdp::Braid),
            ("ns3", WindowBdp::Ns3 { wrap: false }),
            ("ns3-wrap", WindowBdp::Ns3 { wrap: true }),
        ],
    )?;
    n.tx_time_floor_ns = network_choice(f, "tx_time", &[("exact", false), ("floor-ns", true)])?;
    n.sport_pair_counter =
        network_choice(f, "sport", &[("random", false), ("ns3-pair-counter", true)])?;
    n.pfc_frame_queued = network_choice(f, "pfc_frame", &[("instant", false), ("queued", true)])?;
    Ok(())
}

/// `trim_size` (default: the header), at most a full packet.
pub(super) fn network_trim_size(f: &Fields, n: &mut NetConfig) -> Result<(), String> {
    n.trim.size_bytes = n.header_bytes.max(1);
    if let Some(t) = f.size("trim_size")? {
        let packet = n.mtu_bytes as u64 + n.header_bytes as u64;
        if t == 0 || t > packet {
            return Err(format!(
                "`network.trim_size` must be between 1 and a full packet ({packet} bytes), got {t}"
            ));
        }
        n.trim.size_bytes = t as u32;
    }
    Ok(())
}
