//! `docs/tutorial.md` runs as written: every command of its `sh` blocks (in order, from a scratch
//! folder that sees the repository's `examples/`, `data/` and `repro/`), every `toml` block that
//! starts with `# file: NAME` written to `NAME` first, and every `python` block that starts with
//! `# run: python3` fed to `python3`. Each must exit 0 without an error message, and the files
//! the tutorial talks about must be there afterwards.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

/// Split a command line at spaces, keeping "double-quoted" words together (without the quotes).
fn words(line: &str) -> Vec<String> {
    let (mut out, mut cur, mut quoted) = (Vec::new(), String::new(), false);
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ' ' if !quoted => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The fenced blocks of a markdown text: (language, body).
fn blocks(md: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut cur: Option<(String, String)> = None;
    for line in md.lines() {
        match (&mut cur, line.strip_prefix("```")) {
            (None, Some(lang)) => cur = Some((lang.trim().to_string(), String::new())),
            (Some(_), Some(_)) => out.push(cur.take().unwrap()),
            (Some((_, body)), None) => {
                body.push_str(line);
                body.push('\n');
            }
            (None, None) => {}
        }
    }
    out
}

#[test]
fn every_tutorial_command_runs() {
    let root = root();
    let md = std::fs::read_to_string(root.join("docs/tutorial.md")).unwrap();
    let dir = std::env::temp_dir().join(format!("braid-tutorial-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for d in ["examples", "data", "repro"] {
        std::os::unix::fs::symlink(root.join(d), dir.join(d)).unwrap();
    }
    let (mut commands, mut files, mut scripts) = (0, 0, 0);
    for (lang, body) in blocks(&md) {
        match lang.as_str() {
            "sh" => {
                for line in
                    body.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#'))
                {
                    let w = words(line);
                    assert_eq!(
                        w[0], "braid",
                        "tutorial command `{line}` does not start with `braid`"
                    );
                    let o = Command::new(env!("CARGO_BIN_EXE_braid"))
                        .args(&w[1..])
                        .current_dir(&dir)
                        .output()
                        .unwrap();
                    let err = String::from_utf8_lossy(&o.stderr);
                    assert!(o.status.success(), "`{line}` exited {:?}:\n{err}", o.status.code());
                    assert!(!err.contains("error"), "`{line}` printed an error:\n{err}");
                    commands += 1;
                }
            }
            "toml" => {
                let name = body
                    .lines()
                    .next()
                    .and_then(|l| l.strip_prefix("# file: "))
                    .expect("a toml block starts with `# file: NAME`");
                std::fs::write(dir.join(name.trim()), &body).unwrap();
                files += 1;
            }
            "python" => {
                assert!(
                    body.starts_with("# run: python3"),
                    "a python block starts with `# run: python3`"
                );
                let mut child = Command::new("python3")
                    .arg("-")
                    .current_dir(&dir)
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .expect("python3 is needed to run the tutorial's Python block");
                use std::io::Write;
                child.stdin.take().unwrap().write_all(body.as_bytes()).unwrap();
                let o = child.wait_with_output().unwrap();
                assert!(
                    o.status.success(),
                    "the tutorial's Python block failed:\n{}",
                    String::from_utf8_lossy(&o.stderr)
                );
                assert!(
                    String::from_utf8_lossy(&o.stdout).contains("median slowdown"),
                    "{}",
                    String::from_utf8_lossy(&o.stdout)
                );
                scripts += 1;
            }
            other => {
                panic!("a `{other}` block in the tutorial: only sh, toml and python blocks are run")
            }
        }
    }
    assert!(
        commands >= 12 && files == 1 && scripts == 1,
        "{commands} commands, {files} files, {scripts} scripts"
    );
    for f in [
        "out/quickstart/index.html",
        "out/quickstart/compare.csv",
        "out/spray/flows.csv",
        "out/spray/ood.csv",
        "out/spray-8/summary.json",
        "out/my-first/queues.csv",
        "out/my-compare/plan.toml",
        "out/my-cases/compare.csv",
        "out/fig4/index.html",
    ] {
        assert!(dir.join(f).is_file(), "{f} missing after the tutorial");
    }
    // `braid sweep out/my-compare/plan.toml` resumed in its own folder.
    assert!(
        !dir.join("out/plan").exists() && !dir.join("out/sweep/plan").exists(),
        "the sweep did not resume in out/my-compare"
    );
    let plots = std::fs::read_dir(dir.join("out/my-first"))
        .unwrap()
        .filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().ends_with(".png"))
        .count();
    assert!(plots >= 3, "braid plot drew {plots} figures");
    let _ = std::fs::remove_dir_all(&dir);
}
