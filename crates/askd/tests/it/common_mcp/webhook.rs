//! A webhook receiver on loopback: what askd's notifier sends (team and deadline tests).

/// The requests a webhook receiver on loopback got (their bodies).
pub async fn receiver() -> (std::sync::Arc<std::sync::Mutex<Vec<String>>>, String) {
    use std::sync::{Arc, Mutex};
    let got: Arc<Mutex<Vec<String>>> = Arc::default();
    let app = axum::Router::new()
        .route(
            "/hook",
            axum::routing::post(
                |axum::extract::State(got): axum::extract::State<Arc<Mutex<Vec<String>>>>,
                 body: String| async move {
                    got.lock().unwrap().push(body);
                    "ok"
                },
            ),
        )
        .with_state(got.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (got, url)
}
