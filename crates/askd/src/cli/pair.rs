//! `askd pair`: a one-time pairing link for a phone (or any browser), printed with its QR
//! code. The daemon makes the code (`POST /api/pair`: single use, 10 minutes); opening the
//! link on the phone gives it a device token that may answer asks, nothing else. The link
//! uses `publicUrl` when set, else the daemon's own address — which a phone reaches only
//! when the daemon listens on the network (see the README's "answer from your phone").

use std::process::ExitCode;

use qrcode::QrCode;
use qrcode::render::unicode::Dense1x2;

use super::flags::ConfigFlags;

pub fn run(flags: ConfigFlags) -> ExitCode {
    let (reply, config) = match super::client::call_daemon(
        "pair",
        &flags,
        reqwest::Method::POST,
        "/api/pair",
        Some("{}".to_string()),
    ) {
        Ok(r) => r,
        Err(code) => return code,
    };
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
