//! The Mobility lab's membership card, "Were you in the count?" (issue 40 §2; Pyrgelis et al.,
//! NDSS 2018; the engine's `mobility/membership.rs`): how well an adversary who knows your
//! trajectory tells, from the city's released counts of a group of m people, whether you were
//! in the group — with the release's two settings (m, and its ε) on the card.

use super::MobState;
use crate::ui::help::help;
use leptos::prelude::*;
use whereabouts_engine::mobility::membership::{
    CAP, EPOCH_H, ROI_CELL_M, ROIS, Release, YourMembership,
};
use whereabouts_engine::mobility::settings::RELEASE;

const MEMBERSHIP_HELP: &str = "Membership inference on aggregates (Pyrgelis, Troncoso and De Cristofaro, Knock Knock, Who's There?, NDSS 2018). The city publishes counts: for a group of m people, how many of them were in each of its 30 busiest places (500 m squares) during each six hours of the week. An adversary knows your trajectory (the route you drew or your file) and the trajectories of half of the city's other people. It makes counts of groups of its own, half with you in them, trains a classifier (logistic regression) to tell which, and is then scored on the counts actually released, of groups drawn from the people it does not know, half with you. The score is the AUC: the chance that a count with you scores above a count without you. 0.5 is a coin (the counts say nothing about you); 1 is certainty. The figure is the mean of five such games with its 95% interval. Noise on the counts is the defence that holds against every adversary: user-level differential privacy per release. The groups are m people either way, so even a trajectory that never passes a busy place leaves a trace in exact counts: a group with you has one person fewer who could have been there. Like unicity, this needs no federated learning: it is what published footfall counts say about one person. Changing a setting here runs the lab again; the card is made when its last round is done.";

/// The AUC and its interval as the card says them.
fn auc_text(m: &YourMembership) -> (String, String) {
    let interval = if m.half_width.is_finite() {
        format!(
            "± {:.2} (95% interval over {} games)",
            m.half_width,
            m.aucs.len()
        )
    } else {
        "(one game: no interval)".into()
    };
    (format!("{:.2}", m.auc), interval)
}

/// What the release's ε protects, as the card says it.
fn release_text(r: &Release) -> String {
    match r.epsilon {
        None => format!(
            "Groups of {}, exact counts: no differential privacy.",
            r.group
        ),
        Some(e) => format!(
            "Groups of {}, noised counts: ε = {} per release for a person (user-level: all of a person's visits, capped at {CAP}; δ = 0). Each count is off by {} people on average.",
            r.group,
            whereabouts_core::setting::trim(e),
            whereabouts_core::setting::trim(CAP as f64 / e)
        ),
    }
}

/// What 0.5 and 1 mean, and where this AUC lies.
fn reading(auc: f64) -> &'static str {
    if auc >= 0.9 {
        "The counts give you away: near 1, the adversary almost always tells a group with you from one without."
    } else if auc >= 0.6 {
        "The counts lean: above 0.5 (a coin), below 1 (certainty)."
    } else {
        "About a coin: near 0.5, the counts say little about whether you were in the group."
    }
}

#[component]
pub fn MembershipCard(state: MobState) -> impl IntoView {
    let (btn, text) = help(
        "help-mob-membership".into(),
        "Were you in the count?",
        MEMBERSHIP_HELP,
    );
    let error = RwSignal::new(None::<(&'static str, String)>);
    let controls = state
        .run
        .section(RELEASE, move |k, v| state.set_field(k, v), error);
    let membership = move || state.scene.with(|s| s.membership.clone());
    view! {
        <div class="card" data-testid="mob-membership-card">
            <h3>"Were you in the count?" {btn}</h3>
            {text}
            <div class="settings">{controls}</div>
            {move || match membership() {
                Some(Ok(m)) => {
                    let (auc, interval) = auc_text(&m);
                    view! {
                        <p class="big" data-testid="mob-membership-auc" data-auc=format!("{:.4}", m.auc)
                            data-group=m.release.group.to_string()
                            data-epsilon=m.release.epsilon.map(|e| e.to_string()).unwrap_or_default()>
                            "AUC " <span data-figure="mobility.auc">{auc}</span></p>
                        <p class="sub" data-testid="mob-membership-interval">{interval}</p>
                        <p class="sub" data-testid="mob-membership-reading">{reading(m.auc)}</p>
                        <p class="sub" data-testid="mob-membership-release">{release_text(&m.release)}</p>
                        <p class="sub" data-testid="mob-membership-marks" data-marks=m.marks.to_string()>{format!(
                            "Your trajectory was in {} of the {} (place, time) pairs counted: the {ROIS} busiest {ROI_CELL_M} m squares × {} blocks of {EPOCH_H} hours of the week. The city: {} people, you included. Each game: the adversary trains on {} counts of its own groups and is scored on {} released ones (half with you each time).",
                            m.marks, m.features, m.features / ROIS, m.people, m.train, m.test)}</p>
                    }.into_any()
                }
                Some(Err(e)) => view! {
                    <p class="sub error" data-testid="mob-membership-error">{e}</p>
                }.into_any(),
                None => view! { <p class="sub">"Known when the last round is done."</p> }.into_any(),
            }}
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_release_says_what_its_epsilon_protects() {
        let exact = release_text(&Release {
            group: 5,
            epsilon: None,
        });
        assert!(exact.contains("no differential privacy"), "{exact}");
        let noised = release_text(&Release {
            group: 10,
            epsilon: Some(2.0),
        });
        assert!(
            noised.contains("ε = 2 per release for a person")
                && noised.contains("δ = 0")
                && noised.contains("off by 10 people"),
            "{noised}"
        );
    }

    #[test]
    fn the_reading_follows_the_auc() {
        assert!(reading(0.97).contains("give you away"));
        assert!(reading(0.7).contains("lean"));
        assert!(reading(0.52).contains("coin"));
    }
}
