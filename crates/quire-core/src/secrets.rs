//! URLs shown without the secrets they may carry. People put credentials in
//! repository and database URLs in two places: the userinfo
//! (`https://user:token@host/...`, the token often as the user name) and the
//! query string (`...docs.git?access_token=...`). Both are replaced by `***`
//! wherever such a URL is shown, stored for showing, or logged.

/// `url` with its userinfo, every query value and its fragment replaced by
/// `***`.
pub fn redact_url(url: &str) -> String {
    let parts = Parts::of(url);
    let mut out = String::with_capacity(url.len());
    out.push_str(parts.before_userinfo);
    if parts.userinfo.is_some() {
        out.push_str("***@");
    }
    out.push_str(parts.host_and_path);
    if let Some(query) = parts.query {
        out.push('?');
        let pairs: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((key, _)) => format!("{key}=***"),
                None if pair.is_empty() => String::new(),
                None => "***".to_owned(),
            })
            .collect();
        out.push_str(&pairs.join("&"));
    }
    if parts.fragment.is_some_and(|f| !f.is_empty()) {
        out.push_str("#***");
    }
    out
}

/// The secret parts of `url` (userinfo, query values, fragment), to take
/// out of messages that may quote it in another form than the whole URL.
pub fn url_secrets(url: &str) -> Vec<&str> {
    let parts = Parts::of(url);
    let mut secrets = Vec::new();
    if let Some(userinfo) = parts.userinfo {
        secrets.push(userinfo);
        secrets.extend(userinfo.split(':'));
    }
    if let Some(query) = parts.query {
        secrets.extend(
            query
                .split('&')
                .map(|pair| pair.split_once('=').map_or(pair, |(_, value)| value)),
        );
    }
    secrets.extend(parts.fragment);
    secrets.retain(|s| s.len() >= 3);
    // Longest first, so a value is never half-replaced through a shorter one.
    secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
    secrets
}

/// `text` (a message quoting `url`) with the URL redacted and its secrets
/// replaced by `***`, in whatever form they appear.
pub fn redact_quoting(text: &str, url: &str) -> String {
    let mut text = text.replace(url, &redact_url(url));
    for secret in url_secrets(url) {
        text = text.replace(secret, "***");
    }
    text
}

struct Parts<'a> {
    /// The scheme and `://`, if any.
    before_userinfo: &'a str,
    userinfo: Option<&'a str>,
    host_and_path: &'a str,
    query: Option<&'a str>,
    fragment: Option<&'a str>,
}

impl<'a> Parts<'a> {
    fn of(url: &'a str) -> Parts<'a> {
        let (before_fragment, fragment) = match url.split_once('#') {
            Some((before, fragment)) => (before, Some(fragment)),
            None => (url, None),
        };
        let (before_query, query) = match before_fragment.split_once('?') {
            Some((before, query)) => (before, Some(query)),
            None => (before_fragment, None),
        };
        let scheme_end = before_query.find("://").map_or(0, |at| at + 3);
        let (before_userinfo, rest) = before_query.split_at(scheme_end);
        let authority_end = rest.find('/').unwrap_or(rest.len());
        let (userinfo, host_and_path) = match rest[..authority_end].rfind('@') {
            Some(at) if scheme_end > 0 => (Some(&rest[..at]), &rest[at + 1..]),
            _ => (None, rest),
        };
        Parts {
            before_userinfo,
            userinfo,
            host_and_path,
            query,
            fragment,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn userinfo_query_values_and_fragments_are_hidden() {
        assert_eq!(
            redact_url("https://ada:s3cret@git.example.com/r.git"),
            "https://***@git.example.com/r.git"
        );
        assert_eq!(
            redact_url("https://ghp_token@github.com/a/b"),
            "https://***@github.com/a/b"
        );
        assert_eq!(
            redact_url("https://git.example.com/docs.git?access_token=SECRET&x=1"),
            "https://git.example.com/docs.git?access_token=***&x=***"
        );
        assert_eq!(redact_url("https://h/p?SECRET#frag"), "https://h/p?***#***");
        assert_eq!(
            redact_url("https://git.example.com/r.git"),
            "https://git.example.com/r.git"
        );
        assert_eq!(redact_url("file:///tmp/repo"), "file:///tmp/repo");
        assert_eq!(redact_url("postgres://u:pw@db/quire"), "postgres://***@db/quire");
        // An @ in the path is not userinfo.
        assert_eq!(redact_url("https://h/a@b"), "https://h/a@b");
    }

    #[test]
    fn messages_lose_every_form_of_the_secrets() {
        let url = "https://ada:pa55word@git.example.com/docs.git?access_token=SECRET";
        let message = format!(
            "fatal: unable to access '{url}': 403; retried 'https://git.example.com/docs.git/info/refs?service=x&access_token=SECRET'"
        );
        let redacted = redact_quoting(&message, url);
        for secret in ["SECRET", "pa55word"] {
            assert!(!redacted.contains(secret), "{redacted}");
        }
        assert!(redacted.contains("git.example.com/docs.git"), "{redacted}");
    }
}
