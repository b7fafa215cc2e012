//! The labs' settings on the command line, by the page's own keys: `run --set KEY=VALUE`
//! applies a setting row ([`whereabouts_core::setting`]) to the run's config — the same key,
//! bound and message as the page's control and link — and `settings --lab LAB` lists every
//! row with its value in the lab's default run, its bound or choices and its "?" text.

use serde::Serialize;
use serde::de::DeserializeOwned;
use whereabouts_core::setting::{Kind, Setting, apply, find, pairs};
use whereabouts_engine::density::DensityConfig;
use whereabouts_engine::linkability::config::LinkConfig;
use whereabouts_engine::mobility::config::MobConfig;
use whereabouts_engine::signal_map::scenario::ScenarioConfig;

/// `text` (a TOML or JSON config; the lab's `default` without one) with `sets` (`KEY=VALUE`)
/// applied by the rows of `table`, in the table's order as a link's are; as JSON. Without
/// `sets` the text is returned as it was.
fn on_text<C: Serialize + DeserializeOwned + Clone>(
    table: &[Setting<C>],
    default: C,
    text: Option<String>,
    sets: &[String],
) -> Result<Option<String>, String> {
    if sets.is_empty() {
        return Ok(text);
    }
    let mut config: C = match &text {
        Some(t) => whereabouts_engine::config_text::parse(t)?,
        None => default,
    };
    let mut given = Vec::new();
    for set in sets {
        let (key, value) = set
            .split_once('=')
            .ok_or_else(|| format!("--set {set}: expected KEY=VALUE"))?;
        if find(table, key).is_none() {
            let keys: Vec<&str> = table.iter().map(|s| s.key).collect();
            return Err(format!(
                "--set {set}: no setting is called “{key}” (this lab's: {})",
                keys.join(", ")
            ));
        }
        given.push((key, value));
    }
    if let Some(problem) = apply(table, &mut config, &given).into_iter().next() {
        return Err(format!("--set: {problem}"));
    }
    for (key, _) in &given {
        if let Some(s) = find(table, key).filter(|s| !(s.relevant)(&config)) {
            eprintln!(
                "whereabouts: --set {key}: {} has no effect with the other settings as they are",
                s.title()
            );
        }
    }
    serde_json::to_string(&config)
        .map(Some)
        .map_err(|e| e.to_string())
}

/// Every row of `table` by section: `key=value` in `config`, its title, bound or choices, and
/// its help.
fn describe<C>(table: &[Setting<C>], config: &C) -> String {
    let mut out = String::new();
    let mut sections: Vec<&str> = Vec::new();
    for s in table {
        if !sections.contains(&s.section) {
            sections.push(s.section);
        }
    }
    let rows: Vec<_> = table.iter().zip(pairs(table, config)).collect();
    for section in sections {
        out += &format!("\n# {section}\n");
        for (s, pair) in rows.iter().filter(|(s, _)| s.section == section) {
            let kind = match s.kind {
                Kind::Number { limit, .. } => limit.text.to_string(),
                Kind::Choice(options) => options
                    .iter()
                    .map(|(k, l)| format!("{k} ({l})"))
                    .collect::<Vec<_>>()
                    .join(", "),
                Kind::Toggle => "1 or 0".into(),
            };
            out += &format!("{pair}\n    {}: {kind}\n    {}\n", s.title(), s.help);
        }
    }
    out
}

/// The config text of `lab`'s run with `sets` applied.
pub fn apply_sets(
    lab: &str,
    text: Option<String>,
    sets: &[String],
) -> Result<Option<String>, String> {
    use whereabouts_engine::{density, linkability, mobility, signal_map};
    match lab {
        "signal-map" => on_text(
            signal_map::settings::SETTINGS,
            ScenarioConfig::default(),
            text,
            sets,
        ),
        "density" => on_text(
            density::settings::SETTINGS,
            DensityConfig::default(),
            text,
            sets,
        ),
        "linkability" => on_text(
            linkability::settings::SETTINGS,
            LinkConfig::default(),
            text,
            sets,
        ),
        "mobility" => on_text(
            mobility::settings::SETTINGS,
            MobConfig::default(),
            text,
            sets,
        ),
        other => Err(format!(
            "no lab is called “{other}” ({})",
            crate::labs::LABS
        )),
    }
}

/// `settings --lab LAB`: every setting of the lab, valued as in its default run.
pub fn list(lab: &str) -> Result<String, String> {
    use whereabouts_engine::{density, linkability, mobility, signal_map};
    let body = match lab {
        "signal-map" => describe(signal_map::settings::SETTINGS, &ScenarioConfig::default()),
        "density" => describe(density::settings::SETTINGS, &DensityConfig::default()),
        "linkability" => describe(linkability::settings::SETTINGS, &LinkConfig::default()),
        "mobility" => describe(mobility::settings::SETTINGS, &MobConfig::default()),
        other => {
            return Err(format!(
                "no lab is called “{other}” ({})",
                crate::labs::LABS
            ));
        }
    };
    Ok(format!(
        "# The {lab} lab's settings, as in `run --lab {lab}` without a config; set one with\n\
         # `run --lab {lab} --set KEY=VALUE` (the page's link uses the same keys).\n{body}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_is_the_pages_setting_and_a_bad_one_is_named() {
        let text = apply_sets("density", None, &["d.B=5".into(), "d.N=2000".into()])
            .unwrap()
            .unwrap();
        let c: DensityConfig = whereabouts_engine::config_text::parse(&text).unwrap();
        assert_eq!((c.features(), c.population), (5, 2000));
        // Applied over a config's text, in the table's order: the defence before its ε.
        let base = ScenarioConfig {
            seed: 3,
            ..ScenarioConfig::default()
        }
        .to_toml()
        .unwrap();
        let text = apply_sets(
            "signal-map",
            Some(base.clone()),
            &["dpe=30".into(), "def=dp".into()],
        )
        .unwrap()
        .unwrap();
        let c: ScenarioConfig = whereabouts_engine::config_text::parse(&text).unwrap();
        assert_eq!(c.seed, 3);
        assert!(
            matches!(c.defence, whereabouts_engine::signal_map::defence::Defence::LocalDp(d) if d.epsilon == 30.0)
        );
        assert_eq!(
            apply_sets("mobility", Some(base.clone()), &[]),
            Ok(Some(base))
        );
        let e = apply_sets("linkability", None, &["l.people=3".into()]).unwrap_err();
        assert!(e.starts_with("--set: People"), "{e}");
        let e = apply_sets("linkability", None, &["people=30".into()]).unwrap_err();
        assert!(e.contains("no setting is called “people”"), "{e}");
        assert!(apply_sets("linkability", None, &["l.people".into()]).is_err());
        for lab in ["signal-map", "density", "linkability", "mobility"] {
            assert!(list(lab).unwrap().contains("Seed"), "{lab}");
        }
    }
}
