//! The Linkability lab's lesson (`?lesson=linkability`): [004]'s argument — the server links a
//! person's new device to their known one from its updates alone; what that server knows; a
//! harder split; what an update gives away besides (the places); the mitigations' trade-offs,
//! and where a heuristic defence ends and a formal one begins; secure aggregation (what a sum
//! still leaks); central DP (what ε means) — ending in the students' questions and the sandbox.
//! Every number it states is read from the lab's cards (`{linkability.…}`,
//! [`crate::ui::figures`]).

use crate::protocol::LabKind;
use crate::ui::lesson::{Lesson, Question, Step};

pub static LESSON: Lesson = Lesson {
    key: "linkability",
    lab: LabKind::Linkability,
    title: "Your two devices, one person",
    caveat: "Where this differs from the paper: [004] links people's devices from the updates of an image classifier trained on their photos (PIPA, OpenImages); here the devices train the signal map on their owners' measurements, and the people, their places and their devices are synthetic, generated in your browser. The attacks, the splits and the mitigations are the paper's, adapted from photos to places; secure aggregation and central DP are beyond the paper. Figures measured over several populations, with their intervals, are in docs/reproduce-linkability.md.",
    questions: &[
        Question {
            ask: "Which way of sharing your data between your two devices makes them hardest to link, and is it hard enough to call them unlinkable?",
            answer: "Your devices share your data: Chronological. The Identification card's multiple of chance falls below the random split's, yet stays far above the chance line of 1×: the split makes linking harder, not impossible.",
        },
        Question {
            ask: "With What the server sees on Only the sum, the attack's cards are gone. Name two ways a server could still learn about you from the sums.",
            answer: "A small cohort (a sum of few devices is nearly one update: with one it is that update), a server that picks the round and fills it with its own clients (the n − 1 or Sybil server, which subtracts its own and keeps yours), and differences of sums between rounds whose devices differ by one (disaggregation). The Only the sum card counts the sums and the devices in them; the map's error is the same as with every update.",
        },
        Question {
            ask: "Under Sum + central DP, raise Noise multiplier z. What happens to your total ε, and what does it cost?",
            answer: "The total ε over the rounds (the Sum + central DP card) falls, and the signal map's test error (its card) rises towards the mean predictor's: the noise that bounds what the sums tell about you also blurs the map.",
        },
    ],
    steps: &[
        Step {
            title: "Which new device is yours?",
            text: "Every device is a separate pseudonymous client: the server does not know that your phone and your tablet are one person. It has learned the updates of everyone's first device; now a second device shows up. [004] trains a classifier on the known devices' updates (an MLP on the last layer's update) and asks it whose the new device's updates look like.",
            try_this: "Look at the ranking card: where does your new device come in the server's list for you? Then change the Seed: other people, other devices.",
            notice: "The card Identification: the attack's mean average precision, {linkability.ap}, is {linkability.times} chance ({linkability.chance}: one over the number of people). Your own new device comes #{linkability.rank} of {linkability.new}: one person is one draw, the AP is the average over everyone.",
            card: r#"[data-testid="link-ident-card"]"#,
            settings: &[],
            rounds: None,
            lab: None,
        },
        Step {
            title: "What the server knows",
            text: "The threat model. This server is honest but curious: it runs the federation as agreed — it sends the model, averages what comes back, changes nothing — and then reads its log. It knows the model and its weights in every round, the recipe every device trains with (rounds, local epochs E, the learning rate), the campus, and every update under its device's pseudonym and round; for the known devices it also knows whose they are ([004] §6's closed world: learned before, say from a logged-in account). It does not know whose the new devices are, nor anyone's places. An eavesdropper on the network sees the same updates without the owners, unless the channel is encrypted. A server that cheats — one that sends a device a model of its own making, or fills a round with its own clients — can learn more than this one.",
            try_this: "Switch The server's attack from Chance back to the MLP, and to What it reads of an update: every layer.",
            notice: "Take away what the server learnt from the known devices and it can only guess: Chance scores the new devices at {linkability.times} chance, a mean AP of {linkability.ap}. Everything above that line in the other steps is what its knowledge buys it. A threat model says what the server holds; which attack it runs on it is its own choice, and a better one may come.",
            card: r#"[data-testid="link-ident-card"]"#,
            settings: &[("l.attack", "chance")],
            rounds: None,
            lab: None,
        },
        Step {
            title: "A harder split",
            text: "How a person's data is divided between their devices matters ([004] §7). Used side by side, both devices see the same places; used one after the other (the chronological split), the new device sees a later part of the person's life.",
            try_this: "Switch Your devices share your data between Random, By day and Chronological.",
            notice: "The chronological split lowers the attack's AP to {linkability.ap}, as in the paper's Table 6, and it is still {linkability.times} chance.",
            card: r#"[data-testid="link-ident-card"]"#,
            settings: &[("l.split", "chrono")],
            rounds: None,
            lab: None,
        },
        Step {
            title: "It is the places",
            text: "Why do the updates link? Beyond the paper: an update of the signal map carries, through its first layer, the average of where its device was (the Signal map's Lemma 1). A server that reads that position and compares it with the known devices' (k nearest neighbours) links devices without training any classifier.",
            try_this: "Switch The server's attack between the MLP, k-NN and Chance.",
            notice: "Linking by place alone is {linkability.times} chance, far above chance, though below the MLP of the first step: where you go is enough to link your devices, and the MLP finds more in the update besides. Chance stays at 1× — the line every figure is measured against.",
            card: r#"[data-testid="link-ident-card"]"#,
            settings: &[("l.attack", "place")],
            rounds: None,
            lab: None,
        },
        Step {
            title: "Blending in: mm-aug",
            text: "[004]'s mitigations change what each device trains on so that its updates look like everyone's (§9). mm-aug adds, to each round's own measurements, background ones from a crowd; the model still learns the map from all of them.",
            try_this: "Raise Background added α from 0.5 to 2 and watch both cards.",
            notice: "The attack falls to {linkability.times} chance (the first step's MLP, undefended, was several times that), and the signal map's test error, {linkability.rmse}, is no worse than without it (the mean predictor's: {linkability.mean}). But mm-aug is a heuristic: it holds against this attack, trained this way, and promises nothing about the next one — an attacker that knows the crowds, or reads every layer, may link again, and nothing bounds how much.",
            card: r#"[data-testid="link-model-card"]"#,
            settings: &[("l.mitigation", "mm-aug"), ("l.alpha", "1")],
            rounds: None,
            lab: None,
        },
        Step {
            title: "Noise, as large as the update",
            text: "The textbook answer, Gaussian noise of σ on every number of the update, hides the update's direction only when the noise is as large as the update itself. The paper found noise costly: its image model lost accuracy before the attack lost much.",
            try_this: "Try Noise σ = 0.1, 0.3 and 1 (the Noise σ row's help says how large an update's numbers are).",
            notice: "At σ = 0.3 the attack falls to {linkability.times} chance and, unlike in the paper, the map's test error, {linkability.rmse}, does not move: the server averages many devices' noise away. Heuristic versus formal: this noise is not differential privacy. An update is not clipped, so no bound on how far one device moves it exists, and σ alone bounds nothing; the same noise on a clipped update would give each device a local-DP ε against the server. DP's guarantee holds against every attacker, however clever, for what it protects — the last step shows one.",
            card: r#"[data-testid="link-model-card"]"#,
            settings: &[("l.mitigation", "noise"), ("l.sigma", "0.3")],
            rounds: None,
            lab: None,
        },
        Step {
            title: "Only the sum: aggregation is not privacy",
            text: "Secure aggregation (Bonawitz et al. 2017): each round's devices mask their updates so that the server, and any eavesdropper, can unmask only their sum. The server now holds no update of any device, so no pseudonym comes with one, and [004]'s attacks have nothing to train on and nothing to attribute. The map is the same. Yet a sum still says something about each device in it. The fewer devices in a sum, the closer it is to one update: a sum of one is the update. A server that picks each round's devices can fill a round with clients of its own and one target, subtract what it knows (the n − 1 or Sybil server; the Mobility lab lets you run it). And two sums whose rounds differ by one device differ by that device's update (disaggregation).",
            try_this: "Switch What the server sees between Every update and Only the sum, and compare the signal map's card.",
            notice: "The server holds {linkability.sums} round sums — {linkability.summed} updates from {linkability.devices} devices added up — and none of the attack's cards can be drawn. The map's test error, {linkability.rmse}, is the undefended federation's: secure aggregation costs no accuracy, and it is no bound on what the sums tell. docs/reproduce-linkability.md measures a server that learnt the known devices before the switch, scoring sums against the number of devices in them.",
            card: r#"[data-testid="link-sum-card"]"#,
            settings: &[("l.sees", "sum")],
            rounds: None,
            lab: None,
        },
        Step {
            title: "Sum + central DP: what ε means",
            text: "Differential privacy bounds, for every output the server could see, the log of the ratio between its probability with your data and without it: at most ε, except with probability δ. Which data is \"yours\" is the neighbour: here a person, both devices' whole data (user-level DP), so the bound covers being in the federation at all. Each round's noised sum spends some ε, and the rounds compose: the total over the run is what protects you, and an accountant (Rényi DP) adds the rounds up more tightly than a plain sum. This is central DP: the noise goes once on the sum (by a trusted aggregator, or a share by each device), where local DP would put it on each device's update, far larger for the same ε.",
            try_this: "Raise Noise multiplier z to 3, or lower Sampling rate q to 0.2, and watch ε and the map's error.",
            notice: "Your user-level ε is {linkability.epsilon} over {linkability.rounds} rounds at δ = {linkability.delta}; one round alone costs {linkability.epsilon_round}, and the total is less than the rounds' ε added up. The price is the map: its test error is {linkability.rmse} against the mean predictor's {linkability.mean}. Then open the sandbox: its Studies panel runs every mitigation at every strength and plots privacy against utility.",
            card: r#"[data-testid="link-sum-card"]"#,
            settings: &[("l.sees", "dp")],
            rounds: None,
            lab: None,
        },
    ],
};
