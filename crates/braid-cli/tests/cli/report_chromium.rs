//! `braid report DIR`: a self-contained `index.html`. The browser test opens it from disk in
//! headless Chromium (Debian package `chromium`; `.ci/run` installs it), checks that every figure
//! decoded (`data-figures-loaded="N/N"`, set by the page's inline script on load) and that the
//! page logged nothing to the console. Without Chromium the browser tests fail, unless
//! `BRAID_SKIP_CHROMIUM=1` says to skip them.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn braid() -> Command {
    Command::new(env!("CARGO_BIN_EXE_braid"))
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("braid-report-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The browser to run the page checks with; `None` when none is installed and
/// `BRAID_SKIP_CHROMIUM=1` says to skip them; otherwise the test fails, naming the tool and the
/// variable.
fn chromium() -> Option<&'static str> {
    for c in ["chromium", "chromium-browser", "google-chrome"] {
        if Command::new(c)
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
        {
            return Some(c);
        }
    }
    if std::env::var("BRAID_SKIP_CHROMIUM").as_deref() == Ok("1") {
        eprintln!("note: chromium not found; skipping the browser check (BRAID_SKIP_CHROMIUM=1)");
        return None;
    }
    panic!("Chromium is not installed (Debian package `chromium`; .ci/run installs it); set BRAID_SKIP_CHROMIUM=1 to skip this check");
}

/// Load `page` in headless Chromium (60 s at most); return (DOM after load, stderr log).
fn load(browser: &str, page: &Path) -> (String, String) {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let profile = tmp(&format!("profile{}", N.fetch_add(1, std::sync::atomic::Ordering::Relaxed)));
    let dom = profile.join("dom.html");
    let log = profile.join("stderr.log");
    let url = format!("file://{}", page.canonicalize().unwrap().display());
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=5000",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile.join("user").display()))
        .arg(&url)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&dom).unwrap())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .expect("start chromium");
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish within 60 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let out = (
        std::fs::read_to_string(&dom).unwrap_or_default(),
        std::fs::read_to_string(&log).unwrap_or_default(),
    );
    let _ = std::fs::remove_dir_all(&profile);
    out
}

fn check_page(browser: &str, page: &Path, min_figures: usize) {
    let (dom, log) = load(browser, page);
    let marker = dom
        .split("data-figures-loaded=\"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .unwrap_or_else(|| {
            panic!(
                "the page's load script did not run (no data-figures-loaded):\n{}",
                &dom[..dom.len().min(2000)]
            )
        });
    let (ok, total) = marker.split_once('/').unwrap();
    let (ok, total): (usize, usize) = (ok.parse().unwrap(), total.parse().unwrap());
    assert!(total >= min_figures, "expected at least {min_figures} figures, the page has {total}");
    assert_eq!(ok, total, "{ok} of {total} figures loaded");
    let console: Vec<&str> =
        log.lines().filter(|l| l.contains(":CONSOLE") || l.contains("Uncaught")).collect();
    assert!(console.is_empty(), "console messages:\n{}", console.join("\n"));
}

/// `braid repro braid-cc-incast --quick` into `out` (its report is `out/index.html`).
fn quick_incast_repro(out: &Path) {
    let plans = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../repro");
    let o = braid()
        .args(["repro", "braid-cc-incast", "--quick", "--quiet", "--plans"])
        .arg(&plans)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn report_static_content() {
    let out = tmp("static");
    quick_incast_repro(&out);
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    for needle in [
        "<figure id=\"fig-queue\">",
        "src=\"data:image/png;base64,",
        "Braid version",
        "seeds",
        "runs.csv",
        "cc-incast.toml",
        "plan.toml",
        "Paper:",
    ] {
        assert!(html.contains(needle), "index.html lacks `{needle}`");
    }
    // A figure's caption is drawn in its image and said once on the page (the image's alt text),
    // never again under it.
    let (figures, papers) = (html.matches("<figure ").count(), html.matches("Paper:").count());
    assert!(
        papers >= 1 && papers <= figures,
        "{papers} captions naming the paper for {figures} figures"
    );
    // Self-contained: nothing fetched from elsewhere.
    for bad in ["http://", "https://", "src=\"fig-", "<link "] {
        assert!(!html.contains(bad), "index.html refers to `{bad}`");
    }
    let _ = std::fs::remove_dir_all(out);
}

#[test]
fn report_renders_in_chromium() {
    let Some(browser) = chromium() else { return };
    let out = tmp("sweep");
    quick_incast_repro(&out);
    check_page(browser, &out.join("index.html"), 3);
    let _ = std::fs::remove_dir_all(out);
}

#[test]
fn report_of_a_single_run_renders_in_chromium() {
    let out = tmp("run");
    let ex = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/quickstart.toml");
    let o = braid().arg("run").arg(&ex).arg("--out").arg(&out).arg("--quiet").output().unwrap();
    assert!(o.status.success());
    let o = braid().arg("plot").arg(&out).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for f in ["plot-queues.png", "plot-queues.svg", "plot-flows.png"] {
        assert!(std::fs::metadata(out.join(f)).unwrap().len() > 100, "{f}");
    }
    let o = braid().arg("report").arg(&out).output().unwrap();
    assert!(o.status.success());
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(html.contains("summary.json") && html.contains("scenario.resolved.toml"));
    if let Some(browser) = chromium() {
        check_page(browser, &out.join("index.html"), 2);
    }
    let _ = std::fs::remove_dir_all(out);
}
