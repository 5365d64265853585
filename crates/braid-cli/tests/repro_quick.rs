//! `braid repro`: the figure list, plans that cannot run, and the quick (scaled-down) version of
//! figures end to end — sweep, PNG and SVG figures, `index.html`. Each quick figure takes seconds.

use std::path::{Path, PathBuf};
use std::process::Command;

fn braid() -> Command {
    Command::new(env!("CARGO_BIN_EXE_braid"))
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("braid-repro-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn plans() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../repro")
}

/// Run `braid repro ID --quick` and check that every figure of the plan has non-empty PNG and
/// SVG files and that the report exists.
fn quick(id: &str) -> PathBuf {
    let out = tmp(id);
    let o = braid().args(["repro", id, "--quick", "--quiet", "--plans"]).arg(plans()).arg("--out").arg(&out).output().unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "braid repro {id} --quick failed:\n{stdout}\n{}", String::from_utf8_lossy(&o.stderr));
    let plan = braid_cli::repro::ReproPlan::load(&plans().join(format!("{id}.toml"))).unwrap();
    let mut drawn = 0;
    for f in &plan.figures {
        let png = out.join(format!("fig-{}.png", f.name));
        if !png.exists() && stdout.contains(&format!("fig-{}: not drawn in the quick version", f.name)) {
            continue;
        }
        for ext in ["png", "svg", "csv"] {
            let p = out.join(format!("fig-{}.{ext}", f.name));
            let len = std::fs::metadata(&p).unwrap_or_else(|e| panic!("{}: {e}\n{stdout}", p.display())).len();
            assert!(len > 100, "{} is nearly empty ({len} bytes)", p.display());
        }
        let png = std::fs::read(out.join(format!("fig-{}.png", f.name))).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        let svg = std::fs::read_to_string(out.join(format!("fig-{}.svg", f.name))).unwrap();
        assert!(svg.contains("<svg") && svg.contains("</svg>"));
        drawn += 1;
    }
    assert!(drawn > 0, "{id}: no figure drawn");
    assert!(out.join("index.html").is_file());
    let runs = std::fs::read_to_string(out.join("runs.csv")).unwrap();
    assert!(runs.lines().count() > 1 && runs.lines().skip(1).all(|l| l.contains(",ok,")), "{runs}");
    out
}

#[test]
fn repro_list_shows_every_paper_figure() {
    let o = braid().args(["repro", "--list", "--plans"]).arg(plans()).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s = String::from_utf8_lossy(&o.stdout);
    let rondo = [1, 3, 4, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23];
    let lcmp = [1, 5, 7, 8, 9, 10, 11];
    for id in rondo
        .iter()
        .map(|n| if *n == 1 { "rondo-fig1a".to_string() } else { format!("rondo-fig{n}") })
        .chain(lcmp.iter().map(|n| format!("lcmp-fig{n}")))
    {
        let line = s.lines().find(|l| l.split_whitespace().next() == Some(id.as_str())).unwrap_or_else(|| panic!("{id} missing:\n{s}"));
        assert!(line.contains("[ready]") || line.contains("[needs "), "{line}");
    }
    assert!(s.contains("claim:"));
}

#[test]
fn repro_plans_all_parse() {
    for p in braid_cli::repro::list(&plans()).unwrap() {
        let p = p.unwrap_or_else(|e| panic!("{e}"));
        assert!(!p.figures.is_empty());
        let q = p.quick_plan().unwrap_or_else(|e| panic!("{}: {e}", p.id));
        assert!(q.expand().len() <= p.plan.expand().len().max(1) * 2, "{}: the quick version should not be larger", p.id);
    }
}

#[test]
fn repro_cannot_run_exits_2() {
    let d = tmp("needs");
    std::fs::write(
        d.join("x-fig1.toml"),
        "id = \"x-fig1\"\npaper = \"X\"\ntitle = \"t\"\nclaim = \"c\"\nscenario = \"scenarios/missing.toml\"\n[[figure]]\nname = \"a\"\nkind = \"bar\"\nx = \"case\"\ny = [\"goodput_bps\"]\n",
    )
    .unwrap();
    let o = braid().args(["repro", "x-fig1", "--plans"]).arg(&d).arg("--out").arg(d.join("out")).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("cannot run in this build: needs scenario file"), "{e}");
    assert!(!d.join("out/runs.csv").exists());
    let o = braid().args(["repro", "no-such-fig", "--plans"]).arg(&d).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    // A kind that is part of the contract but not built names the feature it needs.
    let msg = "s.toml: `transport.kind`: transport kind `eqds` is part of Braid's scenario contract but is not available in this build yet";
    assert_eq!(braid_cli::repro::classify(msg), "transport.kind=eqds");
    let msg = "s.toml: `routing.kind`: `lcmp` is part of Braid's scenario contract but not available in this build yet (available: ecmp)";
    assert_eq!(braid_cli::repro::classify(msg), "routing.kind=lcmp");
}

#[test]
fn repro_quick_braid_cc_incast() {
    let out = quick("braid-cc-incast");
    // Resumable: a second call runs nothing again.
    let o = braid().args(["repro", "braid-cc-incast", "--quick", "--quiet", "--plans"]).arg(plans()).arg("--out").arg(&out).output().unwrap();
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stdout).contains("(5 already complete)"), "{}", String::from_utf8_lossy(&o.stdout));
    let _ = std::fs::remove_dir_all(out);
}

#[test]
fn repro_quick_rondo_fig4() {
    let out = quick("rondo-fig4");
    let _ = std::fs::remove_dir_all(out);
}

#[test]
fn repro_quick_rondo_fig10() {
    let out = quick("rondo-fig10");
    let _ = std::fs::remove_dir_all(out);
}

#[test]
fn repro_quick_rondo_fig19() {
    let out = quick("rondo-fig19");
    let _ = std::fs::remove_dir_all(out);
}

#[test]
fn repro_quick_lcmp_fig11() {
    let out = quick("lcmp-fig11");
    let _ = std::fs::remove_dir_all(out);
}

#[test]
fn repro_quick_lcmp_fig5() {
    let out = quick("lcmp-fig5");
    let _ = std::fs::remove_dir_all(out);
}
