//! Reading a request's cookies, the one rule for both the account pages and
//! published sites: `name=value` pairs of every `Cookie` header, the first
//! with the name wins, an empty or too long value counts as absent.

/// The value of cookie `name` in these `Cookie` header values, when it has
/// one of at most `max_len` bytes.
pub fn value<'h>(headers: impl IntoIterator<Item = &'h str>, name: &str, max_len: usize) -> Option<&'h str> {
    headers
        .into_iter()
        .flat_map(|header| header.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(key, _)| *key == name)
        .map(|(_, value)| value)
        .filter(|value| !value.is_empty() && value.len() <= max_len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cookies_by_name() {
        let headers = ["a=1; quire_session=abc", "quire_session=later"];
        assert_eq!(value(headers, "quire_session", 128), Some("abc"));
        assert_eq!(value(headers, "a", 128), Some("1"));
        assert_eq!(value(headers, "b", 128), None);
        assert_eq!(value(["x=toolong"], "x", 3), None);
        assert_eq!(value(["x="], "x", 3), None);
    }
}
