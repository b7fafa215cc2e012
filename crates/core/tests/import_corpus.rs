//! The corpus of bad files in `tests/import/bad/`: each must give the expected message (an
//! error, or a warning on an import that keeps the good rows), or be read whole (files in the
//! forms an importer once got wrong), never a panic.
#![cfg(not(target_arch = "wasm32"))]

use std::path::PathBuf;
use whereabouts_core::import::{ImportOptions, import};

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/import")
}

#[test]
fn every_bad_file_gets_its_message() {
    let expected = std::fs::read_to_string(corpus().join("expected.tsv")).unwrap();
    let mut checked = 0;
    let mut listed = Vec::new();
    for line in expected
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let mut f = line.splitn(3, '\t');
        let (file, kind, message) = (f.next().unwrap(), f.next().unwrap(), f.next().unwrap());
        listed.push(file.to_string());
        let bytes = std::fs::read(corpus().join("bad").join(file)).unwrap();
        let result = import(file, &bytes, &ImportOptions::default());
        match (kind, result) {
            ("error", Err(e)) => {
                assert!(
                    e.to_string().contains(message),
                    "{file}: got “{e}”, want “{message}”"
                )
            }
            ("warning", Ok(i)) => {
                let said = [i.warnings.clone(), i.skipped_examples.clone()]
                    .concat()
                    .join(" | ");
                assert!(
                    said.contains(message),
                    "{file}: got “{said}”, want “{message}”"
                );
            }
            // Read whole, nothing to say (the CLI's test checks its summary says `message`).
            ("read", Ok(i)) => assert!(
                i.warnings.is_empty() && i.skipped == 0,
                "{file}: {:?} {:?}",
                i.warnings,
                i.skipped_examples
            ),
            (kind, r) => panic!("{file}: expected {kind}, got {r:?}"),
        }
        checked += 1;
    }
    assert!(checked >= 20, "only {checked} files");
    // Every file in the corpus is listed.
    let mut on_disk: Vec<String> = std::fs::read_dir(corpus().join("bad"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    on_disk.sort();
    listed.sort();
    assert_eq!(on_disk, listed);
}
