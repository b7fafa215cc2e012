//! Components every lab shares: the map's plane and drawing aids ([`basemap`]), the map canvas
//! with its pan, zoom and editing hooks ([`map`]), the SVG chart ([`chart`]), the "?" help beside a control ([`help`]).

pub mod basemap;
pub mod chart;
pub mod help;
pub mod map;
