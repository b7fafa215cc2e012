//! Whole numbers as the page writes them in prose: thousands grouped with commas ("6,372"), as
//! the settings' limits are written ("from 1 to 50,000").

/// `n` with its thousands grouped: 6372 → "6,372", 999 → "999".
pub fn count(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::count;

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(count(0), "0");
        assert_eq!(count(999), "999");
        assert_eq!(count(1000), "1,000");
        assert_eq!(count(6372), "6,372");
        assert_eq!(count(1_234_567), "1,234,567");
    }
}
