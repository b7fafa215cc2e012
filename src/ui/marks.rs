//! The marks the labs draw on the map canvas: a line through points, a diamond (the server's
//! guess of a place, in every lab's legend).

use crate::ui::basemap::Viewport;
use web_sys::CanvasRenderingContext2d;
use whereabouts_core::geo::Metres;

/// Strokes a line through `points` (metres on the plane) with the current style.
pub fn polyline(ctx: &CanvasRenderingContext2d, view: &Viewport, points: &[Metres]) {
    ctx.begin_path();
    for (i, p) in points.iter().enumerate() {
        let (x, y) = view.to_screen(*p);
        if i == 0 {
            ctx.move_to(x, y);
        } else {
            ctx.line_to(x, y);
        }
    }
    ctx.stroke();
}

/// A diamond of half-diagonal `r` screen pixels centred at (`x`, `y`): filled with `fill`,
/// outlined 1.5 px in `stroke`.
pub fn diamond(ctx: &CanvasRenderingContext2d, x: f64, y: f64, r: f64, fill: &str, stroke: &str) {
    ctx.begin_path();
    ctx.move_to(x, y - r);
    ctx.line_to(x + r, y);
    ctx.line_to(x, y + r);
    ctx.line_to(x - r, y);
    ctx.close_path();
    ctx.set_fill_style_str(fill);
    ctx.fill();
    ctx.set_stroke_style_str(stroke);
    ctx.set_line_width(1.5);
    ctx.stroke();
}
