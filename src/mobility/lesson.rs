//! The Mobility lab's lesson (`?lesson=mobility`): [002]'s argument in six steps — ST-GIA
//! rebuilds a window of the route from each round's gradient, its street mapping, a plain DLG
//! beside it, position noise, the adaptive budget and DP-SGD — ending in the sandbox.

use crate::protocol::LabKind;
use crate::ui::lesson::{Lesson, Step};

pub static LESSON: Lesson = Lesson {
    key: "mobility",
    lab: LabKind::Mobility,
    title: "Your route from a next-place predictor",
    caveat: "Where this differs from the paper: [002] attacks models trained on New York bus traces and Foursquare / Gowalla check-ins; here the city, its streets and its users are synthetic, generated in your browser. The model (an LSTM), the attacks and the defences follow the paper and its authors' code; in the code's setting (one SGD step a round) the model barely learns in 50 rounds, so the defences cannot show a utility cost here.",
    questions: &[],
    steps: &[
        Step {
            title: "One window a round",
            text: "Your phone helps train a model that predicts your next position from your last eight (an LSTM, [002] §2). Each round it takes one training step on the latest window of your route and sends the gradient. ST-GIA, the paper's attack, makes up eight positions and a next one and moves them until the gradient they would give matches yours.",
            try_this: "Step through the rounds and follow the server's guesses converging on the map.",
            notice: "The card This round: the success rate ASR is the share of the window's positions the server placed within 500 m of the truth; Every round so far gives its mean.",
            card: r#"[data-testid="mob-mean-card"]"#,
            settings: &[("m.T", "12")],
            rounds: None,
            lab: None,
        },
        Step {
            title: "ST-GIA's switches",
            text: "ST-GIA adds three things to a plain gradient inversion (§3): it starts each round from its previous reconstruction (the paper's Eq. 6 takes the previous window as it was, with a random next position; the authors' code, which this lab follows unless you change Start from the last round, slides it by one position and appends the previous guess of the next one), it moves every guess onto the nearest street after each step (vehicles and check-ins are on the streets), and it averages each position over the windows it was in (Eq. 9). This step turns the street mapping off.",
            try_this: "Switch Snap guesses between Off and Streets, and Average each point's guesses off and on.",
            notice: "Compare the mean ASR with the first step's. In the paper the mapping raises ASR (Fig. 4b), and it does in this project's reproduction of the paper over the city's bus and check-in users (the command line's reproduce); on a drawn route over 12 rounds it can go the other way: without the mapping the guesses here are found more often and sooner. A mapping is a prior: it helps when the guesses are near the right street, and pulls them onto a wrong one otherwise.",
            card: r#"[data-testid="mob-mean-card"]"#,
            settings: &[("m.T", "12"), ("m.map", "off")],
            rounds: None,
            lab: None,
        },
        Step {
            title: "ST-GIA beside plain DLG",
            text: "The baselines of Tables 3 and 4 invert the same gradient without ST-GIA's switches.",
            try_this: "Switch The server's attack between DLG and ST-GIA and compare ASR and AIT (the first iteration at which a position came within 500 m).",
            notice: "ST-GIA finds positions in far fewer iterations (a lower AIT). Its ASR beats DLG's clearly on check-in data; on bus-like routes such as yours the two are close in this world, where the paper has ST-GIA ahead in every round.",
            card: r#"[data-testid="mob-mean-card"]"#,
            settings: &[("m.T", "12"), ("m.method", "dlg")],
            rounds: None,
            lab: None,
        },
        Step {
            title: "Noise on every position: GeoI",
            text: "Geo-indistinguishability moves every position of the window by planar-Laplace noise before the phone trains (ε per km, every round).",
            try_this: "Try a Privacy budget ε of 1 and of 20 (per km).",
            notice: "At ε = 1 the mean ASR falls far below the undefended run's; at large ε the noise is small and the server finds you again.",
            card: r#"[data-testid="mob-mean-card"]"#,
            settings: &[("m.T", "12"), ("m.def", "geoi"), ("m.eps", "1")],
            rounds: None,
            lab: None,
        },
        Step {
            title: "A budget spent by risk",
            text: "The paper's defence (§4) runs three things together: PGEM (Eq. 13), which replaces each position of the window with one of your own places, drawn nearer ones likelier; a total ε shared out over the rounds, ε_t = e^(−γ_t)·(what is left) (Eqs. 10–12); and γ_t from that round's ASR and AIT, which the paper does not say how to get. Our reading: the phone attacks its own update first to measure them.",
            try_this: "Watch the budget bar under the figure as the rounds go by.",
            notice: "Most of the budget is spent in the first rounds (each round takes at least 37% of what is left), so the later rounds are very noisy, and the mean ASR stays low. Two cautions. The ε covers PGEM's draws only: choosing ε_t from an ASR measured on your true route is itself a use of your data that no ε accounts for, so the run has no end-to-end ε. And PGEM sends only real places you visit: a guess that lands on one misses where you were this round, which is all ASR counts, yet hits where you go (in this project's reproduction on bus routes, about three guesses in four still land within 500 m of one of the person's places, as many as without a defence).",
            card: r#"[data-testid="mob-budget-card"]"#,
            settings: &[("m.T", "12"), ("m.def", "adaptive"), ("m.eps", "10")],
            rounds: None,
            lab: None,
        },
        Step {
            title: "DP-SGD",
            text: "DP-SGD clips your phone's whole gradient to length 0.2 and adds Gaussian noise, so that each round is (ε, 10⁻⁵)-private for that round's window of 9 positions against a server that sees your phone's update. The rounds add up: the budget card shows the total ε for your whole trajectory.",
            try_this: "Raise the Privacy budget ε to 20 and see whether the server recovers; watch the total ε grow round by round.",
            notice: "The ASR drops to about zero: against a gradient clipped to 0.2, even ε = 20's noise is large. Yet after 12 rounds the total ε is several times the per-round one — both are upper bounds. Then open the sandbox; its Studies panel runs every defence at every ε.",
            card: r#"[data-testid="mob-mean-card"]"#,
            settings: &[("m.T", "12"), ("m.def", "dpsgd"), ("m.eps", "10")],
            rounds: None,
            lab: None,
        },
    ],
};
