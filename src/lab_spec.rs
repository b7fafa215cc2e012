//! What a lab declares about itself for the registry ([`crate::labs`]), in its own folder: the
//! link's key for hidden controls, the groups of controls an instructor may hide, its settings'
//! keys and the figures its cards show a lesson. (Its title and the prefix of its keys are its [`LabKind`]'s.)

use crate::protocol::LabKind;

/// What the page knows of one lab.
pub struct LabSpec {
    pub kind: LabKind,
    /// The link's key for the controls an instructor hid.
    pub hide_key: &'static str,
    /// The groups of controls an instructor may hide besides the settings.
    pub groups: &'static [&'static str],
    /// Every setting's key.
    pub settings: fn() -> Vec<&'static str>,
    /// The figures its cards mark (`data-figure="lab.name"`), which lessons may name
    /// ([`crate::ui::figures`]).
    pub figures: &'static [&'static str],
}
