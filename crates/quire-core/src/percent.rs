//! Percent-encoding in one place: a URI as a header or link may carry it
//! (reserved characters kept, everything else — spaces, non-ASCII slugs —
//! escaped), a component (only unreserved characters kept: cookie and
//! query values), and decoding.

/// Escapes what a URI (path, query and fragment) may not hold as is:
/// `/docs/快速 开始#a` gives `/docs/%E5%BF%AB%E9%80%9F%20%E5%BC%80%E5%A7%8B#a`.
pub fn encode_uri(text: &str) -> String {
    encode(text, |b| {
        b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/#?".contains(&b)
    })
}

/// Escapes everything but unreserved characters (letters, digits, `-._~`):
/// a value that must stay one piece of a query or a cookie.
pub fn encode_component(text: &str) -> String {
    encode(text, |b| b.is_ascii_alphanumeric() || b"-._~".contains(&b))
}

fn encode(text: &str, keep: impl Fn(u8) -> bool) -> String {
    const DIGITS: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if keep(b) {
            out.push(b as char);
        } else {
            out.push('%');
            out.push(DIGITS[usize::from(b >> 4)] as char);
            out.push(DIGITS[usize::from(b & 0xf)] as char);
        }
    }
    out
}

/// Decodes `%XX` escapes (`%20` → space); invalid escapes are kept as
/// written, invalid UTF-8 replaced.
pub fn decode(text: &str) -> String {
    let hex = |b: u8| (b as char).to_digit(16);
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let (Some(hi), Some(lo)) = (
                bytes.get(i + 1).copied().and_then(hex),
                bytes.get(i + 2).copied().and_then(hex),
            )
        {
            out.push((hi * 16 + lo) as u8);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The host (and port) of an absolute URL, lower-cased:
/// `https://Docs.Example.com:8443/x` gives `docs.example.com:8443`.
pub fn host_of(url: &str) -> String {
    url.split_once("://")
        .map_or(url, |(_, rest)| rest)
        .split('/')
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoding_and_decoding() {
        assert_eq!(encode_uri("/s/x/旅行#heading"), "/s/x/%E6%97%85%E8%A1%8C#heading");
        assert_eq!(encode_uri("/s/x/a b/c?q=1"), "/s/x/a%20b/c?q=1");
        assert_eq!(encode_component("a b&c=d/é"), "a%20b%26c%3Dd%2F%C3%A9");
        assert_eq!(decode(&encode_component("a b&c=d/é")), "a b&c=d/é");
        assert_eq!(decode("caf%C3%A9"), "café");
        assert_eq!(decode("%é%"), "%é%");
        assert_eq!(decode("%zz%4"), "%zz%4");
    }
}
