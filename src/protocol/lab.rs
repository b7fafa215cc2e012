//! Which lab: the typed value the page, the worker and the messages between them share (the
//! worker computes only the lab whose tab shows). Its key is the value of `?lab=`; what the page
//! knows of each lab (title, its link's prefix, its lesson) is in the registry, [`crate::labs`].

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
