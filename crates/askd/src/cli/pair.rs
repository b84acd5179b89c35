//! `askd pair`: a one-time pairing link for a phone (or any browser), printed with its QR
//! code. The daemon makes the code (`POST /api/pair`: single use, 10 minutes); opening the
//! link on the phone gives it a device token that may answer asks, nothing else. The link
//! uses `publicUrl` when set, else the daemon's own address — which a phone reaches only
//! when the daemon listens on the network (see the README's "answer from your phone").

use std::process::ExitCode;

use askd_daemon::config;
use qrcode::QrCode;
use qrcode::render::unicode::Dense1x2;

use super::EXIT_USAGE;
use super::flags::ConfigFlags;

pub fn run(flags: ConfigFlags) -> ExitCode {
    let (paths, config) = match config::load_from_process(&flags.0) {
        Ok(pc) => pc,
        Err(e) => {
            eprintln!("askd pair: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("askd pair: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let reply = runtime.block_on(async {
        askd_client::ensure_daemon(&paths, &flags.0)
            .await
            .map_err(|e| eprintln!("askd pair: {e}"))
            .ok()?;
        let client = super::client::Client::connect(&paths).ok()?;
        client
            .call(reqwest::Method::POST, "/api/pair", Some("{}".to_string()))
            .await
            .ok()
    });
    let Some(reply) = reply else {
        return ExitCode::FAILURE;
    };
    if !reply.ok() {
        eprintln!("askd pair: {}", reply.error().message);
        return ExitCode::FAILURE;
    }
    let url = reply.body["url"].as_str().unwrap_or_default();
    let minutes = reply.body["expiresInSeconds"].as_u64().unwrap_or(600) / 60;
    match QrCode::new(url.as_bytes()) {
        Ok(code) => {
            let art = code
                .render::<Dense1x2>()
                .dark_color(Dense1x2::Light)
                .light_color(Dense1x2::Dark)
                .quiet_zone(true)
                .build();
            println!("{art}");
        }
        Err(e) => eprintln!("askd pair: cannot draw the QR code ({e}); open the link instead"),
    }
    println!("Scan the code, or open this link on your phone (once, within {minutes} minutes):");
    println!("  {url}");
    if config.public_url.is_none() && url.contains("://127.0.0.1") {
        println!(
            "Note: this link names a loopback address, which a phone cannot reach. Set publicUrl (a tunnel such as `tailscale serve`) or listen on a LAN address — see the README, \"Answer from your phone\"."
        );
    }
    ExitCode::SUCCESS
}
