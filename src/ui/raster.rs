//! Rasters on the map: a grid of values over a rectangle of the plane (a heat map, a density,
//! one upload), coloured by a ramp and drawn under the lab's markers. The pixels go through a
//! small off-screen canvas, scaled by the browser to the rectangle on screen.

use super::basemap::Viewport;
use wasm_bindgen::{Clamped, JsCast};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, ImageData};
use whereabouts_core::geo::Metres;

/// A viridis-like ramp, t in [0, 1] (perceptually even, readable in grey and by most colour-blind
/// eyes).
pub fn heat_rgb(t: f32) -> [u8; 3] {
    const STOPS: [[f32; 3]; 5] = [
        [68.0, 1.0, 84.0],
        [59.0, 82.0, 139.0],
        [33.0, 145.0, 140.0],
        [94.0, 201.0, 98.0],
        [253.0, 231.0, 37.0],
    ];
    let t = if t.is_finite() {
        t.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let x = t * 4.0;
    let i = (x.floor() as usize).min(3);
    let f = x - i as f32;
    let (a, b) = (STOPS[i], STOPS[i + 1]);
    [0, 1, 2].map(|k| (a[k] + f * (b[k] - a[k])).round() as u8)
}

/// A diverging ramp for signed values, t in [−1, 1]: blue below zero, white at zero, red above
/// (an upload's cosine ridges are as often negative as positive).
pub fn diverging_rgb(t: f32) -> [u8; 3] {
    const NEG: [f32; 3] = [33.0, 102.0, 172.0];
    const MID: [f32; 3] = [247.0, 247.0, 247.0];
    const POS: [f32; 3] = [178.0, 24.0, 43.0];
    let t = if t.is_finite() {
        t.clamp(-1.0, 1.0)
    } else {
        0.0
    };
    let (end, f) = if t < 0.0 { (NEG, -t) } else { (POS, t) };
    [0, 1, 2].map(|k| (MID[k] + f * (end[k] - MID[k])).round() as u8)
}

/// Draws `rgba` (`size` = columns × rows, row 0 the northernmost) over `area` (south-west and
/// north-east corners) with `alpha`, through the scratch canvas `scratch`.
pub fn draw(
    ctx: &CanvasRenderingContext2d,
    scratch: &HtmlCanvasElement,
    view: &Viewport,
    area: (Metres, Metres),
    size: (usize, usize),
    rgba: &[u8],
    alpha: f64,
) {
    let (cols, rows) = size;
    if cols == 0 || rows == 0 || rgba.len() != cols * rows * 4 {
        return;
    }
    scratch.set_width(cols as u32);
    scratch.set_height(rows as u32);
    let Ok(Some(sctx)) = scratch.get_context("2d") else {
        return;
    };
    let Ok(sctx) = sctx.dyn_into::<CanvasRenderingContext2d>() else {
        return;
    };
    let Ok(image) =
        ImageData::new_with_u8_clamped_array_and_sh(Clamped(rgba), cols as u32, rows as u32)
    else {
        return;
    };
    let _ = sctx.put_image_data(&image, 0.0, 0.0);
    let (x0, y0) = view.to_screen(Metres::new(area.0.east, area.1.north));
    let (x1, y1) = view.to_screen(Metres::new(area.1.east, area.0.north));
    ctx.set_image_smoothing_enabled(true);
    ctx.set_global_alpha(alpha);
    let _ =
        ctx.draw_image_with_html_canvas_element_and_dw_and_dh(scratch, x0, y0, x1 - x0, y1 - y0);
    ctx.set_global_alpha(1.0);
}

/// A scratch canvas for [`draw`] (made once per map).
pub fn scratch() -> Option<HtmlCanvasElement> {
    web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.create_element("canvas").ok())
        .and_then(|e| e.dyn_into::<HtmlCanvasElement>().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ramps_run_end_to_end() {
        assert_eq!(heat_rgb(0.0), [68, 1, 84]);
        assert_eq!(heat_rgb(1.0), [253, 231, 37]);
        assert_eq!(heat_rgb(f32::NAN), [68, 1, 84]);
        assert_eq!(heat_rgb(2.0), [253, 231, 37]);
        assert_eq!(diverging_rgb(0.0), [247, 247, 247]);
        assert_eq!(diverging_rgb(-1.0), [33, 102, 172]);
        assert_eq!(diverging_rgb(5.0), [178, 24, 43]);
    }
}
