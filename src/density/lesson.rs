//! The Density lab's lesson (`?lesson=density`): [003]'s argument and what a privacy course
//! adds to it, in eleven steps — the baseline federated KDE gives everyone away, what the server
//! knows and does (the threat model), random features hide you behind a few secret waves, fewer
//! waves hide more and map worse, more map better and hide less, a server that fits the waves
//! (a heuristic defence against an adaptive attacker), asking again with a redrawn basis,
//! geo-indistinguishability's noise and what its ε promises, ten noisy answers composing, and
//! secure aggregation and central DP on the sum — ending with questions and the sandbox. Its numbers are
//! the lab's figures (`{density.…}`, [`crate::ui::figures`]).

use crate::protocol::LabKind;
use crate::ui::lesson::{Lesson, Question, Step};

pub static LESSON: Lesson = Lesson {
    key: "density",
    lab: LabKind::Density,
    title: "A city's density without anyone's location",
    caveat: "Where this differs from the paper: [003] is a poster whose figures did not survive, so the lab's numbers stand on their own. Its city is synthetic (homes, business districts and evening hot spots, generated in your browser); the kernel, the random features and the attacks follow the poster's equations. Nothing you placed left this tab.",
    questions: &[
        Question {
            ask: "With one wave, peak picking finds almost nobody. Is B = 1 private, then?",
            answer: "Not against every server. Set Random features B to 1 and The server's attack to Fitting + density prior: the card The whole city shows it finding far more people than peak picking did at B = 1, though still a minority: the published density tells it where people are likely to be, and the ridges where this one could be. Random features are a heuristic defence: they hold against the attacker they were tested on. Only a guarantee such as GeoInd's ε holds against every attacker.",
        },
        Question {
            ask: "The server asks ten times. Why does that undo GeoInd when the noise is drawn afresh, and change nothing when the phone keeps its first answer?",
            answer: "Composition: ten independent releases of one location at ε each are together about ten times ε, and their average lands near you (step 9's card The whole city). A kept answer is one release however often it is read, which is [003]'s rule for the waves too.",
        },
        Question {
            ask: "Under secure aggregation the server never sees your upload. What can the published sum still tell about you?",
            answer: "The sum is the density itself: where crowds are, and so where a person in a crowd probably is (the card Where the server puts you, step 10, against random guessing). A released sum can also tell whether a known person was in it at all (membership inference: the Mobility lab's card). Central DP bounds that at the ε the card Central DP shows, per query and in total, at the map's cost.",
        },
    ],
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
            title: "What the server knows, and does",
            text: "Every lab states its threat model; this is the Density lab's. The server is honest but curious: it runs the protocol as written (it asks, sums, publishes the map) and attacks what it receives, here each phone's upload. It knows everything but the phones' secrets: the grid and its cells, the kernel's bandwidth h, the scheme and its number of waves B, and the distribution the waves' frequencies are drawn from, not the frequencies themselves. It does not forge phones, change the protocol, or ask more often than the settings say. An eavesdropper on the network sees the same uploads and can do the same; a server that cheats (it adds phones of its own, or leaves you alone in a round) is shown in the Mobility and Signal map labs.",
            try_this: "Open the \"?\" of the card Where the server puts you: it says what the server attacks in each setting.",
            notice: "With your own bump the server's guess lands {density.error} from your place, against {density.random} for random guessing: what an honest-but-curious server learns needs no cheating at all.",
            card: r#"[data-testid="density-guess-card"]"#,
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
            title: "A server that fits the waves",
            text: "Heuristic and formal defences differ in what they promise. The random waves are a heuristic: they were shown to hide you from one attacker, the paper's peak picking. An adaptive attacker who knows how the upload is made need not pick peaks: this server fits the waves themselves (their frequencies and phases) to your upload and reads your place off the fit. A formal defence, differential privacy or geo-indistinguishability, bounds what any attacker can learn, including ones nobody has written yet; that is the line between steps 3 to 6 and steps 8 to 10.",
            try_this: "Switch The server's attack between Peak picking and Frequency fitting, with B = 3.",
            notice: "With the same B = 3 uploads that hid part of the city from peak picking, the fitting server finds {density.found} of the city within 100 m (median {density.median}). The map has not changed: ρ = {density.rho}.",
            card: r#"[data-testid="density-city-card"]"#,
            settings: &[("d.send", "rff"), ("d.B", "3"), ("d.attack", "fit")],
            rounds: None,
            lab: None,
        },
        Step {
            title: "Asking again",
            text: "The paper's phones keep their waves for every query. If they drew new waves for each answer (the ablation here), the server could ask many times and average: the waves cancel out, and the only thing common to every answer, your bump, stays.",
            try_this: "Press Ask again a few times, then switch Random waves between queries back to Kept.",
            notice: "With a redrawn basis and ten answers of B = 3 waves the server finds {density.found} of the city within 100 m, where one answer found far fewer (step 3); with a kept basis asking again changes nothing.",
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
            title: "Noise on the location, and what ε promises",
            text: "Geo-indistinguishability moves each location by planar-Laplace noise before its bump is sent (mean shift 2/ε). Its promise is differential privacy's, with distance in it: for any two places x and x′ and any report, the report is at most e^(ε·d(x, x′)) times likelier from one than from the other. Here ε is per metre, the neighbours are any two locations, and the nearer two places are, the less the server can tell them apart: at ε = 0.01 per metre, two places 100 m apart differ by a factor of e at most, two places a kilometre apart by much more. It protects one report of one location; what many reports add up to is the next step.",
            try_this: "Lower ε from 0.01 to 0.001 per metre.",
            notice: "The server finds the noisy location, precisely: the median error, {density.median}, is about the noise's size, and the map stays nearly perfect: ρ = {density.rho}. With ε ten times smaller you hide kilometres away and the map blurs.",
            card: r#"[data-testid="density-city-card"]"#,
            settings: &[("d.send", "geoind"), ("d.eps", "0.01")],
            rounds: None,
            lab: None,
        },
        Step {
            title: "Ten noisy answers add up",
            text: "Privacy losses compose: each release spends its ε, and k releases about the same data are together (roughly) k·ε-private. If your phone draws fresh noise each time the server asks, ten answers are ten independent noisy copies of one place, and their average sits close to it. The GeoInd step is this lesson in miniature: a round of many noisy fixes of one place composes to about n times ε, which is why a server that averages them finds the place. Keeping the first answer (the paper's rule for the waves) is one release, however often it is read.",
            try_this: "Switch Random waves between queries to Kept: the noise is drawn once, and asking again changes nothing.",
            notice: "Asked ten times with fresh noise at ε = 0.01 per metre each, the server finds {density.found} of the city within 100 m, with a median error of {density.median}: far closer than one answer's (step 8).",
            card: r#"[data-testid="density-city-card"]"#,
            settings: &[
                ("d.send", "geoind"),
                ("d.eps", "0.01"),
                ("d.basis", "redrawn"),
                ("d.asks", "10"),
            ],
            rounds: None,
            lab: None,
        },
        Step {
            title: "Only the sum",
            text: "Secure aggregation (Bonawitz et al. 2017) masks every upload so that the server can unmask only the sum. Here the sum is the density, the very thing published: aggregation hides your upload, not what the aggregate says. The server attacks the city's sum with you at your place, and the errors stay measured to your own place. The sum still leaks: it says where crowds are, and whether a known person was among those counted (membership inference, the Mobility lab's card). And it trusts the server to count honestly: one that adds phones of its own until you are alone in the sum reads your upload again (the n − 1 attack of the Mobility and Signal map labs).",
            try_this: "Switch Each phone sends between Its own bump and Random features: under the sum, the map is what changes.",
            notice: "From the sum the server's guess lands {density.error} from your place (random guessing: {density.random}); it finds {density.found} of the city within 100 m, and the map is as exact as the uploads: ρ = {density.rho}.",
            card: r#"[data-testid="density-guess-card"]"#,
            settings: &[("d.send", "kde"), ("d.sees", "sum")],
            rounds: None,
            lab: None,
        },
        Step {
            title: "Noise on the sum: central DP",
            text: "Central DP (DP-FedAvg) adds Gaussian noise to the secure sum, after clipping every upload: what the published density says about whether your upload was in it at all is then bounded by a user-level ε, with a small δ. The neighbours are the city with and without your whole upload, the unit a person; each query spends ε again, and the card adds them up. The noise falls on every cell of the map, so a city of few phones pays more for the same ε than a city of many. Unlike steps 3 to 6 this holds against every attacker, and unlike GeoInd it needs someone trusted to add the noise, or the phones to add it in shares.",
            try_this: "Raise the noise multiplier z and watch ε fall and the map blur; press Ask again and watch ε add up.",
            notice: "The card Central DP: your user-level ε is {density.epsilon} at δ = 10⁻⁵, over all the queries so far. The map pays: ρ = {density.rho}, where the sum without noise was exact (the card The density says both). The server finds {density.found} of the city within 100 m.",
            card: r#"[data-testid="density-dp-card"]"#,
            settings: &[("d.send", "kde"), ("d.sees", "dp")],
            rounds: None,
            lab: None,
        },
    ],
};
