//! What can stop a round, in words that name the round and the counts.
//!
//! A round that fails returns one of these and no sum: the server never hands out a partial
//! one. Configuration errors (a threshold out of range, a scale that could wrap) are the core's
//! [`ConfigError`], named by the setting.

use crate::error::ConfigError;
use std::fmt;

/// The rounds of [Bonawitz] Fig. 4, by the paper's numbers and names. Round 3
/// (ConsistencyCheck) is not built: this is the honest-but-curious variant (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Round {
    AdvertiseKeys,
    ShareKeys,
    MaskedInputCollection,
    Unmasking,
}

impl Round {
    pub const ALL: [Round; 4] = [
        Round::AdvertiseKeys,
        Round::ShareKeys,
        Round::MaskedInputCollection,
        Round::Unmasking,
    ];

    /// The paper's number of the round.
    pub fn number(self) -> u8 {
        match self {
            Round::AdvertiseKeys => 0,
            Round::ShareKeys => 1,
            Round::MaskedInputCollection => 2,
            Round::Unmasking => 4,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Round::AdvertiseKeys => "AdvertiseKeys",
            Round::ShareKeys => "ShareKeys",
            Round::MaskedInputCollection => "MaskedInputCollection",
            Round::Unmasking => "Unmasking",
        }
    }

    /// What a client sends the server in this round, for messages ("sent their keys").
    fn sent(self) -> &'static str {
        match self {
            Round::AdvertiseKeys => "sent their public keys",
            Round::ShareKeys => "sent their encrypted shares",
            Round::MaskedInputCollection => "sent their masked input",
            Round::Unmasking => "sent their shares for unmasking",
        }
    }
}

impl fmt::Display for Round {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "round {} ({})", self.number(), self.name())
    }
}

/// Which of a client's two shared secrets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Secret {
    /// b_u, the seed of the client's self-mask (needed for a client that survived).
    SelfMaskSeed,
    /// s_u^SK, the client's masking key (needed for a client that dropped after sharing).
    MaskKey,
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Secret::SelfMaskSeed => "self-mask seed b",
            Secret::MaskKey => "masking key s^SK",
        })
    }
}

/// Why a round of secure aggregation ended without a sum.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SecAggError {
    /// A setting refused before round 0.
    Config(ConfigError),
    /// Fewer clients than the threshold took part in a round: more than n − t dropped out.
    TooFewClients {
        round: Round,
        /// Clients whose message of this round arrived.
        arrived: usize,
        /// The round's cohort, n.
        clients: usize,
        threshold: usize,
    },
    /// A vector whose length is not the round's.
    Length {
        round: Round,
        client: u32,
        got: usize,
        expected: usize,
    },
    /// The server holds fewer than the threshold of shares of a secret it needs.
    CannotReconstruct {
        owner: u32,
        secret: Secret,
        shares: usize,
        threshold: usize,
    },
    /// The shares the server holds of a secret do not interpolate to one (some are not of it).
    SharesDisagree { owner: u32, secret: Secret },
    /// A message for a round the server is not at.
    OutOfTurn { round: Round, problem: String },
    /// A client refused to go on (a check of Fig. 4 failed on what it received).
    ClientAbort {
        round: Round,
        client: u32,
        problem: String,
    },
    /// The server refused a message (a client out of the cohort, a message twice, …).
    BadMessage {
        round: Round,
        client: u32,
        problem: String,
    },
}

impl From<ConfigError> for SecAggError {
    fn from(e: ConfigError) -> Self {
        SecAggError::Config(e)
    }
}

impl fmt::Display for SecAggError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SecAggError::Config(e) => write!(f, "secure aggregation: {e}"),
            SecAggError::TooFewClients {
                round,
                arrived,
                clients,
                threshold,
            } => write!(
                f,
                "{round}: only {arrived} of the {clients} clients {}, fewer than the threshold \
                 t = {threshold} ({} dropped out, at most n − t = {} may): the round fails with \
                 no sum",
                round.sent(),
                clients - arrived,
                clients - threshold
            ),
            SecAggError::Length {
                round,
                client,
                got,
                expected,
            } => write!(
                f,
                "{round}: client {client}'s vector has {got} coordinates, the round's has \
                 {expected}"
            ),
            SecAggError::CannotReconstruct {
                owner,
                secret,
                shares,
                threshold,
            } => write!(
                f,
                "{}: the server cannot reconstruct client {owner}'s {secret}: it holds {shares} \
                 shares and needs t = {threshold}; the round fails with no sum",
                Round::Unmasking
            ),
            SecAggError::SharesDisagree { owner, secret } => write!(
                f,
                "{}: the shares of client {owner}'s {secret} do not interpolate to one secret;                  the round fails with no sum",
                Round::Unmasking
            ),
            SecAggError::OutOfTurn { round, problem } => {
                write!(f, "{round}: messages out of turn: {problem}")
            }
            SecAggError::ClientAbort {
                round,
                client,
                problem,
            } => write!(f, "{round}: client {client} aborts: {problem}"),
            SecAggError::BadMessage {
                round,
                client,
                problem,
            } => write!(
                f,
                "{round}: the server refuses client {client}'s message: {problem}"
            ),
        }
    }
}

impl std::error::Error for SecAggError {}
