//! The Mobility lab's lesson (`?lesson=mobility`): [002]'s argument — ST-GIA rebuilds a window
//! of the route from each round's gradient (and what the server is given to do it), its
//! switches, a plain DLG beside it, position noise (GeoI, and why its reports compose), the
//! adaptive budget (a heuristic, with no end-to-end ε) and DP-SGD (what its ε protects) — then
//! secure aggregation and the server that cheats it, and two leaks that need no learning at
//! all, unicity and membership inference on released counts — ending in the students' questions and the sandbox. Every number it states is
//! read from the lab's cards (`{mobility.…}`, [`crate::ui::figures`]).

use crate::protocol::LabKind;
use crate::ui::lesson::{Lesson, Question, Step};

pub static LESSON: Lesson = Lesson {
    key: "mobility",
    lab: LabKind::Mobility,
    title: "Your route from a next-place predictor",
    caveat: "Where this differs from the paper: [002] attacks models trained on New York bus traces and Foursquare / Gowalla check-ins; here the city, its streets and its users are synthetic, generated in your browser. The model (an LSTM), the attacks and the defences follow the paper and its authors' code; in the code's setting (one SGD step a round) the model barely learns in these rounds — the model card shows it beside staying where you are — so the defences cannot show a utility cost here. Secure aggregation, the Sybil server and unicity are beyond the paper; figures measured over many users, with their intervals, are in docs/reproduce-mobility.md.",
    questions: &[
        Question {
            ask: "With What the server sees on Only the sum, how does the attack's mean success rate change as you give your round more co-participants, and what undoes it?",
            answer: "It falls as Co-participants grows (the card Every round so far): the server inverts the round's mean gradient, a blend of every phone's window. A server with Sybil clients subtracts its own and inverts yours alone, and the rate comes back; a Minimum genuine phones a round above one makes it let genuine phones in, and the blend returns.",
        },
        Question {
            ask: "Under DP-SGD, raise the Privacy budget ε per round. What does the server recover, and what is your total ε after the rounds?",
            answer: "The success rate stays near zero even at large ε (the card Every round so far): the clipped gradient is small beside the noise. The privacy budget card gives ε per round and the total after the rounds (Rényi-DP accounting at δ = 10⁻⁵), several times the round's: each round's window is protected, and the rounds add up.",
        },
        Question {
            ask: "How many of your points does it take to single you out among the city's people, and does forgetting the hour help?",
            answer: "The card Your points in the crowd: the share of draws of p of your points that no one else shares, for p from one to four, with the hour (you) and without it (you, places); the everyone column is the city's own. More points single out more people; without the hour fewer.",
        },
    ],
    steps: &[
        Step {
            title: "One window a round",
            text: "Your phone helps train a model that predicts your next position from your last eight (an LSTM, [002] §2). Each round it takes one training step on the latest window of your route and sends the gradient. ST-GIA, the paper's attack, makes up eight positions and a next one and moves them until the gradient they would give matches yours. The threat model: the server is honest but curious — it trains the model as agreed and only reads what it is sent. It knows the model's weights in every round, the learning rate, that an update is one step on one window of eight positions and the next, the streets, the round, and (as in the authors' code) the box your positions are scaled to; it does not know your positions. An eavesdropper on the network sees the same gradient. A server that cheats is at the end of this lesson.",
            try_this: "Step through the rounds and follow the server's guesses converging on the map.",
            notice: "The card This round: the success rate ASR is the share of the window's positions the server placed within 500 m of the truth, {mobility.asr} in the round shown, found by step {mobility.ait} of the attack on average (AIT). Every round so far gives the mean: {mobility.mean}.",
            card: r#"[data-testid="mob-mean-card"]"#,
            settings: &[("m.T", "12")],
            rounds: None,
            lab: None,
        },
        Step {
            title: "ST-GIA's switches",
            text: "ST-GIA adds three things to a plain gradient inversion (§3): it starts each round from its previous reconstruction (the paper's Eq. 6 takes the previous window as it was, with a random next position; the authors' code, which this lab follows unless you change Start from the last round, slides it by one position and appends the previous guess of the next one), it moves every guess onto the nearest street after each step (vehicles and check-ins are on the streets), and it averages each position over the windows it was in (Eq. 9). This step turns the street mapping off.",
            try_this: "Switch Snap guesses between Off and Streets, and Average each point's guesses off and on.",
            notice: "The mean ASR is now {mobility.mean}: compare it with the first step's. In the paper the mapping raises ASR (Fig. 4b), and it does in this project's reproduction of the paper over the city's bus and check-in users (the command line's reproduce); on a drawn route it can go the other way: without the mapping the guesses here are found more often. A mapping is a prior: it helps when the guesses are near the right street, and pulls them onto a wrong one otherwise.",
            card: r#"[data-testid="mob-mean-card"]"#,
            settings: &[("m.T", "12"), ("m.map", "off")],
            rounds: None,
            lab: None,
        },
        Step {
            title: "ST-GIA beside plain DLG",
            text: "The baselines of Tables 3 and 4 invert the same gradient without ST-GIA's switches.",
            try_this: "Switch The server's attack between DLG and ST-GIA and compare ASR and AIT (the first iteration at which a position came within 500 m).",
            notice: "DLG finds {mobility.mean} of the positions on average, at step {mobility.ait} in the round shown: ST-GIA finds them in far fewer iterations. Its ASR beats DLG's clearly on check-in data; on bus-like routes such as yours the two can be close in this world, where the paper has ST-GIA ahead in every round.",
            card: r#"[data-testid="mob-round-card"]"#,
            settings: &[("m.T", "12"), ("m.method", "dlg")],
            rounds: None,
            lab: None,
        },
        Step {
            title: "Noise on every position: GeoI",
            text: "Geo-indistinguishability moves every position of the window by planar-Laplace noise before the phone trains. Its ε is per km: two places d km apart give any noisy report with probabilities at most e^(ε·d) apart — near places are hard to tell apart, far ones are not. And it is spent on every report. A position sits in up to nine windows, noised afresh in each, so a position reported n times costs about nε per km: n noisy copies of one place average towards it, which is what ST-GIA's averaging (Eq. 9) does. This step is the whole of differential privacy in miniature: a bound per release, releases adding up.",
            try_this: "Try a Privacy budget ε of 1 and of 20 (per km).",
            notice: "At ε = 1 per km the mean ASR falls to {mobility.mean}, far below the undefended run's; at large ε the noise is small and the server finds you again.",
            card: r#"[data-testid="mob-mean-card"]"#,
            settings: &[("m.T", "12"), ("m.def", "geoi"), ("m.eps", "1")],
            rounds: None,
            lab: None,
        },
        Step {
            title: "A budget spent by risk",
            text: "The paper's defence (§4) runs three things together: PGEM (Eq. 13), which replaces each position of the window with one of your own places, drawn nearer ones likelier; a total ε shared out over the rounds, ε_t = e^(−γ_t)·(what is left) (Eqs. 10–12); and γ_t from that round's ASR and AIT, which the paper does not say how to get. Our reading: the phone attacks its own update first to measure them.",
            try_this: "Watch the budget bar under the figure as the rounds go by.",
            notice: "{mobility.spent} of the budget is spent, most of it in the first rounds (each round takes at least e⁻¹ of what is left), so the later rounds are very noisy and the mean ASR stays low, {mobility.mean}. Heuristic versus formal: the ε covers PGEM's draws only. Choosing ε_t from an ASR measured on your true route is itself a use of your data that no ε accounts for, so the run has no end-to-end ε: it holds against this attacker, measured this way, and promises nothing about another. And PGEM sends only real places you visit: a guess that lands on one misses where you were this round, which is all ASR counts, yet hits where you go (docs/reproduce-mobility.md measures how often).",
            card: r#"[data-testid="mob-budget-card"]"#,
            settings: &[("m.T", "12"), ("m.def", "adaptive"), ("m.eps", "10")],
            rounds: None,
            lab: None,
        },
        Step {
            title: "DP-SGD: what its ε protects",
            text: "DP-SGD clips your phone's whole gradient to a fixed length and adds Gaussian noise. Its guarantee: for any update the server could see, the log of the ratio of its probability under any two windows your phone could have trained on is at most ε, except with probability δ. The neighbour is any other window — its eight positions and the next one — because the server sees your phone's own update: this is local DP, each phone protecting itself against the server. Each round is one release, (ε, 10⁻⁵)-private for that round's window; the rounds compose, and the budget card shows the total for your whole trajectory. Unlike the heuristics, this holds against every attacker, ST-GIA or one not yet written — for what it protects.",
            try_this: "Raise the Privacy budget ε to 20 and see whether the server recovers; watch the total ε grow round by round.",
            notice: "The mean ASR is {mobility.mean}: against a clipped gradient even this ε's noise is large. Each round costs ε = {mobility.epsilon_round}; after {mobility.rounds} rounds the total is {mobility.epsilon} — both upper bounds, from different accountings.",
            card: r#"[data-testid="mob-budget-card"]"#,
            settings: &[("m.T", "12"), ("m.def", "dpsgd"), ("m.eps", "10")],
            rounds: None,
            lab: None,
        },
        Step {
            title: "Only the sum: aggregation is not privacy",
            text: "Secure aggregation (Bonawitz et al. 2017): the round's phones mask their gradients so that the server, and any eavesdropper, can unmask only their sum. Here your round has co-participants, other users of the city taking their step on their own windows. The server learns the same model and inverts the only gradient it has, the round's mean: ST-GIA rebuilds a blend of everyone's windows. A sum hides you only among the others in it — the fewer, the less: a sum of one is your gradient; and two sums whose rounds differ by you alone differ by your gradient (disaggregation).",
            try_this: "Set Co-participants to 0, then back to 9.",
            notice: "The server saw only the sum of {mobility.phones} phones' gradients, and the mean ASR to your positions falls to {mobility.mean}. With no co-participants the sum is your own gradient and the server finds you as before.",
            card: r#"[data-testid="mob-round-card"]"#,
            settings: &[("m.T", "12"), ("m.sees", "sum"), ("m.co", "9")],
            rounds: None,
            lab: None,
        },
        Step {
            title: "A server that cheats: the n − 1 attack",
            text: "Secure aggregation assumes the server picks the round honestly. A server that does not can fill your round with phones of its own (Sybils), running on data it made, and leave every other genuine phone out. It subtracts its Sybils' gradients from the secure sum and holds yours. The defence: your phone sends only when enough genuine phones — ones the server cannot forge — are in the round; the Sybil server must then let them in, and what is left after its subtraction is their blend again.",
            try_this: "Raise Minimum genuine phones a round to 10, and watch the mean ASR fall back.",
            notice: "The Sybil server put {mobility.sybils} phones of its own in your round, and the mean ASR is back to {mobility.mean}: the sum protected nothing against the server that chose it.",
            card: r#"[data-testid="mob-round-card"]"#,
            settings: &[
                ("m.T", "12"),
                ("m.sees", "sum"),
                ("m.co", "9"),
                ("m.sybil", "9"),
            ],
            rounds: None,
            lab: None,
        },
        Step {
            title: "Your points in the crowd",
            text: "A leak that needs no model at all: unicity (de Montjoye et al. 2013). Take a few of your points — where you were, to a square of the city, and at which hour of the week — and look for anyone else in the city who was at all of them. If nobody was, those points single you out: whoever holds the city's traces and learns them (a receipt, a photo, a check-in) picks out your whole trace, name or no name. In the paper four hourly points single out nearly everyone of a million and a half phone users.",
            try_this: "Read the card Your points in the crowd once the rounds are done; then change the Seed for another city.",
            notice: "One of your points singles you out in {mobility.you1} of draws, four in {mobility.you4}; forgetting the hour, four places still do in {mobility.places4}. Among the city's {mobility.people} people, four points single out {mobility.everyone4} of them.",
            card: r#"[data-testid="mob-unicity-card"]"#,
            settings: &[("m.T", "12")],
            rounds: None,
            lab: None,
        },
        Step {
            title: "Were you in the count?",
            text: "Another leak without a model: membership inference on aggregates (Pyrgelis et al. 2018, NDSS). The city publishes, for a group of m people, how many of them were in each of its busiest places in each six hours of the week — no one's trace, only counts. An adversary who knows your trajectory, and many other people's, makes up groups of its own with and without you, learns to tell their counts apart, and asks of the released counts: was this person in the group? Its score is the AUC: the chance that a count with you scores above one without you. A larger group is aggregation again — it blurs you among more people, against this adversary. Noise on the counts is differential privacy: each person's visits capped, Laplace noise on every count, so adding or removing one person changes the chance of any release by a factor of at most e^ε — against every adversary, for each release, and the releases add up.",
            try_this: "On the card Were you in the count?, raise People in a group m, then turn Noise on the counts (DP) on and try the counts' ε at 1 and 10.",
            notice: "With exact counts of groups of four people the adversary's AUC is {mobility.auc} (AUC 0.5 is a coin, one is certainty): the further above a coin, the more the counts alone say whether you were in the group. Then open the sandbox; its Studies panel runs every defence at every ε.",
            card: r#"[data-testid="mob-membership-card"]"#,
            settings: &[("m.T", "12"), ("m.group", "4")],
            rounds: None,
            lab: None,
        },
    ],
};
