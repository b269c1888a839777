//! Opaque random identifiers and secrets.

const ALPHABET: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// `len` random characters from `[0-9A-Za-z]`, drawn from the OS random source
/// without modulo bias.
pub fn random_alphanumeric(len: usize) -> String {
    let mut out = String::with_capacity(len);
    let mut buf = [0u8; 64];
    while out.len() < len {
        getrandom::fill(&mut buf).expect("the operating system random source is available");
        for &byte in &buf {
            // 248 = 4 * 62: bytes above it would favour the first characters.
            if byte < 248 && out.len() < len {
                out.push(ALPHABET[usize::from(byte % 62)] as char);
            }
        }
    }
    out
}

/// A new id for any stored entity: 20 characters, like the official API's ids.
pub fn new_id() -> String {
    random_alphanumeric(20)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_alphanumeric_and_distinct() {
        let a = new_id();
        let b = new_id();
        assert_eq!(a.len(), 20);
        assert!(a.bytes().all(|c| c.is_ascii_alphanumeric()));
        assert_ne!(a, b);
    }
}
