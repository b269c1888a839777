//! SAML 2.0 single sign-on with Quire as the service provider (SP).
//!
//! - [`metadata`]: the SP's metadata document, which identity providers
//!   (IdPs) read to learn where to send people back.
//! - [`login_request`]: an `AuthnRequest` sent by the HTTP-Redirect binding
//!   (deflated, base64, in the IdP's URL); the caller stores its id.
//! - [`verify`]: a `Response` received by the HTTP-POST binding. Its XML
//!   signature (on the response or on the assertion) is checked by libxmlsec1
//!   through samael against the IdP's certificate, and only the signed XML
//!   is read afterwards: samael reduces the document to what the verified
//!   signatures cover, so an unsigned assertion wrapped around or beside a
//!   signed one (signature wrapping) is never the one used. Then: issuer,
//!   destination, recipient and audience match, the times hold within
//!   [`CLOCK_SKEW_MS`], and `InResponseTo` is the request the caller
//!   expected (or absent, for IdP-initiated logins the caller allows).
//!   Whether the assertion id was seen before is the caller's to check.
//! - [`parse_certificate`]: an IdP certificate as administrators paste it.
//!
//! Every function is synchronous and CPU-bound (libxmlsec1 is C); callers
//! on an async runtime run [`verify`] on a blocking thread.

use base64::Engine as _;
use chrono::{DateTime, Utc};
use samael::key_info::{KeyInfo, X509Data};
use samael::metadata::{EntityDescriptor, IdpSsoDescriptor, KeyDescriptor};
use samael::schema::{AuthnRequest, Issuer, NameIdPolicy};

/// How far the IdP's clock may be from ours, both ways: 3 minutes.
pub const CLOCK_SKEW_MS: i64 = 3 * 60 * 1000;
/// How long after the IdP issued a response it is still taken: 5 minutes.
pub const MAX_RESPONSE_AGE_MS: i64 = 5 * 60 * 1000;

const HTTP_REDIRECT: &str = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect";
const HTTP_POST: &str = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST";
const EMAIL_FORMAT: &str = "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress";

/// Quire as a service provider for one identity provider.
#[derive(Debug, Clone)]
pub struct ServiceProvider {
    /// Quire's entity id for this provider (its metadata URL).
    pub entity_id: String,
    /// Where responses are posted.
    pub acs_url: String,
}

/// An identity provider as an administrator configured it.
#[derive(Debug, Clone)]
pub struct IdentityProvider {
    pub entity_id: String,
    pub sso_url: String,
    /// Its signing certificate, DER.
    pub certificate: Vec<u8>,
}

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

/// Why a response was refused; the message says it for the log.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    #[error("the response is not base64-encoded XML")]
    Malformed,
    #[error("the response failed verification: {0}")]
    Invalid(String),
    #[error("the assertion has no AudienceRestriction naming {0}")]
    Audience(String),
    #[error("the assertion is not valid before {0}")]
    NotYetValid(String),
    #[error("the assertion expired at {0}")]
    Expired(String),
    #[error("the response was issued at {0}, too long ago")]
    Stale(String),
    #[error("the assertion has no NameID")]
    NoNameId,
}

/// The person a verified assertion signs in.
#[derive(Debug, Clone)]
pub struct Login {
    pub assertion_id: String,
    pub name_id: String,
    /// The email address: the NameID when it is one, else the usual
    /// attributes (`mail`, `email`, their OID and claim URIs).
    pub email: Option<String>,
    /// From `displayName`, `name`, or `givenName` and `sn`, when given.
    pub display_name: Option<String>,
    /// When the assertion stops being usable (for the replay cache), in
    /// milliseconds since the epoch.
    pub not_on_or_after: i64,
}

/// Reads an X.509 certificate given as PEM (or as the base64 body of one).
pub fn parse_certificate(text: &str) -> Result<Certificate, CertificateError> {
    let text = text.trim();
    let pem = if text.starts_with("-----BEGIN") {
        text.to_owned()
    } else {
        let body: String = text.split_whitespace().collect();
        format!("-----BEGIN CERTIFICATE-----\n{body}\n-----END CERTIFICATE-----\n")
    };
    let cert =
        openssl::x509::X509::from_pem(pem.as_bytes()).map_err(|e| CertificateError::Unreadable(first_reason(&e)))?;
    let epoch = openssl::asn1::Asn1Time::from_unix(0).map_err(|e| CertificateError::Unreadable(e.to_string()))?;
    let millis = |t: &openssl::asn1::Asn1TimeRef| -> Result<i64, CertificateError> {
        let diff = epoch.diff(t).map_err(|e| CertificateError::Unreadable(e.to_string()))?;
        Ok((i64::from(diff.days) * 86_400 + i64::from(diff.secs)) * 1000)
    };
    let der = cert.to_der().map_err(|e| CertificateError::Unreadable(e.to_string()))?;
    let subject = cert
        .subject_name()
        .entries()
        .filter_map(|e| e.data().to_string().ok())
        .collect::<Vec<_>>()
        .join(", ");
    Ok(Certificate {
        der,
        not_before: millis(cert.not_before())?,
        not_after: millis(cert.not_after())?,
        subject,
    })
}

impl Certificate {
    /// Whether the certificate is valid at `now_ms`.
    pub fn check_valid_at(&self, now_ms: i64) -> Result<(), CertificateError> {
        if now_ms >= self.not_after {
            return Err(CertificateError::Expired(instant(self.not_after).to_rfc3339()));
        }
        if now_ms < self.not_before {
            return Err(CertificateError::NotYetValid(instant(self.not_before).to_rfc3339()));
        }
        Ok(())
    }
}

fn first_reason(error: &openssl::error::ErrorStack) -> String {
    error
        .errors()
        .first()
        .and_then(|e| e.reason().map(str::to_owned))
        .unwrap_or_else(|| "no certificate found".to_owned())
}

/// Escapes text for an XML attribute value.
fn attribute(value: &str) -> String {
    value
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The SP's metadata: its entity id and where the IdP posts responses
/// (HTTP-POST), asking for email-address NameIDs and signed assertions.
pub fn metadata(sp: &ServiceProvider) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <md:EntityDescriptor xmlns:md=\"urn:oasis:names:tc:SAML:2.0:metadata\" entityID=\"{entity}\">\n\
         \x20 <md:SPSSODescriptor AuthnRequestsSigned=\"false\" WantAssertionsSigned=\"true\" protocolSupportEnumeration=\"urn:oasis:names:tc:SAML:2.0:protocol\">\n\
         \x20   <md:NameIDFormat>{EMAIL_FORMAT}</md:NameIDFormat>\n\
         \x20   <md:AssertionConsumerService Binding=\"{HTTP_POST}\" Location=\"{acs}\" index=\"0\" isDefault=\"true\"/>\n\
         \x20 </md:SPSSODescriptor>\n\
         </md:EntityDescriptor>\n",
        entity = attribute(&sp.entity_id),
        acs = attribute(&sp.acs_url),
    )
}

/// The URL that sends a person to the IdP with an `AuthnRequest` whose id
/// is `request_id` (the caller makes it unguessable and stores it).
pub fn login_request(
    sp: &ServiceProvider,
    idp: &IdentityProvider,
    request_id: &str,
    relay_state: &str,
    now_ms: i64,
) -> Result<String, String> {
    let request = AuthnRequest {
        id: request_id.to_owned(),
        version: "2.0".into(),
        issue_instant: instant(now_ms),
        destination: Some(idp.sso_url.clone()),
        issuer: Some(Issuer {
            value: Some(sp.entity_id.clone()),
            ..Issuer::default()
        }),
        name_id_policy: Some(NameIdPolicy {
            format: Some(EMAIL_FORMAT.into()),
            allow_create: Some(true),
            ..NameIdPolicy::default()
        }),
        assertion_consumer_service_url: Some(sp.acs_url.clone()),
        protocol_binding: Some(HTTP_POST.into()),
        ..AuthnRequest::default()
    };
    let url = request
        .redirect(relay_state)
        .map_err(|e| e.to_string())?
        .ok_or("the request has no destination")?;
    Ok(url.to_string())
}

fn instant(ms: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_millis(ms).unwrap_or_default()
}

fn millis(at: &DateTime<Utc>) -> i64 {
    at.timestamp_millis()
}

/// The response's XML, decoded but not verified.
fn decode(saml_response: &str) -> Result<String, Refusal> {
    let compact: String = saml_response.split_whitespace().collect();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(compact)
        .map_err(|_| Refusal::Malformed)?;
    String::from_utf8(bytes).map_err(|_| Refusal::Malformed)
}

const ASSERTION_NS: &[u8] = b"urn:oasis:names:tc:SAML:2.0:assertion";
const PROTOCOL_NS: &[u8] = b"urn:oasis:names:tc:SAML:2.0:protocol";

/// The shape every response must have before its signature is even looked
/// at: a `samlp:Response` root holding exactly one `saml:Assertion`, as its
/// direct child, and no document type declaration. Signature wrapping needs
/// a second assertion (beside the signed one, or around it); such a
/// document is refused here, whatever its signatures say.
fn check_shape(xml: &str) -> Result<(), Refusal> {
    use quick_xml::events::Event;
    use quick_xml::name::ResolveResult;
    let malformed = |what: &str| Refusal::Invalid(format!("the response {what}"));
    let mut reader = quick_xml::NsReader::from_str(xml);
    let mut depth = 0usize;
    let mut assertions = 0usize;
    loop {
        let (ns, event) = reader
            .read_resolved_event()
            .map_err(|e| malformed(&format!("is not well-formed XML ({e})")))?;
        let (start, empty) = match &event {
            Event::Start(e) => (Some(e.local_name().as_ref().to_vec()), false),
            Event::Empty(e) => (Some(e.local_name().as_ref().to_vec()), true),
            Event::End(_) => {
                depth = depth.saturating_sub(1);
                continue;
            }
            Event::DocType(_) => return Err(malformed("declares a document type")),
            Event::Eof => break,
            _ => continue,
        };
        let Some(local) = start else { continue };
        let in_ns = |wanted: &[u8]| matches!(&ns, ResolveResult::Bound(n) if n.as_ref() == wanted);
        if depth == 0 && !(in_ns(PROTOCOL_NS) && local == b"Response") {
            return Err(malformed("is not a samlp:Response"));
        }
        if in_ns(ASSERTION_NS) && (local == b"Assertion" || local == b"EncryptedAssertion") {
            assertions += 1;
            if depth != 1 || local == b"EncryptedAssertion" {
                return Err(malformed(
                    "holds an assertion somewhere other than directly in the response",
                ));
            }
        }
        if !empty {
            depth += 1;
        }
    }
    match assertions {
        1 => Ok(()),
        0 => Err(malformed("holds no assertion")),
        n => Err(malformed(&format!("holds {n} assertions; exactly one is taken"))),
    }
}

/// The `InResponseTo` a response claims, before it is verified: only to
/// find the request it answers (which [`verify`] then requires it to be).
pub fn claimed_request(saml_response: &str) -> Option<String> {
    let xml = decode(saml_response).ok()?;
    let mut reader = quick_xml::Reader::from_str(&xml);
    loop {
        match reader.read_event().ok()? {
            quick_xml::events::Event::Start(root) | quick_xml::events::Event::Empty(root) => {
                let attribute = root.try_get_attribute("InResponseTo").ok()??;
                return Some(
                    attribute
                        .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                        .ok()?
                        .into_owned(),
                );
            }
            quick_xml::events::Event::Eof => return None,
            _ => {}
        }
    }
}

/// Verifies a posted response (see the module's documentation) and reads
/// who it signs in. `expected_request` is the outstanding request it must
/// answer; `None` accepts only an unsolicited response, and only when
/// `allow_unsolicited`.
pub fn verify(
    sp: &ServiceProvider,
    idp: &IdentityProvider,
    saml_response: &str,
    expected_request: Option<&str>,
    allow_unsolicited: bool,
    now_ms: i64,
) -> Result<Login, Refusal> {
    use samael::crypto::AllowedSignatureAlgorithm as Alg;
    let xml = decode(saml_response)?;
    check_shape(&xml)?;
    let provider = samael::service_provider::ServiceProvider {
        entity_id: Some(sp.entity_id.clone()),
        acs_url: Some(sp.acs_url.clone()),
        idp_metadata: idp_metadata(idp),
        allow_idp_initiated: expected_request.is_none() && allow_unsolicited,
        allowed_signature_algorithms: Some(vec![
            Alg::RsaSha256,
            Alg::RsaSha384,
            Alg::RsaSha512,
            Alg::EcdsaSha256,
            Alg::EcdsaSha384,
            Alg::EcdsaSha512,
        ]),
        // The times are checked below against the caller's clock.
        max_issue_delay: chrono::Duration::days(36_500),
        max_clock_skew: chrono::Duration::days(36_500),
        ..samael::service_provider::ServiceProvider::default()
    };
    let expected: Vec<&str> = expected_request.into_iter().collect();
    let assertion = provider
        .parse_xml_response(&xml, Some(&expected))
        .map_err(|e| Refusal::Invalid(e.to_string()))?;

    // Times, on the caller's clock.
    let issued = millis(&assertion.issue_instant);
    if issued > now_ms + CLOCK_SKEW_MS {
        return Err(Refusal::NotYetValid(assertion.issue_instant.to_rfc3339()));
    }
    if issued + MAX_RESPONSE_AGE_MS + CLOCK_SKEW_MS < now_ms {
        return Err(Refusal::Stale(assertion.issue_instant.to_rfc3339()));
    }
    let mut not_on_or_after: Option<i64> = None;
    let mut limit = |at: &DateTime<Utc>| {
        let at = millis(at);
        not_on_or_after = Some(not_on_or_after.map_or(at, |n| n.min(at)));
    };
    if let Some(conditions) = &assertion.conditions {
        if let Some(before) = &conditions.not_before
            && millis(before) > now_ms + CLOCK_SKEW_MS
        {
            return Err(Refusal::NotYetValid(before.to_rfc3339()));
        }
        if let Some(after) = &conditions.not_on_or_after {
            limit(after);
        }
    }
    let subject = assertion.subject.as_ref();
    for confirmation in subject
        .and_then(|s| s.subject_confirmations.as_ref())
        .into_iter()
        .flatten()
    {
        if let Some(data) = &confirmation.subject_confirmation_data {
            if let Some(before) = &data.not_before
                && millis(before) > now_ms + CLOCK_SKEW_MS
            {
                return Err(Refusal::NotYetValid(before.to_rfc3339()));
            }
            if let Some(after) = &data.not_on_or_after {
                limit(after);
            }
        }
    }
    let not_on_or_after = not_on_or_after.unwrap_or(issued + MAX_RESPONSE_AGE_MS);
    if not_on_or_after + CLOCK_SKEW_MS <= now_ms {
        return Err(Refusal::Expired(instant(not_on_or_after).to_rfc3339()));
    }

    // The audience must be named, not merely not contradicted.
    let audience_named = assertion
        .conditions
        .as_ref()
        .and_then(|c| c.audience_restrictions.as_ref())
        .is_some_and(|restrictions| {
            restrictions
                .iter()
                .any(|r| r.audience.iter().any(|a| a == &sp.entity_id))
        });
    if !audience_named {
        return Err(Refusal::Audience(sp.entity_id.clone()));
    }

    let name_id = subject
        .and_then(|s| s.name_id.as_ref())
        .map(|n| n.value.trim().to_owned())
        .filter(|n| !n.is_empty())
        .ok_or(Refusal::NoNameId)?;
    let attributes: Vec<(String, String)> = assertion
        .attribute_statements
        .iter()
        .flatten()
        .flat_map(|s| s.attributes.iter())
        .flat_map(|a| {
            let names: Vec<String> = a.name.iter().chain(a.friendly_name.iter()).cloned().collect();
            a.values
                .iter()
                .filter_map(|v| v.value.as_ref().map(|v| v.trim().to_owned()))
                .filter(|v| !v.is_empty())
                .flat_map(move |v| names.clone().into_iter().map(move |n| (n, v.clone())))
        })
        .collect();
    let first = |keys: &[&str]| {
        keys.iter().find_map(|key| {
            attributes
                .iter()
                .find(|(name, _)| name.eq_ignore_ascii_case(key))
                .map(|(_, v)| v.clone())
        })
    };
    let email = if name_id.contains('@') {
        Some(name_id.clone())
    } else {
        first(&[
            "mail",
            "email",
            "emailAddress",
            "urn:oid:0.9.2342.19200300.100.1.3",
            "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress",
        ])
    };
    let display_name = first(&[
        "displayName",
        "urn:oid:2.16.840.1.113730.3.1.241",
        "http://schemas.microsoft.com/identity/claims/displayname",
        "name",
    ])
    .or_else(|| {
        let given = first(&[
            "givenName",
            "urn:oid:2.5.4.42",
            "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/givenname",
        ]);
        let family = first(&[
            "sn",
            "surname",
            "urn:oid:2.5.4.4",
            "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/surname",
        ]);
        match (given, family) {
            (Some(g), Some(f)) => Some(format!("{g} {f}")),
            (g, f) => g.or(f),
        }
    });
    Ok(Login {
        assertion_id: assertion.id.clone(),
        name_id,
        email,
        display_name,
        not_on_or_after,
    })
}

/// The IdP as samael wants it: metadata with its entity id, its single
/// sign-on URL and its signing certificate.
fn idp_metadata(idp: &IdentityProvider) -> EntityDescriptor {
    EntityDescriptor {
        entity_id: Some(idp.entity_id.clone()),
        idp_sso_descriptors: Some(vec![IdpSsoDescriptor {
            id: None,
            valid_until: None,
            cache_duration: None,
            protocol_support_enumeration: Some("urn:oasis:names:tc:SAML:2.0:protocol".into()),
            error_url: None,
            signature: None,
            key_descriptors: vec![KeyDescriptor {
                key_use: Some("signing".into()),
                key_info: KeyInfo {
                    id: None,
                    x509_data: Some(X509Data {
                        certificates: vec![base64::engine::general_purpose::STANDARD.encode(&idp.certificate)],
                    }),
                },
                encryption_methods: None,
            }],
            organization: None,
            contact_people: Vec::new(),
            artifact_resolution_service: Vec::new(),
            single_logout_services: Vec::new(),
            manage_name_id_services: Vec::new(),
            name_id_formats: Vec::new(),
            want_authn_requests_signed: Some(false),
            single_sign_on_services: vec![samael::metadata::Endpoint {
                binding: HTTP_REDIRECT.into(),
                location: idp.sso_url.clone(),
                response_location: None,
            }],
            name_id_mapping_services: Vec::new(),
            assertion_id_request_services: Vec::new(),
            attribute_profiles: Vec::new(),
            attributes: Vec::new(),
        }]),
        ..EntityDescriptor::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sp() -> ServiceProvider {
        ServiceProvider {
            entity_id: "https://docs.example.com/saml/p1/metadata".into(),
            acs_url: "https://docs.example.com/saml/p1/acs".into(),
        }
    }

    #[test]
    fn metadata_names_the_acs_and_escapes() {
        let mut sp = sp();
        sp.acs_url.push_str("?a=1&b=\"2\"");
        let xml = metadata(&sp);
        assert!(xml.contains("entityID=\"https://docs.example.com/saml/p1/metadata\""));
        assert!(xml.contains("Location=\"https://docs.example.com/saml/p1/acs?a=1&amp;b=&quot;2&quot;\""));
        assert!(xml.contains(HTTP_POST));
    }

    #[test]
    fn a_login_request_is_deflated_into_the_idp_url() {
        let idp = IdentityProvider {
            entity_id: "https://idp.example.com".into(),
            sso_url: "https://idp.example.com/sso?tenant=1".into(),
            certificate: Vec::new(),
        };
        let url = login_request(&sp(), &idp, "_abc123", "/account", 1_700_000_000_000).expect("a URL");
        assert!(
            url.starts_with("https://idp.example.com/sso?tenant=1&SAMLRequest="),
            "{url}"
        );
        assert!(url.contains("RelayState=%2Faccount"), "{url}");
    }

    #[test]
    fn garbage_is_not_a_response() {
        let idp = IdentityProvider {
            entity_id: "https://idp.example.com".into(),
            sso_url: "https://idp.example.com/sso".into(),
            certificate: Vec::new(),
        };
        assert!(matches!(
            verify(&sp(), &idp, "%%%", None, false, 0),
            Err(Refusal::Malformed)
        ));
        let unsigned = base64::engine::general_purpose::STANDARD.encode("<samlp:Response xmlns:samlp=\"urn:oasis:names:tc:SAML:2.0:protocol\" ID=\"x\" Version=\"2.0\" IssueInstant=\"2026-01-01T00:00:00Z\"/>");
        assert!(matches!(
            verify(&sp(), &idp, &unsigned, None, true, 0),
            Err(Refusal::Invalid(_))
        ));
    }

    #[test]
    fn only_one_assertion_directly_in_a_response_is_taken() {
        let response = |inner: &str| {
            format!(
                "<samlp:Response xmlns:samlp=\"urn:oasis:names:tc:SAML:2.0:protocol\" \
                 xmlns:saml=\"urn:oasis:names:tc:SAML:2.0:assertion\" ID=\"r\">{inner}</samlp:Response>"
            )
        };
        let one = "<saml:Assertion ID=\"a\"><saml:Subject/></saml:Assertion>";
        assert!(check_shape(&response(one)).is_ok());
        assert!(check_shape(&response(&format!("{one}{one}"))).is_err(), "siblings");
        let nested = format!("<saml:Assertion ID=\"evil\"><saml:Advice>{one}</saml:Advice></saml:Assertion>");
        assert!(check_shape(&response(&nested)).is_err(), "nested");
        let hidden = format!("<samlp:Extensions>{one}</samlp:Extensions>");
        assert!(check_shape(&response(&hidden)).is_err(), "in extensions");
        assert!(check_shape(&response("")).is_err(), "none");
        assert!(check_shape(one).is_err(), "a bare assertion");
        assert!(check_shape(&format!("<!DOCTYPE x [<!ENTITY e \"e\">]>{}", response(one))).is_err());
    }

    #[test]
    fn certificates_must_parse() {
        assert!(matches!(
            parse_certificate("not a certificate"),
            Err(CertificateError::Unreadable(_))
        ));
    }
}
