//! The page: header, the lab (map canvas, controls, results) and the privacy footer.

use crate::{
    basemap::{self, Viewport},
    bridge::{EngineBridge, WORKER_URL},
    fatal,
    protocol::{Request, Response},
};
use leptos::{ev, html, prelude::*};
use wasm_bindgen::JsCast;
use whereabouts_engine::geo::Metres;

/// What the page knows about its engine worker.
#[derive(Clone, Debug, PartialEq)]
pub enum EngineStatus {
    Starting,
    Ready { version: String, round_trip_ms: f64 },
    Failed(String),
}

impl EngineStatus {
    pub fn describe(&self) -> String {
        match self {
            EngineStatus::Starting => "Starting the engine…".into(),
            EngineStatus::Ready {
                version,
                round_trip_ms,
            } => format!(
                "Engine {version} running in a Web Worker (started and answered in {round_trip_ms:.0} ms)"
            ),
            EngineStatus::Failed(why) => format!("The engine is not running: {why}"),
        }
    }
}

#[component]
pub fn App() -> impl IntoView {
    let (status, set_status) = signal(EngineStatus::Starting);
    let ping_sent_at = StoredValue::new(0.0_f64);

    let bridge = EngineBridge::spawn(WORKER_URL, move |response| match response {
        Response::Ready { .. } => {}
        Response::Pong { engine_version, .. } => set_status.set(EngineStatus::Ready {
            version: engine_version,
            round_trip_ms: js_sys::Date::now() - ping_sent_at.get_value(),
        }),
        Response::Rejected { reason } => {
            web_sys::console::warn_1(&format!("engine rejected a request: {reason}").into())
        }
        Response::Fatal { message } => {
            fatal::show_fatal(&format!("The engine stopped: {message}"));
            set_status.set(EngineStatus::Failed(message));
        }
    });
    match &bridge {
        Ok(bridge) => {
            ping_sent_at.set_value(js_sys::Date::now());
            if let Err(e) = bridge.send(&Request::Ping { nonce: 1 }) {
                set_status.set(EngineStatus::Failed(e));
            }
        }
        Err(e) => set_status.set(EngineStatus::Failed(e.clone())),
    }
    // The worker lives as long as the page.
    let _bridge = StoredValue::new_local(bridge.ok());

    view! {
        <header class="site-header">
            <div class="brand">
                <svg class="logo" viewBox="0 0 24 24" aria-hidden="true">
                    <path d="M12 2a7 7 0 0 0-7 7c0 5.2 7 13 7 13s7-7.8 7-13a7 7 0 0 0-7-7zm0 9.5A2.5 2.5 0 1 1 12 6.5a2.5 2.5 0 0 1 0 5z"/>
                </svg>
                <div>
                    <h1>"Whereabouts"</h1>
                    <p class="tagline">
                        "How much of your whereabouts leaks out of federated learning — and what stops it."
                    </p>
                </div>
            </div>
            <details class="privacy-badge" data-testid="privacy-badge">
                <summary>
                    <svg class="lock" viewBox="0 0 24 24" aria-hidden="true">
                        <path d="M17 9V7a5 5 0 0 0-10 0v2H5v13h14V9h-2zM9 7a3 3 0 0 1 6 0v2H9V7zm4 9.7V19h-2v-2.3a2 2 0 1 1 2 0z"/>
                    </svg>
                    "Nothing leaves this tab"
                </summary>
                <p>
                    "Everything here — the phones' training, the curious server, its attack and the
                    defences — runs inside this browser tab, in WebAssembly. After the page has
                    loaded it makes no network requests: no map tiles, no fonts, no analytics. A
                    Content-Security-Policy forbids them, and our tests check it."
                </p>
            </details>
        </header>
        <main class="lab" aria-label="Signal-map lab">
            <section class="map-panel" aria-label="Map">
                <MapCanvas/>
            </section>
            <aside class="side">
                <section class="panel controls" aria-labelledby="controls-title">
                    <h2 id="controls-title">"Controls"</h2>
                    <p class="hint">
                        "Federated learning of a signal map: phones learn to predict signal
                        strength from location and share only model updates. The server is
                        honest but curious."
                    </p>
                </section>
                <section class="panel results" aria-labelledby="results-title">
                    <h2 id="results-title">"Results"</h2>
                    <p class="status" data-testid="engine-status" aria-live="polite"
                        class:ready=move || matches!(status.get(), EngineStatus::Ready { .. })
                        class:failed=move || matches!(status.get(), EngineStatus::Failed(_))>
                        {move || status.get().describe()}
                    </p>
                </section>
            </aside>
        </main>
        <footer class="site-footer">
            <p>
                "Whereabouts re-implements “Location Leakage in Federated Signal Maps” (Bakopoulou,
                Yang, Zhang, Psounis, Markopoulou) and related work, in Rust and WebAssembly."
            </p>
        </footer>
    }
}

/// The map: a canvas sized to its box at the screen's pixel density.
#[component]
fn MapCanvas() -> impl IntoView {
    let canvas_ref = NodeRef::<html::Canvas>::new();
    let view_state = StoredValue::new(Viewport {
        centre: Metres::new(0.0, 0.0),
        m_per_px: 4.0,
        width_px: 0.0,
        height_px: 0.0,
    });

    let redraw = move || {
        let Some(canvas) = canvas_ref.get_untracked() else {
            return;
        };
        let dpr = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio());
        let (w, h) = (canvas.client_width() as f64, canvas.client_height() as f64);
        if w <= 0.0 || h <= 0.0 {
            return;
        }
        canvas.set_width((w * dpr).round() as u32);
        canvas.set_height((h * dpr).round() as u32);
        let Ok(Some(ctx)) = canvas.get_context("2d") else {
            return;
        };
        let Ok(ctx) = ctx.dyn_into::<web_sys::CanvasRenderingContext2d>() else {
            return;
        };
        let _ = ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
        view_state.update_value(|v| {
            v.width_px = w;
            v.height_px = h;
        });
        basemap::draw(&ctx, &view_state.get_value());
    };

    Effect::new(move |_| {
        if canvas_ref.get().is_some() {
            redraw();
        }
    });
    let resize = window_event_listener(ev::resize, move |_| redraw());
    on_cleanup(move || resize.remove());

    view! {
        <canvas node_ref=canvas_ref class="map" data-testid="map-canvas" role="img"
            aria-label="Map of the synthetic world on a metric grid"></canvas>
    }
}
