#!/usr/bin/env python3
"""Rondo's testbed (Rondo §6.1, Fig 9) on real packets and in the simulator, side by side.

Four paths of 25/20/15/10 units of rate, homogeneous one-way delays, then +ΔD on the slowest
path; Rondo with and without its packet scheduler. The real side runs `braid recv`, `braid
emulate` (the four paths) and `braid send` on 127.0.0.1; the simulated side runs
`examples/rondo-testbed.toml` with the same rates, RTT, NIC rate, size and timers. The testbed's
units are scaled to what one machine's loopback sustains: rates ÷ 500 (70 Gb/s → 140 Mb/s),
times × 500 (20 µs base RTT → 10 ms, ΔD 10 µs → 5 ms), so the bandwidth-delay product in packets,
R·ΔD in packets (Eq 3) and the NIC's overload (1.43×) are the testbed's.

    python3 scripts/udp-vs-sim.py [--braid target/release/braid] [--size 20MB] [--spin]

Prints one table (markdown) with goodput, path shares and NIC OOD for both sides.
"""
import argparse, csv, json, os, socket, subprocess, sys, tempfile, time

RATES_MBPS = [50, 40, 30, 20]
ONE_WAY = "5ms"       # base RTT 10 ms
DELTA = "5ms"         # +ΔD one way on the slowest path (testbed: +10 µs of 20 µs RTT)
NIC = "200Mbps"       # 1.43× the paths' sum, as the testbed's 100 Gb/s NIC over 70 Gb/s
TIMERS = ["recovery_params.rto_initial=40ms", "recovery_params.rto_min=20ms"]
SPIN = False


def free_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def real(braid, size, scheduler, delta):
    rport, eport = free_port(), free_port()
    recv = subprocess.Popen([braid, "recv", "--listen", f"127.0.0.1:{rport}", "--once", "--idle-timeout", "30s"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    paths = []
    for i, r in enumerate(RATES_MBPS):
        d = ONE_WAY
        if delta and i == len(RATES_MBPS) - 1:
            d = f"{int(ONE_WAY[:-2]) + int(DELTA[:-2])}ms"
        paths += ["--path", f"rate={r}Mbps,delay={d}"]
    emu = subprocess.Popen([braid, "emulate", "--listen", f"127.0.0.1:{eport}", "--forward", f"127.0.0.1:{rport}",
                            "--exit-idle", "2s"] + (["--spin"] if SPIN else []) + paths, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    time.sleep(0.3)
    knobs = ["--knob", "paths=4", "--knob", f"scheduler={'true' if scheduler else 'false'}"]
    for t in TIMERS:
        knobs += ["--knob", t]
    out = subprocess.run([braid, "send", f"127.0.0.1:{eport}", "--transport", "rondo", "--recovery", "rack-tlp-per-path",
                          "--size", size, "--rate", NIC, "--paths", "4", "--json", "--quiet"] + knobs,
                         capture_output=True, text=True, timeout=300)
    recv.wait(timeout=60)
    emu.wait(timeout=60)
    if out.returncode != 0:
        sys.exit(f"braid send failed ({out.returncode}): {out.stderr}")
    s = json.loads(out.stdout)
    n = sum(s["packets_per_path"]) or 1
    return {"goodput": s["goodput_gbps"] * 1e3, "shares": [p / n for p in s["packets_per_path"]],
            "ood_mean": s["nic_ood_mean"], "ood_p99": s["nic_ood_p99"], "ood_max": s["nic_ood_max"], "verified": s["verified"]}


def sim(braid, size, scheduler, delta):
    out = tempfile.mkdtemp(prefix="udp-vs-sim-")
    sets = [f"topology.path_rates={json.dumps([f'{r}Mbps' for r in RATES_MBPS])}", "topology.base_rtt=10ms",
            f"topology.host_rate={NIC}", f"topology.extra_delay={DELTA if delta else '0ms'}", f"workload.size={size}",
            f"transport.scheduler={'true' if scheduler else 'false'}", "output.sample_interval=1ms"]
    sets += [f"transport.{t}" for t in TIMERS]
    cmd = [braid, "run", "examples/rondo-testbed.toml", "--out", out, "--quiet"]
    for s in sets:
        cmd += ["--set", s]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"braid run failed: {r.stderr}")
    s = json.load(open(os.path.join(out, "summary.json")))
    rates = {}
    for row in csv.DictReader(open(os.path.join(out, "paths.csv"))):
        rates.setdefault(int(row["path"]), []).append(float(row["ack_rate_bps"]))
    tot = sum(sum(v) for v in rates.values()) or 1
    return {"goodput": s["goodput_bps"] / 1e6, "shares": [sum(rates.get(p, [])) / tot for p in range(4)],
            "ood_mean": s["nic_ood_mean"], "ood_p99": s["nic_ood_p99"], "ood_max": s["nic_ood_max"], "verified": True}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--braid", default="target/release/braid")
    ap.add_argument("--size", default="20MB")
    ap.add_argument("--spin", action="store_true", help="the emulator spins on short waits (needs a spare core)")
    a = ap.parse_args()
    global SPIN
    SPIN = a.spin
    print(f"paths {'/'.join(map(str, RATES_MBPS))} Mb/s, one-way {ONE_WAY}, NIC {NIC}, {a.size}; ΔD {DELTA} on the {RATES_MBPS[-1]} Mb/s path")
    print("| set-up | side | goodput Mb/s | path shares % | NIC OOD mean / p99 / max |")
    print("|---|---|---|---|---|")
    for delta in (False, True):
        for sched in (True, False):
            name = f"{'+ΔD' if delta else 'homogeneous'}, scheduler {'on' if sched else 'off'}"
            for side, fn in (("real (UDP)", real), ("simulated", sim)):
                r = fn(a.braid, a.size, sched, delta)
                shares = " / ".join(f"{100 * x:.1f}" for x in r["shares"])
                v = "" if r["verified"] else " NOT VERIFIED"
                print(f"| {name} | {side} | {r['goodput']:.1f}{v} | {shares} | {r['ood_mean']:.2f} / {r['ood_p99']} / {r['ood_max']} |", flush=True)


if __name__ == "__main__":
    main()
