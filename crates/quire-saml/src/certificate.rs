//! Identity-provider certificates as administrators paste them: PEM, or the
//! base64 body of one (as in IdP metadata).

use base64::Engine as _;
use chrono::DateTime;

/// A certificate that parsed.
#[derive(Debug, Clone)]
pub struct Certificate {
    pub der: Vec<u8>,
    /// Validity, in milliseconds since the epoch.
    pub not_before: i64,
    pub not_after: i64,
    pub subject: String,
}

#[derive(Debug, thiserror::Error)]
pub enum CertificateError {
    #[error("the certificate is not a PEM X.509 certificate: {0}")]
    Unreadable(String),
    #[error("the certificate expired on {0}")]
    Expired(String),
    #[error("the certificate is not valid before {0}")]
    NotYetValid(String),
}

/// Reads an X.509 certificate given as PEM (or as the base64 body of one).
pub fn parse_certificate(text: &str) -> Result<Certificate, CertificateError> {
    let text = text.trim();
    let body: String = if text.starts_with("-----BEGIN") {
        let begin = "-----BEGIN CERTIFICATE-----";
        let start = text
            .find(begin)
            .ok_or_else(|| CertificateError::Unreadable("no certificate found".into()))?
            + begin.len();
        let end = text[start..]
            .find("-----END CERTIFICATE-----")
            .ok_or_else(|| CertificateError::Unreadable("the certificate has no END line".into()))?;
        text[start..start + end].split_whitespace().collect()
    } else {
        text.split_whitespace().collect()
    };
    let der = base64::engine::general_purpose::STANDARD
        .decode(body)
        .map_err(|_| CertificateError::Unreadable("no certificate found".into()))?;
    let (rest, cert) = x509_parser::parse_x509_certificate(&der)
        .map_err(|e| CertificateError::Unreadable(format!("not an X.509 certificate ({e})")))?;
    if !rest.is_empty() {
        return Err(CertificateError::Unreadable("bytes follow the certificate".into()));
    }
    let validity = cert.validity();
    let subject = cert
        .subject()
        .iter_attributes()
        .filter_map(|a| a.as_str().ok().map(str::to_owned))
        .collect::<Vec<_>>()
        .join(", ");
    Ok(Certificate {
        not_before: validity.not_before.timestamp() * 1000,
        not_after: validity.not_after.timestamp() * 1000,
        subject,
        der,
    })
}

impl Certificate {
    /// Whether the certificate is valid at `now_ms`.
    pub fn check_valid_at(&self, now_ms: i64) -> Result<(), CertificateError> {
        if now_ms >= self.not_after {
            return Err(CertificateError::Expired(rfc3339(self.not_after)));
        }
        if now_ms < self.not_before {
            return Err(CertificateError::NotYetValid(rfc3339(self.not_before)));
        }
        Ok(())
    }
}

fn rfc3339(ms: i64) -> String {
    DateTime::from_timestamp_millis(ms).unwrap_or_default().to_rfc3339()
}

/// A DER certificate as PEM, for `xmlsec1`.
pub(crate) fn pem(der: &[u8]) -> String {
    let body = base64::engine::general_purpose::STANDARD.encode(der);
    let mut pem = String::from("-----BEGIN CERTIFICATE-----\n");
    for line in body.as_bytes().chunks(64) {
        pem.push_str(&String::from_utf8_lossy(line));
        pem.push('\n');
    }
    pem.push_str("-----END CERTIFICATE-----\n");
    pem
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn certificates_must_parse() {
        assert!(matches!(
            parse_certificate("not a certificate"),
            Err(CertificateError::Unreadable(_))
        ));
        assert!(matches!(
            parse_certificate("-----BEGIN CERTIFICATE-----\naGVsbG8=\n-----END CERTIFICATE-----"),
            Err(CertificateError::Unreadable(_))
        ));
    }
}
