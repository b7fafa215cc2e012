//! The lesson that walks across the labs (`?lesson=one-hour`, issue 40 §3): "Privacy in
//! federated learning, in one hour", in the order a lecture would take it — what leaks (an
//! update, a statistic, a pseudonym, a trajectory), the heuristic defences and the attacker who
//! adapts to them, aggregation and the server that cheats it, differential privacy local and
//! central, and what remains (a few points single you out) — each step setting a lab. Its
//! numbers are the labs' figures ([`crate::ui::figures`]); each lab's own lesson goes deeper.

use crate::protocol::LabKind;
use crate::ui::lesson::{Lesson, Question, Step};

pub static LESSON: Lesson = Lesson {
    key: "one-hour",
    lab: LabKind::Signal,
    title: "Privacy in federated learning, in one hour",
    caveat: "Every lab's world is synthetic and generated in your browser: the mechanisms are the papers', the numbers this world's (each lab's own lesson says where it differs from its paper). Nothing you drew or placed left this tab.",
    questions: &[
        Question {
            ask: "Federated learning keeps the data on the phone. Name two things the server learns anyway, and the lab that shows each.",
            answer: "Where you were, from one update (the Signal map: the card Median DLG error against your round's centroid; the Mobility lab: the card Every round so far, the share of your positions found), and which of its pseudonymous clients are the same person (the Linkability lab: the card Identification, many times chance). Even a sum of location statistics, with no learning at all, gives a place away (the Density lab's bump).",
        },
        Question {
            ask: "Why is secure aggregation not a privacy guarantee by itself?",
            answer: "It hides each update behind the sum, and only as long as the server counts honestly: the Mobility lab's server that fills your round with its own phones reads your update out of the sum again (step 7), unless the phones insist on a minimum of genuine phones. And the sum itself still says what it says (the Density lab: the density is the sum). Differential privacy, with noise the server cannot take out again (added by a trusted aggregator, or by enough genuine phones), bounds what the released sum can say about any one person.",
        },
        Question {
            ask: "A defence lowers the attack's success in the lab. What more do you need to know before you call it private?",
            answer: "Whether it holds against every attacker or only the one it was tried on: the Density lab's random waves hide part of the city from peak picking and almost nobody from the fitting server (step 5). A formal guarantee names its ε, what a neighbour is (a location, a round's window, a user), its δ, and whether it is per round or in total; and its cost shows beside a non-private model on the same data.",
        },
    ],
    steps: &[
        Step {
            title: "An update is a place",
            text: "Federated learning sends the server model updates, never data. This lecture walks the four labs in the order a course would: what leaks, the heuristic defences, aggregation, differential privacy, and what remains. First the Signal map ([000]): your phone trains the shared signal map on one day's fixes and sends the update; the honest-but-curious server searches for the one fix whose training step would produce it.",
            try_this: "Drag a waypoint of your path and let go: the round is trained and attacked again.",
            notice: "The red diamond lands near the blue dot, your round's centroid: {signal.dlg} away (the card Median DLG error). One update was enough.",
            card: r#"[data-testid="median-error"]"#,
            settings: &[("start", "cold")],
            rounds: Some(1),
            lab: Some(LabKind::Signal),
        },
        Step {
            title: "A statistic is a place",
            text: "No learning at all: the Density lab's city wants its density ([003]), and each phone sends its kernel bump. The sum is exactly the density, and each bump's top is exactly where its phone is.",
            try_this: "Drag one of your places and watch the server's guess follow it.",
            notice: "The server finds {density.found} of the city's people within 100 m, and the map is exact: ρ = {density.rho}.",
            card: r#"[data-testid="density-city-card"]"#,
            settings: &[("d.send", "kde")],
            rounds: None,
            lab: Some(LabKind::Density),
        },
        Step {
            title: "A pseudonym is a person",
            text: "Each of your devices is its own pseudonymous client. From their updates alone the Linkability lab's server ([004]) learns which new device belongs to which known person, by a classifier trained on the known devices' updates.",
            try_this: "Change the Seed: other people, other devices, the same finding.",
            notice: "The card Identification: the attack's mean average precision is {linkability.ap}, {linkability.times} chance ({linkability.chance}, one over the number of people): without ever being told which devices are one person's, the server ranks the right one near the top of its list for many people.",
            card: r#"[data-testid="link-ident-card"]"#,
            settings: &[],
            rounds: None,
            lab: Some(LabKind::Linkability),
        },
        Step {
            title: "A trajectory, round by round",
            text: "The Mobility lab's phones train a next-location model ([002]) on a sliding window of their recent positions, round after round. The server inverts each round's update (ST-GIA) and follows you along your route.",
            try_this: "Watch the server's guesses follow your route on the map as the rounds play; then pick a round on the timeline.",
            notice: "The card Every round so far: the server placed {mobility.mean} of your positions within the success radius of the truth, on average over the rounds.",
            card: r#"[data-testid="mob-mean-card"]"#,
            settings: &[("m.T", "12")],
            rounds: None,
            lab: Some(LabKind::Mobility),
        },
        Step {
            title: "Heuristic defences, and the attacker who adapts",
            text: "Most defences in the papers are heuristic: they change what is sent so that the known attack does worse. [003]'s random waves hide a phone behind a few secret cosine waves, and the paper's attacker, picking the highest peak, misses part of the city. A server that knows how uploads are made fits the waves instead. A heuristic holds against the attacker it was tried on; differential privacy holds against every attacker.",
            try_this: "Switch The server's attack from Frequency fitting back to Peak picking (the paper's).",
            notice: "Against the fitting server the same uploads give away {density.found} of the city within 100 m; peak picking finds far fewer. The map is the same either way: ρ = {density.rho}.",
            card: r#"[data-testid="density-city-card"]"#,
            settings: &[("d.send", "rff"), ("d.B", "3"), ("d.attack", "fit")],
            rounds: None,
            lab: Some(LabKind::Density),
        },
        Step {
            title: "Aggregation: only the sum",
            text: "Secure aggregation (Bonawitz et al. 2017) masks each update so that the server unmasks only the round's sum. In the Mobility lab you now train with five other phones, and the server inverts their mean: a blend of six people's windows, not yours.",
            try_this: "Switch What the server sees between Every update and Only the sum.",
            notice: "The server saw only the sum of {mobility.phones} phones' gradients, and its mean success falls to {mobility.mean} of your positions. Aggregation hides you in the cohort, as long as the cohort is real.",
            card: r#"[data-testid="mob-mean-card"]"#,
            settings: &[("m.T", "12"), ("m.sees", "sum"), ("m.co", "5")],
            rounds: None,
            lab: Some(LabKind::Mobility),
        },
        Step {
            title: "A server that cheats",
            text: "The server picks each round's phones. This one fills your round with clients of its own (Sybils), whose updates it knows, and leaves every other genuine phone out; it subtracts its Sybils from the secure sum and holds your update exactly: the n − 1 attack. The defence is on the phone: send only when enough genuine phones are in the round.",
            try_this: "Raise Minimum genuine phones a round (among your phone's defences) and watch the server lose you in the blend again.",
            notice: "The Sybil server put {mobility.sybils} phones of its own in your round, and its mean success is back up to {mobility.mean}, as high as with every update (step 4): secure aggregation protected nothing against a server that chose the cohort.",
            card: r#"[data-testid="mob-mean-card"]"#,
            settings: &[
                ("m.T", "12"),
                ("m.sees", "sum"),
                ("m.co", "5"),
                ("m.sybil", "5"),
            ],
            rounds: None,
            lab: Some(LabKind::Mobility),
        },
        Step {
            title: "Local differential privacy",
            text: "Differential privacy bounds, for any output, how much likelier it is under one input than under a neighbouring one: by a factor e^ε, except with probability δ. What counts as a neighbour is the unit protected. Here DP-SGD runs on your phone (local DP): each round clips your gradient and adds Gaussian noise, so that the round's update is (ε, δ)-private for the round's window of positions, whatever the server does with it. Rounds compose: their ε add up to the total the lab shows.",
            try_this: "Raise Privacy budget ε and watch the cards Every round so far and The model move together.",
            notice: "The server's mean success falls to {mobility.mean}: the attack fails. Each round costs ε = {mobility.epsilon_round}; after {mobility.rounds} rounds the total is {mobility.epsilon} (the card The privacy budget), and the card The model shows what the model paid for it.",
            card: r#"[data-testid="mob-mean-card"]"#,
            settings: &[("m.T", "12"), ("m.def", "dpsgd")],
            rounds: None,
            lab: Some(LabKind::Mobility),
        },
        Step {
            title: "Central differential privacy",
            text: "Central DP (DP-FedAvg) puts the noise on the secure sum instead, after clipping each upload: the published result is private for a whole user, the neighbours being the data with and without you. One noise for everyone costs far less than noise on every phone, but someone must add it honestly: a trusted aggregator, or the phones in shares.",
            try_this: "Press Ask again: each query spends ε again, and the card adds them up.",
            notice: "The card Central DP: your user-level ε is {density.epsilon} over the queries so far. The server finds {density.found} of the city within 100 m, and the map pays: ρ = {density.rho}.",
            card: r#"[data-testid="density-dp-card"]"#,
            settings: &[("d.send", "kde"), ("d.sees", "dp")],
            rounds: None,
            lab: Some(LabKind::Density),
        },
        Step {
            title: "What remains: a few points are you",
            text: "Even with every update hidden, what is published about movement identifies. De Montjoye et al. (2013) found that four points of place and hour single out most people in a phone network's records. The Mobility lab counts it on its own population: how many of the people share the points of your route you pick at random. Membership inference asks the mirror question of an aggregate: was this person among those counted? Each lab's lesson goes on from here; the sandbox is open.",
            try_this: "Read the card Your points in the crowd from one point to four; then tick Noise on the counts (DP) on the card Were you in the count?.",
            notice: "The card Your points in the crowd: one of your points singles you out among the lab's {mobility.people} people in {mobility.you1} of draws, four in {mobility.you4}. The card Were you in the count? plays the membership game on released counts: an AUC of {mobility.auc}, where a coin scores AUC 0.5.",
            card: r#"[data-testid="mob-unicity-card"]"#,
            settings: &[("m.T", "12")],
            rounds: None,
            lab: Some(LabKind::Mobility),
        },
    ],
};
