//! The Signal map's lesson (`?lesson=signal`): [000]'s argument in ten steps, each a state of
//! this lab — DLG on one round and the server it stands for, Lemma 1, shorter rounds, a trained
//! model (Insight I2), FedAvg's blur and the server that replays it, the batch defences
//! (heuristics), the noise defences (what ε means; GeoInd, then local DP), secure aggregation and the server that
//! cheats it, central DP — ending in the sandbox. Every number is a figure read from the lab's
//! cards (`{signal.…}`, [`crate::ui::figures`]); the "what to notice" of each step is checked
//! on the page by the end-to-end walk (tests/e2e/lesson-signal.test.mjs), and docs/lessons.md
//! keeps the figures over five worlds.

use crate::protocol::LabKind;
use crate::ui::lesson::{Lesson, Question, Step};

pub static LESSON: Lesson = Lesson {
    key: "signal",
    lab: LabKind::Signal,
    title: "Where your phone's updates say you were",
    caveat: "Where this differs from the paper: [000] trains on real Android measurements (the Campus and Radiocell datasets) with up to 400,000 DLG iterations; here the campus, its towers and the other users are synthetic, generated in your browser, and DLG gets a few hundred iterations per round. The mechanisms are the paper's; the numbers are this world's. Everything ran in this tab: nothing you drew left it.",
    questions: &[
        Question {
            ask: "Step 9 turned secure aggregation on. Without changing What the server sees, make the server's closest attack land as close to you as in step 2 in two different ways. What does each say about what a sum protects?",
            answer: "Set Other users to zero: the sum is your update alone (a cohort of one), and the card Server's closest attack is back to tens of metres. Or keep the others and add a few Sybil clients: the server fills the round with its own clients, leaves the other phones out and subtracts its clients' updates from the sum (the n − 1 attack). A sum hides you only among the genuine updates in it; the defence is a minimum cohort (Minimum genuine phones a round), which brings the blend back.",
        },
        Question {
            ask: "Under local DP (step 8), what happens to the card Your total ε when you raise Local epochs E, with ε per release unchanged? Why?",
            answer: "It grows: every local step is a release, and a round makes E times the number of mini-batches of them (the summary counts the releases); the releases compose, round after round, into the total. The guarantee per release is the same; the total is what protects you.",
        },
        Question {
            ask: "With Farthest Batch (step 6) the server's closest attack lands hundreds of metres from your day's centroid. Is your location hidden?",
            answer: "No. The orange squares on the map, and the analytic estimate in the round rows, sit on one of your own places, the farthest you went that day: a server that knows the defence learns a place you go. Farthest Batch holds against a server that expects your centroid; it is a heuristic, and an attacker who adapts to it defeats it. Only DP's bound holds against every attacker.",
        },
    ],
    steps: &[
        Step {
            title: "One round, one update",
            text: "Your phone logs a fix every few minutes: where you are and how strong the signal is. Each round (here a day) it trains the shared signal-map model on that round's fixes and sends the server only the update, the change to the model's weights, never a location. That is federated learning's promise. Who reads the update? The server here is honest but curious: it runs the protocol as written and keeps what it receives. It knows what any server of this federation knows: the model it sent, the learning rate η, B and E, the campus (the area, and how positions are scaled into the model) and the typical signal strength; it never sees a fix. An eavesdropper on an unencrypted link sees the same update; a server that cheats comes in step 9. This server runs Deep Leakage from Gradients (DLG, [000] Algorithm 2, in this project's variant: step 2 says how it differs): it searches for one made-up fix whose training step would produce your update.",
            try_this: "Drag a waypoint of your path on the map. The round is trained and attacked again as you let go.",
            notice: "The red diamond (DLG) lands near the blue dot (the true centroid of your round's fixes): the card Median DLG error says how near, {signal.dlg}. This run starts from the paper's untrained model.",
            card: r#"[data-testid="median-error"]"#,
            settings: &[("start", "cold")],
            rounds: Some(1),
            lab: None,
        },
        Step {
            title: "No search needed: Lemma 1",
            text: "The model's first layer multiplies your position by its weights and adds a bias. [000]'s Lemma 1 follows from that: the first layer's weight gradient divided by its bias gradient is a weighted combination of the positions you trained on. Its weights sum to one but can be negative, so it is not an average inside your places: it can land outside every place you were, and [000]'s Theorem 1 bounds how far from your centroid. [000] uses Lemma 1 to explain where DLG lands; reading it straight out of the update as an attack, in microseconds, is this lab's extension. This lab's DLG builds on it: it searches with Adam, reads the fix's signal strength straight from the update, and starts at Lemma 1's estimate; the paper's Algorithm 2 descends plainly from near the true centroid, which no real server knows. On weekly rounds both end on the same points; on daily ones the paper's diverges more often.",
            try_this: "Step through the rounds with the Step button and compare the two markers in each.",
            notice: "The analytic estimate (the orange square) sits close to the true centroid, often closer than DLG: a median {signal.analytic} against DLG's {signal.dlg}. The card Server's closest attack says which of the two the server should trust.",
            card: r#"[data-testid="closest-attack"]"#,
            settings: &[("start", "cold")],
            rounds: Some(3),
            lab: None,
        },
        Step {
            title: "Shorter rounds leak more",
            text: "In online FL each round trains only on what was logged during the round. An hour's fixes sit in one place; a week's are spread over home, work and everything between, and their average is nowhere you ever were. [000] Insight I1: shorter rounds give tighter batches and sharper reconstructions.",
            try_this: "Change Round length T between 6 hours and 1 week and watch the cards.",
            notice: "With 6-hour rounds the reconstructions trace your path: the earth mover's distance between them and your true positions (the card EMD) is {signal.emd}, against {signal.random} for random guesses. With one weekly round it comes much nearer the random figure: the round's one point sits at the week's average, which is nowhere you spent long.",
            card: r#"[data-testid="emd"]"#,
            settings: &[("start", "cold"), ("T", "6")],
            rounds: None,
            lab: None,
        },
        Step {
            title: "A model that already knows the map",
            text: "The paper's runs start from an untrained model, far from the data, so every fix pulls the weights the same way. A federation you join late has already learnt the campus map from other users: its gradients are small and point every way (Insight I2).",
            try_this: "Switch You join between Learnt map and Untrained. Then try Seed 3.",
            notice: "With the learnt map DLG's median error is {signal.dlg}, against tens of metres in the untrained runs, and the EMD, {signal.emd}, is near random guessing's {signal.random}. The model's RMSE is {signal.rmse} instead of the untrained model's tens of dB; but beside it (the card Beside it) predicting the mean signal everywhere scores {signal.mean}: the learnt map is about as good as the mean, not much of a map. And a settled model is no guarantee. With Seed 3 the same learnt map gives you away: DLG's median error falls to tens of metres. Convergence defeats these two attacks in some worlds, not every attack: in the Linkability lab a federation that has learnt the signal map still lets the server link a person's two devices from their updates many times above chance.",
            card: r#"[data-testid="median-error"]"#,
            settings: &[("start", "warm")],
            rounds: None,
            lab: None,
        },
        Step {
            title: "FedAvg's blur, and a server that tries to undo it",
            text: "Under FedAvg your phone takes many small SGD steps (E epochs over mini-batches of B fixes) before it sends their sum. DLG assumes one step on one batch, so it recovers a blur of many mini-batch centroids (Insight I3). The blur is a heuristic defence: it hides you from the attack it was not built for. Beyond the paper, this lab also runs an adaptive server, one that knows B, E and the learning rate and replays your phone's training with one dummy fix per step.",
            try_this: "Set Local epochs E to 1 and then 10 and compare the cards Diverged and Median FedAvg-aware error. Then try Seed 5.",
            notice: "DLG now diverges in {signal.diverged} of the rounds (it leaves the area; they are left out of its median), and the model's RMSE, {signal.rmse}, is far better than under FedSGD: more local steps cost the map nothing. In this world the FedAvg-aware server lands {signal.aware} from you, several times closer than DLG's {signal.dlg} on the same updates. Not in every world: over five worlds of this path it lands closer in two, about as close in two, and further in one (Seed 5), and on a campus user's weekly rounds, hundreds of local steps, no closer than DLG (docs/reproduce.md). FedAvg's blur is no protection to count on, and a server that knows how your phone trains does not always undo it.",
            card: r#"[data-testid="diverged"]"#,
            settings: &[
                ("start", "cold"),
                ("B", "20"),
                ("E", "5"),
                ("att", "fedavg"),
            ],
            rounds: None,
            lab: None,
        },
        Step {
            title: "Choose what to train on: heuristics",
            text: "[000]'s defences act on the phone before training. This step keeps step 5's FedAvg (B = 20, E = 5), where the map learns, so that you can read what a defence costs it. Diverse Batch trains on one fix per place you visited (DBSCAN clusters) to spread the batch's locations out: by Insight I1 ([000] §4.3, Theorem 2) the wider the spread, the further the reconstruction may land from your centroid. Farthest Batch trains only on the 10 fixes of the places farthest from the round's centroid (§4.4), so that what the attacks recover lies far from it. Both are heuristics: each holds against a particular attacker, one that reads your update and expects your centroid. An attacker who knows the defence adapts: under Farthest Batch every estimate is one of your places.",
            try_this: "Switch Defence between None, Diverse Batch and Farthest Batch, and look where the orange square (Lemma 1) lands on the map.",
            notice: "With Farthest Batch the server's closest reconstruction lands {signal.closest} from your round's centroid (the errors are always measured against all your fixes of the round), where without the defence it lands {signal.undefended} (the card Without the defence). But it is no decoy: the orange square sits within metres of your workplace or the park, the farthest place you went that day, so the server learns a place you go instead of your day's average. And the map pays: trained on so few fixes its RMSE is {signal.rmse}, against step 5's without the defence. DP, next, is a bound that holds against every attacker, for what it protects.",
            card: r#"[data-testid="closest-attack"]"#,
            settings: &[
                ("start", "cold"),
                ("B", "20"),
                ("E", "5"),
                ("def", "farthest"),
                ("dnum", "10"),
            ],
            rounds: None,
            lab: None,
        },
        Step {
            title: "Noise on the fixes, and what ε means",
            text: "Differential privacy bounds the log-likelihood ratio of any output under two neighbouring inputs by ε: whatever the server does with what it sees, it cannot tell the two apart with odds better than e^ε, except with probability δ. What a neighbour is decides what is protected. Geo-indistinguishability moves every fix by planar-Laplace noise before training (2/ε on average): any two locations x and x′ are neighbours, at ε·d(x, x′), so nearby places are hard to tell apart and far ones are not. A round's fixes are noised independently, and their guarantees compose: n fixes taken at one place tell it from another at up to nε·d(x, x′), and the noise averages out in their centroid, which is what the attacks recover. That is this lesson in miniature: every release adds up.",
            try_this: "Lower GeoInd ε to a tenth of its value and watch where the reconstructions land.",
            notice: "Under GeoInd the server's closest reconstruction still lands {signal.closest} from your round's centroid: the noise on each fix is hundreds of metres, and its average over the round's fixes is small.",
            card: r#"[data-testid="closest-attack"]"#,
            settings: &[("start", "cold"), ("def", "geoind"), ("geo", "0.005")],
            rounds: None,
            lab: None,
        },
        Step {
            title: "Noise on every step: local DP",
            text: "Local DP clips every local step's gradient and adds Gaussian noise ([000] §4.5): each release is (ε, 10⁻⁵)-differentially private, any two of a phone's mini-batches counting as neighbours, so it protects the whole round's data, not one fix among the rest. Releases compose: a round of many local steps spends ε many times, and the card Your total ε gives the total over your rounds. Like GeoInd this is local DP, noise added on the phone before the server sees anything; central DP (step 10) adds it once, to the sum.",
            try_this: "To see its price, set Batch size B to 20 and Local epochs E to 5, step 5's FedAvg, where the map learns.",
            notice: "At an ε of one a local step (under FedSGD, one a round) DLG fails in {signal.diverged} of the rounds and Lemma 1 lands {signal.analytic} off; your total ε over the run is {signal.epsilon}. Its price is the map: the model's RMSE, {signal.rmse}, is no better than untrained, and under FedAvg, where the map learns without the noise (step 5), it stays so while forty releases a round spend far more ε.",
            card: r#"[data-testid="closest-attack"]"#,
            settings: &[("start", "cold"), ("def", "dp"), ("dpe", "1")],
            rounds: None,
            lab: None,
        },
        Step {
            title: "Aggregation is not privacy",
            text: "Secure aggregation (Bonawitz et al. 2017) masks every phone's update so that the server can unmask only the round's sum: it learns the same model and attacks the only update it has, the average of everyone's. Here you and 6 other users are in every round. The cryptography is exact, but it guarantees only what the server sees, not what the sum says: Lemma 1 on the sum is a weighted combination of everyone's fixes, and the fewer phones in it, the more of it is you. A server that cheats does more. One that picks each round's phones fills the round with clients of its own (Sybils), leaves the other genuine phones out and subtracts its own updates from the sum: the n − 1 attack, and what is left is yours. The phones' defence is a minimum cohort of genuine phones, below which they do not send. Across many rounds, a server that knows who took part in each can also solve the sums for each phone's update (disaggregation, Lam et al. 2021): a sum hides nothing the rounds' differences give back.",
            try_this: "Set Other users to 0, then back to 6. Then set Sybil clients to 3, and Minimum genuine phones a round to 7.",
            notice: "With the sum of seven phones the server's closest attack lands {signal.closest} from your centroid, against tens of metres with every update (step 2), and the map is as good as without secure aggregation: the model's RMSE is {signal.rmse}. With no other users the sum is your update, and the attack is back where it was. With Sybils it is back too, though the others are in the federation; with a minimum of seven genuine phones the blend returns.",
            card: r#"[data-testid="closest-attack"]"#,
            settings: &[("start", "cold"), ("sees", "sum"), ("bg", "6")],
            rounds: None,
            lab: None,
        },
        Step {
            title: "Central DP: noise once, on the sum",
            text: "DP-FedAvg (McMahan et al. 2018) puts differential privacy on the sum instead of on each phone: every phone clips its update to a norm C, and Gaussian noise, z·C, is added once to the secure sum. A neighbour is now a federation with or without your whole data, every round of it (user-level DP): the strongest unit this lab protects, since one noise draw hides all of your contribution at once. Each round is a release, and the rounds compose: the card Your user-level ε shows the total over the rounds run and the last round alone, at δ = 10⁻⁵, composed by Rényi DP, so the total is less than the rounds' sum. Against local DP (step 8) the noise is far smaller for the same ε, because it hides you among the other phones' updates; in exchange someone must add it honestly (a trusted aggregator, or the phones themselves, each a share).",
            try_this: "Raise Noise multiplier z, and watch ε fall; lower it, and watch it grow. Then set Clip C to 1, and compare the model's RMSE. Then open the sandbox: everything is yours to change, and the Studies panel sweeps every defence for you.",
            notice: "Over the five rounds your user-level ε is {signal.user_epsilon}, {signal.round_epsilon} for the last round alone: an ε of ten or more promises little. The server's closest attack on the noised sum lands {signal.closest} from you. And with seven phones the clipped, noised sum leaves the map no better than untrained: the model's RMSE is {signal.rmse}, where predicting the mean scores {signal.mean}. DP-FedAvg is made for thousands of phones a round, whose sum the same noise barely moves.",
            card: r#"[data-testid="central-dp-epsilon"]"#,
            settings: &[("start", "cold"), ("sees", "dp"), ("bg", "6")],
            rounds: None,
            lab: None,
        },
    ],
};
