//! The n − 1 (Sybil) attack's two settings, the same in every lab whose server sees only the
//! sum (issue 39 §2): how many clients of its own a server that picks the round adds to it, and
//! the devices' defence, a minimum cohort of genuine clients. Their bounds, labels and help are
//! written once here; a lab's config says where the two numbers live ([`SybilSettings`]) and
//! takes its rows from [`sybils_row`] and [`min_genuine_row`].
//!
//! **The attack.** Secure aggregation hides an update among the other inputs of the sum and
//! nothing more ([Bonawitz] §6: what the server and the clients it controls see can be
//! simulated from the sum of the *honest* clients' inputs). A server that picks the round's
//! clients can fill it with clients of its own (Sybils: it runs them on data it made, so it knows
//! their inputs exactly) and the one device it targets; it subtracts its Sybils' words from the
//! secure sum and holds the target's update, to the quantisation (Pasquini, Francati &
//! Ateniese, CCS 2022, set it beside their model-inconsistency attack).
//!
//! **The defence.** Each device learns how many *genuine* (verified: attested devices, say —
//! the labs assume the check, they do not build one) clients are in the round and does not send
//! when fewer than k are. The Sybil server must then let k − 1 other genuine devices in, and
//! what it holds after subtracting its Sybils is the sum of k genuine updates: the blend again.
//! A minimum counted over *all* clients would do nothing: the Sybils fill it.

use crate::limit::{Limit, whole};
use crate::setting::{Setting, number};

/// The server's own clients in a round (0: an honest server). Each is a real client of the
/// protocol, whose cost grows with the cohort (docs/secagg.md).
pub const SYBILS: Limit = whole(0.0, 100.0, "a whole number from 0 to 100");
/// The least number of genuine clients a device sends in (1: any).
pub const MIN_GENUINE: Limit = whole(1.0, 100.0, "a whole number from 1 to 100");

/// The Sybils' row: label and help.
pub const SYBILS_LABEL: &str = "Sybil clients (n − 1 attack)";
pub const SYBILS_HELP: &str = "Under secure aggregation, a server that picks each round's phones can fill the round with clients of its own (Sybils), whose updates it knows because it runs them on data it made, and leave every other genuine phone out. It then subtracts its Sybils' updates from the secure sum and holds yours exactly: the attacks land where they land without secure aggregation. 0: an honest server. The defence is a minimum cohort of genuine phones (among your phone's defences).";
/// The minimum cohort's row: label and help.
pub const MIN_GENUINE_LABEL: &str = "Minimum genuine phones a round";
pub const MIN_GENUINE_HELP: &str = "Under secure aggregation, your phone sends its masked update only when at least this many genuine phones (you included) are in the round — phones the server cannot forge, which the lab assumes the phones can verify (by device attestation, say). A server with Sybil clients must then let that many genuine phones in, and what it subtracts its Sybils from is their sum: the blend again. Counting all phones would not do: the Sybils fill the count. 1: no minimum. At most the users taking part (you and the other users).";

/// Where a lab's config keeps the n − 1 attack's two settings.
pub trait SybilSettings: 'static {
    /// The server's own clients a round (0 where secure aggregation is off).
    fn sybils(&self) -> usize;
    fn set_sybils(&mut self, sybils: usize);
    /// The devices' minimum cohort of genuine clients (1 where secure aggregation is off).
    fn min_genuine(&self) -> usize;
    fn set_min_genuine(&mut self, min_genuine: usize);
    /// The users who may take part in a round (the largest cohort of genuine clients).
    fn taking_part(&self) -> usize;
    /// Whether the server sees only the sum (the rows are shown then).
    fn sees_sum(&self) -> bool;
}

/// Refuses a minimum cohort of `k` genuine clients when only `users` may take part: no round
/// would ever be sent.
pub fn fits(k: usize, users: usize) -> Result<(), String> {
    if k > users {
        return Err(format!(
            "{k} is more than the {users} users taking part: no round would ever be sent"
        ));
    }
    Ok(())
}

/// The Sybils' number, as text.
fn get_sybils<C: SybilSettings>(c: &C) -> String {
    c.sybils().to_string()
}

fn set_sybils<C: SybilSettings>(c: &mut C, v: &str) -> Result<(), String> {
    let n = number(v, &SYBILS)? as usize;
    c.set_sybils(n);
    Ok(())
}

fn get_min_genuine<C: SybilSettings>(c: &C) -> String {
    c.min_genuine().to_string()
}

fn set_min_genuine<C: SybilSettings>(c: &mut C, v: &str) -> Result<(), String> {
    let k = number(v, &MIN_GENUINE)? as usize;
    fits(k, c.taking_part())?;
    c.set_min_genuine(k);
    Ok(())
}

fn sees_sum<C: SybilSettings>(c: &C) -> bool {
    c.sees_sum()
}

/// The row of the server's Sybils, under `key` in `section` (the lab's attack).
pub const fn sybils_row<C: SybilSettings>(key: &'static str, section: &'static str) -> Setting<C> {
    Setting::number(key, SYBILS_LABEL, section, "1", SYBILS)
        .help(SYBILS_HELP)
        .get(get_sybils::<C>)
        .set(set_sybils::<C>)
        .relevant(sees_sum::<C>)
}

/// The row of the devices' minimum cohort, under `key` in `section` (the lab's defences): a
/// minimum above the users taking part is refused.
pub const fn min_genuine_row<C: SybilSettings>(
    key: &'static str,
    section: &'static str,
) -> Setting<C> {
    Setting::number(key, MIN_GENUINE_LABEL, section, "1", MIN_GENUINE)
        .help(MIN_GENUINE_HELP)
        .get(get_min_genuine::<C>)
        .set(set_min_genuine::<C>)
        .relevant(sees_sum::<C>)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::setting::{get, set};
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[derive(Clone, Debug, PartialEq)]
    struct Lab {
        sybils: usize,
        min_genuine: usize,
        users: usize,
    }

    impl SybilSettings for Lab {
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
            self.users
        }
        fn sees_sum(&self) -> bool {
            true
        }
    }

    const ROWS: &[Setting<Lab>] = &[sybils_row("sy", "A"), min_genuine_row("k", "D")];

    #[test]
    fn the_rows_read_write_and_refuse_by_name() {
        let mut c = Lab {
            sybils: 0,
            min_genuine: 1,
            users: 5,
        };
        set(ROWS, &mut c, "sy", "7").unwrap();
        set(ROWS, &mut c, "k", "5").unwrap();
        assert_eq!((c.sybils, c.min_genuine), (7, 5));
        assert_eq!(
            (get(ROWS, &c, "sy"), get(ROWS, &c, "k")),
            ("7".into(), "5".into())
        );
        let e = set(ROWS, &mut c, "k", "6").unwrap_err();
        assert_eq!(
            e,
            "Minimum genuine phones a round: 6 is more than the 5 users taking part: no round would ever be sent"
        );
        let e = set(ROWS, &mut c, "sy", "101").unwrap_err();
        assert!(
            e.starts_with("Sybil clients (n − 1 attack)") && e.contains("101"),
            "{e}"
        );
        assert!(set(ROWS, &mut c, "k", "0").is_err());
        assert_eq!((c.sybils, c.min_genuine), (7, 5), "refusals change nothing");
    }
}
