//! The record of choices stays reachable: every reference to a section of docs/papers.md in
//! the repository's code and docs (`docs/papers.md §3a`, "see docs/papers.md §4", the README's
//! `` `docs/papers.md` §3d ``, a reference broken over two lines) names one of its headings, and
//! every item such a reference names in quotes (`docs/papers.md §3a, "Output bias and warm
//! start"`) is an item (`*…*`) of that section. Inside docs/papers.md, every `§3b`-style label
//! (a digit and a letter: no paper numbers its sections so) must be one of its headings too.
//!
//! A reference that dangles fails the test with its file, line and the missing § or item.
//! The scan walks the workspace (not `target*`, `node_modules`, `dist` or dot-directories).

use std::path::{Path, PathBuf};

const PAPERS: &str = "docs/papers.md";
/// Files that may carry a reference.
const EXTENSIONS: &[&str] = &[
    "rs", "md", "mjs", "js", "toml", "html", "sh", "txt", "yaml", "css",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.is_dir() {
            let skip = name.starts_with('.')
                || name.starts_with("target")
                || name == "node_modules"
                || name == "dist";
            if !skip {
                walk(&path, out);
            }
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| EXTENSIONS.contains(&e))
        {
            out.push(path);
        }
    }
}

/// One heading of docs/papers.md: its label ("3a" of "## 3a. Signal map: …") and the text of
/// its section, whitespace collapsed.
struct Section {
    label: String,
    text: String,
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The label a heading line gives its section, if it is numbered.
fn heading_label(line: &str) -> Option<String> {
    let title = line.strip_prefix('#')?.trim_start_matches('#').trim_start();
    if !title.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let label: String = title
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '.')
        .collect();
    Some(label.trim_end_matches('.').to_string())
}

fn sections(papers: &str) -> Vec<Section> {
    let mut out: Vec<Section> = Vec::new();
    for line in papers.lines() {
        if let Some(label) = heading_label(line) {
            out.push(Section {
                label,
                text: String::new(),
            });
        } else if let Some(s) = out.last_mut() {
            s.text.push(' ');
            s.text.push_str(line);
        }
    }
    for s in &mut out {
        s.text = collapse(&s.text);
    }
    out
}

/// A line with its comment or list marker taken off (a reference may continue on it).
fn continuation(line: &str) -> &str {
    let t = line.trim_start();
    for marker in ["//!", "///", "//", "#", "*", "-", ">"] {
        if let Some(rest) = t.strip_prefix(marker) {
            return rest.trim_start();
        }
    }
    t
}

/// What one mention of docs/papers.md refers to: a section label and an item, each optional.
#[derive(Debug, PartialEq)]
struct Reference {
    section: Option<String>,
    item: Option<String>,
}

/// Reads the reference that follows a mention of "papers.md" (`tail`: the rest of its line and
/// the next two). `Err` for a § with no label or a quoted item that never closes.
fn parse(tail: &str) -> Result<Reference, String> {
    let rest = tail.trim_start_matches('`').trim_start();
    let (section, rest) = match rest.strip_prefix('§') {
        Some(after) => {
            let after = after.trim_start();
            let label: String = after
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '.')
                .collect();
            let label = label.trim_end_matches('.').to_string();
            if !label.starts_with(|c: char| c.is_ascii_digit()) {
                return Err("a § with no section after it".into());
            }
            (Some(label.clone()), &after[label.len()..])
        }
        None => (None, rest),
    };
    let item = match rest.trim_start().strip_prefix(',') {
        Some(after) => match after.trim_start().strip_prefix('"') {
            Some(quoted) => match quoted.find('"') {
                Some(end) => Some(collapse(&quoted[..end])),
                None => return Err("a quoted item that never closes".into()),
            },
            None => None,
        },
        None => None,
    };
    Ok(Reference { section, item })
}

/// Every dangling reference in `text` (the file `name`), and how many references it holds.
fn check_file(name: &str, text: &str, sections: &[Section]) -> (Vec<String>, usize) {
    let labels: Vec<&str> = sections.iter().map(|s| s.label.as_str()).collect();
    let lines: Vec<&str> = text.lines().collect();
    let (mut errors, mut seen) = (Vec::new(), 0);
    for (i, line) in lines.iter().enumerate() {
        let next = |k: usize| lines.get(i + k).map_or("", |l| continuation(l));
        for (at, _) in line.match_indices("papers.md") {
            let tail = format!(
                "{} {} {}",
                &line[at + "papers.md".len()..],
                next(1),
                next(2)
            );
            let reference = match parse(&tail) {
                Ok(r) => r,
                Err(why) => {
                    errors.push(format!("{name}:{}: {PAPERS}: {why}", i + 1));
                    continue;
                }
            };
            if reference.section.is_some() || reference.item.is_some() {
                seen += 1;
            }
            let section = match &reference.section {
                Some(label) => match sections.iter().find(|s| &s.label == label) {
                    Some(s) => Some(s),
                    None => {
                        errors.push(format!(
                            "{name}:{}: {PAPERS} has no §{label} (its headings: §{})",
                            i + 1,
                            labels.join(", §")
                        ));
                        continue;
                    }
                },
                None => None,
            };
            if let Some(item) = &reference.item {
                let wanted = format!("*{item}*");
                let found = match section {
                    Some(s) => s.text.contains(&wanted),
                    None => sections.iter().any(|s| s.text.contains(&wanted)),
                };
                if !found {
                    let place = section.map_or(String::new(), |s| format!(" §{}", s.label));
                    errors.push(format!(
                        "{name}:{}: {PAPERS}{place} has no item \"{item}\"",
                        i + 1
                    ));
                }
            }
        }
    }
    (errors, seen)
}

/// docs/papers.md's own "§3b"-style labels (a digit, then a letter).
fn check_own_labels(papers: &str, sections: &[Section]) -> Vec<String> {
    let mut errors = Vec::new();
    for (i, line) in papers.lines().enumerate() {
        for (at, _) in line.match_indices('§') {
            let label: String = line[at + '§'.len_utf8()..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric())
                .collect();
            let mut chars = label.chars();
            let ours = chars.next().is_some_and(|c| c.is_ascii_digit())
                && chars.next().is_some_and(|c| c.is_ascii_lowercase());
            if ours && !sections.iter().any(|s| s.label == label) {
                errors.push(format!("{PAPERS}:{}: no heading §{label}", i + 1));
            }
        }
    }
    errors
}

#[test]
fn every_reference_to_docs_papers_md_names_one_of_its_sections() {
    let root = root();
    let papers = std::fs::read_to_string(root.join(PAPERS)).expect("docs/papers.md");
    let sections = sections(&papers);
    assert!(
        sections.len() >= 5,
        "docs/papers.md: only {} numbered headings read",
        sections.len()
    );
    let mut files = Vec::new();
    walk(&root, &mut files);
    let this = Path::new(file!()).file_name().expect("this file's name");
    let (mut errors, mut seen) = (check_own_labels(&papers, &sections), 0);
    for path in files {
        if path.ends_with(Path::new("crates/core/tests").join(this)) {
            continue; // its own docs show the forms
        }
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue; // not text
        };
        let name = path
            .strip_prefix(&root)
            .unwrap_or(&path)
            .display()
            .to_string();
        let (e, n) = check_file(&name, &text, &sections);
        errors.extend(e);
        seen += n;
    }
    // A scan that finds nothing (a wrong root, a new spelling) must not pass as clean.
    assert!(
        seen >= 20,
        "only {seen} references to docs/papers.md sections found"
    );
    assert!(
        errors.is_empty(),
        "{} dangling reference(s) to docs/papers.md:\n{}",
        errors.len(),
        errors.join("\n")
    );
}

#[test]
fn the_check_reads_every_form_and_catches_what_dangles() {
    let papers = "# Title\n## 1. References\n## 3a. Signal map\n- *Output bias and warm\n  start* (x)\n## 4. The findings check\nsee §3a and §3z\n";
    let sections = sections(papers);
    let labels: Vec<&str> = sections.iter().map(|s| s.label.as_str()).collect();
    assert_eq!(labels, ["1", "3a", "4"]);
    let ok = "see docs/papers.md §3a.\n`docs/papers.md` §4 and docs/papers.md)\n\
              //! (docs/papers.md\n//! §3a, \"Output bias and\n//! warm start\")\n\
              docs/papers.md, \"Output bias and warm start\"\n[papers.md](papers.md)\n";
    let (errors, seen) = check_file("ok.rs", ok, &sections);
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(seen, 4);
    let bad = "a\n/// see docs/papers.md §3d here\ndocs/papers.md §3a, \"No such item\"\n\
               docs/papers.md §\ndocs/papers.md, \"Unclosed\n";
    let (errors, _) = check_file("bad.rs", bad, &sections);
    assert_eq!(errors.len(), 4, "{errors:#?}");
    assert!(
        errors[0].starts_with("bad.rs:2: docs/papers.md has no §3d"),
        "{}",
        errors[0]
    );
    assert!(errors[1].starts_with("bad.rs:3: docs/papers.md §3a has no item \"No such item\""));
    assert!(errors[2].starts_with("bad.rs:4:") && errors[2].contains("no section"));
    assert!(errors[3].starts_with("bad.rs:5:") && errors[3].contains("never closes"));
    assert_eq!(
        check_own_labels(papers, &sections),
        ["docs/papers.md:7: no heading §3z"]
    );
}
