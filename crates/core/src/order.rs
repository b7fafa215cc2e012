//! Stable sorting through one compiled sort.
//!
//! The standard library's `sort_by` is generic over the element and the comparator, so every
//! call site with its own closure compiles its own copy of the stable sort (driftsort with its
//! quicksort and merges, 3–5 KB of wasm each). Eleven to fourteen such copies were in each of the
//! site's two first-load binaries (issue 41 §1, BENCHMARKS.md "Download size"). Here the sort is
//! compiled once, over positions, with the comparator called through `dyn`; the generic part
//! left at each call site is a closure and an in-place permutation.
//!
//! The order is the one `slice::sort_by` gives with the same comparator: both are stable sorts,
//! so elements that compare equal keep their order, and a comparator that is a total order has
//! only one such result. Sorts on hot paths (and `sort_by(f64::total_cmp)`, whose comparator is
//! one function item everywhere and so one copy already) keep the standard library's.

use core::cmp::Ordering;

/// The positions `0..n` in the stable order `compare` puts them in: `compare(a, b)` compares
/// the items at positions `a` and `b`, and positions whose items compare equal stay in order.
#[inline(never)]
pub fn stable_order(n: usize, compare: &dyn Fn(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| compare(a, b));
    order
}

/// Sorts `v` as `v.sort_by(compare)` does (stable).
pub fn sort_by<T>(v: &mut [T], compare: impl Fn(&T, &T) -> Ordering) {
    let order = stable_order(v.len(), &|a, b| compare(&v[a], &v[b]));
    permute(v, order);
}

/// Sorts `v` as `v.sort_by_key(key)` does (stable).
pub fn sort_by_key<T, K: Ord>(v: &mut [T], key: impl Fn(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)));
}

/// Puts the item at `order[k]` at position `k`, for every `k`, following each cycle of the
/// permutation with swaps (no copy of `v`, no `Clone`).
fn permute<T>(v: &mut [T], mut order: Vec<usize>) {
    for start in 0..order.len() {
        let mut at = start;
        loop {
            let from = order[at];
            // Position `at` is settled: the cycle does not visit it again.
            order[at] = at;
            if from == start {
                break;
            }
            v.swap(at, from);
            at = from;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_order_is_the_standard_librarys_ties_included() {
        // Pairs sorted by their first field only: the second shows where ties went.
        let mut state = 7u64;
        for n in [0, 1, 2, 3, 10, 33, 200] {
            let items: Vec<(u8, usize)> = (0..n)
                .map(|i| {
                    state = state
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    ((state >> 60) as u8, i)
                })
                .collect();
            let mut ours = items.clone();
            sort_by(&mut ours, |a, b| a.0.cmp(&b.0));
            let mut theirs = items.clone();
            theirs.sort_by_key(|p| p.0);
            assert_eq!(ours, theirs, "n = {n}");
            let mut by_key = items.clone();
            sort_by_key(&mut by_key, |p| std::cmp::Reverse(p.0));
            let mut theirs = items;
            theirs.sort_by_key(|p| std::cmp::Reverse(p.0));
            assert_eq!(by_key, theirs, "n = {n}, by key");
        }
    }

    #[test]
    fn a_permutation_of_owned_values_moves_each_once() {
        let mut words: Vec<String> = ["d", "b", "e", "a", "c"].map(String::from).to_vec();
        sort_by(&mut words, |a, b| a.cmp(b));
        assert_eq!(words, ["a", "b", "c", "d", "e"]);
        assert_eq!(stable_order(4, &|a, b| (a % 2).cmp(&(b % 2))), [0, 2, 1, 3]);
    }
}
