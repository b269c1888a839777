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

/// A random (version 4) UUID in its hyphenated form, for the few ids the
/// official API gives as UUIDs (audit events).
pub fn new_uuid() -> String {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("the operating system random source is available");
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
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

    #[test]
    fn uuids_are_version_4() {
        let id = new_uuid();
        assert_eq!(id.len(), 36);
        assert_eq!(id.as_bytes()[14], b'4');
        assert!(matches!(id.as_bytes()[19], b'8' | b'9' | b'a' | b'b'));
        assert_ne!(id, new_uuid());
    }
}
