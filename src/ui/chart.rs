//! The chart every lab draws its figures with: an SVG line / scatter chart with two axes that
//! start where the data says, series in colours, a title per point (a tooltip) and an accessible
//! label. Styles are attributes and classes, never inline `style` (the CSP forbids it).

use leptos::prelude::*;

const AXIS: &str = "#c9c2b3";
const INK: &str = "#59636e";

/// One axis: its range (in data units), whether it is logarithmic, and its texts.
#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    pub min: f64,
    pub max: f64,
    /// Positions are log10 of the value (values below `min` sit at `min`).
    pub log: bool,
    /// Printed at the two ends of the axis.
    pub min_text: String,
    pub max_text: String,
    /// What the axis measures (empty: none).
    pub label: String,
}

impl Axis {
    /// A linear axis from 0 to the largest finite value (at least `floor`), with `unit`.
    pub fn from_zero(values: impl Iterator<Item = f64>, floor: f64, unit: &str) -> Axis {
        let max = values.filter(|v| v.is_finite()).fold(floor, f64::max);
        Axis {
            min: 0.0,
            max,
            log: false,
            min_text: "0".into(),
            max_text: format!("{max:.0}{unit}"),
            label: String::new(),
        }
    }

    /// Where `v` falls on the axis, from 0 (min) to 1 (max), clamped.
    pub fn fraction(&self, v: f64) -> f64 {
        let t = |v: f64| if self.log { v.max(1e-300).log10() } else { v };
        let (lo, hi) = (t(self.min), t(self.max));
        if hi - lo <= 0.0 || !v.is_finite() {
            return 0.0;
        }
        ((t(v.max(self.min)) - lo) / (hi - lo)).clamp(0.0, 1.0)
    }
}

/// A point with its tooltip.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    pub x: f64,
    pub y: f64,
    pub title: Option<String>,
}

/// Points in one colour; `joined` draws the line through them in order; `dashed` draws that
/// line dashed and the dots as larger hollow rings (a second measure of the same runs, say).
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub colour: &'static str,
    pub points: Vec<Point>,
    pub joined: bool,
    pub dashed: bool,
}

/// A chart: size in SVG units, margins for the axis texts, axes and series.
#[derive(Clone, Debug, PartialEq)]
pub struct Chart {
    pub width: f64,
    pub height: f64,
    /// Room left of the plot (vertical axis texts) and below it (horizontal axis texts).
    pub left: f64,
    pub bottom: f64,
    pub x: Axis,
    pub y: Axis,
    pub series: Vec<Series>,
    pub dot_radius: f64,
    /// The accessible name of the figure.
    pub label: String,
    pub testid: &'static str,
}

impl Chart {
    const TOP: f64 = 12.0;
    const RIGHT: f64 = 10.0;

    /// SVG coordinates of a data point.
    pub fn position(&self, x: f64, y: f64) -> (f64, f64) {
        let plot_w = self.width - self.left - Self::RIGHT;
        let plot_h = self.height - self.bottom - Self::TOP;
        (
            self.left + plot_w * self.x.fraction(x),
            self.height - self.bottom - plot_h * self.y.fraction(y),
        )
    }

    pub fn view(self) -> impl IntoView {
        let (w, h, left, bottom) = (self.width, self.height, self.left, self.bottom);
        let base = h - bottom;
        let series = self
            .series
            .iter()
            .map(|s| {
                let shown: Vec<&Point> = s
                    .points
                    .iter()
                    .filter(|p| p.x.is_finite() && p.y.is_finite())
                    .collect();
                let line = shown
                    .iter()
                    .map(|p| {
                        let (x, y) = self.position(p.x, p.y);
                        format!("{x:.1},{y:.1}")
                    })
                    .collect::<Vec<_>>()
                    .join(" ");
                let colour = s.colour;
                // Hollow rings a little larger than the dots, so a point both measures share
                // shows as a dot in a ring.
                let (fill, dash, r) = if s.dashed {
                    ("none", "5 4", self.dot_radius + 2.0)
                } else {
                    (colour, "none", self.dot_radius)
                };
                let dots = shown
                    .iter()
                    .map(|p| {
                        let (x, y) = self.position(p.x, p.y);
                        view! {
                            <circle cx=format!("{x:.1}") cy=format!("{y:.1}") r=r
                                fill=fill stroke=colour stroke-width="1.5"><title>{p.title.clone()}</title></circle>
                        }
                    })
                    .collect_view();
                view! {
                    {s.joined.then(|| view! {
                        <polyline points=line fill="none" stroke=colour stroke-width="1.8"
                            stroke-dasharray=dash/>
                    })}
                    {dots}
                }
            })
            .collect_view();
        let (x, y) = (self.x, self.y);
        view! {
            <svg viewBox=format!("0 0 {w} {h}") role="img" aria-label=self.label
                data-testid=self.testid>
                <line x1=left y1=base x2=w - Self::RIGHT y2=base stroke=AXIS/>
                <line x1=left y1=Self::TOP x2=left y2=base stroke=AXIS/>
                <text x=left y=base + 13.0 font-size="10" fill=INK>{x.min_text}</text>
                <text x=w - Self::RIGHT y=base + 13.0 font-size="10" fill=INK text-anchor="end">{x.max_text}</text>
                {(!x.label.is_empty()).then(|| view! {
                    <text x=(w + left) / 2.0 y=h - 2.0 font-size="11" fill=INK text-anchor="middle">{x.label}</text>
                })}
                <text x="2" y=Self::TOP + 2.0 font-size="10" fill=INK>{y.max_text}</text>
                <text x="2" y=base - 2.0 font-size="10" fill=INK>{y.min_text}</text>
                {(!y.label.is_empty()).then(|| view! {
                    <text x=left + 6.0 y=Self::TOP + 12.0 font-size="11" fill=INK>{y.label}</text>
                })}
                {series}
            </svg>
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart(log: bool) -> Chart {
        Chart {
            width: 300.0,
            height: 120.0,
            left: 28.0,
            bottom: 18.0,
            x: Axis {
                min: 1.0,
                max: 100.0,
                log,
                min_text: "1".into(),
                max_text: "100".into(),
                label: String::new(),
            },
            y: Axis::from_zero([3.0, 50.0, f64::NAN].into_iter(), 1.0, " m"),
            series: Vec::new(),
            dot_radius: 2.5,
            label: "test".into(),
            testid: "chart",
        }
    }

    #[test]
    fn axes_map_the_data_range_onto_the_plot() {
        let c = chart(false);
        assert_eq!(c.y.max, 50.0, "NaN ignored");
        assert_eq!(c.y.max_text, "50 m");
        assert_eq!(c.position(1.0, 0.0), (28.0, 102.0));
        assert_eq!(c.position(100.0, 50.0), (290.0, 12.0));
        // Out of range: clamped to the frame.
        assert_eq!(c.position(1e6, 1e6), (290.0, 12.0));
        // A log axis puts 10 halfway between 1 and 100.
        let (x, _) = chart(true).position(10.0, 0.0);
        assert!((x - 159.0).abs() < 1e-9, "{x}");
        // An empty range does not divide by zero.
        let flat = Axis::from_zero(std::iter::empty(), 0.0, "");
        assert_eq!(flat.fraction(3.0), 0.0);
    }
}
