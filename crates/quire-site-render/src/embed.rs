//! Embeds as readers see them on GitBook: a video or design from a known
//! player shows in a responsive frame of that player; any other URL is a
//! link card. Only the players named here are ever framed (the pages'
//! content security policy admits exactly their origins, see `security`).

/// Origins whose players an embed may show in a frame (`player`
/// frames only these; the published site's policy admits them).
pub const EMBED_ORIGINS: &[&str] = &[
    "https://www.youtube.com",
    "https://www.youtube-nocookie.com",
    "https://player.vimeo.com",
    "https://www.loom.com",
    "https://www.figma.com",
    "https://codepen.io",
    "https://codesandbox.io",
];

/// The player URL to frame for `url`, when it is a video or design of a
/// known player.
pub fn player(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    if scheme != "https" && scheme != "http" {
        return None;
    }
    let (host, path_and_query) = rest.split_once('/').unwrap_or((rest, ""));
    let host = host.to_ascii_lowercase();
    let host = host.strip_prefix("www.").unwrap_or(&host);
    let (path, query) = path_and_query.split_once('?').unwrap_or((path_and_query, ""));
    let path = path.split('#').next().unwrap_or_default();
    let id_ok = |id: &str| {
        !id.is_empty() && id.len() <= 64 && id.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
    };
    let youtube = |id: &str| id_ok(id).then(|| format!("https://www.youtube-nocookie.com/embed/{id}"));
    match host {
        "youtube.com" | "m.youtube.com" => {
            if path == "watch" {
                let id = query.split('&').find_map(|pair| pair.strip_prefix("v="))?;
                youtube(id)
            } else {
                let id = path.strip_prefix("shorts/").or_else(|| path.strip_prefix("embed/"))?;
                youtube(id.trim_end_matches('/'))
            }
        }
        "youtu.be" => youtube(path.trim_end_matches('/')),
        "vimeo.com" => {
            let id = path.trim_end_matches('/');
            (id.chars().all(|c| c.is_ascii_digit()) && !id.is_empty())
                .then(|| format!("https://player.vimeo.com/video/{id}"))
        }
        "loom.com" => {
            let id = path.strip_prefix("share/")?.trim_end_matches('/');
            id_ok(id).then(|| format!("https://www.loom.com/embed/{id}"))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_players_are_framed_and_nothing_else() {
        assert_eq!(
            player("https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=10").as_deref(),
            Some("https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ")
        );
        assert_eq!(
            player("https://youtu.be/dQw4w9WgXcQ").as_deref(),
            Some("https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ")
        );
        assert_eq!(
            player("https://vimeo.com/76979871").as_deref(),
            Some("https://player.vimeo.com/video/76979871")
        );
        assert_eq!(
            player("https://www.loom.com/share/abc123").as_deref(),
            Some("https://www.loom.com/embed/abc123")
        );
        for other in [
            "https://example.com/watch?v=x",
            "javascript:alert(1)",
            "https://www.youtube.com/watch?v=a\"onload=x",
            "https://vimeo.com/abc",
            "https://www.youtube.com/",
        ] {
            assert_eq!(player(other), None, "{other}");
        }
    }
}
