//! Which lab: the typed value the page, the worker and the messages between them share (the
//! worker computes only the lab whose tab shows). Its key is the value of `?lab=`, its title the
//! tab's, its prefix that of its keys in the link; what else the page knows of each lab (its
//! settings, groups, lesson) is in the registry, [`crate::labs`].

use serde::{Deserialize, Serialize};

/// The four labs, one per source system (docs/papers.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LabKind {
    Signal,
    Density,
    Linkability,
    Mobility,
}

impl LabKind {
    /// In tab order: the first built, then lightest to heaviest.
    pub const ALL: [LabKind; 4] = [
        LabKind::Signal,
        LabKind::Density,
        LabKind::Linkability,
        LabKind::Mobility,
    ];

    /// The value of `?lab=` (and the lab's name in messages).
    pub fn key(self) -> &'static str {
        match self {
            LabKind::Signal => "signal",
            LabKind::Density => "density",
            LabKind::Linkability => "linkability",
            LabKind::Mobility => "mobility",
        }
    }

    /// The tab's title.
    pub fn title(self) -> &'static str {
        match self {
            LabKind::Signal => "Signal map",
            LabKind::Density => "Density",
            LabKind::Linkability => "Linkability",
            LabKind::Mobility => "Mobility",
        }
    }

    /// The prefix of the lab's keys in the link: "" for the Signal map (its keys were there
    /// before the other labs), `x.` for every other.
    pub fn prefix(self) -> &'static str {
        match self {
            LabKind::Signal => "",
            LabKind::Density => "d.",
            LabKind::Linkability => "l.",
            LabKind::Mobility => "m.",
        }
    }

    pub fn parse(key: &str) -> Option<LabKind> {
        LabKind::ALL.into_iter().find(|l| l.key() == key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lab_is_its_key_everywhere() {
        for lab in LabKind::ALL {
            assert_eq!(LabKind::parse(lab.key()), Some(lab));
            assert_eq!(
                serde_json::to_string(&lab).unwrap(),
                format!("\"{}\"", lab.key())
            );
        }
        assert_eq!(LabKind::parse("nonsense"), None);
    }
}
