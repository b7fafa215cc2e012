//! The glossary (`?glossary`): the papers' terms as the labs use them, each with where it comes
//! from, one spelling each. Lessons and help texts use these words; a student who meets one
//! finds it here.

use leptos::prelude::*;

/// One term: its name, what it means here, and where it comes from.
pub struct Term {
    pub name: &'static str,
    pub meaning: &'static str,
    pub source: &'static str,
}

/// Every term, alphabetically.
pub const TERMS: &[Term] = &[
    Term {
        name: "AIT (attack iteration)",
        meaning: "[002]'s cost of an attack: the number of attack iterations needed for a success. Here: the first iteration of the attack's optimisation at which a position came within the success radius, averaged over the positions found. Lower: the server finds you sooner.",
        source: "[002] §4.0.1, §5.1.1",
    },
    Term {
        name: "Analytic attack (Lemma 1)",
        meaning: "The first layer's weight gradient divided by its bias gradient is a weighted combination of the positions a phone trained on, its weights summing to one but free to be negative: an affine, not a convex, combination, so it can land outside every place the phone was, and [000]'s Theorem 1 bounds how far from the centroid. [000] uses Lemma 1 to explain where DLG lands; reading it straight out of the update as an attack of its own, with no search, is this project's extension.",
        source: "[000] Lemma 1, Theorem 1; the attack: this project (docs/papers.md)",
    },
    Term {
        name: "AP (average precision), × chance",
        meaning: "How well a ranking puts the right answers first, from 0 to 1; the mean over people of the AP of each person's ranking of devices. Shown as a multiple of chance: 1× is guessing, higher links more.",
        source: "[004]",
    },
    Term {
        name: "ASR (attack success rate)",
        meaning: "The share of a window's positions the server placed within the success radius τ (500 m by default) of the truth. 0 is nothing found, 1 is everything.",
        source: "[002]",
    },
    Term {
        name: "B (batch size) and E (local epochs)",
        meaning: "Under FedAvg a phone trains for E passes over its round's data in mini-batches of B points before it sends the update. B = ∞ and E = 1 is FedSGD: one exact gradient.",
        source: "[000] §2.1",
    },
    Term {
        name: "B (random features)",
        meaning: "In the Density lab, how many cosine waves a phone sends in place of its location. Fewer waves: more privacy and a worse map.",
        source: "[003] Eq. 7",
    },
    Term {
        name: "Centroid",
        meaning: "The average position of a round's data D_t, everything the phone logged in the round: what the Signal map's errors are measured against. Without a defence it is what the attacks recover. Under a batch defence it stays D_t's centroid, while the phone trains on a subset whose own centroid lies elsewhere (Farthest Batch's, by design, far from it).",
        source: "[000] §3.2, §4.4",
    },
    Term {
        name: "Closed world, open world",
        meaning: "[004]'s two attack scenarios. Closed world: while the server learns its attack it has seen updates of every person it will be asked about. In the Linkability lab each person's first device is known and their second, new device is the one to attribute; the page's identification and matching run there. Open world: some people it never saw. Identification then has one more answer, “unknown”, learnt from a third of the people held out for it, and matching needs a Siamese network. The open world runs in `whereabouts reproduce --lab linkability` (its Fig. 13 table), not on the page.",
        source: "[004] §6.3, §8.4; docs/papers.md §3c",
    },
    Term {
        name: "Composition",
        meaning: "How ε adds up when one person's data is released more than once. Basic composition: releases at ε₁, …, ε_k are together (ε₁ + … + ε_k)-DP, their δs adding too. The Mobility lab counts so for GeoI and GeoGI, ε per km every round for each of the window's 9 positions, noised afresh as the window slides by one: one position is sent up to 9 times, min(T, 9)·ε per km over T rounds, and the whole trajectory, every position moved by up to a km, 9·T·ε (T·ε only if a km is a window's displacement summed over its 9 positions); PGEM's ε, shared out over the rounds, bounds one position, and 9·ε the trajectory. Gaussian releases compose by Rényi DP, whose total grows more slowly than the sum of their εs, read at δ = 10⁻⁵: the Signal map's local DP composes every noised step into the round's ε and your total over the run; the Mobility lab's DP-SGD composes its rounds into the total; central DP in every lab composes its rounds of the sampled Gaussian mechanism (as Google's dp_accounting does) into your total and shows the last round's beside it. GeoInd in the Signal map noises each of a round's n fixes on its own, so its bound for two rounds of data is ε·Σ d(xᵢ, x′ᵢ): n·ε·d where all n fixes move by d. n reports at ε compose to about n·ε, and the centroid the attacks recover is barely moved. In the Density lab a kept GeoInd report costs ε once however often the server asks; a redrawn one costs ε a query.",
        source: "basic: Dwork & Roth 2014, Theorem 3.16; Rényi DP: Mironov, CSF 2017; the labs' counts: docs/papers.md §2 (Mobility), §3a, §3b, §3g",
    },
    Term {
        name: "DBSCAN",
        meaning: "Density-based clustering (Ester et al. 1996): a point with at least min_samples points within eps of it (itself included) starts or grows a cluster; a point in no cluster is noise. [000] runs it once a round on a phone's round data D_t for its batch defences: Diverse Batch trains on one point of each cluster, Farthest Batch on the clusters farthest from D_t's centroid (the Random subset baseline takes as many points as Diverse Batch). eps is the Signal map's “DBSCAN eps (km)”: larger eps, fewer and larger clusters, fewer points trained on ([000] Table 2); 0.05 km by default, the paper's choice for Farthest Batch. min_samples = 5 (scikit-learn's default; [000] gives none), distances in metres on the local plane and noise points left out are this project's choices.",
        source: "[000] §4.3 (Table 2), §4.4 (Algorithm 3); the rest: docs/papers.md §3a",
    },
    Term {
        name: "Diverse Batch, Farthest Batch",
        meaning: "The Signal map's defences on the phone. Diverse Batch trains on one point per place visited (DBSCAN clusters) to raise the batch's location variance, which loosens the bound on how close the reconstruction lands to the centroid ([000] §4.3, Insight I1, Theorem 2). Farthest Batch trains only on the places farthest from the round's centroid, so the attacks recover a point far from it; that point is no decoy but one of your own places (your farthest DBSCAN clusters), and over many rounds the server's guesses can map where you go.",
        source: "[000] §4.3–4.4",
    },
    Term {
        name: "DLG (Deep Leakage from Gradients)",
        meaning: "The server makes up a dummy input and moves it until the gradient it would give matches the phone's update; the dummy is then its reconstruction.",
        source: "[000] Algorithm 2",
    },
    Term {
        name: "DP-SGD, local DP",
        meaning: "Differential privacy on what a phone sends: clip the gradient and add Gaussian noise, so that a release's distribution changes by at most a factor e^ε (except with probability δ) whatever data lay behind it. What is protected is all of that data, never one point against the rest: in the Signal map a release is one local step's mini-batch gradient, and a phone's whole round of data is protected at the round's ε, its steps composed (the page shows it and the total); in Mobility a release is one round's update, protecting that round's window of 9 positions. Smaller ε: more noise, more privacy.",
        source: "[000] §4.5; [002] Table 5",
    },
    Term {
        name: "EMD (earth mover's distance)",
        meaning: "How far all your true positions are from all the server's reconstructions, as the least total distance to move one set onto the other (sliced Wasserstein here), beside the same figure for random guesses. Well below random: the server learned where you spend your time.",
        source: "[000]",
    },
    Term {
        name: "Epsilon (ε)",
        meaning: "A privacy budget: smaller is more private. For local DP and DP-SGD, ε is set per release (every local step in the Signal map, every round in Mobility; δ = 10⁻⁵) and protects what one round sends; the rounds compose into a larger total ε for everything a person sent over the run, which the labs show. Per metre (Signal map, Density) or per km (Mobility) for geo-indistinguishability, where the noise's mean shift is 2/ε.",
        source: "[000] §4.5; [002] Table 5",
    },
    Term {
        name: "FedAvg, FedSGD",
        meaning: "Federated averaging: each phone trains locally (E epochs of mini-batches of B) and the server averages the new models. FedSGD is its one-step case: each phone sends one gradient.",
        source: "[000] §2.1",
    },
    Term {
        name: "FedAvg-aware server",
        meaning: "Beyond the papers: a server that knows B, E and the learning rate and replays the phone's local training with one dummy point per step, to undo FedAvg's blur. It does not always: on weekly campus updates its estimates land no closer to you than DLG's (534 ± 232 m against 314 ± 215 m, mean over five worlds with 95% intervals); on the Signal map's opening path (daily rounds, B = 20, E = 5) it lands closer in two worlds of five, about as close in two and further in one. Neither server wins in every setting.",
        source: "this project (docs/papers.md)",
    },
    Term {
        name: "GAN obfuscation",
        meaning: "Two small networks trained on the phone before it trains the map: a privatizer that rewrites each of its points (position and signal) and an adversary that tries to tell from a rewritten point where it was really taken; the privatizer learns to fool the adversary while staying close to the data. The obfuscation level ρ weighs the two: 1 keeps the points, smaller values move them more. The server then attacks an update trained on the rewritten points; since its attacks recover a round's centroid, which the rewriting moves much less than each point, the GAN can fool its own adversary and still not the server.",
        source: "[000] §4.5 after its ref. [15] (Zhang et al. 2022), as its authors' code builds it (docs/papers.md)",
    },
    Term {
        name: "GeoInd, GeoI (geo-indistinguishability)",
        meaning: "Each location is moved by planar-Laplace noise before it is used; nearby locations become hard to tell apart.",
        source: "[000] §4.5; [002] Table 5; [003]",
    },
    Term {
        name: "Gradient disaggregation",
        meaning: "Secure aggregation shows the server only each round's sum, but over many rounds different subsets of phones take part. A server that knows how often each phone took part (device analytics) finds who was in which round — the participation matrix — and then solves the sums for every phone's own update, as long as the updates stay the same from round to round and there are at least as many rounds as phones.",
        source: "Lam et al., Gradient Disaggregation, ICML 2021",
    },
    Term {
        name: "Honest-but-curious server",
        meaning: "It runs the protocol faithfully and attacks only what it is sent: the updates, never the phones.",
        source: "[000]",
    },
    Term {
        name: "Hotspot F1, Spearman's ρ",
        meaning: "How well the server's density matches the exact one: ρ ranks all cells (1 is the same order), hotspot F1 compares the busiest 5% of cells (1 is the same hotspots).",
        source: "ρ: [003] (its rank correlation; Spearman's is our reading); hotspot F1: this project (docs/papers.md)",
    },
    Term {
        name: "Identification attack",
        meaning: "[004]'s first linkability attack: the server knows some updates together with their owners and attributes each new update to one of the people it knows, with a classifier from an update to a person (an MLP, a linear SVM, or k-NN with K = 10, on the normalised update, by default its last layer). In the Linkability lab a person's known device trains it and their second device's updates are attributed; scored by AP, top-1 and top-5 against chance (1/N of the people). “By place”, k-NN on Lemma 1's position of each update, is this project's addition.",
        source: "[004] §6.1 (Eq. 3), §8.2 (Tables 4, 6); by place: this project (docs/papers.md §3c)",
    },
    Term {
        name: "Imprint attack, malicious server",
        meaning: "A server beyond honest-but-curious changes the model it sends: it puts a layer of bins in front that all measure the same thing about a fix, each switching on above its own threshold. The difference of two neighbouring bins' changes is the one fix that fell between their thresholds, verbatim — even in the secure sum of every phone's update, since the ratio survives any sum or average. Two fixes in one bin give a blend. The Signal map's “What the server sees: Malicious server”.",
        source: "Fowl et al., Robbing the Fed, ICLR 2022",
    },
    Term {
        name: "KDE (kernel density estimation)",
        meaning: "The city's density as the sum of a small hill (a Gaussian kernel of width h) on every person. Federated KDE: each phone sends its own hill and the server adds them up.",
        source: "[003] Eq. 1, Eq. 5",
    },
    Term {
        name: "Linkability",
        meaning: "Whether the server can tell that updates come from the same person without being told: [004]'s threat (an eavesdropper links a person's phone and tablet; updates work as a signature across IP addresses or pseudonyms) and the subject of the Linkability lab. There each person has two devices in the Signal map's federation, and the server links from the updates alone: a new device's updates to a person it knows (identification) or two updates to each other (matching). Linking needs no reconstruction; it joins what each device gives away into one person's.",
        source: "[004] §5.1 (T1–T4), §6",
    },
    Term {
        name: "Local batch",
        meaning: "The points a phone trains on in one round: everything it logged during the round, or what a defence keeps of it.",
        source: "[000]",
    },
    Term {
        name: "Matching attack",
        meaning: "[004]'s second linkability attack: given two updates from two different devices, the probability that one person sent both. In the closed world it combines the identification MLP's two guesses over people, Σ_u p₁(u)·p₂(u) (our reading of a formula the text lost); in the open world a Siamese network, which needs no list of people. In the Linkability lab: balanced pairs, a known device's update and a new device's, half of them the same person's; AP 50% is chance.",
        source: "[004] §6.2 (Eq. 4), §8.3 (Table 8); the combination: docs/papers.md §3c",
    },
    Term {
        name: "Membership inference (on aggregates)",
        meaning: "Telling from a released aggregate whether a given person was among those it counts. Pyrgelis et al.'s game: the adversary knows the person's whereabouts and other people's, makes counts of groups with and without the person, trains a classifier on them and is scored by AUC on the released counts (0.5 is a coin). Small groups give a person away; larger ones less; user-level DP on the counts (noise scaled to what one person can change) closes it at a price in every count.",
        source: "Pyrgelis, Troncoso, De Cristofaro, NDSS 2018; the Mobility lab's `--study membership` (docs/papers.md §3k)",
    },
    Term {
        name: "Mitigations (bkg-repl, rand-aug, mm-aug)",
        meaning: "The Linkability lab's blending-in: swap a share β of a device's data for background data, add α random background points per own point, or add α points of a crowd's background.",
        source: "[004] §9",
    },
    Term {
        name: "Neighbouring data sets",
        meaning: "Differential privacy compares what a mechanism releases on two data sets that differ in what it protects, its neighbours: an ε means nothing until the neighbour is named. In the labs: the Signal map's local DP, any two data sets of one phone in one round (every fix replaced; each noised step protects its mini-batch, and the round's steps compose); the Mobility lab's DP-SGD, any two windows of one round (8 positions and the next: 9 fixes); GeoInd and GeoI, any two locations x, x′, the bound growing with their distance, ε·d(x, x′) (per metre; per km in Mobility, where GeoGI and PGEM measure it along the streets); central DP (each lab's “Sum + central DP”), user level, one user's whole data over the run present or absent: a phone's in the Signal map, the Density lab and the Mobility lab, a person's two devices together in the Linkability lab; the membership study's noised counts, one person in a group or not.",
        source: "local DP's any two inputs: [002] §2.3, Def. 1; the labs' neighbours: this project (docs/papers.md §2 (Mobility), §3a, §3c, §3g, §3k)",
    },
    Term {
        name: "Online FL, round, T",
        meaning: "Federated learning that goes on as data comes in: in each round (length T) every phone trains only on what it logged during the round.",
        source: "[000] §2.1",
    },
    Term {
        name: "PGEM (adaptive geo-DP)",
        meaning: "The Mobility paper's defence runs three things together: PGEM proper, an exponential mechanism that replaces each position with one of the person's own places, nearer ones likelier (Eq. 13); a total ε shared out over the rounds, less of it where a round looks more exposed (Eqs. 10–12); and that exposure, the round's ASR and AIT, which the paper does not say how to measure (here the phone attacks its own update). Its ε covers PGEM's draws only: a budget chosen from an attack on the true data is a use of the data no ε accounts for. And every output is a real place the person visits.",
        source: "[002] §4",
    },
    Term {
        name: "Random Fourier features (RFF), Bochner's theorem",
        meaning: "Bochner's theorem: a shift-invariant kernel such as the Gaussian k(x, y) = exp(−‖x − y‖²/2h²) is the average of cos(ωᵀ(x − y)) over frequencies ω drawn from its spectrum (here ω ~ N(0, h⁻²I), our reading of the poster's p(ω)). Random Fourier features replace the average by B draws. In the Density lab each phone draws its own B frequencies, keeps them, and uploads the grid of Σ_b cos(ω_bᵀ(g − d)) in place of its Gaussian bump: B cosine waves that all peak at its place d. Summed over the city the random parts average out into the density. One upload's highest point is still the phone's place; the privacy is that other points tie or nearly tie with it, and it is heuristic: a server that knows B and fits the waves pins a phone to a set of parallel ridges (B = 1), a lattice (B = 2) or a point (B ≥ 3).",
        source: "[003] Eqs. 2–4 (Bochner), Eqs. 6–7 (the upload); ω's law and the fitting server: docs/papers.md §3b",
    },
    Term {
        name: "Reconstruction",
        meaning: "What the server makes of an update: a position (or a window of positions) it believes the phone trained on.",
        source: "[000], [002]",
    },
    Term {
        name: "RMSE",
        meaning: "Root mean square error of the model on held-out data: for the signal map in dB of signal strength. The utility a defence may cost; lower is better.",
        source: "[000]",
    },
    Term {
        name: "RSRP",
        meaning: "Reference signal received power: the LTE signal strength a phone measures, in dBm. The signal map predicts it from a location.",
        source: "[000]",
    },
    Term {
        name: "Secure aggregation (only the sum)",
        meaning: "The phones mask their updates so that the server can unmask only the sum of a round's updates, never one of them: each pair of phones adds masks that cancel in the sum. The labs' “What the server sees: Only the sum”. The model learns the same; the server's attacks then read a blend of everyone's data, and in the Linkability lab it has no update of any device to link.",
        source: "Bonawitz et al., Practical Secure Aggregation, CCS 2017",
    },
    Term {
        name: "Sensitivity",
        meaning: "The most one neighbour can change what is released; the noise is scaled to it. Replacing a phone's data moves a gradient clipped to norm C by up to 2C: the Signal map's local DP has Δ = 2ℂ with ℂ = 1 ([000]'s formula uses ℂ, so the ε it states is half what its own formula gives at 2ℂ), the Mobility lab's DP-SGD 2 × 0.2 (with the authors' clip of each of the 6 tensors, 2 × 0.2 × √6). Adding or removing one user moves DP-FedAvg's sum by at most the clip C, so the noise on it is z·C; in the Linkability lab a person's two devices move it by up to 2C, and the noise is 2z·C. The membership study keeps at most 20 marks of a person, so a person changes at most 20 counts by one: Laplace noise of scale 20/ε. GeoInd has none: the distance d(x, x′) takes its place.",
        source: "[002] §2.3, Def. 2; the labs' clips: docs/papers.md §2 (Mobility), §3a, §3c, §3g, §3k",
    },
    Term {
        name: "Siamese network",
        meaning: "A network that reads two inputs through the same layers (shared weights) and learns whether they belong together: [004]'s matching attack for the open world, since it needs no list of people. As [004] App. A builds it: each update through two FC-128 ReLU layers to a 128-number embedding, a distance between the two embeddings (Euclidean here; the paper's “distance layer” is unspecified), then one sigmoid unit for P(same person), trained on pairs with binary cross-entropy and RMSProp. It runs in `whereabouts reproduce --lab linkability`'s open world; on the lab's federation its matching of people it never saw is inconclusive (AP 58.2 ± 12.7% against 50% by chance, five populations of 53 people, 95% interval; the paper's 1.5–1.8× chance).",
        source: "[004] §6.2, App. A (Fig. 16); the distance: docs/papers.md §3c; the figures: docs/reproduce-linkability.md",
    },
    Term {
        name: "Split (random, by day, chronological)",
        meaning: "How a person's data is divided between their two devices in the Linkability lab: side by side, one device a day, or the first half and the second.",
        source: "[004] §7",
    },
    Term {
        name: "ST-GIA",
        meaning: "The Mobility paper's attack: gradient inversion with a spatiotemporal start, a street mapping after every step and calibration (each position averaged over its windows). The start: the paper's Eq. 6 begins from the previous round's reconstruction as it was, with a random next position; the authors' code (the lab's default) slides it by one and appends the previous guess of the next position.",
        source: "[002] §3",
    },
    Term {
        name: "Sybil (n − 1) attack",
        meaning: "Secure aggregation hides your update only among the other genuine updates of the sum. A server that picks the round can fill it with phones of its own (Sybils), whose updates it knows, subtract them from the sum and hold yours alone. The defence: your phone sends only when at least k genuine phones — phones the server cannot forge — are in the round, which leaves the server the sum of k. The Signal map's and the Mobility lab's “Sybil clients” and “Minimum genuine phones a round”.",
        source: "Pasquini, Francati & Ateniese, CCS 2022; Bonawitz et al. 2017 §6",
    },
    Term {
        name: "Top-1, top-5",
        meaning: "The share of new devices whose owner is the server's first guess, or among its first five.",
        source: "[004]",
    },
    Term {
        name: "Unicity",
        meaning: "How many of a person's points single them out: ε_p, the share of people whom p of their points, drawn at random, single out — nobody else was at all p (here: a 250 m square and the hour of the week). In the paper four hourly points single out 95% of 1.5 million phone users; on New York check-ins here, 97.9%. A leak of the data itself, before any learning: whoever holds the traces and learns a few of your points finds your whole trace. The Mobility lab's card \"Your points in the crowd\" shows yours.",
        source: "de Montjoye, Hidalgo, Verleysen, Blondel, Sci. Rep. 2013 (docs/papers.md §3j)",
    },
    Term {
        name: "Update",
        meaning: "What a phone sends the server after a round: the change to the model's weights (under FedSGD, the gradient). Never the data itself.",
        source: "[000]",
    },
];

/// An id for a term's anchor ("term-dlg-deep-leakage-from-gradients").
pub fn anchor(name: &str) -> String {
    let mut id = String::from("term-");
    let mut dash = false;
    for c in name.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            id.push(c);
            dash = false;
        } else if !dash && !id.ends_with('-') {
            id.push('-');
            dash = true;
        }
    }
    id.trim_end_matches('-').to_string()
}

/// The glossary panel, as the page's [`Later`](crate::shell::lab_views::Later) makes it: in the
/// site's build this function is a split point's, so the terms come in a chunk of their own.
pub fn panel(open: RwSignal<bool>) -> AnyView {
    view! { <Glossary open/> }.into_any()
}

/// The glossary panel.
#[component]
pub fn Glossary(open: RwSignal<bool>) -> impl IntoView {
    view! {
        <section class="panel glossary" data-testid="glossary" aria-labelledby="glossary-title" class:hidden=move || !open.get()>
            <div class="instructor-head">
                <h2 id="glossary-title">"Glossary"</h2>
                <button type="button" class="link" on:click=move |_| open.set(false)>"Close"</button>
            </div>
            <p class="hint">"The papers' words as the labs use them. [000]/[001]: the Signal map; [002]: Mobility; [003]: Density; [004]: Linkability (the papers are named in the footer)."</p>
            <dl class="glossary-list">
                {TERMS.iter().map(|t| view! {
                    <div class="term" id=anchor(t.name)>
                        <dt>{t.name}</dt>
                        <dd>{t.meaning}" "<span class="source">{format!("({})", t.source)}</span></dd>
                    </div>
                }).collect_view()}
            </dl>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_are_alphabetical_unique_and_anchored() {
        let names: Vec<String> = TERMS.iter().map(|t| t.name.to_lowercase()).collect();
        let mut sorted = names.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(names, sorted, "alphabetical, each once");
        assert_eq!(
            anchor("DLG (Deep Leakage from Gradients)"),
            "term-dlg-deep-leakage-from-gradients"
        );
        assert_eq!(anchor("Epsilon (ε)"), "term-epsilon");
    }

    #[test]
    fn a_privacy_course_finds_each_of_its_terms() {
        // Issue 40 §2's glossary list: each concept has an entry whose name says it.
        let names: Vec<String> = TERMS.iter().map(|t| t.name.to_lowercase()).collect();
        for word in [
            "linkability",
            "identification",
            "matching",
            "closed world",
            "open world",
            "siamese",
            "random fourier features",
            "bochner",
            "dbscan",
            "secure aggregation",
            "composition",
            "neighbouring",
            "sensitivity",
            "unicity",
            "membership inference",
        ] {
            assert!(
                names.iter().any(|n| n.contains(word)),
                "no entry for {word}"
            );
        }
        for t in TERMS {
            assert!(
                !t.meaning.is_empty() && !t.source.is_empty(),
                "{} says what and where from",
                t.name
            );
        }
    }
}
