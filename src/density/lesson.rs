//! The Density lab's lesson (`?lesson=density`): [003]'s argument in six steps — the baseline
//! federated KDE gives everyone away, random features hide you behind a few secret waves,
//! fewer waves hide more and map worse, more map better and hide less, asking again with a
//! redrawn basis undoes it, and geo-indistinguishability's noise — ending in the sandbox.

use crate::protocol::LabKind;
use crate::ui::lesson::{Lesson, Step};

pub static LESSON: Lesson = Lesson {
    key: "density",
    lab: LabKind::Density,
    title: "A city's density without anyone's location",
    caveat: "Where this differs from the paper: [003] is a poster whose figures did not survive, so the lab's numbers stand on their own. Its city is synthetic (homes, business districts and evening hot spots, generated in your browser); the kernel, the random features and the attacks follow the poster's equations. Nothing you placed left this tab.",
    questions: &[],
    steps: &[
        Step {
            title: "Sending your own bump",
            text: "A city wants to know where its people are, not who is where. Federated kernel density estimation ([003] Eq. 5): each phone sends its kernel bump, a small hill centred on it, and the server sums the hills into the city's density. Summing is all the server needs to do, but every hill still has its top exactly where its sender is.",
            try_this: "Drag one of your places on the map and watch the server's guess follow it.",
            notice: "The card The whole city: {density.found} of its {density.people} people are found within 100 m, and the map's ρ is {density.rho} (ρ = 1 is a perfect map): the density is exact, and so is each person's location.",
            card: r#"[data-testid="density-city-card"]"#,
            settings: &[("d.send", "kde")],
            rounds: None,
            lab: None,
        },
        Step {
            title: "A few secret waves",
            text: "[003]'s scheme (Eq. 7): each phone sends instead the sum of B cosine waves centred on it, each with a random frequency it drew once and keeps secret. Summed over thousands of phones the waves average into the city's density. One phone's upload is a stripe pattern, and its highest point is always where the phone is: every wave's crest passes through it (every cosine is at its top there, so the upload reaches B). What hides the phone is the rest of the pattern: with few waves the crests also cross elsewhere, as high or nearly as high (with a single wave whole ridges tie, with two a lattice of peaks), and on the server's grid a near-tie can come out on top.",
            try_this: "Press Ask again: the phone answers with the same waves, so the server learns nothing new (the paper's rule).",
            notice: "With B = 3 the server's peak picking (the paper's attacker) still finds {density.found} of the city within 100 m (the card The whole city), but the rest land kilometres away: the mean error is {density.mean}, the median {density.median}. The map's ρ falls to {density.rho}.",
            card: r#"[data-testid="density-city-card"]"#,
            settings: &[("d.send", "rff"), ("d.B", "3")],
            rounds: None,
            lab: None,
        },
        Step {
            title: "Fewer waves: more privacy, a worse map",
            text: "With a single wave an upload is a set of parallel ridges: the phone could be on any of them. That is the privacy the scheme promises, and it costs the map, which now has one random wave per person to average.",
            try_this: "Set Random features B to 1, then 2, and back to 3.",
            notice: "With B = 1 the server finds {density.found} of the city within 100 m: the median error is {density.median}, against {density.random} for random guessing, and the map's ρ drops to {density.rho}.",
            card: r#"[data-testid="density-city-card"]"#,
            settings: &[("d.send", "rff"), ("d.B", "1")],
            rounds: None,
            lab: None,
        },
        Step {
            title: "More waves: a better map, and you again",
            text: "Fifty waves make a sharp map, and a sharp upload: with many waves their crests agree in one place only, where the phone is.",
            try_this: "Switch The server's attack to Frequency fitting, the stronger reader of one upload.",
            notice: "{density.found} of the city are found within 100 m again, as with the bump, and ρ rises to {density.rho}: the privacy was the smallness of B, and the trade-off between the two is the scheme's whole story.",
            card: r#"[data-testid="density-city-card"]"#,
            settings: &[("d.send", "rff"), ("d.B", "50")],
            rounds: None,
            lab: None,
        },
        Step {
            title: "Asking again",
            text: "The paper's phones keep their waves for every query. If they drew new waves for each answer (the ablation here), the server could ask many times and average: the waves cancel out, and the only thing common to every answer, your bump, stays.",
            try_this: "Press Ask again a few times, then switch Random waves between queries back to Kept.",
            notice: "With a redrawn basis and ten answers of B = 3 waves the server finds {density.found} of the city within 100 m, where one answer found far fewer (step 2); with a kept basis asking again changes nothing.",
            card: r#"[data-testid="density-city-card"]"#,
            settings: &[
                ("d.send", "rff"),
                ("d.B", "3"),
                ("d.basis", "redrawn"),
                ("d.asks", "10"),
            ],
            rounds: None,
            lab: None,
        },
        Step {
            title: "Noise on the location instead",
            text: "Geo-indistinguishability moves each location by planar-Laplace noise before its bump is sent (mean shift 2/ε). The server then finds the noisy location, precisely.",
            try_this: "Lower ε from 0.01 to 0.001 per metre.",
            notice: "The median error, {density.median}, is about the noise's size (its mean shift is 2/ε), and the map stays nearly perfect: ρ = {density.rho}. With ε ten times smaller you hide kilometres away and the map blurs. Then open the sandbox, and its Studies panel sweeps every B and ε for you.",
            card: r#"[data-testid="density-city-card"]"#,
            settings: &[("d.send", "geoind"), ("d.eps", "0.01")],
            rounds: None,
            lab: None,
        },
    ],
};
