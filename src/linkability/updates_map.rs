//! Every update the server logged, on its first two principal components, coloured by its true
//! owner (which the server does not know): a person's updates from both devices fall together
//! when they can be linked. Yours are drawn last and large, outlined; a circle is a known
//! device's update, a square a new device's.

use super::LinkState;
use crate::ui::help::help;
use leptos::{html, prelude::*};
use wasm_bindgen::JsCast;
use web_sys::CanvasRenderingContext2d;
use whereabouts_engine::linkability::lab::{MapPoint, YOU};

const HELP: &str = "Each dot is one update a device sent in one round, placed by the two directions along which the server's updates differ most (principal component analysis of what the attack reads). The colour is the true owner — the server does not have it, this picture does. When one person's two devices land in one patch of colour, their updates give them away; a mitigation that works scatters them. Your known device's updates are the outlined circles, your new device's the outlined squares.";

/// A colour per person: hues spread by the golden angle, so neighbours in number differ.
fn hue(owner: u32) -> f64 {
    (f64::from(owner) * 137.508) % 360.0
}

/// The two axes and their names: the principal components have no unit (a direction in the
/// updates' space), so the axes carry names and an arrow, not numbers.
fn axes(ctx: &CanvasRenderingContext2d, w: f64, h: f64, left: f64, bottom: f64) {
    ctx.set_stroke_style_str("#8a8a8a");
    ctx.set_line_width(1.0);
    ctx.begin_path();
    // Up the left side and along the bottom, each ending in an arrowhead.
    ctx.move_to(left - 6.0, 8.0);
    ctx.line_to(left - 6.0, h - bottom + 6.0);
    ctx.line_to(w - 6.0, h - bottom + 6.0);
    ctx.move_to(left - 10.0, 14.0);
    ctx.line_to(left - 6.0, 8.0);
    ctx.line_to(left - 2.0, 14.0);
    ctx.move_to(w - 12.0, h - bottom + 2.0);
    ctx.line_to(w - 6.0, h - bottom + 6.0);
    ctx.line_to(w - 12.0, h - bottom + 10.0);
    ctx.stroke();
    ctx.set_fill_style_str("#5b5b5b");
    ctx.set_font("12px system-ui, sans-serif");
    ctx.set_text_align("center");
    let _ = ctx.fill_text(
        "1st principal component of the updates",
        left + (w - left) / 2.0,
        h - 5.0,
    );
    ctx.save();
    let _ = ctx.translate(12.0, (h - bottom) / 2.0);
    let _ = ctx.rotate(-std::f64::consts::FRAC_PI_2);
    let _ = ctx.fill_text("2nd principal component", 0.0, 0.0);
    ctx.restore();
}

/// Draws `points` into `canvas` (sized to its box on screen).
fn paint(canvas: &web_sys::HtmlCanvasElement, points: &[MapPoint]) {
    let dpr = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio());
    let (w, h) = (canvas.client_width() as f64, canvas.client_height() as f64);
    if w <= 0.0 || h <= 0.0 {
        return;
    }
    let (pw, ph) = ((w * dpr).round() as u32, (h * dpr).round() as u32);
    if canvas.width() != pw || canvas.height() != ph {
        canvas.set_width(pw);
        canvas.set_height(ph);
    }
    let Some(ctx) = canvas
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok())
    else {
        return;
    };
    let _ = ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
    ctx.clear_rect(0.0, 0.0, w, h);
    if points.is_empty() {
        return;
    }
    // A robust frame: the 1st to 99th percentile of each axis, so a few outliers do not
    // squeeze everyone into a corner (they are drawn at the edge).
    let range = |f: fn(&MapPoint) -> f32| {
        let mut v: Vec<f64> = points.iter().map(|p| f64::from(f(p))).collect();
        v.sort_by(f64::total_cmp);
        let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
        let (lo, hi) = (at(0.01), at(0.99));
        let pad = (hi - lo).max(1e-9) * 0.05;
        (lo - pad, hi + pad)
    };
    let (x0, x1) = range(|p| p.x);
    let (y0, y1) = range(|p| p.y);
    // Room on the left and at the bottom for the axes and their names.
    let (left, bottom, margin) = (28.0, 26.0, 10.0);
    let at = |p: &MapPoint| {
        let fx = ((f64::from(p.x) - x0) / (x1 - x0)).clamp(0.0, 1.0);
        let fy = ((f64::from(p.y) - y0) / (y1 - y0)).clamp(0.0, 1.0);
        (
            left + fx * (w - left - margin),
            h - bottom - fy * (h - bottom - margin),
        )
    };
    axes(&ctx, w, h, left, bottom);
    // One path and one fill per person (setting a colour per dot costs more than the dots).
    let add = |p: &MapPoint, r: f64| {
        let (x, y) = at(p);
        if p.device == 0 {
            ctx.move_to(x + r, y);
            let _ = ctx.arc(x, y, r, 0.0, std::f64::consts::TAU);
        } else {
            ctx.rect(x - r, y - r, 2.0 * r, 2.0 * r);
        }
    };
    let people = points
        .iter()
        .map(|p| p.owner as usize + 1)
        .max()
        .unwrap_or(0);
    let mut by_owner: Vec<Vec<&MapPoint>> = vec![Vec::new(); people];
    for p in points {
        by_owner[p.owner as usize].push(p);
    }
    ctx.set_global_alpha(0.55);
    for (owner, mine) in by_owner.iter().enumerate().filter(|(o, _)| *o != YOU) {
        ctx.set_fill_style_str(&format!("hsl({:.0} 62% 52%)", hue(owner as u32)));
        ctx.begin_path();
        for p in mine {
            add(p, 2.6);
        }
        ctx.fill();
    }
    ctx.set_global_alpha(1.0);
    ctx.set_line_width(2.0);
    ctx.set_stroke_style_str("#111");
    ctx.set_fill_style_str("#f4c430");
    for p in by_owner.get(YOU).into_iter().flatten() {
        ctx.begin_path();
        add(p, 5.5);
        ctx.fill();
        ctx.stroke();
    }
}

#[component]
pub fn UpdatesMap(state: LinkState) -> impl IntoView {
    let canvas = NodeRef::<html::Canvas>::new();
    let points = move || {
        state.scene.with(|s| {
            s.summary
                .as_ref()
                .map(|x| x.map.clone())
                .unwrap_or_default()
        })
    };
    // Painted after the next layout (a canvas in a tab that just showed has no size yet).
    Effect::new(move |_| {
        let pts = points();
        if let Some(c) = canvas.get() {
            request_animation_frame(move || paint(&c, &pts));
        }
    });
    let resize = window_event_listener(leptos::ev::resize, move |_| {
        if let Some(c) = canvas.get_untracked() {
            state
                .scene
                .with_untracked(|s| paint(&c, s.summary.as_ref().map_or(&[][..], |x| &x.map)));
        }
    });
    on_cleanup(move || resize.remove());
    let (button, text) = help("help-link-map".into(), "The server's updates", HELP);
    let count = move || {
        state
            .scene
            .with(|s| s.summary.as_ref().map_or(0, |x| x.map.len()))
    };
    view! {
        <section class="panel updates-map" aria-labelledby="link-map-title" class:hidden=move || state.hides("l.map") || state.blocked() || state.settings.with(|c| c.sees != whereabouts_core::secagg::Sees::Updates)>
            <h2 id="link-map-title">"Every update, by its true owner" {button}</h2>
            {text}
            <canvas node_ref=canvas class="scatter" data-testid="link-updates-map" data-points=move || count().to_string()
                role="img" aria-label=move || format!("{} updates on their first two principal components, coloured by owner; yours outlined in black on yellow", count())></canvas>
            <p class="legend-line"><span class="you-mark"></span>" your updates: ● known device, ■ new device · every other colour is one person"</p>
        </section>
    }
}
