//! A look at YAML text before a parser reads it. YAML parsers take time
//! quadratic in the nesting of flow collections (`x: [[[[...]]]]`) before
//! their own depth limit refuses a document, so a 400 KB line could keep a
//! job busy for minutes. [`check_nesting`] refuses such text in one linear
//! pass first.

/// How deeply flow collections (`[...]`, `{...}`) may nest: far more than
/// any configuration or OpenAPI document uses, and far below where parsing
/// becomes slow.
pub const MAX_FLOW_DEPTH: usize = 64;

/// Refuses YAML whose flow collections nest deeper than `max_depth`, in
/// time linear in its length. Brackets in quoted strings, comments and in
/// the middle of plain scalars (`a[0]`) are not collections and are not
/// counted.
pub fn check_nesting(text: &str, max_depth: usize) -> Result<(), String> {
    let mut depth = 0usize;
    // The last character that was not a space: a collection opens only
    // where a value may start.
    let mut previous = '\n';
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' | '"' if value_may_start(previous) => {
                skip_quoted(&mut chars, c);
                previous = c;
                continue;
            }
            '#' if previous == '\n' || previous.is_whitespace() => {
                for skipped in chars.by_ref() {
                    if skipped == '\n' {
                        break;
                    }
                }
                previous = '\n';
                continue;
            }
            '[' | '{' if value_may_start(previous) => {
                depth += 1;
                if depth > max_depth {
                    return Err(format!("collections are nested deeper than {max_depth} levels"));
                }
            }
            ']' | '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if c == '\n' || !c.is_whitespace() {
            previous = c;
        } else if previous != '\n' {
            previous = ' ';
        }
    }
    Ok(())
}

/// Whether a value may start after `previous` (the last character read,
/// `' '` for spaces after a character, `'\n'` at a line's start).
fn value_may_start(previous: char) -> bool {
    matches!(previous, '\n' | ' ' | ':' | '-' | ',' | '[' | '{' | '?')
}

/// Skips a quoted scalar: `'...'` (a quote doubled inside) or `"..."`
/// (backslash escapes).
fn skip_quoted(chars: &mut std::iter::Peekable<std::str::Chars<'_>>, quote: char) {
    while let Some(c) = chars.next() {
        if quote == '"' && c == '\\' {
            chars.next();
        } else if c == quote {
            if quote == '\'' && chars.peek() == Some(&'\'') {
                chars.next();
            } else {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_flow_collections_are_refused() {
        let deep = format!("x: {}{}", "[".repeat(65), "]".repeat(65));
        assert!(check_nesting(&deep, MAX_FLOW_DEPTH).is_err());
        let fine = format!("x: {}{}", "[".repeat(64), "]".repeat(64));
        assert!(check_nesting(&fine, MAX_FLOW_DEPTH).is_ok());
        let maps = format!("x: {}1{}", "{a: ".repeat(100), "}".repeat(100));
        assert!(check_nesting(&maps, MAX_FLOW_DEPTH).is_err());
        // A 400 KB line is refused at once, not parsed.
        let huge = format!("x: {}", "[".repeat(400_000));
        assert!(check_nesting(&huge, MAX_FLOW_DEPTH).is_err());
    }

    #[test]
    fn brackets_that_open_nothing_are_not_counted() {
        let text = format!(
            "a: '{}'\nb: \"{}\\\"[\"\nc: a[0] and b{{1}}\n# {}\nd: [1, [2, {{e: 3}}]]\nf: 'it''s ['\n",
            "[".repeat(100),
            "[".repeat(100),
            "[".repeat(100)
        );
        let repeated = text.repeat(50);
        assert_eq!(check_nesting(&repeated, 3), Ok(()));
        assert!(check_nesting("d: [1, [2, {e: [3]}]]", 3).is_err());
    }
}
