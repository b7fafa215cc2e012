//! The shell every lab lives in: the tabs and `?lab=` ([`tabs`]), the one engine worker
//! ([`engine`]), the visitor's own data ([`data`]) and the visitor's drawn path in the link
//! ([`path_link`]: the Signal map draws it, the Linkability lab walks it), which feed every lab;
//! the instructor's link and present mode ([`instructor`]); the glossary ([`glossary`]); the
//! later labs' views, fetched when their tab first shows ([`lab_views`]).

pub mod data;
pub mod engine;
pub mod glossary;
pub mod instructor;
pub mod lab_views;
pub mod path_link;
pub mod run;
pub mod tab_bar;
pub mod tabs;

/// The query key of the visitor's drawn path (the Signal map's, which draws it).
pub const PATH_KEY: &str = "path";
