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
    steps: &[
        Step {
            title: "One round, one update",
            text: "Your phone logs a fix every few minutes: where you are and how strong the signal is. Each round (here a day) it trains the shared signal-map model on that round's fixes and sends the server only the update, the change to the model's weights, never a location. That is federated learning's promise. The server, honest but curious, runs Deep Leakage from Gradients (DLG, [000] Algorithm 2): it searches for one made-up fix whose training step would produce your update.",
            try_this: "Drag a waypoint of your path on the map. The round is trained and attacked again as you let go.",
            notice: "The red diamond (DLG) lands near the blue dot (the true centroid of your round's fixes): the card Median DLG error gives the distance in metres. This run starts from the paper's untrained model.",
            card: r#"[data-testid="median-error"]"#,
            settings: &[("start", "cold")],
            rounds: Some(1),
        },
        Step {
            title: "No search needed: Lemma 1",
            text: "The model's first layer multiplies your position by its weights and adds a bias. [000]'s Lemma 1 follows from that: the first layer's weight gradient divided by its bias gradient is a weighted average of the positions you trained on. The server reads it straight out of the update, in microseconds.",
            try_this: "Step through the rounds with the Step button and compare the two markers in each.",
            notice: "The analytic estimate (the orange square) sits close to the true centroid, often closer than DLG: the card Server's closest attack says which of the two the server should trust.",
            card: r#"[data-testid="closest-attack"]"#,
            settings: &[("start", "cold")],
            rounds: Some(3),
        },
        Step {
            title: "Shorter rounds leak more",
            text: "In online FL each round trains only on what was logged during the round. An hour's fixes sit in one place; a week's are spread over home, work and everything between, and their average is nowhere you ever were. [000] Insight I1: shorter rounds give tighter batches and sharper reconstructions.",
            try_this: "Change Round length T between 6 hours and 1 week and watch the cards.",
            notice: "With 6-hour rounds the reconstructions trace your path: the EMD between them and your true positions (in the summary under the cards) is about a third of the random figure beside it. With one weekly round it is over half of it: the round's one point sits at the week's average, which is nowhere you spent long.",
            card: r#"[data-testid="emd"]"#,
            settings: &[("start", "cold"), ("T", "6")],
            rounds: None,
        },
        Step {
            title: "A model that already knows the map",
            text: "The paper's runs start from an untrained model, far from the data, so every fix pulls the weights the same way. A federation you join late has already learnt the campus map from other users: its gradients are small and point every way (Insight I2).",
            try_this: "Switch You join between Learnt map and Untrained.",
            notice: "With the learnt map the median DLG error is hundreds of metres, against tens in the untrained runs, and the EMD is no better than random guessing; the model's RMSE (the card Model RMSE) is a few dB instead of eighty: a useful map, and an update that says little about you.",
            card: r#"[data-testid="median-error"]"#,
            settings: &[("start", "warm")],
            rounds: None,
        },
        Step {
            title: "FedAvg's blur, and a server that undoes it",
            text: "Under FedAvg your phone takes many small SGD steps (E epochs over mini-batches of B fixes) before it sends their sum. DLG assumes one step on one batch, so it recovers a blur of many mini-batch centroids (Insight I3). Beyond the paper, this lab also runs a server that knows B, E and the learning rate and replays your phone's training with one dummy fix per step.",
            try_this: "Set Local epochs E to 1 and then 10 and compare the cards Diverged and Median FedAvg-aware error.",
            notice: "DLG now diverges in most rounds (it leaves the area; the card Diverged counts them), and the model's RMSE is far better than under FedSGD: more local steps cost the map nothing. But the card Median FedAvg-aware error shows the stronger server landing several times closer to you than DLG on the same updates: FedAvg's blur hides you from DLG, not from a server that knows how your phone trains.",
            card: r#"[data-testid="diverged"]"#,
            settings: &[
                ("start", "cold"),
                ("B", "20"),
                ("E", "5"),
                ("att", "fedavg"),
            ],
            rounds: None,
        },
        Step {
            title: "Choose what to train on",
            text: "[000]'s defences act on the phone before training. Diverse Batch trains on one fix per place you visited (DBSCAN clusters), so no place dominates the average; Farthest Batch trains only on the places farthest from where you mostly were, a decoy. Both keep the map useful because every fix is still a real measurement.",
            try_this: "Switch Defence between None, Diverse Batch and Farthest Batch.",
            notice: "With Farthest Batch the server's closest reconstruction lands hundreds of metres from your round's centroid (the errors are always measured against all your fixes of the round), against a few metres undefended, while the RMSE does not get worse. Diverse Batch moves it less.",
            card: r#"[data-testid="closest-attack"]"#,
            settings: &[("start", "cold"), ("def", "farthest")],
            rounds: None,
        },
        Step {
            title: "Noise, and its price",
            text: "The textbook defences add noise. Geo-indistinguishability moves every fix by planar-Laplace noise before training, 2/ε on average (400 m at ε = 0.005 per m). Local differential privacy clips every local step's gradient and adds Gaussian noise ([000] §4.5), so that nothing the phone sends in a round can tell its data from any other (ε per release, δ = 10⁻⁵). [000] compares them with the batch defences at equal privacy (Fig. 15).",
            try_this: "Then set Defence to Local DP with DP ε per release 1 (each local step: under FedSGD, one a round).",
            notice: "Under GeoInd the server's closest reconstruction still lands within tens of metres of your round's centroid: the noise on a hundred fixes averages out in their centroid, which is what the attacks recover. Local DP at ε = 1 makes DLG fail in every round and sends Lemma 1 hundreds of metres off, and the model's RMSE rises: noise on the update protects, at a price. Then open the sandbox: everything is yours to change, and the Studies panel sweeps every defence for you.",
            card: r#"[data-testid="closest-attack"]"#,
            settings: &[("start", "cold"), ("def", "geoind"), ("geo", "0.005")],
            rounds: None,
        },
    ],
};
