//! SHA-256 digests written as lower-case hex: how Quire names content
//! (blobs, objects), keeps secrets it only compares (API tokens) and keys
//! caches. One home, so every name is written the same way.

use sha2::{Digest, Sha256};

/// The SHA-256 of `bytes`, as 64 lower-case hex digits.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// A SHA-256 fed in pieces.
#[derive(Default)]
pub struct Hasher(Sha256);

impl Hasher {
    pub fn new() -> Hasher {
        Hasher::default()
    }

    /// Adds bytes as they are.
    pub fn update(&mut self, bytes: &[u8]) -> &mut Hasher {
        self.0.update(bytes);
        self
    }

    /// Adds one part of a key, ended by a zero byte (so `("ab", "c")` and
    /// `("a", "bc")` differ).
    pub fn part(&mut self, bytes: &[u8]) -> &mut Hasher {
        self.0.update(bytes);
        self.0.update([0u8]);
        self
    }

    /// The digest, as 64 lower-case hex digits.
    pub fn hex(self) -> String {
        hex(&self.0.finalize())
    }
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(DIGITS[usize::from(b >> 4)] as char);
        out.push(DIGITS[usize::from(b & 0xf)] as char);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_are_lower_case_hex() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        let mut parts = Hasher::new();
        parts.part(b"ab").part(b"c");
        let mut other = Hasher::new();
        other.part(b"a").part(b"bc");
        assert_ne!(parts.hex(), other.hex());
        let mut plain = Hasher::new();
        plain.update(b"a").update(b"bc");
        assert_eq!(plain.hex(), sha256_hex(b"abc"));
    }
}
