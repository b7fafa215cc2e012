//! The registry of labs: what the page knows of each ([`LabSpec`]: its hidden-controls key and
//! groups, its settings' keys; its title and its keys' prefix are its [`LabKind`]'s), from which
//! the tab bar and the instructor panel are made, and of the lessons ([`LESSONS`], and their
//! [`MENU`] for the page's first download). Each lab declares its spec and its lesson in its own
//! folder; adding a lab adds them here.

pub use crate::lab_spec::LabSpec;
use crate::protocol::LabKind;
use crate::ui::lesson::{Entry, Lesson};

/// Every lab, in tab order.
pub static LABS: [&LabSpec; 4] = [
    &crate::signal_map::SPEC,
    &crate::density::SPEC,
    &crate::linkability::SPEC,
    &crate::mobility::SPEC,
];

/// Every lesson: each lab's, in tab order, then the one that walks across the labs. Only the
/// lesson panel and the instructor's panel read them, so in the site's build their prose is in
/// those panels' chunks (src/shell/lab_views.rs).
pub static LESSONS: [&Lesson; 5] = [
    &crate::signal_map::lesson::LESSON,
    &crate::density::lesson::LESSON,
    &crate::linkability::lesson::LESSON,
    &crate::mobility::lesson::LESSON,
    &crate::course::LESSON,
];

/// What the page knows of [`LESSONS`] before their prose has come (the lessons menu,
/// `?lesson=`), read from them when the page is compiled.
pub static MENU: [Entry; 5] = [
    Entry::of(LESSONS[0]),
    Entry::of(LESSONS[1]),
    Entry::of(LESSONS[2]),
    Entry::of(LESSONS[3]),
    Entry::of(LESSONS[4]),
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
        for (l, lesson) in LABS.iter().zip(LESSONS) {
            assert_eq!(
                lesson.lab,
                l.kind,
                "{}'s lesson, in tab order",
                l.kind.title()
            );
        }
        for (entry, lesson) in MENU.iter().zip(LESSONS) {
            assert_eq!(*entry, Entry::of(lesson));
            assert_eq!(entry.across_labs(), lesson.across_labs());
        }
        for l in LABS {
            let prefix = l.kind.prefix();
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

    /// Lessons whose prose still types the lab's numbers (issue 40 §3: each is being rewritten
    /// to name its figures; the list only shrinks).
    const TYPED: [&str; 0] = [];

    /// What a lesson may state with digits that is no measurement: a definition's constants.
    const DEFINITIONS: &[&str] = &[
        "100 m", "500 m", "10⁻⁵", "1×", "ρ = 1", "ρ = 0", "AUC 0.5", "2/ε", "n − 1",
    ];

    /// Every `{figure}` a lesson names is one its step's lab shows, and no measured number is
    /// typed into a lesson's prose (it would go stale): only citations, the step's own
    /// settings and [`DEFINITIONS`].
    #[test]
    fn a_lessons_numbers_are_read_from_its_labs_cards() {
        use crate::ui::figures::{names, stray_numbers};
        for lesson in LESSONS {
            let typed = TYPED.contains(&lesson.key);
            for (i, s) in lesson.steps.iter().enumerate() {
                let lab = spec(s.lab_in(lesson));
                let at = format!("lesson {}, step {}", lesson.key, i + 1);
                for text in [s.text, s.try_this, s.notice] {
                    for name in names(text) {
                        assert!(
                            lab.figures.contains(&name),
                            "{at}: {{{name}}} is no figure of the {} lab",
                            lab.kind.title()
                        );
                    }
                }
                if typed {
                    continue;
                }
                let mut allowed: Vec<&str> = s.settings.iter().map(|(_, v)| *v).collect();
                allowed.extend(DEFINITIONS);
                for text in [s.text, s.notice] {
                    let stray = stray_numbers(text, &allowed);
                    assert!(stray.is_empty(), "{at} types numbers: {stray:?}");
                }
            }
            for q in lesson.questions {
                for name in names(q.ask).chain(names(q.answer)) {
                    assert!(
                        LABS.iter().any(|l| l.figures.contains(&name)),
                        "lesson {}: {{{name}}} is no lab's figure",
                        lesson.key
                    );
                }
                // A question may name any setting the lesson's steps use.
                let mut allowed: Vec<&str> = lesson
                    .steps
                    .iter()
                    .flat_map(|s| s.settings.iter().map(|(_, v)| *v))
                    .collect();
                allowed.extend(DEFINITIONS);
                let stray: Vec<String> = [q.ask, q.answer]
                    .iter()
                    .flat_map(|t| stray_numbers(t, &allowed))
                    .collect();
                assert!(
                    stray.is_empty() || typed,
                    "lesson {}: a question types numbers: {stray:?}",
                    lesson.key
                );
            }
        }
        // A figure's name is its lab's key and a name, once.
        let mut all: Vec<&str> = LABS
            .iter()
            .flat_map(|l| l.figures.iter().copied())
            .collect();
        for l in LABS {
            for f in l.figures {
                assert!(f.starts_with(&format!("{}.", l.kind.key())), "{f}");
            }
        }
        let n = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n, "a figure is named twice");
    }
}
