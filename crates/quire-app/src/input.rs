//! Input rules shared by several areas. Each returns the cleaned value
//! or an `Invalid` error that names the field and the rule.

use crate::error::{AppError, AppResult};

/// A title of `min..=max` characters once surrounding white space is trimmed.
pub fn title(field: &str, value: &str, min: usize, max: usize) -> AppResult<String> {
    let trimmed = value.trim();
    let len = trimmed.chars().count();
    if len < min || len > max {
        return Err(AppError::invalid(format!(
            "{field} must be {min} to {max} characters long (got {len})"
        )));
    }
    Ok(trimmed.to_owned())
}

/// An email address: one `@` with a non-empty local part and a dotted domain.
/// Returned lower-cased, the form emails are stored and matched in.
pub fn email(value: &str) -> AppResult<String> {
    let email = value.trim().to_lowercase();
    let valid = match email.split_once('@') {
        Some((local, domain)) => {
            !local.is_empty() && !email.contains(char::is_whitespace) && domain_name(domain).is_ok()
        }
        None => false,
    };
    if valid {
        Ok(email)
    } else {
        Err(AppError::invalid(format!("invalid email address {value:?}")))
    }
}

/// A DNS domain name such as `example.com`, lower-cased.
pub fn domain_name(value: &str) -> AppResult<String> {
    let domain = value.trim().to_lowercase();
    let labels_ok = domain.split('.').all(|label| {
        !label.is_empty()
            && label.len() <= 63
            && label.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            && !label.starts_with('-')
            && !label.ends_with('-')
    });
    if domain.contains('.') && domain.len() <= 253 && labels_ok {
        Ok(domain)
    } else {
        Err(AppError::invalid(format!("invalid domain name {value:?}")))
    }
}

/// An organization hostname: 3 to 32 lower-case letters, digits and inner hyphens.
pub fn hostname(value: &str) -> AppResult<String> {
    let ok = (3..=32).contains(&value.len())
        && value
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !value.starts_with('-')
        && !value.ends_with('-');
    if ok {
        Ok(value.to_owned())
    } else {
        Err(AppError::invalid(
            "hostname must be 3 to 32 characters of lower-case letters, digits and inner hyphens",
        ))
    }
}

/// An absolute http(s) URL of at most 2048 characters.
pub fn http_url(field: &str, value: &str) -> AppResult<String> {
    let rest = value.strip_prefix("https://").or_else(|| value.strip_prefix("http://"));
    match rest {
        Some(rest) if !rest.is_empty() && value.len() <= 2048 && !value.contains(char::is_whitespace) => {
            Ok(value.to_owned())
        }
        _ => Err(AppError::invalid(format!("{field} must be an absolute http(s) URL"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails() {
        assert_eq!(email(" Ada@Example.COM ").unwrap(), "ada@example.com");
        assert!(email("ada").is_err());
        assert!(email("@example.com").is_err());
        assert!(email("ada@localhost").is_err());
        assert!(email("a da@example.com").is_err());
    }

    #[test]
    fn titles_count_characters_not_bytes() {
        assert!(title("title", &"é".repeat(64), 1, 64).is_ok());
        assert!(title("title", &"é".repeat(65), 1, 64).is_err());
        assert!(title("title", "   ", 1, 64).is_err());
    }

    #[test]
    fn hostnames() {
        assert!(hostname("docs-team").is_ok());
        assert!(hostname("Docs").is_err());
        assert!(hostname("-ab").is_err());
        assert!(hostname("ab").is_err());
    }
}
