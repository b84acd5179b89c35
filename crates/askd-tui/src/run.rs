//! The event loop: owns the terminal (ratatui's `init`/`restore`, which also restore it when
//! the program panics), reads keys on a thread, sends the App's requests concurrently and
//! feeds their replies back, and polls the daemon every few seconds so the inbox stays live
//! and an ask settled elsewhere closes here.

use std::time::Duration;

use ratatui::crossterm::event::{self, Event, KeyEventKind};
use tokio::sync::mpsc;

use crate::api::{Http, Reply, Request};
use crate::app::App;
use crate::i18n::Lang;

/// How often the inbox (or the open ask) is re-read.
const POLL: Duration = Duration::from_secs(2);

enum Input {
    Key(ratatui::crossterm::event::KeyEvent),
    Resize,
    Failed(String),
}

/// Runs the terminal UI against the daemon at `base` until the user quits.
pub async fn run(base: String, token: String, lang: Lang) -> Result<(), String> {
    let http = Http::new(base, token);
    let mut terminal = ratatui::try_init().map_err(|e| format!("cannot open the terminal: {e}"))?;
    let result = event_loop(&mut terminal, &http, lang).await;
    ratatui::restore();
    result
}

async fn event_loop(
    terminal: &mut ratatui::DefaultTerminal,
    http: &Http,
    lang: Lang,
) -> Result<(), String> {
    let mut app = App::new(lang);
    let (key_tx, mut keys) = mpsc::unbounded_channel();
    // crossterm's reader blocks: it gets its own thread, which ends with the process.
    std::thread::spawn(move || {
        loop {
            let input = match event::read() {
                Ok(Event::Key(k)) if k.kind != KeyEventKind::Release => Input::Key(k),
                Ok(Event::Resize(..)) => Input::Resize,
                Ok(_) => continue,
                Err(e) => Input::Failed(e.to_string()),
            };
            let failed = matches!(input, Input::Failed(_));
            if key_tx.send(input).is_err() || failed {
                break;
            }
        }
    });
    let (reply_tx, mut replies) = mpsc::unbounded_channel::<Reply>();
    let send = |reqs: Vec<Request>| {
        for r in reqs {
            let http = http.clone();
            let tx = reply_tx.clone();
            tokio::spawn(async move {
                let _ = tx.send(http.send(&r).await);
            });
        }
    };
    send(app.start());
    let mut poll = tokio::time::interval(POLL);
    poll.tick().await;
    loop {
        terminal
            .draw(|f| app.render(f))
            .map_err(|e| format!("cannot draw: {e}"))?;
        tokio::select! {
            input = keys.recv() => match input {
                Some(Input::Key(k)) => {
                    let reqs = app.key(k);
                    if app.should_quit() {
                        // Last drafts are sent before leaving: nothing typed is lost.
                        for r in reqs {
                            http.send(&r).await;
                        }
                        return Ok(());
                    }
                    send(reqs);
                }
                Some(Input::Resize) => {}
                Some(Input::Failed(e)) => return Err(format!("cannot read the terminal: {e}")),
                None => return Ok(()),
            },
            Some(reply) = replies.recv() => send(app.reply(reply)),
            _ = poll.tick() => send(app.tick()),
        }
    }
}
