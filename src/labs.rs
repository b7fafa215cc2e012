//! The registry of labs: what the page knows of each — its title, the prefix of its keys in
//! the link, its hidden-controls key and groups, its settings' keys, its lesson — from which
//! the tab bar, the lessons menu, the instructor panel and the link's bookkeeping are made.
//! Each lab declares its [`LabSpec`] in its own folder; adding a lab adds it here.

use crate::protocol::LabKind;
use crate::ui::lesson::Lesson;

/// What the page knows of one lab.
pub struct LabSpec {
    pub kind: LabKind,
    /// The tab's title.
    pub title: &'static str,
    /// The prefix of the lab's keys in the link: "" for the Signal map (its keys were there
    /// before the other labs), `x.` for every other.
    pub prefix: &'static str,
    /// The link's key for the controls an instructor hid.
    pub hide_key: &'static str,
    /// The groups of controls an instructor may hide besides the settings.
    pub groups: &'static [&'static str],
    /// Every setting's key.
    pub settings: fn() -> Vec<&'static str>,
    pub lesson: &'static Lesson,
}

/// Every lab, in tab order.
pub static LABS: [&LabSpec; 4] = [
    &crate::signal_map::SPEC,
    &crate::density::SPEC,
    &crate::linkability::SPEC,
    &crate::mobility::SPEC,
];

/// Every lab's lesson, in tab order.
pub static LESSONS: [&Lesson; 4] = [
    LABS[0].lesson,
    LABS[1].lesson,
    LABS[2].lesson,
    LABS[3].lesson,
];

/// The spec of `kind`.
pub fn spec(kind: LabKind) -> &'static LabSpec {
    LABS.iter()
        .find(|l| l.kind == kind)
        .expect("every lab is registered")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_lab_is_registered_once_in_tab_order_with_its_own_lesson_and_keys() {
        let kinds: Vec<LabKind> = LABS.iter().map(|l| l.kind).collect();
        assert_eq!(kinds, LabKind::ALL);
        for l in LABS {
            assert_eq!(l.lesson.lab, l.kind, "{}", l.title);
            assert!(l.hide_key.starts_with(l.prefix));
            for key in (l.settings)().into_iter().chain(l.groups.iter().copied()) {
                assert!(key.starts_with(l.prefix), "{key}");
                // No other lab's prefix claims it.
                assert!(
                    LABS.iter()
                        .filter(|o| o.kind != l.kind && !o.prefix.is_empty())
                        .all(|o| !key.starts_with(o.prefix)),
                    "{key}"
                );
            }
        }
    }
}
