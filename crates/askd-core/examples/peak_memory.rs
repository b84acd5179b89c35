//! Peak memory of resolve + validate + path on a generated spec (Linux).
//!
//! ```text
//! cargo run --locked --release -p askd-core --example peak_memory -- [typical|structure|length] [--in-process]
//! ```
//!
//! The spec is generated (and checked valid) in this process, then its argument text is
//! piped — nothing touches the disk — to a child copy of this program, so the measuring
//! process holds nothing but the text: no freed generator memory left in the allocator for
//! the measured call to reuse unseen. `--in-process` measures here instead, after dropping the
//! generator's structures, for comparison.
//!
//! The measuring process reads `VmRSS` from `/proc/self/status`, resets the high-water mark
//! by writing `5` to `/proc/self/clear_refs`, runs the call, then reads `VmHWM`. If the reset
//! fails, `VmHWM` is the whole process's peak and `hwm_reset` is false. One JSON line goes
//! to stdout: the input bytes, the extra memory (peak during the call minus the RSS before
//! it), the total peak, and both as ratios to the input size.

use std::hint::black_box;
use std::io::{Read, Write};
use std::process::{Command, ExitCode, Stdio};

/// The allocator the `askd` binary uses, so the figures are the binary's.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[path = "../benches/specgen/mod.rs"]
mod specgen;

use specgen::{Fixture, Size};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let size = args.first().map_or(Some(Size::Length), |s| Size::parse(s));
    let Some(size) = size else {
        eprintln!("usage: peak_memory [typical|structure|length] [--in-process]");
        return ExitCode::from(2);
    };
    match args.get(1).map(String::as_str) {
        Some("--child") => {
            let text = read_text();
            measure(size, &text, "child process");
            ExitCode::SUCCESS
        }
        Some("--in-process") => {
            // The fixture's spec and intermediate structures are dropped inside `new`; only
            // the text (and the small answer map, rebuilt in `measure`) stays resident.
            let text = Fixture::new(size).text;
            measure(size, &text, "in process");
            ExitCode::SUCCESS
        }
        Some(other) => {
            eprintln!("unknown flag {other}");
            ExitCode::from(2)
        }
        None => spawn_child(size),
    }
}

fn spawn_child(size: Size) -> ExitCode {
    let text = Fixture::new(size).text;
    let exe = std::env::current_exe().expect("current exe");
    let mut child = Command::new(exe)
        .arg(size.name())
        .arg("--child")
        .stdin(Stdio::piped())
        .spawn()
        .expect("spawn the measuring child");
    {
        let mut stdin = child.stdin.take().expect("child stdin");
        stdin
            .write_all(&(text.len() as u64).to_le_bytes())
            .and_then(|()| stdin.write_all(text.as_bytes()))
            .expect("pipe the text to the child");
    }
    drop(text);
    match child.wait() {
        Ok(s) if s.success() => ExitCode::SUCCESS,
        _ => ExitCode::FAILURE,
    }
}

/// Reads the length-prefixed text from stdin into one exactly-sized allocation.
fn read_text() -> String {
    let mut stdin = std::io::stdin().lock();
    let mut len = [0u8; 8];
    stdin.read_exact(&mut len).expect("length prefix");
    let mut buf = vec![0u8; u64::from_le_bytes(len) as usize];
    stdin.read_exact(&mut buf).expect("argument text");
    String::from_utf8(buf).expect("UTF-8 text")
}

/// A `/proc/self/status` field in bytes (the file gives kB).
fn status_bytes(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
        .map(|kb| kb * 1024)
        .unwrap_or_else(|| panic!("{field} missing from /proc/self/status"))
}

fn measure(size: Size, text: &str, mode: &str) {
    let answers = specgen::long_branch_answers(size);
    let before = status_bytes("VmRSS");
    let reset = std::fs::write("/proc/self/clear_refs", "5").is_ok();
    let path_len = black_box(specgen::run(black_box(text), &answers));
    let peak = status_bytes("VmHWM");
    let after = status_bytes("VmRSS");
    let input = text.len() as u64;
    let extra = peak.saturating_sub(before);
    println!(
        "{{\"size\":\"{}\",\"mode\":\"{mode}\",\"input_bytes\":{input},\"rss_before_bytes\":{before},\"peak_extra_bytes\":{extra},\"peak_total_bytes\":{peak},\"rss_after_bytes\":{after},\"extra_ratio\":{:.3},\"peak_ratio\":{:.3},\"hwm_reset\":{reset},\"path_len\":{path_len}}}",
        size.name(),
        extra as f64 / input as f64,
        peak as f64 / input as f64,
    );
}
