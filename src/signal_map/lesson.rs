//! The Signal map's lesson (`?lesson=signal`): [000]'s argument in seven steps, each a state of
//! this lab — DLG on one round, Lemma 1, shorter rounds, a trained model (Insight I2), FedAvg's
//! blur and the server that replays it, the batch defences, the noise defences — ending in the
//! sandbox. The "what to notice" of each step is checked on the page by the end-to-end tests
//! (tests/e2e/lesson.test.mjs).

use crate::protocol::LabKind;
use crate::ui::lesson::{Lesson, Step};

pub static LESSON: Lesson = Lesson {
    key: "signal",
    lab: LabKind::Signal,
    title: "Where your phone's updates say you were",
    caveat: "Where this differs from the paper: [000] trains on real Android measurements (the Campus and Radiocell datasets) with up to 400,000 DLG iterations; here the campus, its towers and the other users are synthetic, generated in your browser, and DLG gets a few hundred iterations per round. The mechanisms are the paper's; the numbers are this world's. Everything ran in this tab: nothing you drew left it.",
    questions: &[],
    steps: &[
        Step {
            title: "One round, one update",
            text: "Your phone logs a fix every few minutes: where you are and how strong the signal is. Each round (here a day) it trains the shared signal-map model on that round's fixes and sends the server only the update, the change to the model's weights, never a location. That is federated learning's promise. The server, honest but curious, runs Deep Leakage from Gradients (DLG): it searches for one made-up fix whose training step would produce your update. This lab's DLG is the project's variant of [000] Algorithm 2: it searches with Adam, reads the fix's signal strength straight from the update, and starts at Lemma 1's estimate (the next step); the paper's Algorithm 2 descends plainly from near the true centroid, which no real server knows. On weekly rounds both end on the same points; on daily ones the paper's diverges more often.",
            try_this: "Drag a waypoint of your path on the map. The round is trained and attacked again as you let go.",
            notice: "The red diamond (DLG) lands near the blue dot (the true centroid of your round's fixes): the card Median DLG error gives the distance in metres. This run starts from the paper's untrained model.",
            card: r#"[data-testid="median-error"]"#,
            settings: &[("start", "cold")],
            rounds: Some(1),
            lab: None,
        },
        Step {
            title: "No search needed: Lemma 1",
            text: "The model's first layer multiplies your position by its weights and adds a bias. [000]'s Lemma 1 follows from that: the first layer's weight gradient divided by its bias gradient is a weighted combination of the positions you trained on. Its weights sum to one but can be negative, so it is not an average inside your places: it can land outside every place you were, and [000]'s Theorem 1 bounds how far from your centroid. [000] uses Lemma 1 to explain where DLG lands; reading it straight out of the update as an attack, in microseconds, is this lab's extension.",
            try_this: "Step through the rounds with the Step button and compare the two markers in each.",
            notice: "The analytic estimate (the orange square) sits close to the true centroid, often closer than DLG: the card Server's closest attack says which of the two the server should trust.",
            card: r#"[data-testid="closest-attack"]"#,
            settings: &[("start", "cold")],
            rounds: Some(3),
            lab: None,
        },
        Step {
            title: "Shorter rounds leak more",
            text: "In online FL each round trains only on what was logged during the round. An hour's fixes sit in one place; a week's are spread over home, work and everything between, and their average is nowhere you ever were. [000] Insight I1: shorter rounds give tighter batches and sharper reconstructions.",
            try_this: "Change Round length T between 6 hours and 1 week and watch the cards.",
            notice: "With 6-hour rounds the reconstructions trace your path: the EMD between them and your true positions (in the summary under the cards) is about a third of the random figure beside it. With one weekly round it is over half of it: the round's one point sits at the week's average, which is nowhere you spent long.",
            card: r#"[data-testid="emd"]"#,
            settings: &[("start", "cold"), ("T", "6")],
            rounds: None,
            lab: None,
        },
        Step {
            title: "A model that already knows the map",
            text: "The paper's runs start from an untrained model, far from the data, so every fix pulls the weights the same way. A federation you join late has already learnt the campus map from other users: its gradients are small and point every way (Insight I2).",
            try_this: "Switch You join between Learnt map and Untrained. Then try Seed 3.",
            notice: "With the learnt map the median DLG error here is hundreds of metres, against tens in the untrained runs, and the EMD is no better than random guessing; the model's RMSE (the card Model RMSE) is a few dB instead of eighty: a useful map, and an update these two attacks read little from. That is no guarantee. With Seed 3 the same learnt map still gives you away: DLG lands a median of tens of metres from you (over five worlds, from 37 to 813 m). And convergence defeats these attacks, not every attack: in the Linkability lab a federation that has learnt the signal map still lets the server link a person's two devices from their updates at 10 to 23 times chance.",
            card: r#"[data-testid="median-error"]"#,
            settings: &[("start", "warm")],
            rounds: None,
            lab: None,
        },
        Step {
            title: "FedAvg's blur, and a server that tries to undo it",
            text: "Under FedAvg your phone takes many small SGD steps (E epochs over mini-batches of B fixes) before it sends their sum. DLG assumes one step on one batch, so it recovers a blur of many mini-batch centroids (Insight I3). Beyond the paper, this lab also runs a server that knows B, E and the learning rate and replays your phone's training with one dummy fix per step.",
            try_this: "Set Local epochs E to 1 and then 10 and compare the cards Diverged and Median FedAvg-aware error. Then try Seed 5.",
            notice: "DLG now diverges in many rounds (it leaves the area; the card Diverged counts them), and the model's RMSE is far better than under FedSGD: more local steps cost the map nothing. In this world the card Median FedAvg-aware error shows the stronger server landing several times closer to you than DLG on the same updates. Not in every world: over five worlds of this path it lands closer in two, about as close in two, and further in one (Seed 5); on a campus user's weekly rounds, about 700 local steps, it lands no closer than DLG (534 ± 232 m against 314 ± 215 m from the centroid, five worlds). FedAvg's blur is no protection to count on, and a server that knows how your phone trains does not always undo it.",
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
            title: "Choose what to train on",
            text: "[000]'s defences act on the phone before training. This step keeps step 5's FedAvg (B = 20, E = 5), where the map learns, so that you can read what a defence costs it. Diverse Batch trains on one fix per place you visited (DBSCAN clusters) to spread the batch's locations out: by Insight I1 ([000] §4.3, Theorem 2) the wider the spread, the further the reconstruction may land from your centroid. Farthest Batch trains only on fixes of the places farthest from the round's centroid (§4.4), so that what the attacks recover lies far from it.",
            try_this: "Switch Defence between None, Diverse Batch and Farthest Batch, and look where the orange square (Lemma 1) lands on the map.",
            notice: "With Farthest Batch the server's closest reconstruction lands about 700 m from your round's centroid (the errors are always measured against all your fixes of the round). But it is no decoy: the orange square sits within metres of your workplace or the park, the farthest place you went that day, so the server learns a place you go instead of your day's average. And the map pays: trained on 10 fixes a day its RMSE is about 33 dB, against about 11 dB with no defence (five worlds: 18–45 dB against 9–15 dB). Diverse Batch moves the estimate about 220 m, at a cost within the noise.",
            card: r#"[data-testid="closest-attack"]"#,
            settings: &[
                ("start", "cold"),
                ("B", "20"),
                ("E", "5"),
                ("def", "farthest"),
            ],
            rounds: None,
            lab: None,
        },
        Step {
            title: "Noise, and its price",
            text: "The textbook defences add noise. Geo-indistinguishability moves every fix by planar-Laplace noise before training, 2/ε on average (400 m at ε = 0.005 per m). Local differential privacy clips every local step's gradient and adds Gaussian noise ([000] §4.5): each step's release is (ε, 10⁻⁵)-differentially private for the data behind it, any two mini-batches counting as neighbours, so it protects the whole of a round's data, not one fix among the rest. A round's steps add up: the results show the round's ε and your total. [000] compares both with the batch defences at equal privacy (Fig. 15).",
            try_this: "Then set Defence to Local DP with DP ε per release 1 (each local step: under FedSGD, one a round). To see its price, set Batch size B to 20 and Local epochs E to 5, step 5's FedAvg, where the map learns.",
            notice: "Under GeoInd the server's closest reconstruction still lands within tens of metres of your round's centroid: the noise on a hundred fixes averages out in their centroid, which is what the attacks recover. Local DP at ε = 1 makes DLG fail in almost every round and sends Lemma 1 hundreds of metres off. Its price shows where the map learns: under FedAvg the model's RMSE stays above 90 dB, no better than untrained, against about 11 dB without the noise. Then open the sandbox: everything is yours to change, and the Studies panel sweeps every defence for you.",
            card: r#"[data-testid="closest-attack"]"#,
            settings: &[("start", "cold"), ("def", "geoind"), ("geo", "0.005")],
            rounds: None,
            lab: None,
        },
    ],
};
