//! The confusion between people: for the new devices' updates, whom the attack named first
//! (columns) against whose they were (rows). A strong diagonal is an attack that links; your row
//! is marked, and the people you are most often taken for are listed.

use super::LinkState;
use crate::ui::help::help;
use leptos::{html, prelude::*};
use wasm_bindgen::JsCast;
use web_sys::CanvasRenderingContext2d;
use whereabouts_core::order;
use whereabouts_engine::linkability::lab::YOU;

const HELP: &str = "Row: whose new device an update came from. Column: the person the attack named first for it. Darker is more updates. When several people tie for the attack's first answer, each gets an equal share of that update (so counts can be fractional): no one wins a tie by their number. The diagonal is the attack getting it right; everything off it is a person taken for someone else. Your row is the one marked at the left (person 0, at the top).";

fn paint(canvas: &web_sys::HtmlCanvasElement, confusion: &[Vec<f64>]) {
    let dpr = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio());
    let side = canvas.client_width() as f64;
    if side <= 0.0 {
        return;
    }
    let px = (side * dpr).round() as u32;
    if canvas.width() != px || canvas.height() != px {
        canvas.set_width(px);
        canvas.set_height(px);
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
    ctx.set_fill_style_str("#fbfaf7");
    ctx.fill_rect(0.0, 0.0, side, side);
    let n = confusion.len();
    if n == 0 {
        return;
    }
    // Room at the top and on the left for the axes' names and the first and last person's
    // number; the yellow mark of your row just left of the grid.
    let (top, left, mark): (f64, f64, f64) = (30.0, 30.0, 6.0);
    let grid = side - left.max(top);
    let cell = grid / n as f64;
    let (gx, gy) = (left, top);
    ctx.set_fill_style_str("#5b5b5b");
    ctx.set_font("11px system-ui, sans-serif");
    ctx.set_text_align("left");
    let _ = ctx.fill_text("named first by the attack →", gx, 11.0);
    ctx.set_text_align("center");
    let last = (n - 1).to_string();
    let _ = ctx.fill_text("0", gx + cell / 2.0, top - 4.0);
    ctx.set_text_align("right");
    let _ = ctx.fill_text(&last, gx + grid, top - 4.0);
    ctx.save();
    let _ = ctx.translate(11.0, gy);
    let _ = ctx.rotate(-std::f64::consts::FRAC_PI_2);
    ctx.set_text_align("right");
    let _ = ctx.fill_text("← whose new device", 0.0, 0.0);
    ctx.restore();
    ctx.set_text_align("right");
    let _ = ctx.fill_text("0", left - mark - 3.0, gy + cell / 2.0 + 4.0);
    let _ = ctx.fill_text(&last, left - mark - 3.0, gy + grid - cell / 2.0 + 4.0);
    // Ten shades by the cell's share of its row, one colour set per shade (a colour per cell
    // costs more than the cells: 300 people make thousands).
    let mut shades: Vec<Vec<(usize, usize)>> = vec![Vec::new(); 10];
    for (i, row) in confusion.iter().enumerate() {
        let total = row.iter().sum::<f64>().max(1e-12);
        for (j, &c) in row.iter().enumerate().filter(|(_, c)| **c > 0.0) {
            let shade = ((c / total * 10.0).ceil() as usize).clamp(1, 10) - 1;
            shades[shade].push((i, j));
        }
    }
    ctx.set_fill_style_str("#1f3a8a");
    for (shade, cells) in shades.iter().enumerate() {
        ctx.set_global_alpha(0.15 + 0.085 * (shade + 1) as f64);
        for &(i, j) in cells {
            ctx.fill_rect(
                gx + j as f64 * cell,
                gy + i as f64 * cell,
                cell.max(1.0),
                cell.max(1.0),
            );
        }
    }
    ctx.set_global_alpha(1.0);
    ctx.set_fill_style_str("#f4c430");
    ctx.fill_rect(
        left - mark,
        gy + YOU as f64 * cell,
        mark - 1.0,
        cell.max(2.0),
    );
}

/// An expected count: whole when it is, else one decimal (a tie split between people).
fn count(c: f64) -> String {
    if (c - c.round()).abs() < 1e-9 {
        format!("{c:.0}")
    } else {
        format!("{c:.1}")
    }
}

#[component]
pub fn Confusion(state: LinkState) -> impl IntoView {
    let canvas = NodeRef::<html::Canvas>::new();
    let confusion = move || {
        state.scene.with(|s| {
            s.summary
                .as_ref()
                .map(|x| x.confusion.clone())
                .unwrap_or_default()
        })
    };
    // Painted after the next layout (the panel shows only once there is a confusion, and a
    // hidden canvas has no size), and a frame after the map of updates, which paints in the
    // next one: at 300 people the two together held the main thread over 50 ms.
    Effect::new(move |_| {
        let c = confusion();
        if let Some(el) = canvas.get() {
            request_animation_frame(move || request_animation_frame(move || paint(&el, &c)));
        }
    });
    let resize = window_event_listener(leptos::ev::resize, move |_| {
        if let Some(el) = canvas.get_untracked() {
            paint(&el, &confusion());
        }
    });
    on_cleanup(move || resize.remove());
    // The people your new device's updates are taken for, most often first.
    let taken_for = move || {
        let row = state.scene.with(|s| {
            s.summary
                .as_ref()
                .and_then(|x| x.confusion.get(YOU).cloned())
        })?;
        let total: f64 = row.iter().sum();
        if total <= 0.0 {
            return None;
        }
        let mut named: Vec<(usize, f64)> = row
            .iter()
            .copied()
            .enumerate()
            .filter(|x| x.1 > 0.0)
            .collect();
        order::sort_by(&mut named, |a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let right = count(row[YOU]);
        let others: Vec<String> = named
            .iter()
            .filter(|(p, _)| *p != YOU)
            .take(3)
            .map(|(p, c)| format!("person {p} ({})", count(*c)))
            .collect();
        Some(format!(
            "Of your new device's {} updates, the attack named you first for {right}{}.",
            count(total),
            if others.is_empty() {
                String::new()
            } else {
                format!("; others it took you for: {}", others.join(", "))
            }
        ))
    };
    let (button, text) = help("help-link-confusion".into(), "Who is taken for whom", HELP);
    view! {
        <section class="panel confusion" aria-labelledby="link-confusion-title" class:hidden=move || state.hides("l.map") || state.scene.with(|s| s.summary.as_ref().is_none_or(|x| x.confusion.is_empty()))>
            <h2 id="link-confusion-title">"Who is taken for whom" {button}</h2>
            {text}
            <div class="confusion-body">
                <canvas node_ref=canvas class="confusion-grid" data-testid="link-confusion" role="img"
                    aria-label="The confusion between people: rows whose new device, columns whom the attack named first"></canvas>
                <div class="sub">
                    <p class="legend-line" data-testid="link-confusion-scale">
                        "Rows: whose new device an update came from; columns: whom the attack named first (person 0, you, is the first row and column, marked yellow). Shade: the cell's share of its row, from light (up to 10%) to dark (90–100%)."
                    </p>
                    <p data-testid="link-taken-for">{taken_for}</p>
                </div>
            </div>
        </section>
    }
}
