//! The map every lab draws on: a canvas over the metric plane ([`Viewport`]) that pans (drag,
//! arrows), zooms (wheel, pinch, + / −, buttons, "Fit") and repaints once per animation frame
//! when anything it shows changes. A lab supplies its layers ([`MapLayers::paint`]) and, if
//! the visitor edits things on the map, a [`MapEditor`] that may take a pointer gesture before
//! the map pans with it.
//!
//! On a touch screen the map never traps the page: while it pans (no editing tool chosen), one
//! finger scrolls the page as anywhere else (`touch-action: pan-x pan-y`) and two fingers move
//! and zoom the map; a first one-finger touch says so. An editing tool takes one finger.

use super::basemap::Viewport;
use leptos::{ev, html, prelude::*};
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, PointerEvent, WheelEvent};
use whereabouts_core::geo::Metres;

/// Zoom limits, metres per CSS pixel.
const ZOOM: (f64, f64) = (0.05, 500.0);

/// Draws a lab's layers on the canvas, in CSS pixels, for the view given.
pub type Paint = Rc<dyn Fn(&CanvasRenderingContext2d, &HtmlCanvasElement, &Viewport)>;

/// What a lab draws, and what the map tracks to know when to draw it again.
pub struct MapLayers {
    /// The area to fit the view to (and to keep edits in); the view refits when it changes.
    pub area: Rc<dyn Fn() -> (Metres, Metres)>,
    /// Reads (tracked) every signal the layers depend on; the map repaints when one changes.
    pub track: Rc<dyn Fn()>,
    /// Draws the layers, the basemap included.
    pub paint: Paint,
    /// The canvas's accessible description (tracked).
    pub label: Rc<dyn Fn() -> String>,
    /// The id of the element that says in words what the map shows now (the lab's summary of
    /// what the server reconstructed against the truth), for screen readers.
    pub summary_id: &'static str,
}

/// A lab's editing on the map. Coordinates are CSS pixels on the canvas; `view` maps them to the
/// plane. Every method has a default that does nothing, so a lab takes only what it needs.
pub trait MapEditor {
    /// A pointer went down: true if the editor takes this gesture (else the map pans with it).
    fn down(&self, _view: &Viewport, _x: f64, _y: f64, _touch: bool) -> bool {
        false
    }
    /// The pointer of a gesture the editor took moved.
    fn drag(&self, _view: &Viewport, _x: f64, _y: f64) {}
    /// The gesture ended (pointer up, or a second finger began a pinch).
    fn up(&self) {}
    fn double_click(&self, _view: &Viewport, _x: f64, _y: f64) {}
    /// A key pressed on the focused map (`shift` held or not); true if the editor used it
    /// (else the map pans and zooms with it).
    fn key(&self, _view: &Viewport, _key: &str, _shift: bool) -> bool {
        false
    }
    /// True while a drag pans the map rather than edits (the cursor shows a hand; tracked).
    fn pans(&self) -> bool {
        true
    }
}

/// A map with nothing to edit.
pub struct NoEditor;
impl MapEditor for NoEditor {}

/// True on a device whose main pointer is a finger (a phone, a tablet): labs start there with
/// no editing tool chosen, so the page scrolls over the map.
pub fn touch_first() -> bool {
    web_sys::window()
        .and_then(|w| w.match_media("(pointer: coarse)").ok().flatten())
        .is_some_and(|m| m.matches())
}

/// The boxes of what the page lays over `canvas` (toolbar, legend, visible notes), in the
/// canvas's CSS pixels: labels drawn on the map keep off them.
pub fn overlays(canvas: &HtmlCanvasElement) -> Vec<crate::ui::labels::Rect> {
    let Some(parent) = canvas.parent_element() else {
        return Vec::new();
    };
    let origin = canvas.get_bounding_client_rect();
    let Ok(nodes) = parent.query_selector_all(".map-tools, .legend, .map-notes > :not(.hidden)")
    else {
        return Vec::new();
    };
    (0..nodes.length())
        .filter_map(|i| nodes.item(i)?.dyn_into::<web_sys::Element>().ok())
        .map(|e| e.get_bounding_client_rect())
        .filter(|r| r.width() > 0.0 && r.height() > 0.0)
        .map(|r| {
            crate::ui::labels::Rect::new(
                r.left() - origin.left(),
                r.top() - origin.top(),
                r.width(),
                r.height(),
            )
        })
        .collect()
}

/// How long the "two fingers move the map" hint stays, ms.
const TOUCH_HINT_MS: u64 = 2500;

#[derive(Clone, Copy, Debug, Default)]
enum Gesture {
    #[default]
    None,
    Pan {
        last: (f64, f64),
    },
    Edit,
    Pinch {
        distance: f64,
        mid: (f64, f64),
    },
}

/// The viewport that shows the whole area with a margin.
pub fn fitted(area: (Metres, Metres), width: f64, height: f64) -> Viewport {
    let (w, h) = (area.1.east - area.0.east, area.1.north - area.0.north);
    let m_per_px = (w / (width - 40.0).max(50.0)).max(h / (height - 40.0).max(50.0));
    Viewport {
        centre: Metres::new(
            (area.0.east + area.1.east) / 2.0,
            (area.0.north + area.1.north) / 2.0,
        ),
        m_per_px,
        width_px: width,
        height_px: height,
    }
}

/// `view` zoomed by `factor` about the screen point (x, y), which stays where it is.
pub fn zoomed(mut view: Viewport, factor: f64, x: f64, y: f64) -> Viewport {
    let anchor = view.to_plane(x, y);
    view.m_per_px = (view.m_per_px * factor).clamp(ZOOM.0, ZOOM.1);
    let now = view.to_plane(x, y);
    view.centre = Metres::new(
        view.centre.east + anchor.east - now.east,
        view.centre.north + anchor.north - now.north,
    );
    view
}

/// The map canvas, its zoom buttons and whatever the lab adds over it (`tools`: more buttons in
/// the toolbar; `children`: a legend, say). `testid` names the canvas for the tests.
pub fn map_view(
    testid: &'static str,
    layers: MapLayers,
    editor: Rc<dyn MapEditor>,
    tools: impl IntoView + 'static,
    children: impl IntoView + 'static,
) -> impl IntoView {
    let canvas_ref = NodeRef::<html::Canvas>::new();
    let view = StoredValue::new(None::<Viewport>);
    let gesture = StoredValue::new(Gesture::None);
    let pointers = StoredValue::new(Vec::<(i32, f64, f64)>::new());
    let frame_pending = StoredValue::new(false);
    let touch_hint = RwSignal::new(false);
    let MapLayers {
        area,
        track,
        paint,
        label,
        summary_id,
    } = layers;

    let paint = {
        let area = area.clone();
        move || {
            frame_pending.set_value(false);
            let Some(canvas) = canvas_ref.get_untracked() else {
                return;
            };
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
            let Ok(Some(ctx)) = canvas.get_context("2d") else {
                return;
            };
            let Ok(ctx) = ctx.dyn_into::<CanvasRenderingContext2d>() else {
                return;
            };
            let _ = ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
            let mut v = view.get_value().unwrap_or_else(|| fitted(area(), w, h));
            v.width_px = w;
            v.height_px = h;
            view.set_value(Some(v));
            // The plane under the canvas, for tests and benchmarks that aim at map features.
            let _ = canvas.set_attribute(
                "data-view",
                &format!("{} {} {}", v.centre.east, v.centre.north, v.m_per_px),
            );
            paint(&ctx, &canvas, &v);
        }
    };
    let redraw = move || {
        if !frame_pending.get_value() {
            frame_pending.set_value(true);
            request_animation_frame(paint.clone());
        }
    };
    let redraw = StoredValue::new_local(Rc::new(redraw) as Rc<dyn Fn()>);
    let redraw = move || redraw.with_value(|r| r());

    // Repaint whenever anything drawn changes.
    let repaint_track = track.clone();
    Effect::new(move |_| {
        repaint_track();
        if canvas_ref.get().is_some() {
            redraw();
        }
    });
    let resize = window_event_listener(ev::resize, move |_| redraw());
    on_cleanup(move || resize.remove());

    let set_view = move |v: Viewport| {
        view.set_value(Some(v));
        redraw();
    };
    let zoom_at = move |factor: f64, x: f64, y: f64| {
        if let Some(v) = view.get_value() {
            set_view(zoomed(v, factor, x, y));
        }
    };
    let centre_zoom = move |factor: f64| {
        if let Some(v) = view.get_value() {
            zoom_at(factor, v.width_px / 2.0, v.height_px / 2.0);
        }
    };
    let fit = {
        let area = area.clone();
        move || {
            if let Some(v) = view.get_value() {
                set_view(fitted(area(), v.width_px, v.height_px));
            }
        }
    };

    let on_down = {
        let editor = editor.clone();
        move |e: PointerEvent| {
            let Some(v) = view.get_value() else { return };
            let (x, y) = (e.offset_x() as f64, e.offset_y() as f64);
            if let Some(c) = canvas_ref.get_untracked() {
                let _ = c.set_pointer_capture(e.pointer_id());
                let _ = c.focus();
            }
            pointers.update_value(|p| {
                p.retain(|(id, ..)| *id != e.pointer_id());
                p.push((e.pointer_id(), x, y));
            });
            if pointers.with_value(|p| p.len()) == 2 {
                if matches!(gesture.get_value(), Gesture::Edit) {
                    editor.up();
                }
                touch_hint.set(false);
                let (a, b) = pointers.with_value(|p| ((p[0].1, p[0].2), (p[1].1, p[1].2)));
                gesture.set_value(Gesture::Pinch {
                    distance: (a.0 - b.0).hypot(a.1 - b.1).max(1.0),
                    mid: ((a.0 + b.0) / 2.0, (a.1 + b.1) / 2.0),
                });
                return;
            }
            let touch = e.pointer_type() == "touch";
            let g = if editor.down(&v, x, y, touch) {
                Gesture::Edit
            } else if touch {
                // One finger scrolls the page (the browser has it); two will move the map.
                if !touch_hint.get_untracked() {
                    touch_hint.set(true);
                    set_timeout(
                        move || touch_hint.set(false),
                        std::time::Duration::from_millis(TOUCH_HINT_MS),
                    );
                }
                Gesture::None
            } else {
                Gesture::Pan { last: (x, y) }
            };
            gesture.set_value(g);
        }
    };

    let on_move = {
        let editor = editor.clone();
        move |e: PointerEvent| {
            let (x, y) = (e.offset_x() as f64, e.offset_y() as f64);
            pointers.update_value(|p| {
                if let Some(q) = p.iter_mut().find(|q| q.0 == e.pointer_id()) {
                    q.1 = x;
                    q.2 = y;
                }
            });
            let Some(mut v) = view.get_value() else {
                return;
            };
            match gesture.get_value() {
                Gesture::None => {}
                Gesture::Edit => editor.drag(&v, x, y),
                Gesture::Pan { last } => {
                    v.centre = Metres::new(
                        v.centre.east - (x - last.0) * v.m_per_px,
                        v.centre.north + (y - last.1) * v.m_per_px,
                    );
                    gesture.set_value(Gesture::Pan { last: (x, y) });
                    set_view(v);
                }
                Gesture::Pinch { distance, mid } => {
                    let Some((a, b)) = pointers.with_value(|p| {
                        (p.len() == 2).then(|| ((p[0].1, p[0].2), (p[1].1, p[1].2)))
                    }) else {
                        return;
                    };
                    let d = (a.0 - b.0).hypot(a.1 - b.1).max(1.0);
                    let m = ((a.0 + b.0) / 2.0, (a.1 + b.1) / 2.0);
                    // Zoom about the old midpoint, then carry it to the new one.
                    let mut z = zoomed(v, distance / d, mid.0, mid.1);
                    z.centre = Metres::new(
                        z.centre.east - (m.0 - mid.0) * z.m_per_px,
                        z.centre.north + (m.1 - mid.1) * z.m_per_px,
                    );
                    gesture.set_value(Gesture::Pinch {
                        distance: d,
                        mid: m,
                    });
                    set_view(z);
                }
            }
        }
    };

    // Two fingers on the map are the map's: the page must not scroll under a pinch. (A
    // `touchmove` listener that is not passive is the only way to keep a gesture from the
    // browser once `touch-action` lets it scroll.)
    Effect::new(move |_| {
        let Some(canvas) = canvas_ref.get() else {
            return;
        };
        let keep = wasm_bindgen::closure::Closure::<dyn FnMut(web_sys::TouchEvent)>::new(
            |e: web_sys::TouchEvent| {
                if e.touches().length() >= 2 && e.cancelable() {
                    e.prevent_default();
                }
            },
        );
        let options = web_sys::AddEventListenerOptions::new();
        options.set_passive(false);
        let _ = canvas.add_event_listener_with_callback_and_add_event_listener_options(
            "touchmove",
            keep.as_ref().unchecked_ref(),
            &options,
        );
        // The listener lives as long as the page (each map is mounted once).
        keep.forget();
    });

    let on_up = {
        let editor = editor.clone();
        move |e: PointerEvent| {
            pointers.update_value(|p| p.retain(|(id, ..)| *id != e.pointer_id()));
            match gesture.get_value() {
                Gesture::Pinch { .. } if pointers.with_value(|p| !p.is_empty()) => return,
                Gesture::Edit => editor.up(),
                _ => {}
            }
            gesture.set_value(Gesture::None);
        }
    };

    let on_dblclick = {
        let editor = editor.clone();
        move |e: ev::MouseEvent| {
            if let Some(v) = view.get_value() {
                editor.double_click(&v, e.offset_x() as f64, e.offset_y() as f64);
            }
        }
    };

    let on_wheel = move |e: WheelEvent| {
        e.prevent_default();
        let factor = (e.delta_y() * 0.0015).exp();
        zoom_at(factor, e.offset_x() as f64, e.offset_y() as f64);
    };

    // Attributes need `Send` closures: the non-`Send` handles are kept in local storage.
    let pans = StoredValue::new_local(editor.clone());
    let pans = move || pans.with_value(|e| e.pans());
    let label = StoredValue::new_local(label);
    let label = move || label.with_value(|l| l());
    let on_key = move |e: ev::KeyboardEvent| {
        let key = e.key();
        if view
            .get_value()
            .is_some_and(|v| editor.key(&v, &key, e.shift_key()))
        {
            e.prevent_default();
            return;
        }
        let pan = |dx: f64, dy: f64| {
            if let Some(mut v) = view.get_value() {
                v.centre = Metres::new(
                    v.centre.east + dx * v.m_per_px * 60.0,
                    v.centre.north + dy * v.m_per_px * 60.0,
                );
                set_view(v);
            }
        };
        match key.as_str() {
            "+" | "=" => centre_zoom(1.0 / 1.25),
            "-" => centre_zoom(1.25),
            "ArrowLeft" => pan(-1.0, 0.0),
            "ArrowRight" => pan(1.0, 0.0),
            "ArrowUp" => pan(0.0, 1.0),
            "ArrowDown" => pan(0.0, -1.0),
            _ => return,
        }
        e.prevent_default();
    };

    // Fit the view when the area is first known and whenever it changes (an imported file
    // places the world elsewhere, at another scale).
    let fit_effect = fit.clone();
    Effect::new(move |fitted: Option<(Metres, Metres)>| {
        track();
        let now = area();
        if fitted != Some(now) && view.get_value().is_some() {
            fit_effect();
        }
        now
    });

    view! {
        <canvas node_ref=canvas_ref class="map" data-testid=testid tabindex="0"
            role="application" aria-label=label aria-describedby=summary_id class:panning=pans
            on:pointerdown=on_down on:pointermove=on_move on:pointerup=on_up.clone()
            on:pointercancel=on_up on:dblclick=on_dblclick on:wheel=on_wheel
            on:keydown=on_key
            on:contextmenu=|e: ev::MouseEvent| e.prevent_default()></canvas>
        <p class="map-hint" aria-hidden="true" data-testid="touch-hint" class:shown=move || touch_hint.get()>
            "Two fingers move the map; one scrolls the page"
        </p>
        <div class="map-tools" role="toolbar" aria-label="Map tools">
            {tools}
            <div class="seg">
                <button type="button" aria-label="Zoom in" on:click=move |_| centre_zoom(1.0 / 1.4)>"+"</button>
                <button type="button" aria-label="Zoom out" on:click=move |_| centre_zoom(1.4)>"−"</button>
                <button type="button" aria-label="Fit the area" data-testid="fit" on:click=move |_| fit()>"Fit"</button>
            </div>
        </div>
        {children}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zooming_keeps_the_point_under_the_cursor_and_stays_in_bounds() {
        let v = fitted(
            (Metres::new(-900.0, -850.0), Metres::new(900.0, 850.0)),
            800.0,
            600.0,
        );
        assert!((v.centre.east).abs() < 1e-9 && v.m_per_px > 0.0);
        let before = v.to_plane(100.0, 80.0);
        let z = zoomed(v, 0.5, 100.0, 80.0);
        let after = z.to_plane(100.0, 80.0);
        assert!((before.east - after.east).abs() < 1e-6);
        assert!((before.north - after.north).abs() < 1e-6);
        assert_eq!(zoomed(v, 1e-9, 0.0, 0.0).m_per_px, ZOOM.0);
        assert_eq!(zoomed(v, 1e9, 0.0, 0.0).m_per_px, ZOOM.1);
    }
}
