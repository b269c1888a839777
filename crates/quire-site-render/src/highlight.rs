//! Server-side code highlighting: a small lexer shared by the common
//! languages of documentation (C-like, Rust, Go, Python, JavaScript and
//! TypeScript, shell, JSON, YAML, SQL…). It marks comments (`c`), strings
//! (`s`), numbers (`n`) and keywords (`k`) with `<span class>`; everything
//! else is escaped text. No JavaScript runs in the reader's browser for it.
//! A block without a language is shown as it is: nothing is guessed.

use crate::html::push_escaped;

const KEYWORDS: &[&str] = &[
    "as",
    "async",
    "await",
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "crate",
    "def",
    "default",
    "defer",
    "do",
    "elif",
    "else",
    "enum",
    "except",
    "export",
    "extends",
    "false",
    "finally",
    "fn",
    "for",
    "from",
    "func",
    "function",
    "go",
    "if",
    "impl",
    "import",
    "in",
    "interface",
    "let",
    "loop",
    "match",
    "mod",
    "mut",
    "new",
    "nil",
    "none",
    "null",
    "package",
    "pass",
    "pub",
    "raise",
    "return",
    "select",
    "self",
    "static",
    "struct",
    "super",
    "switch",
    "this",
    "throw",
    "trait",
    "true",
    "try",
    "type",
    "typeof",
    "undefined",
    "use",
    "var",
    "void",
    "where",
    "while",
    "with",
    "yield",
    "SELECT",
    "FROM",
    "WHERE",
    "INSERT",
    "UPDATE",
    "DELETE",
    "CREATE",
    "TABLE",
    "JOIN",
    "ORDER",
    "BY",
    "GROUP",
    "AND",
    "OR",
    "NOT",
    "NULL",
    "VALUES",
    "INTO",
    "SET",
    "True",
    "False",
    "None",
    "echo",
    "export",
    "then",
    "fi",
    "done",
];

/// Which comment forms a language uses.
fn comment_styles(language: &str) -> (bool, bool) {
    let lang = language.to_ascii_lowercase();
    let hash = matches!(
        lang.as_str(),
        "python"
            | "py"
            | "bash"
            | "sh"
            | "shell"
            | "zsh"
            | "yaml"
            | "yml"
            | "toml"
            | "ruby"
            | "rb"
            | "r"
            | "perl"
            | "dockerfile"
            | "makefile"
            | "ini"
            | "conf"
    );
    (!hash, hash)
}

/// The code as escaped HTML with highlighting spans (none when the
/// language is empty or plain text).
pub fn highlight(code: &str, language: &str) -> String {
    let (slash_comments, hash_comments) = comment_styles(language);
    let is_data = matches!(
        language.trim().to_ascii_lowercase().as_str(),
        "" | "text" | "plain" | "plaintext" | "txt" | "markdown" | "md"
    );
    let mut out = String::with_capacity(code.len() + code.len() / 2);
    if is_data {
        push_escaped(&mut out, code);
        return out;
    }
    let chars: Vec<char> = code.chars().collect();
    let mut i = 0;
    let span = |out: &mut String, class: &str, text: &[char]| {
        out.push_str("<span class=\"");
        out.push_str(class);
        out.push_str("\">");
        push_escaped(out, &text.iter().collect::<String>());
        out.push_str("</span>");
    };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if (slash_comments && c == '/' && next == Some('/'))
            || (hash_comments && c == '#')
            || (c == '-' && next == Some('-') && language.eq_ignore_ascii_case("sql"))
        {
            let end = chars[i..]
                .iter()
                .position(|&c| c == '\n')
                .map_or(chars.len(), |p| i + p);
            span(&mut out, "c", &chars[i..end]);
            i = end;
        } else if slash_comments && c == '/' && next == Some('*') {
            let end = (i + 2..chars.len().saturating_sub(1))
                .find(|&j| chars[j] == '*' && chars[j + 1] == '/')
                .map_or(chars.len(), |j| j + 2);
            span(&mut out, "c", &chars[i..end]);
            i = end;
        } else if c == '"' || c == '\'' || c == '`' {
            let mut j = i + 1;
            while j < chars.len() && chars[j] != c && !(chars[j] == '\n' && c != '`') {
                if chars[j] == '\\' {
                    j += 1;
                }
                j += 1;
            }
            let end = (j + 1).min(chars.len());
            span(&mut out, "s", &chars[i..end]);
            i = end;
        } else if c.is_ascii_digit() && (i == 0 || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '_')) {
            let mut j = i;
            while j < chars.len() && (chars[j].is_ascii_alphanumeric() || chars[j] == '.' || chars[j] == '_') {
                j += 1;
            }
            span(&mut out, "n", &chars[i..j]);
            i = j;
        } else if c.is_alphabetic() || c == '_' {
            let mut j = i;
            while j < chars.len() && (chars[j].is_alphanumeric() || chars[j] == '_') {
                j += 1;
            }
            let word: String = chars[i..j].iter().collect();
            if KEYWORDS.contains(&word.as_str()) {
                span(&mut out, "k", &chars[i..j]);
            } else {
                push_escaped(&mut out, &word);
            }
            i = j;
        } else {
            let mut buf = [0u8; 4];
            push_escaped(&mut out, c.encode_utf8(&mut buf));
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_keywords_strings_comments_and_numbers() {
        assert_eq!(
            highlight("let x = 42; // <answer>", "js"),
            "<span class=\"k\">let</span> x = <span class=\"n\">42</span>; <span class=\"c\">// &lt;answer&gt;</span>"
        );
        assert_eq!(
            highlight("echo \"a\\\"b\" # note", "bash"),
            "<span class=\"k\">echo</span> <span class=\"s\">&quot;a\\&quot;b&quot;</span> <span class=\"c\"># note</span>"
        );
        assert_eq!(
            highlight("x1 = 'unterminated", "python"),
            "x1 = <span class=\"s\">&#39;unterminated</span>"
        );
        assert_eq!(highlight("<b>", "text"), "&lt;b&gt;");
    }

    #[test]
    fn nothing_is_guessed_without_a_language() {
        let code = "let x = \"a\"; // 42 <b>";
        assert_eq!(highlight(code, ""), "let x = &quot;a&quot;; // 42 &lt;b&gt;");
        assert_eq!(highlight(code, "  "), "let x = &quot;a&quot;; // 42 &lt;b&gt;");
        assert!(!highlight(code, "plaintext").contains("<span"));
    }
}
