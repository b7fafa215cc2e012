//! Components every lab shares: the map's plane and drawing aids ([`basemap`]), the map canvas
//! with its pan, zoom and editing hooks ([`map`]), the marks drawn on it ([`marks`]), labels
//! that keep off each other ([`labels`]), the SVG chart ([`chart`]), the "?" help beside a
//! control ([`help`]), a lesson's panel ([`lesson`]) and the lab's figures it reads ([`figures`]) and a QR code ([`qr`]).

pub mod basemap;
pub mod chart;
pub mod count;
pub mod figures;
pub mod help;
pub mod labels;
pub mod layers;
pub mod lesson;
pub mod map;
pub mod marks;
pub mod path_editor;
pub mod path_tool;
pub mod qr;
pub mod raster;
pub mod settings;
pub mod study;
