//! The attack scenarios of [004] §6.3 (evaluated in §8.2–8.4) on a federation's update log:
//! closed-world identification (a known person's unseen device), matching pairs of devices
//! (Table 8), and the open world (people the server never saw, an "unknown" class trained on
//! hold-out people).

use super::attack::mlp::{self, Mlp, MlpSettings};
use super::attack::siamese::{self, Pair, SiameseSettings};
use super::attack::{Identifier, chance, knn, match_probability, svm};
use super::features::{Matrix, Scaler};
use super::metrics::{Identification, Scores, average_precision, identification};
use super::population::device;
use whereabouts_core::fl::UpdateLog;
use whereabouts_core::geo::Metres;
use whereabouts_core::rng::Stream;

/// The log as the attacks read it: one normalised feature row per update, with its labels.
#[derive(Clone, Debug, Default)]
pub struct Observations {
    pub x: Matrix,
    pub owner: Vec<usize>,
    pub client: Vec<u32>,
    pub round: Vec<usize>,
    /// Where Lemma 1 puts each update, kilometres east and north (k-NN "by place" reads it).
    pub place: Matrix,
}

impl Observations {
    /// The log's updates (optionally only `columns` of what was kept), each scaled to unit
    /// norm ([004] §6), and the places.
    pub fn from_log(
        log: &UpdateLog,
        places: &[Option<Metres>],
        columns: Option<std::ops::Range<usize>>,
    ) -> Self {
        let entries = log.entries();
        let width = entries.first().map_or(0, |e| e.delta.len());
        let range = columns.unwrap_or(0..width);
        let mut x = Matrix::new(range.len());
        let mut place = Matrix::new(2);
        for (e, p) in entries.iter().zip(places) {
            x.push(&e.delta[range.clone()]);
            // An update Lemma 1 cannot read (no first-layer gradient) sits at the origin.
            let p = p.unwrap_or(Metres::new(0.0, 0.0));
            place.push(&[(p.east / 1000.0) as f32, (p.north / 1000.0) as f32]);
        }
        Self {
            x: x.normalised(),
            owner: entries.iter().map(|e| e.owner as usize).collect(),
            client: entries.iter().map(|e| e.client).collect(),
            round: entries.iter().map(|e| e.round).collect(),
            place,
        }
    }

    pub fn len(&self) -> usize {
        self.owner.len()
    }

    pub fn is_empty(&self) -> bool {
        self.owner.is_empty()
    }

    /// The rows of updates from device `d` (0 or 1) of their owner.
    pub fn device_rows(&self, d: usize) -> Vec<usize> {
        (0..self.len())
            .filter(|&i| device(self.client[i]) == d)
            .collect()
    }

    fn owners_of(&self, rows: &[usize]) -> Vec<usize> {
        rows.iter().map(|&i| self.owner[i]).collect()
    }
}

/// The closed world ([004] §6.1): each person's first device is known (its updates train the
/// attack), the second is new (its updates are attributed). With the chrono split the first
/// device is the old phone.
#[derive(Clone, Debug)]
pub struct ClosedWorld {
    pub train: Vec<usize>,
    pub test: Vec<usize>,
}

impl ClosedWorld {
    pub fn of(obs: &Observations) -> Self {
        Self {
            train: obs.device_rows(0),
            test: obs.device_rows(1),
        }
    }

    /// The attack's training set: the known devices' updates, each coordinate standardised
    /// over them (the scaler goes with the trained model), and their owners.
    pub fn training_set(&self, obs: &Observations) -> (Matrix, Vec<usize>, Scaler) {
        let scaler = Scaler::fit(&obs.x, &self.train);
        (
            scaler.apply(&obs.x.select(&self.train)),
            obs.owners_of(&self.train),
            scaler,
        )
    }
}

/// The identification MLP with the standardisation its inputs need.
#[derive(Clone, Debug)]
pub struct TrainedMlp {
    pub net: Mlp,
    pub scaler: Scaler,
}

impl TrainedMlp {
    /// P(person | update) for every row of `x` (raw normalised features).
    pub fn probabilities(&self, x: &Matrix) -> Scores {
        self.net.probabilities(&self.scaler.apply(x))
    }
}

/// One identification attack's answer on the closed world.
#[derive(Clone, Debug)]
pub struct Identified {
    pub attack: Identifier,
    /// Scores of the test rows (rows of `ClosedWorld::test`) for each person.
    pub scores: Scores,
    pub metrics: Identification,
    /// The MLP, when that was the attack (matching reuses it).
    pub mlp: Option<TrainedMlp>,
}

/// Runs `attack` on the closed world of `obs` over `people` classes.
pub fn identify(
    obs: &Observations,
    people: usize,
    attack: Identifier,
    settings: MlpSettings,
    seed: u64,
) -> Result<Identified, String> {
    identify_on(obs, &ClosedWorld::of(obs), people, attack, settings, seed)
}

/// [`identify`] trained on `world.train` and tested on `world.test` (a subset of the closed
/// world's rows: fewer updates a person, [004] Fig. 9; one range of rounds, Fig. 12).
pub fn identify_on(
    obs: &Observations,
    world: &ClosedWorld,
    people: usize,
    attack: Identifier,
    settings: MlpSettings,
    seed: u64,
) -> Result<Identified, String> {
    if world.train.is_empty() || world.test.is_empty() {
        return Err("the server has no updates of one of the two devices yet".into());
    }
    let (train_x, train_y, scaler) = world.training_set(obs);
    let test_x = scaler.apply(&obs.x.select(&world.test));
    let (train_x, test_x) = match attack {
        Identifier::Place => (
            obs.place.select(&world.train),
            obs.place.select(&world.test),
        ),
        _ => (train_x, test_x),
    };
    let truth = obs.owners_of(&world.test);
    let mut stream = Stream::new(seed, &format!("identify-{}", attack.name()));
    let mut trained = None;
    let scores = match attack {
        Identifier::Chance => chance(test_x.rows, people, &mut stream),
        Identifier::Svm => svm::one_vs_rest(&train_x, &train_y, people, &test_x, &mut stream),
        Identifier::Knn | Identifier::Place => {
            knn::classify(&train_x, &train_y, people, &test_x, knn::K)
        }
        Identifier::Mlp => {
            let net = mlp::train(&train_x, &train_y, people, settings, stream)?;
            let scores = net.probabilities(&test_x);
            trained = Some(TrainedMlp { net, scaler });
            scores
        }
    };
    let metrics = identification(&scores, &truth).ok_or("no test updates")?;
    Ok(Identified {
        attack,
        scores,
        metrics,
        mlp: trained,
    })
}

/// Balanced pairs of updates from two different devices ([004] §6.2: the hard case): for
/// every row of `new`, one row of `known` of the same person (if any) and one of someone else.
pub fn cross_device_pairs(
    obs: &Observations,
    known: &[usize],
    new: &[usize],
    stream: &mut Stream,
) -> Vec<Pair> {
    let mut by_owner: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    for &i in known {
        by_owner.entry(obs.owner[i]).or_default().push(i);
    }
    let mut pairs = Vec::new();
    for &j in new {
        let Some(same) = by_owner.get(&obs.owner[j]) else {
            continue;
        };
        let others: Vec<usize> = by_owner
            .keys()
            .copied()
            .filter(|&o| o != obs.owner[j])
            .collect();
        if others.is_empty() {
            continue;
        }
        let pick = |v: &[usize], s: &mut Stream| v[s.below(v.len() as u64) as usize];
        let other = &by_owner[&pick(&others, stream)];
        pairs.push(Pair {
            a: pick(same, stream),
            b: j,
            same: true,
        });
        pairs.push(Pair {
            a: pick(other, stream),
            b: j,
            same: false,
        });
    }
    pairs
}

/// Closed-world matching with the identification MLP ([004] §6.2, Table 8): a known device's
/// update and a new device's, P(same) from their two distributions over people. Returns the AP.
pub fn match_with_mlp(obs: &Observations, net: &TrainedMlp, seed: u64) -> Option<f64> {
    let world = ClosedWorld::of(obs);
    let mut stream = Stream::new(seed, "matching-pairs");
    let pairs = cross_device_pairs(obs, &world.train, &world.test, &mut stream);
    let p = net.probabilities(&obs.x);
    let scores: Vec<f64> = pairs
        .iter()
        .map(|q| match_probability(p.row(q.a), p.row(q.b)))
        .collect();
    let labels: Vec<bool> = pairs.iter().map(|q| q.same).collect();
    average_precision(&scores, &labels)
}

/// What the open world gave for one share of seen people.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct OpenWorld {
    pub seen_share: f64,
    /// Identification over the seen people and "unknown" (none without seen people).
    pub identification: Option<Identification>,
    /// The Siamese network's AP on balanced cross-device pairs of the people not held out.
    pub matching_ap: Option<f64>,
}

/// The open world of [004] §8.4: a third of the people are held out (both devices train the
/// "unknown" class and the Siamese network); of the rest a share `seen_share` is seen (first
/// device known, second attributed), the others unseen (their second device should come out
/// "unknown").
pub fn open_world(
    obs: &Observations,
    people: usize,
    seen_share: f64,
    mlp_settings: MlpSettings,
    siamese_settings: SiameseSettings,
    seed: u64,
) -> Result<OpenWorld, String> {
    let mut stream = Stream::new(seed, "open-world-people");
    let mut order: Vec<usize> = (0..people).collect();
    stream.shuffle(&mut order);
    let holdout = people / 3;
    let rest = &order[holdout..];
    let seen = (seen_share * rest.len() as f64).round() as usize;
    // class of each person: Some(seen index), or None for hold-out and unseen (→ "unknown").
    let mut class = vec![None; people];
    for (k, &p) in rest[..seen].iter().enumerate() {
        class[p] = Some(k);
    }
    let is_holdout = {
        let mut v = vec![false; people];
        for &p in &order[..holdout] {
            v[p] = true;
        }
        v
    };
    let unknown = seen;
    let dev = |i: usize| device(obs.client[i]);
    let (mut train, mut train_y, mut test, mut test_y) = (vec![], vec![], vec![], vec![]);
    for i in 0..obs.len() {
        let person = obs.owner[i];
        match (is_holdout[person], class[person], dev(i)) {
            (true, _, _) => {
                train.push(i);
                train_y.push(unknown);
            }
            (false, Some(k), 0) => {
                train.push(i);
                train_y.push(k);
            }
            (false, Some(k), _) => {
                test.push(i);
                test_y.push(k);
            }
            (false, None, 1) => {
                test.push(i);
                test_y.push(unknown);
            }
            (false, None, _) => {}
        }
    }
    let identification = if seen > 0 && !train.is_empty() && !test.is_empty() {
        let scaler = Scaler::fit(&obs.x, &train);
        let net = mlp::train(
            &scaler.apply(&obs.x.select(&train)),
            &train_y,
            seen + 1,
            mlp_settings,
            Stream::new(seed, "open-world-mlp"),
        )?;
        identification(
            &net.probabilities(&scaler.apply(&obs.x.select(&test))),
            &test_y,
        )
    } else {
        None
    };
    // The Siamese network learns from the hold-out people (both devices) and the seen people's
    // known devices; it is judged on cross-device pairs of everyone not held out.
    let mut pair_stream = Stream::new(seed, "open-world-pairs");
    let learn: Vec<usize> = train.clone();
    let training_pairs = all_pairs(obs, &learn, &mut pair_stream);
    let known: Vec<usize> = (0..obs.len())
        .filter(|&i| !is_holdout[obs.owner[i]] && dev(i) == 0)
        .collect();
    let new: Vec<usize> = (0..obs.len())
        .filter(|&i| !is_holdout[obs.owner[i]] && dev(i) == 1)
        .collect();
    let eval_pairs = cross_device_pairs(obs, &known, &new, &mut pair_stream);
    let matching_ap = if training_pairs.is_empty() || eval_pairs.is_empty() {
        None
    } else {
        let net = siamese::train(
            &obs.x,
            &training_pairs,
            siamese_settings,
            Stream::new(seed, "open-world-siamese"),
        )?;
        let scores = net.probabilities(&obs.x, &eval_pairs);
        let labels: Vec<bool> = eval_pairs.iter().map(|p| p.same).collect();
        average_precision(&scores, &labels)
    };
    Ok(OpenWorld {
        seen_share,
        identification,
        matching_ap,
    })
}

/// Balanced training pairs among `rows`: each row with one other row of its owner (either
/// device) and one row of someone else.
pub fn all_pairs(obs: &Observations, rows: &[usize], stream: &mut Stream) -> Vec<Pair> {
    let mut by_owner: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    for &i in rows {
        by_owner.entry(obs.owner[i]).or_default().push(i);
    }
    let owners: Vec<usize> = by_owner.keys().copied().collect();
    let mut pairs = Vec::new();
    if owners.len() < 2 {
        return pairs;
    }
    for &i in rows {
        let mine = &by_owner[&obs.owner[i]];
        if mine.len() < 2 {
            continue;
        }
        let mut j = i;
        while j == i {
            j = mine[stream.below(mine.len() as u64) as usize];
        }
        let mut other = obs.owner[i];
        while other == obs.owner[i] {
            other = owners[stream.below(owners.len() as u64) as usize];
        }
        let theirs = &by_owner[&other];
        pairs.push(Pair {
            a: i,
            b: j,
            same: true,
        });
        pairs.push(Pair {
            a: i,
            b: theirs[stream.below(theirs.len() as u64) as usize],
            same: false,
        });
    }
    pairs
}
