//! The registry of labs: what the page knows of each ([`LabSpec`]: its hidden-controls key and
//! groups, its settings' keys, its lesson; its title and its keys' prefix are its
//! [`LabKind`]'s), from which the tab bar, the lessons menu and the instructor panel are made.
//! Each lab declares its spec in its own folder; adding a lab adds it here.

pub use crate::lab_spec::LabSpec;
use crate::protocol::LabKind;
use crate::ui::lesson::Lesson;

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
            let prefix = l.kind.prefix();
            assert_eq!(l.lesson.lab, l.kind, "{}", l.kind.title());
            assert!(l.hide_key.starts_with(prefix));
            for key in (l.settings)().into_iter().chain(l.groups.iter().copied()) {
                assert!(key.starts_with(prefix), "{key}");
                // No other lab's prefix claims it.
                assert!(
                    LABS.iter()
                        .filter(|o| o.kind != l.kind && !o.kind.prefix().is_empty())
                        .all(|o| !key.starts_with(o.kind.prefix())),
                    "{key}"
                );
            }
        }
    }
}
