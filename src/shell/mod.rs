//! The shell every lab lives in: the tabs and `?lab=` ([`tabs`]), the one engine worker
//! ([`engine`]) and the visitor's own data ([`data`]), which feed every lab.

pub mod data;
pub mod engine;
pub mod tabs;
