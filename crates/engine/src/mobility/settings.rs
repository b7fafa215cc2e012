//! The Mobility lab's settings, one row each ([`whereabouts_core::setting`]): the page's
//! controls, the address bar's `m.` keys, the lessons' and the instructor's keys and the
//! messages for refused values all come from [`SETTINGS`], read from and written to a
//! [`MobConfig`] directly.
//!
//! The lab opens on [`lab_default`]: the visitor's drawn route under the paper's attack ([002])
//! and no defence. [`MobConfig::default`] stays the engine's default run (the city's first
//! user), which `reproduce` starts from.

use super::config::{Calibration, Federation, Init, Mapping, Method, MobConfig, Start};
use super::defence::{Audit, Defence, DpClip};
use super::limits;
use super::membership::RELEASE_EPSILON;
use super::traces::{Target, TraceKind};
use whereabouts_core::choices;
use whereabouts_core::geo::Metres;
use whereabouts_core::secagg::Sees;
use whereabouts_core::secagg::sybil::{SybilSettings, min_genuine_row, sybils_row};
use whereabouts_core::setting::{Choices, Setting, flag, flag_text, number, trim};

/// The panel's sections, in order.
pub const YOU: &str = "Your trajectory";
pub const ATTACK: &str = "The server's attack";
pub const DEFENCE: &str = "Your phone's defence";
pub const TRAINING: &str = "Training and the city";
/// The membership card's release (shown on the card "Were you in the count?", not the panel).
pub const RELEASE: &str = "The released counts";
pub const SECTIONS: [&str; 5] = [YOU, ATTACK, DEFENCE, TRAINING, RELEASE];

/// The link's key for hidden controls, and the groups of controls besides the settings: the
/// route, the study, the map's layers and the visitor's own data (`m.data`, as `d.data` and
/// `l.data` in the other labs; an old link's `m.hide=m.data` also hides the city's kind of data,
/// whose key `m.data` was before it became `m.traces`).
pub const HIDE_KEY: &str = "m.hide";
pub const CONTROL_GROUPS: &[&str] = &["m.path", "m.study", "m.layers", "m.data"];

/// The ε a defence starts with when the visitor first picks one (per round for DP-SGD, per km
/// for the location mechanisms, the run's total for the adaptive one).
pub const DEFENCE_EPSILON: f64 = 10.0;

/// The route the lab opens with: across the city from the south-west, by the centre, to the
/// north-east (the visitor drags, adds and removes its waypoints).
pub fn default_path() -> Vec<Metres> {
    vec![
        Metres::new(-4200.0, -2600.0),
        Metres::new(-1500.0, -900.0),
        Metres::new(600.0, 700.0),
        Metres::new(3800.0, 2900.0),
    ]
}

/// The config the lab opens with: the visitor's own route ([`default_path`], along the streets)
/// under the paper's attack with the authors' choices (the engine's default run) and no
/// defence. The page puts the route the visitor draws in place of [`default_path`].
pub fn lab_default() -> MobConfig {
    MobConfig {
        target: Target::Path {
            waypoints: default_path(),
            snap: true,
        },
        defence: Defence::None,
        ..MobConfig::default()
    }
}

choices!(TraceKind, "a kind of data", {
    TraceKind::Vehicle => "vehicle", "Buses (like NYC)";
    TraceKind::CheckIn => "checkin", "Check-ins";
});
choices!(Federation, "a federation", {
    Federation::OneClient => "one", "One client (code)";
    Federation::FedAvg => "fedavg", "FedAvg (paper)";
});
choices!(Method, "an attack", {
    Method::StGia => "stgia", "ST-GIA";
    Method::StGiaPaper => "stgia_paper", "ST-GIA as printed (Alg. 1)";
    Method::Dlg => "dlg", "DLG";
    Method::Idlg => "idlg", "iDLG";
    Method::InvGrad => "invgrad", "InvGrad";
    Method::Cpl => "cpl", "CPL";
    Method::Sapag => "sapag", "SAPAG";
});
choices!(Init, "an initialisation", {
    Init::Code => "code", "Shifted (code)";
    Init::Paper => "paper", "As it was (paper)";
    Init::Off => "off", "Off (random)";
});
choices!(Mapping, "a mapping", {
    Mapping::Roads => "roads", "Streets";
    Mapping::OwnPoints => "own", "Own points (oracle)";
    Mapping::Off => "off", "Off";
});
choices!(Calibration, "a calibration", {
    Calibration::Causal => "causal", "So far (Eq. 9)";
    Calibration::AllRounds => "all", "All rounds (code)";
    Calibration::Off => "off", "Off";
});
choices!(Start, "a start", {
    Start::Uniform => "uniform", "Uniform (code)";
    Start::Gaussian => "gaussian", "Normal (paper)";
});
choices!(Audit, "an audit", {
    Audit::SelfAudit => "self", "Self-audit";
    Audit::PreviousRound => "previous", "Previous round";
});

/// Whose trajectory the server attacks, by the key of [`target_key`].
const TARGETS: &[(&str, &str)] = &[
    ("path", "Your route"),
    ("file", "Your file"),
    ("city", "A user of the city"),
];

/// The key of a target: the drawn route, the visitor's file, or the city's first user.
pub fn target_key(target: &Target) -> &'static str {
    match target {
        Target::Path { .. } => "path",
        Target::Fixes { .. } => "file",
        Target::Synthetic => "city",
    }
}

/// The defences of [002] Table 5, by the key of [`defence_key`].
const DEFENCES: &[(&str, &str)] = &[
    ("none", "None"),
    ("dpsgd", "DP-SGD"),
    // Short enough for its box ("(code)" as the other menus say it); the help says what the
    // authors' code does (a clip per tensor).
    ("dpsgd_code", "DP-SGD (code; ε understated)"),
    ("geoi", "GeoI"),
    ("geogi", "GeoGI"),
    ("adaptive", "Adaptive PGEM"),
];

/// The key of a defence (DP-SGD's two clips are two choices).
pub fn defence_key(defence: &Defence) -> &'static str {
    match defence {
        Defence::None => "none",
        Defence::DpSgd {
            clip: DpClip::Flat, ..
        } => "dpsgd",
        Defence::DpSgd {
            clip: DpClip::PerTensor,
            ..
        } => "dpsgd_code",
        Defence::GeoI { .. } => "geoi",
        Defence::GeoGi { .. } => "geogi",
        Defence::Adaptive { .. } => "adaptive",
    }
}

/// What a value not among `options` is refused with.
fn not_one_of(value: &str, what: &str, options: &[(&str, &str)]) -> String {
    let keys: Vec<&str> = options.iter().map(|x| x.0).collect();
    format!("“{value}” is not {what} ({})", keys.join(", "))
}

/// Refuses a round of the target and `co` others in a city of `users`.
fn fewer_than_the_round(co: usize, users: usize) -> Result<(), String> {
    if co >= users {
        return Err(format!(
            "{co} co-participants need a city of at least {} users; it has {users}",
            co + 1
        ));
    }
    Ok(())
}

/// Refuses a round of `trainers` phones fewer than the minimum cohort of genuine phones, under
/// `sees = sum` (where the minimum applies).
fn fewer_than_the_cohort(c: &MobConfig, trainers: usize) -> Result<(), String> {
    if c.sees == Sees::Sum && c.min_genuine > trainers {
        return Err(format!(
            "{trainers} phones training is fewer than the minimum cohort of {} genuine phones (lower it first)",
            c.min_genuine
        ));
    }
    Ok(())
}

/// The n − 1 attack's rows (the core's, the Signal map's too): the lab's config holds the two
/// numbers; they apply under `sees = sum`, where the users taking part are the round's trainers.
impl SybilSettings for MobConfig {
    fn sybils(&self) -> usize {
        self.sybils
    }
    fn set_sybils(&mut self, sybils: usize) {
        self.sybils = sybils;
    }
    fn min_genuine(&self) -> usize {
        self.min_genuine
    }
    fn set_min_genuine(&mut self, min_genuine: usize) {
        self.min_genuine = min_genuine;
    }
    fn taking_part(&self) -> usize {
        self.trainers()
    }
    fn sees_sum(&self) -> bool {
        self.sees == Sees::Sum
    }
}

/// A row of the lab's table.
type Row = Setting<MobConfig>;

/// Whether the server sees the sum with central DP (DP-FedAvg's rows are shown then).
fn dp_on(c: &MobConfig) -> bool {
    c.sees == Sees::Dp
}

/// Every setting of the Mobility lab, in the panel's order.
pub const SETTINGS: &[Row] = &[
    Row::choice("m.who", "The server's target", YOU, TARGETS)
        .help("Whose trajectory the phone trains on and the server tries to rebuild: the path you draw on the map (travelled back and forth like a bus route, a position about every 10 minutes), your imported file (its points in time order, one about every 10 minutes, placed on the city), or one of the city's own users.")
        .get(|c| target_key(&c.target).into())
        .set(|c, v| {
            let target = match v {
                "path" => Target::Path {
                    waypoints: default_path(),
                    snap: true,
                },
                // The visitor's file: whoever runs the config puts its points in (the page's
                // worker holds the file).
                "file" => Target::Fixes { fixes: Vec::new() },
                "city" => Target::Synthetic,
                _ => return Err(not_one_of(v, "a target", TARGETS)),
            };
            // The same target again keeps its route and its points.
            if target_key(&target) != target_key(&c.target) {
                c.target = target;
            }
            Ok(())
        }),
    Row::toggle("m.snap", "Along the streets", YOU)
        .help("Each leg of your path follows the shortest way along the streets (on: like a vehicle, and like every point of the paper's data); off: straight across the blocks, so the server's road mapping pulls its guesses off your path.")
        .get(|c| match c.target {
            Target::Path { snap, .. } => flag_text(snap),
            _ => flag_text(true),
        })
        .set(|c, v| {
            let on = flag(v)?;
            if let Target::Path { snap, .. } = &mut c.target {
                *snap = on;
            }
            Ok(())
        })
        .relevant(|c| matches!(c.target, Target::Path { .. })),
    Row::choice("m.method", "The server's attack", ATTACK, Method::MENU)
        .help("How the server inverts your phone's update ([002] Tables 1 and 3): every attack makes up 8 positions and a next position, and moves them until the gradient they would give matches the one your phone sent. ST-GIA adds the three switches below. DLG: the plain version (row-wise L2 distance, L-BFGS). iDLG and CPL are given the true next position (CPL also the model's output on your window: privileged knowledge). InvGrad: cosine distance and Adam. SAPAG: a Gaussian-kernel distance. ST-GIA as printed: Algorithm 1 of the paper — Eq. 8's L2 distance, a plain gradient step stopped when the guess no longer moves, a random next position every round — where ST-GIA follows the authors' code.")
        .get(|c| c.attack.method.key().into())
        .set(|c, v| {
            c.attack.method = Method::parse(v)?;
            Ok(())
        }),
    Row::choice("m.init", "Start from the last round", ATTACK, Init::MENU)
        .help("ST-GIA's spatiotemporal initialisation (§3.1): round t's window is round t − 1's slid by one point, so the server starts from its previous reconstruction. The paper's (Eq. 6): the previous window as it was, with a random next position. The authors' code: shifted by one, with the previous guess of the next position appended. Off: a random start every round (the ablation of Fig. 4).")
        .get(|c| c.attack.init.key().into())
        .set(|c, v| {
            c.attack.init = Init::parse(v)?;
            Ok(())
        })
        // Algorithm 1 has its own (Eq. 6).
        .relevant(|c| c.attack.method == Method::StGia),
    Row::choice("m.map", "Snap guesses", ATTACK, Mapping::MENU)
        .help("ST-GIA's mapping after every step (§3.2): each guessed position is moved to the nearest point of the street network, since vehicles and check-ins are on the streets. The authors' code maps onto the target's own recorded points instead — an oracle, since that set holds the answer; it is here so its effect can be seen, labelled for what it is.")
        .get(|c| c.attack.mapping.key().into())
        .set(|c, v| {
            c.attack.mapping = Mapping::parse(v)?;
            Ok(())
        })
        .relevant(|c| c.attack.method.is_st_gia()),
    Row::choice("m.cal", "Average each point's guesses", ATTACK, Calibration::MENU)
        .help("ST-GIA's calibration (§3.3, Eq. 9): each position is in up to 8 windows, so the server rebuilds it up to 8 times and averages. The paper's reading uses the rounds so far; the authors' code averages over every round of the run, later ones too (known only at the end). The success rate is scored on the averaged positions.")
        .get(|c| c.attack.calibration.key().into())
        .set(|c, v| {
            c.attack.calibration = Calibration::parse(v)?;
            Ok(())
        })
        .relevant(|c| c.attack.method.is_st_gia()),
    Row::choice("m.start", "Random start", ATTACK, Start::MENU)
        .help("Where a random guess starts, in the normalised coordinates the model sees (your positions scaled to [0, 1]).")
        .get(|c| c.attack.start.key().into())
        .set(|c, v| {
            c.attack.start = Start::parse(v)?;
            Ok(())
        })
        // Algorithm 1 starts from N(0, 1) (Eq. 6).
        .relevant(|c| c.attack.method != Method::StGiaPaper),
    Row::number("m.tv", "InvGrad's TV weight", ATTACK, "0.01", limits::TV_WEIGHT)
        .help("The weight of InvGrad's total-variation term, which favours smooth trajectories (0: off, as in the authors' code).")
        .get(|c| c.attack.tv_weight.to_string())
        .set(|c, v| {
            c.attack.tv_weight = number(v, &limits::TV_WEIGHT)? as f32;
            Ok(())
        })
        .relevant(|c| c.attack.method == Method::InvGrad),
    Row::number("m.iters", "Iterations per round", ATTACK, "10", limits::ITERATIONS)
        .help("The attack's optimiser steps on each round's update (the paper: 200). Every iterate is kept: the trail on the map, and AIT (the first iteration at which a point came within the success radius).")
        .get(|c| c.attack.iterations.to_string())
        .set(|c, v| {
            c.attack.iterations = number(v, &limits::ITERATIONS)? as usize;
            Ok(())
        }),
    Row::number("m.tau", "Success radius τ", ATTACK, "100", limits::TAU_M)
        .unit("m")
        .help("A position counts as found when the server's guess is within this distance (the paper: 500 m; the authors' scripts also 1 km and 2.5 km). ASR is the share of the window's positions found.")
        .get(|c| trim(c.tau_m))
        .set(|c, v| {
            c.tau_m = number(v, &limits::TAU_M)?;
            Ok(())
        }),
    sybils_row("m.sybil", ATTACK),
    Row::choice("m.def", "Your phone's defence", DEFENCE, DEFENCES)
        .help("What your phone does before it trains ([002] Table 5). DP-SGD (as Abadi et al. define it) clips your phone's whole gradient to length 0.2 and adds Gaussian noise so that each round is (ε, 10⁻⁵)-differentially private for that round's window — its 8 positions and the next one — against a server that sees your phone's own update (local DP: any two windows count as neighbours, so the update can move by 2 × 0.2). DP-SGD as in the authors' code clips each of the model's 6 weight tensors to 0.2 and sizes its noise for a change of 0.2, though the whole update can move by 2 × 0.2 × √6 ≈ 0.98: the ε it states is understated, and the lab shows the true one beside it. GeoI moves every position by planar-Laplace noise (ε per km). GeoGI replaces it with a street corner drawn by the exponential mechanism on distances along the streets. Adaptive PGEM (the paper's, Eq. 13) replaces it with one of your own places drawn the same way, and spends a total budget ε round by round: more where the attack is doing well (Eqs. 10–12).")
        .get(|c| defence_key(&c.defence).into())
        .set(|c, v| {
            // A new defence keeps the ε of the one before (else the lab's first ε).
            let epsilon = c.defence.epsilon().unwrap_or(DEFENCE_EPSILON);
            let defence = match v {
                "none" => Defence::None,
                "dpsgd" => Defence::DpSgd {
                    epsilon,
                    clip: DpClip::Flat,
                },
                "dpsgd_code" => Defence::DpSgd {
                    epsilon,
                    clip: DpClip::PerTensor,
                },
                "geoi" => Defence::GeoI { epsilon },
                "geogi" => Defence::GeoGi { epsilon },
                "adaptive" => Defence::Adaptive {
                    epsilon,
                    audit: Audit::SelfAudit,
                },
                _ => return Err(not_one_of(v, "a defence", DEFENCES)),
            };
            // The same defence again keeps its parameters.
            if defence_key(&defence) != defence_key(&c.defence) {
                c.defence = defence;
            }
            Ok(())
        }),
    Row::number("m.eps", "Privacy budget ε", DEFENCE, "1", limits::EPSILON)
        .help("Smaller is more private. DP-SGD: ε per round at δ = 10⁻⁵, protecting that round's window of 9 positions; the rounds add up, and the privacy budget card shows the total ε over the rounds so far (Rényi-DP accounting, δ = 10⁻⁵), which protects your whole trajectory trained on — both are upper bounds, from different accountings. For the authors'-code DP-SGD it is the ε the code states; the privacy budget card shows the true one. GeoI and GeoGI: ε per km that a position moves, every round — and every round re-noises all 9 positions of its window, which slides by one, so over T rounds one position (in up to 9 windows) gets min(T, 9) × ε per km and your whole trajectory, each position moved by up to a km, 9 × T × ε (δ = 0, basic composition; the privacy budget card shows both). Adaptive PGEM: the run's total, per km, shared out by round as ε_t = e^(−γ_t)·(what is left), γ_t = ½·ASR_t + ½/AIT_t — the bar under the figures shows it being spent; it bounds any one position, and since a round noises 9 positions, your whole trajectory gets at most 9 × ε.")
        .get(|c| trim(c.defence.epsilon().unwrap_or(DEFENCE_EPSILON)))
        .set(|c, v| {
            let e = number(v, &limits::EPSILON)?;
            match &mut c.defence {
                Defence::None => {}
                Defence::DpSgd { epsilon, .. }
                | Defence::GeoI { epsilon }
                | Defence::GeoGi { epsilon }
                | Defence::Adaptive { epsilon, .. } => *epsilon = e,
            }
            Ok(())
        })
        .relevant(|c| c.defence != Defence::None),
    Row::choice("m.audit", "Risk measured by", DEFENCE, Audit::MENU)
        .help("The paper never says where the adaptive allocation's ASR_t and AIT_t come from. Our reading: the phone attacks its own clean update with ST-GIA before sending it (a self-audit; it doubles the phone's work). The alternative: the figures of the previous round's attack (the worst case in round 1).")
        .get(|c| match c.defence {
            Defence::Adaptive { audit, .. } => audit.key().into(),
            _ => Audit::SelfAudit.key().into(),
        })
        .set(|c, v| {
            let chosen = Audit::parse(v)?;
            if let Defence::Adaptive { audit, .. } = &mut c.defence {
                *audit = chosen;
            }
            Ok(())
        })
        .relevant(|c| matches!(c.defence, Defence::Adaptive { .. })),
    // `m.data` before the visitor's own data panel took the name (`m.hide=m.data`).
    Row::choice("m.traces", "The city's users", TRAINING, TraceKind::MENU)
        .aliases(&["m.data"])
        .help("The kind of trajectories of the city's users (the target too, when it is one of them), like the paper's data (§5.1): buses on their routes with a position about every 10 minutes, or people's sparse check-ins at the places they go.")
        .get(|c| c.data.key().into())
        .set(|c, v| {
            c.data = TraceKind::parse(v)?;
            Ok(())
        }),
    Row::choice("m.fed", "Training", TRAINING, Federation::MENU)
        .help("The authors' code: one client (the target) takes one SGD step on its window t in round t, and the update the server sees is that gradient. The paper: every user of the city takes its step and the server averages (FedAvg), still attacking the target's own update.")
        .get(|c| c.federation.key().into())
        .set(|c, v| {
            let federation = Federation::parse(v)?;
            let trainers = match federation {
                Federation::OneClient => 1 + c.co_participants,
                Federation::FedAvg => c.users,
            };
            fewer_than_the_cohort(c, trainers)?;
            c.federation = federation;
            Ok(())
        }),
    Row::choice("m.sees", "What the server sees", TRAINING, Sees::MENU)
        .help("Every update: the server receives each phone's gradient, as in the paper, and inverts yours. Only the sum: secure aggregation (Bonawitz et al. 2017) — the round's phones mask their gradients so that the server can unmask only their sum; it learns the same model and inverts the only gradient it has, the round's mean, so ST-GIA recovers a blend of every phone's window. The errors stay measured to your own positions. With one client training, give it co-participants to hide among; a round of up to 20 phones runs the real protocol (key agreement, secret sharing, masking). Sum + central DP: DP-FedAvg (McMahan et al. 2018) on that sum — each round every phone of the round (you and your co-participants, or the whole city under FedAvg) is sampled with probability q, each sampled phone clips its gradient to length C, Gaussian noise z·C is added to the sum (by a trusted aggregator, or a share by each phone), and the server divides by the expected number of phones; the model steps by that and the attack inverts it. The lab shows your user-level ε, per round and in total.")
        .get(|c| c.sees.key().into())
        .set(|c, v| {
            c.sees = <Sees as Choices>::parse(v)?;
            Ok(())
        }),
    whereabouts_core::central_dp_setting!(noise_multiplier, Row, "m.dpz", TRAINING, dp_on),
    whereabouts_core::central_dp_setting!(clip, Row, "m.dpclip", TRAINING, limits::DP_CLIP, "0.1", dp_on),
    whereabouts_core::central_dp_setting!(sampling_rate, Row, "m.dpq", TRAINING, dp_on),
    whereabouts_core::central_dp_setting!(adaptive, Row, "m.dpadapt", TRAINING, dp_on),
    whereabouts_core::central_dp_setting!(target_quantile, Row, "m.dpquant", TRAINING, dp_on),
    whereabouts_core::central_dp_setting!(noise_at, Row, "m.dpnoise", TRAINING, dp_on),
    whereabouts_core::central_dp_setting!(dropout, Row, "m.dpdrop", TRAINING, dp_on),
    Row::number("m.users", "Users in the city", TRAINING, "10", limits::USERS)
        .help("How many phones train under FedAvg (the paper: 100).")
        .get(|c| c.users.to_string())
        .set(|c, v| {
            let users = number(v, &limits::USERS)? as usize;
            fewer_than_the_round(c.co_participants, users)?;
            if c.federation == Federation::FedAvg {
                fewer_than_the_cohort(c, users)?;
            }
            c.users = users;
            Ok(())
        })
        .relevant(|c| c.federation == Federation::FedAvg),
    Row::number("m.co", "Co-participants", TRAINING, "1", limits::CO_PARTICIPANTS)
        .help("Other phones in your round when one client trains: users 1 … k of the city take one SGD step on their own window t too, and the server averages them (the model moves with them). With every update the server still inverts yours; with only the sum it inverts the round's mean. 0: you alone, the authors' code. At most the users in the city less one.")
        .get(|c| c.co_participants.to_string())
        .set(|c, v| {
            let co = number(v, &limits::CO_PARTICIPANTS)? as usize;
            fewer_than_the_round(co, c.users)?;
            if c.federation == Federation::OneClient {
                fewer_than_the_cohort(c, co + 1)?;
            }
            c.co_participants = co;
            Ok(())
        })
        .relevant(|c| c.federation == Federation::OneClient),
    Row::number("m.T", "Rounds T", TRAINING, "1", limits::ROUNDS)
        .help("Global rounds (the paper: 50). In round t the window is positions t to t + 7 and the label position t + 8, so the windows slide one position a round.")
        .get(|c| c.rounds.to_string())
        .set(|c, v| {
            c.rounds = number(v, &limits::ROUNDS)? as usize;
            Ok(())
        }),
    Row::number("m.lr", "Learning rate", TRAINING, "0.001", limits::LEARNING_RATE)
        .help("The phones' SGD step (the authors' code: 0.001). The model is an LSTM (2 → 16) and a linear layer (16 → 2) predicting the next position from the last 8, trained on the mean squared error.")
        .get(|c| c.learning_rate.to_string())
        .set(|c, v| {
            c.learning_rate = number(v, &limits::LEARNING_RATE)? as f32;
            Ok(())
        }),
    whereabouts_core::seed_setting!(
        Row,
        "m.seed",
        TRAINING,
        "Everything random (the streets, the users, the model's first weights, the attack's random starts, the defences' noise) comes from this number: the same seed gives the same run, here and in the command line."
    ),
    Row::number("m.group", "People in a group m", RELEASE, "1", limits::GROUP)
        .help("The city publishes, for a group of m people, how many of them were in each of its 30 busiest places (500 m squares) during each six hours of the week. The smaller the group, the more one person's visits stand out in its counts. At most 24: a group is drawn from half of the city's other people (99 of them at the lab's 100 users), and a group that took nearly all of them would be nearly the same group every time.")
        .get(|c| c.release.group.to_string())
        .set(|c, v| {
            c.release.group = number(v, &limits::GROUP)? as usize;
            Ok(())
        }),
    Row::toggle("m.aggdp", "Noise on the counts (DP)", RELEASE)
        .help("Off: the exact counts are published. On: user-level differential privacy per release — each person's (place, six hours) pairs are capped at 20 (a random 20 kept), and Laplace noise of scale 20/ε is added to every count, so adding or removing one person changes the chance of any release by a factor of at most e^ε (δ = 0). The adversary knows the mechanism and learns from noised counts too.")
        .get(|c| flag_text(c.release.epsilon.is_some()))
        .set(|c, v| {
            let on = flag(v)?;
            if on != c.release.epsilon.is_some() {
                c.release.epsilon = on.then_some(RELEASE_EPSILON);
            }
            Ok(())
        }),
    Row::number("m.aggeps", "The counts' ε", RELEASE, "0.1", limits::RELEASE_EPSILON)
        .help("The released counts' user-level ε, per release, δ = 0: it protects a person — all of their visits in the week — against adding or removing them from a group (the game's groups with and without you differ by you swapped for someone else, for which the bound is 2ε). Each count's noise is Laplace of scale 20/ε: a count is off by 20/ε people on average (20 at ε = 1), against counts of at most m. Every further release of the same people adds its ε.")
        .get(|c| trim(c.release.epsilon.unwrap_or(RELEASE_EPSILON)))
        .set(|c, v| {
            let e = number(v, &limits::RELEASE_EPSILON)?;
            if let Some(x) = &mut c.release.epsilon {
                *x = e;
            }
            Ok(())
        })
        .relevant(|c| c.release.epsilon.is_some()),
    // Last in the table, so that a link's training and co-participants are in place before the
    // minimum is checked against them (the panel shows it among the defences).
    min_genuine_row("m.cohort", DEFENCE),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mobility::config::AttackConfig;
    use crate::mobility::membership::{CAP, Release};
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;
    use whereabouts_core::privacy::central::{CentralDp, NoiseAt};
    use whereabouts_core::setting::{apply, check_rows, get, pairs, set};

    /// `c` written as its rows' text and read back over the lab's default.
    fn round_trip(c: &MobConfig) -> MobConfig {
        let text = pairs(SETTINGS, c);
        let owned: Vec<(&str, &str)> = text.iter().filter_map(|p| p.split_once('=')).collect();
        let mut back = lab_default();
        let problems = apply(SETTINGS, &mut back, &owned);
        assert!(problems.is_empty(), "{problems:?}");
        back
    }

    #[test]
    fn every_setting_round_trips_through_its_text_and_absurd_values_are_named() {
        let c = MobConfig {
            seed: 9,
            data: TraceKind::CheckIn,
            target: Target::Path {
                waypoints: default_path(),
                snap: false,
            },
            users: 20,
            federation: Federation::FedAvg,
            co_participants: 3,
            sees: Sees::Dp,
            sybils: 2,
            min_genuine: 3,
            central_dp: CentralDp {
                noise_multiplier: 1.5,
                clip: 0.3,
                sampling_rate: 0.2,
                adaptive: true,
                target_quantile: 0.3,
                noise_at: NoiseAt::Distributed,
                dropout: 0.1,
            },
            rounds: 30,
            learning_rate: 0.01,
            attack: AttackConfig {
                method: Method::InvGrad,
                init: Init::Paper,
                mapping: Mapping::OwnPoints,
                calibration: Calibration::AllRounds,
                start: Start::Gaussian,
                tv_weight: 0.5,
                iterations: 150,
            },
            defence: Defence::Adaptive {
                epsilon: 5.0,
                audit: Audit::PreviousRound,
            },
            tau_m: 1000.0,
            release: Release {
                group: 12,
                epsilon: Some(0.5),
            },
            ..lab_default()
        };
        check_rows(
            SETTINGS,
            &SECTIONS,
            "m.",
            &lab_default(),
            &c,
            &[
                ("m.users", "0"),
                ("m.T", "501"),
                ("m.iters", "0"),
                ("m.eps", "0"),
                ("m.tau", "-5"),
                ("m.lr", "abc"),
                ("m.tv", "101"),
                ("m.seed", ""),
                ("m.method", "guess"),
                ("m.snap", "maybe"),
                ("m.who", "someone"),
                ("m.def", "wall"),
                ("m.data", "1"),
                ("m.sees", "everything"),
                ("m.dpz", "0"),
                ("m.dpclip", "5"),
                ("m.dpq", "1.5"),
                ("m.dpquant", "1"),
                ("m.dpnoise", "enclave"),
                ("m.dpdrop", "0.95"),
                ("m.co", "100"),
                ("m.co", "1.5"),
                ("m.sybil", "101"),
                ("m.sybil", "-1"),
                ("m.cohort", "0"),
                ("m.cohort", "2.5"),
                ("m.group", "1"),
                ("m.group", "25"),
                ("m.aggdp", "maybe"),
                ("m.aggeps", "0"),
                ("m.aggeps", "1001"),
            ],
        );
        assert!(c.validate().is_ok());
        // Every target and every defence reads back as itself; the file as "file".
        for (target, key) in [
            (Target::Fixes { fixes: Vec::new() }, "file"),
            (Target::Synthetic, "city"),
        ] {
            let c = MobConfig {
                target,
                ..lab_default()
            };
            assert_eq!(get(SETTINGS, &c, "m.who"), key);
            assert_eq!(round_trip(&c), c);
        }
        for defence in [
            Defence::DpSgd {
                epsilon: 3.0,
                clip: DpClip::Flat,
            },
            Defence::DpSgd {
                epsilon: 3.0,
                clip: DpClip::PerTensor,
            },
            Defence::GeoI { epsilon: 0.5 },
            Defence::GeoGi { epsilon: 20.0 },
        ] {
            let c = MobConfig {
                defence,
                ..lab_default()
            };
            assert_eq!(round_trip(&c), c);
        }

        let mut c = lab_default();
        assert_eq!(
            set(SETTINGS, &mut c, "m.def", "wall").unwrap_err(),
            "Your phone's defence: “wall” is not a defence (none, dpsgd, dpsgd_code, geoi, geogi, adaptive)"
        );
        assert_eq!(
            set(SETTINGS, &mut c, "m.tau", "0").unwrap_err(),
            "Success radius τ (m): must be above 0 m, at most 100 km (not 0)"
        );
        // At the engine's own bounds the rows and the engine agree.
        for (key, edge) in [
            ("m.T", "500"),
            ("m.iters", "5000"),
            ("m.users", "1000"),
            ("m.tau", "100000"),
            ("m.lr", "10"),
            ("m.tv", "100"),
            ("m.seed", "9007199254740991"),
            ("m.def", "geoi"),
            ("m.eps", "1000000"),
            ("m.dpclip", "4"),
            ("m.dpz", "20"),
            ("m.group", "24"),
            ("m.aggdp", "1"),
            ("m.aggeps", "1000"),
        ] {
            set(SETTINGS, &mut c, key, edge).unwrap();
        }
        assert!(c.validate().is_ok(), "{:?}", c.validate());
        assert!(lab_default().validate().is_ok());
    }

    /// The membership card's release: noise off keeps no ε, on starts at the lab's, and the
    /// help's cap is the engine's.
    #[test]
    fn the_release_rows_say_their_cap_and_refuse_by_name() {
        let mut c = lab_default();
        assert_eq!(c.release, Release::default());
        set(SETTINGS, &mut c, "m.aggeps", "3").unwrap();
        assert_eq!(c.release.epsilon, None, "ε without the noise has no effect");
        set(SETTINGS, &mut c, "m.aggdp", "1").unwrap();
        assert_eq!(c.release.epsilon, Some(RELEASE_EPSILON));
        set(SETTINGS, &mut c, "m.aggeps", "0.2").unwrap();
        assert_eq!(c.release.epsilon, Some(0.2));
        assert_eq!(
            set(SETTINGS, &mut c, "m.group", "30").unwrap_err(),
            "People in a group m: must be a whole number from 2 to 24 (not 30)"
        );
        let e = MobConfig {
            release: Release {
                group: 5,
                epsilon: Some(-1.0),
            },
            ..lab_default()
        }
        .validate()
        .unwrap_err();
        assert!(e.starts_with("release.epsilon"), "{e}");
        for key in ["m.aggdp", "m.aggeps"] {
            let help = whereabouts_core::setting::find(SETTINGS, key).unwrap().help;
            assert!(help.contains(&format!("{CAP}/ε")), "{key}: {help}");
        }
    }

    /// A round the city cannot fill is refused by the row and by the engine, naming the
    /// setting and the value.
    #[test]
    fn co_participants_fit_the_city() {
        let mut c = lab_default();
        set(SETTINGS, &mut c, "m.users", "5").unwrap();
        let e = set(SETTINGS, &mut c, "m.co", "5").unwrap_err();
        assert_eq!(
            e,
            "Co-participants: 5 co-participants need a city of at least 6 users; it has 5"
        );
        set(SETTINGS, &mut c, "m.co", "4").unwrap();
        let e = set(SETTINGS, &mut c, "m.users", "3").unwrap_err();
        assert!(e.starts_with("Users in the city: 4 co-participants"), "{e}");
        let e = MobConfig {
            users: 3,
            co_participants: 10,
            ..lab_default()
        }
        .validate()
        .unwrap_err();
        assert!(
            e.starts_with("co_participants: 10 other phones") && e.contains("it has 3"),
            "{e}"
        );
    }

    #[test]
    fn a_defence_keeps_the_epsilon_before_it_and_the_same_choice_keeps_its_parameters() {
        let mut c = lab_default();
        // ε and the audit of a defence not in force have no effect.
        set(SETTINGS, &mut c, "m.eps", "3").unwrap();
        set(SETTINGS, &mut c, "m.audit", "previous").unwrap();
        assert_eq!(c, lab_default());
        assert_eq!(get(SETTINGS, &c, "m.eps"), "10");
        // The first defence starts at the lab's ε; the next keeps the ε before it.
        set(SETTINGS, &mut c, "m.def", "geoi").unwrap();
        assert_eq!(c.defence, Defence::GeoI { epsilon: 10.0 });
        set(SETTINGS, &mut c, "m.eps", "3").unwrap();
        set(SETTINGS, &mut c, "m.def", "dpsgd_code").unwrap();
        assert_eq!(
            c.defence,
            Defence::DpSgd {
                epsilon: 3.0,
                clip: DpClip::PerTensor
            }
        );
        set(SETTINGS, &mut c, "m.def", "adaptive").unwrap();
        set(SETTINGS, &mut c, "m.audit", "previous").unwrap();
        set(SETTINGS, &mut c, "m.def", "adaptive").unwrap();
        assert_eq!(
            c.defence,
            Defence::Adaptive {
                epsilon: 3.0,
                audit: Audit::PreviousRound
            }
        );
        set(SETTINGS, &mut c, "m.def", "none").unwrap();
        assert_eq!(c.defence, Defence::None);
        // A link's order does not matter: the defence is in place before its ε.
        let mut c = lab_default();
        assert!(apply(SETTINGS, &mut c, &[("m.eps", "5"), ("m.def", "dpsgd")]).is_empty());
        assert_eq!(
            c.defence,
            Defence::DpSgd {
                epsilon: 5.0,
                clip: DpClip::Flat
            }
        );
    }

    #[test]
    fn the_target_keeps_its_route_and_the_old_key_of_the_citys_data_is_read() {
        let mut c = lab_default();
        set(SETTINGS, &mut c, "m.snap", "0").unwrap();
        set(SETTINGS, &mut c, "m.who", "path").unwrap();
        assert_eq!(
            c.target,
            Target::Path {
                waypoints: default_path(),
                snap: false
            }
        );
        set(SETTINGS, &mut c, "m.who", "file").unwrap();
        assert_eq!(c.target, Target::Fixes { fixes: Vec::new() });
        assert!(!(SETTINGS[1].relevant)(&c));
        assert_eq!(get(SETTINGS, &c, "m.snap"), "1");
        set(SETTINGS, &mut c, "m.data", "checkin").unwrap();
        assert_eq!(c.data, TraceKind::CheckIn);
        assert_eq!(get(SETTINGS, &c, "m.data"), "checkin");
        // The engine's own default run is untouched: the city's first user.
        assert_eq!(MobConfig::default().target, Target::Synthetic);
        assert_eq!(
            MobConfig {
                target: Target::Synthetic,
                ..lab_default()
            },
            MobConfig::default()
        );
    }
}
