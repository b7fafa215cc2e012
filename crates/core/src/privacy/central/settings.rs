//! DP-FedAvg's settings rows, the same in every lab that has "secure sum + central DP"
//! ([`crate::central_dp_setting!`]): one help text each, written once.

/// The noise multiplier's help.
pub const NOISE_MULTIPLIER: &str = "Central DP (DP-FedAvg, McMahan et al. 2018): the noise added to the sum of the clipped updates has standard deviation z·C on every coordinate, so z·C/(qN) on the average the server takes. Larger z: more privacy, a noisier result. The ε shown is user-level: it bounds what the released sums tell about whether any one user's whole data was used at all.";
/// The clip's help.
pub const CLIP: &str = "Every sampled client scales its update down to at most this L2 norm before it sends it, so no one user can move the sum by more than C: the sensitivity the noise is measured against. Too small, and every update is cut short; too large, and the noise (z·C) drowns them. Under adaptive clipping, the first round's clip.";
/// The sampling rate's help.
pub const SAMPLING_RATE: &str = "Each round every user is in the sample with this probability, independently (Poisson sampling). The server divides the noised sum by the expected number of clients, qN (the paper's fixed denominator). A smaller q hides whether you took part at all and lowers ε per round (privacy amplification by sampling) — when the noise is added by a trusted aggregator; a server that adds no noise itself but runs the protocol knows who took part.";
/// Adaptive clipping's help.
pub const ADAPTIVE: &str = "Andrew et al. 2021: each client also says whether its update fit within the clip; the server counts them (with noise, which costs part of the privacy budget: the update's noise is raised so that the two together keep z) and moves the clip geometrically toward the target quantile of the update norms, by a factor exp(−0.2·(fraction unclipped − target)) a round.";
/// The target quantile's help.
pub const TARGET_QUANTILE: &str = "Under adaptive clipping, the fraction of updates the clip should leave whole (0.5: the median norm, the paper's recommendation). Strictly between 0 and 1.";
/// Where the noise is added: its help.
pub const NOISE_AT: &str = "A trusted aggregator: the clients' secure sum is unmasked inside something the server cannot look into (an enclave, say), which adds the noise once; the server gets only the noised sum. Each client (distributed): every one of the n sampled clients adds 1/n of the noise's variance to its own update before masking, so the secure sum carries all of it and nobody sees the sum without noise — but a client that drops out takes its share with it, and the ε shown is for the noise actually left in the sum. The server then knows who took part, so sampling hides nothing: only the rounds your client sent in count, each at q = 1.";
/// The dropout chance's help.
pub const DROPOUT: &str = "The chance that a sampled client falls silent after the keys, before it sends its masked update: its update is not in the sum, and under distributed noise neither is its share of the noise, so the round carries less noise and costs more ε. From 0 to 0.9.";

/// One of DP-FedAvg's settings rows for a lab whose config has `central_dp: CentralDp`:
/// `central_dp_setting!(which, Row, "key", SECTION, relevant)` with `which` one of
/// `noise_multiplier`, `sampling_rate`, `adaptive`, `target_quantile` (shown only under adaptive
/// clipping, besides `relevant`), `noise_at`, `dropout`; and
/// `central_dp_setting!(clip, Row, "key", SECTION, LIMIT, "step", relevant)` with the lab's own
/// limit and step for the clip (its updates' scale decides them). `relevant` is a
/// `fn(&Config) -> bool` (the lab's `sees` is `dp`).
#[macro_export]
macro_rules! central_dp_setting {
    (noise_multiplier, $row:ty, $key:literal, $section:expr, $relevant:expr) => {
        <$row>::number(
            $key,
            "Noise multiplier z",
            $section,
            "0.1",
            $crate::privacy::central::NOISE_MULTIPLIER,
        )
        .help($crate::privacy::central::settings::NOISE_MULTIPLIER)
        .get(|c| $crate::setting::trim(c.central_dp.noise_multiplier))
        .set(|c, v| {
            c.central_dp.noise_multiplier =
                $crate::setting::number(v, &$crate::privacy::central::NOISE_MULTIPLIER)?;
            Ok(())
        })
        .relevant($relevant)
    };
    (clip, $row:ty, $key:literal, $section:expr, $limit:expr, $step:literal, $relevant:expr) => {
        <$row>::number($key, "Clip C (update norm)", $section, $step, $limit)
            .help($crate::privacy::central::settings::CLIP)
            .get(|c| $crate::setting::trim(c.central_dp.clip))
            .set(|c, v| {
                c.central_dp.clip = $crate::setting::number(v, &$limit)?;
                Ok(())
            })
            .relevant($relevant)
    };
    (sampling_rate, $row:ty, $key:literal, $section:expr, $relevant:expr) => {
        <$row>::number(
            $key,
            "Sampling rate q",
            $section,
            "0.05",
            $crate::privacy::central::SAMPLING_RATE,
        )
        .help($crate::privacy::central::settings::SAMPLING_RATE)
        .get(|c| $crate::setting::trim(c.central_dp.sampling_rate))
        .set(|c, v| {
            c.central_dp.sampling_rate =
                $crate::setting::number(v, &$crate::privacy::central::SAMPLING_RATE)?;
            Ok(())
        })
        .relevant($relevant)
    };
    (adaptive, $row:ty, $key:literal, $section:expr, $relevant:expr) => {
        <$row>::toggle($key, "Adaptive clipping", $section)
            .help($crate::privacy::central::settings::ADAPTIVE)
            .get(|c| $crate::setting::flag_text(c.central_dp.adaptive))
            .set(|c, v| {
                c.central_dp.adaptive = $crate::setting::flag(v)?;
                Ok(())
            })
            .relevant($relevant)
    };
    (target_quantile, $row:ty, $key:literal, $section:expr, $relevant:expr) => {
        <$row>::number(
            $key,
            "Target quantile γ",
            $section,
            "0.05",
            $crate::privacy::central::QUANTILE,
        )
        .help($crate::privacy::central::settings::TARGET_QUANTILE)
        .get(|c| $crate::setting::trim(c.central_dp.target_quantile))
        .set(|c, v| {
            c.central_dp.target_quantile =
                $crate::setting::number(v, &$crate::privacy::central::QUANTILE)?;
            Ok(())
        })
        .relevant(|c| c.central_dp.adaptive && ($relevant)(c))
    };
    (noise_at, $row:ty, $key:literal, $section:expr, $relevant:expr) => {
        <$row>::choice(
            $key,
            "Noise added by",
            $section,
            <$crate::privacy::central::NoiseAt as $crate::setting::Choices>::MENU,
        )
        .help($crate::privacy::central::settings::NOISE_AT)
        .get(|c| $crate::setting::Choices::key(&c.central_dp.noise_at).into())
        .set(|c, v| {
            c.central_dp.noise_at =
                <$crate::privacy::central::NoiseAt as $crate::setting::Choices>::parse(v)?;
            Ok(())
        })
        .relevant($relevant)
    };
    (dropout, $row:ty, $key:literal, $section:expr, $relevant:expr) => {
        <$row>::number(
            $key,
            "Clients that drop out",
            $section,
            "0.05",
            $crate::privacy::central::DROPOUT,
        )
        .help($crate::privacy::central::settings::DROPOUT)
        .get(|c| $crate::setting::trim(c.central_dp.dropout))
        .set(|c, v| {
            c.central_dp.dropout = $crate::setting::number(v, &$crate::privacy::central::DROPOUT)?;
            Ok(())
        })
        .relevant($relevant)
    };
}
