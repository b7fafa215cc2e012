//! The Linkability lab's lesson (`?lesson=linkability`): [004]'s argument in five steps — the
//! server links a person's new device to their known one from its updates alone, a harder
//! split, what an update gives away besides (the places), and the mitigations' trade-offs —
//! ending in the sandbox.

use crate::protocol::LabKind;
use crate::ui::lesson::{Lesson, Step};

pub static LESSON: Lesson = Lesson {
    key: "linkability",
    lab: LabKind::Linkability,
    title: "Your two devices, one person",
    caveat: "Where this differs from the paper: [004] links people's devices from the updates of an image classifier trained on their photos (PIPA, OpenImages); here the devices train the signal map on their owners' measurements, and the people, their places and their devices are synthetic, generated in your browser. The attacks, the splits and the mitigations are the paper's, adapted from photos to places.",
    questions: &[],
    steps: &[
        Step {
            title: "Which new device is yours?",
            text: "Every device is a separate pseudonymous client: the server does not know that your phone and your tablet are one person. It has learned the updates of everyone's first device; now a second device shows up. [004] trains a classifier on the known devices' updates (an MLP on the last layer's update) and asks it whose the new device's updates look like.",
            try_this: "Look at the ranking card: where does your new device come in the server's list for you? Then change the Seed: other people, other devices.",
            notice: "The card Identification: the attack's mean average precision over everyone is many times chance (chance is 1 over the number of people). Your own new device may rank high or not: one person is one draw, the AP is the average.",
            card: r#"[data-testid="link-ident-card"]"#,
            settings: &[],
            rounds: None,
            lab: None,
        },
        Step {
            title: "A harder split",
            text: "How a person's data is divided between their devices matters ([004] §7). Used side by side, both devices see the same places; used one after the other (the chronological split), the new device sees a later part of the person's life.",
            try_this: "Switch Your devices share your data between Random, By day and Chronological.",
            notice: "The chronological split lowers the attack's AP (as in the paper's Table 6), and it is still far above chance.",
            card: r#"[data-testid="link-ident-card"]"#,
            settings: &[("l.split", "chrono")],
            rounds: None,
            lab: None,
        },
        Step {
            title: "It is the places",
            text: "Why do the updates link? Beyond the paper: an update of the signal map carries, through its first layer, the average of where its device was (the Signal map's Lemma 1). A server that reads that position and compares it with the known devices' (k nearest neighbours) links devices without training any classifier.",
            try_this: "Switch The server's attack between the MLP, k-NN and Chance.",
            notice: "Linking by place alone is far above chance too, though below the MLP (here about 12× against 28×; in this project's reproduction, five populations of 53 people, 9.9× against 22.5×): where you go is enough to link your devices, and the MLP finds more in the update besides. Chance stays at 1× — the line every figure is measured against.",
            card: r#"[data-testid="link-ident-card"]"#,
            settings: &[("l.attack", "place")],
            rounds: None,
            lab: None,
        },
        Step {
            title: "Blending in: mm-aug",
            text: "[004]'s mitigations change what each device trains on so that its updates look like everyone's (§9). mm-aug adds, to each round's own measurements, background ones from a crowd; the model still learns the map from all of them.",
            try_this: "Raise Background added α from 0.5 to 2 and watch both cards.",
            notice: "The attack's AP falls to a few times chance, a quarter of what it was (the paper: mm-aug cuts the MLP's AP the most), while the signal map's test error does not get worse.",
            card: r#"[data-testid="link-model-card"]"#,
            settings: &[("l.mitigation", "mm-aug"), ("l.alpha", "1")],
            rounds: None,
            lab: None,
        },
        Step {
            title: "Noise, as large as the update",
            text: "The textbook answer, Gaussian noise of σ on every number of the update, hides the update's direction only when the noise is as large as the update itself. The paper found noise costly: its image model lost accuracy before the attack lost much.",
            try_this: "Try Noise σ = 0.1, 0.3 and 1 (a last-layer number of an update is about 0.06 here, the largest tenth of them above 0.4).",
            notice: "At σ = 0.3 the attack falls to about a quarter of what it was and, unlike in the paper, the map's test error does not move: the server averages many devices' noise away. At σ = 0.1 it only halves: the update's few large numbers still stand out of the noise. Then open the sandbox: its Studies panel runs every mitigation at every strength and plots privacy against utility.",
            card: r#"[data-testid="link-model-card"]"#,
            settings: &[("l.mitigation", "noise"), ("l.sigma", "0.3")],
            rounds: None,
            lab: None,
        },
    ],
};
