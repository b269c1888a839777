//! SAML 2.0 single sign-on with Quire as the service provider (SP).
//!
//! - [`metadata`]: the SP's metadata document, which identity providers
//!   (IdPs) read to learn where to send people back.
//! - [`login_request`]: an `AuthnRequest` sent by the HTTP-Redirect binding
//!   (deflated, base64, in the IdP's URL); the caller stores its id.
//! - [`verify`]: a `Response` received by the HTTP-POST binding. It is read
//!   strictly ([`xml`]), must hold exactly one assertion directly in the
//!   response, and its XML signatures (on the response, the assertion or
//!   both) are checked by the `xmlsec1` command against the IdP's
//!   certificate ([`signature`]) before anything in it is taken. Then:
//!   issuer, status, destination, recipient and audience match, the times
//!   hold within [`CLOCK_SKEW_MS`], and `InResponseTo` is the request the
//!   caller expected (or absent, for IdP-initiated logins the caller
//!   allows). Whether the assertion id was seen before is the caller's to
//!   check.
//! - [`parse_certificate`]: an IdP certificate as administrators paste it.
//!
//! [`verify`] is synchronous and runs a program; callers on an async
//! runtime run it on a blocking thread.

mod certificate;
mod signature;
mod xml;

use std::io::Write as _;

use base64::Engine as _;
use chrono::{DateTime, SecondsFormat, Utc};

pub use certificate::{Certificate, CertificateError, parse_certificate};
pub use signature::SignatureVerifier;
use xml::{ASSERTION_NS, Element, PROTOCOL_NS};

/// How far the IdP's clock may be from ours, both ways: 3 minutes.
pub const CLOCK_SKEW_MS: i64 = 3 * 60 * 1000;
/// How long after the IdP issued a response it is still taken: 5 minutes.
pub const MAX_RESPONSE_AGE_MS: i64 = 5 * 60 * 1000;

const HTTP_POST: &str = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST";
const EMAIL_FORMAT: &str = "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress";
const SUCCESS: &str = "urn:oasis:names:tc:SAML:2.0:status:Success";
const BEARER: &str = "urn:oasis:names:tc:SAML:2.0:cm:bearer";

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

/// Escapes text for XML (attribute values and text).
fn escape(value: &str) -> String {
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
        entity = escape(&sp.entity_id),
        acs = escape(&sp.acs_url),
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
    let request = format!(
        "<samlp:AuthnRequest xmlns:samlp=\"{PROTOCOL_NS}\" xmlns:saml=\"{ASSERTION_NS}\" \
         ID=\"{id}\" Version=\"2.0\" IssueInstant=\"{instant}\" Destination=\"{destination}\" \
         AssertionConsumerServiceURL=\"{acs}\" ProtocolBinding=\"{HTTP_POST}\">\
         <saml:Issuer>{issuer}</saml:Issuer>\
         <samlp:NameIDPolicy Format=\"{EMAIL_FORMAT}\" AllowCreate=\"true\"/>\
         </samlp:AuthnRequest>",
        id = escape(request_id),
        instant = rfc3339(now_ms),
        destination = escape(&idp.sso_url),
        acs = escape(&sp.acs_url),
        issuer = escape(&sp.entity_id),
    );
    let mut deflater = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
    deflater.write_all(request.as_bytes()).map_err(|e| e.to_string())?;
    let deflated = deflater.finish().map_err(|e| e.to_string())?;
    let mut url = url::Url::parse(&idp.sso_url).map_err(|e| format!("the IdP's sign-in URL is not a URL ({e})"))?;
    url.query_pairs_mut()
        .append_pair(
            "SAMLRequest",
            &base64::engine::general_purpose::STANDARD.encode(deflated),
        )
        .append_pair("RelayState", relay_state);
    Ok(url.to_string())
}

fn rfc3339(ms: i64) -> String {
    DateTime::from_timestamp_millis(ms)
        .unwrap_or_default()
        .to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// A time as SAML writes it, in milliseconds since the epoch.
fn time(value: &str, what: &str) -> Result<i64, Refusal> {
    DateTime::parse_from_rfc3339(value.trim())
        .map(|t| t.with_timezone(&Utc).timestamp_millis())
        .map_err(|_| Refusal::Invalid(format!("{what} {value:?} is not a time")))
}

/// The response's XML, decoded but not verified.
fn decode(saml_response: &str) -> Result<String, Refusal> {
    let compact: String = saml_response.split_whitespace().collect();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(compact)
        .map_err(|_| Refusal::Malformed)?;
    String::from_utf8(bytes).map_err(|_| Refusal::Malformed)
}

/// The `InResponseTo` a response claims, before it is verified: only to
/// find the request it answers (which [`verify`] then requires it to be).
pub fn claimed_request(saml_response: &str) -> Option<String> {
    let root = xml::parse(&decode(saml_response).ok()?).ok()?;
    root.attribute("InResponseTo").map(str::to_owned)
}

/// Verifies a posted response (see the module's documentation) and reads
/// who it signs in. `expected_request` is the outstanding request it must
/// answer; `None` accepts only an unsolicited response, and only when
/// `allow_unsolicited`.
pub fn verify(
    verifier: &SignatureVerifier,
    sp: &ServiceProvider,
    idp: &IdentityProvider,
    saml_response: &str,
    expected_request: Option<&str>,
    allow_unsolicited: bool,
    now_ms: i64,
) -> Result<Login, Refusal> {
    let text = decode(saml_response)?;
    let invalid = |what: String| Refusal::Invalid(format!("the response {what}"));
    let response = xml::parse(&text).map_err(invalid)?;
    xml::check_shape(&response).map_err(invalid)?;
    verifier
        .check(&text, &response, &idp.certificate)
        .map_err(Refusal::Invalid)?;
    let assertion = response
        .child(ASSERTION_NS, "Assertion")
        .ok_or_else(|| invalid("holds no assertion".into()))?;
    let idp_initiated = expected_request.is_none() && allow_unsolicited;
    check_response(&response, sp, idp, expected_request, idp_initiated)?;
    check_subject_confirmation(assertion, sp, expected_request, idp_initiated)?;
    if assertion.child(ASSERTION_NS, "Issuer").map(Element::trimmed_text) != Some(idp.entity_id.as_str()) {
        return Err(Refusal::Invalid(
            "the assertion is not issued by the configured provider".into(),
        ));
    }
    let not_on_or_after = check_times(assertion, now_ms)?;
    check_audience(assertion, sp)?;
    read_login(assertion, not_on_or_after)
}

/// The response around the assertion: its destination, the request it
/// answers, its issuer and its status.
fn check_response(
    response: &Element,
    sp: &ServiceProvider,
    idp: &IdentityProvider,
    expected_request: Option<&str>,
    idp_initiated: bool,
) -> Result<(), Refusal> {
    let signed = response.child(xml::DSIG_NS, "Signature").is_some();
    let destination = response.attribute("Destination");
    if (signed || destination.is_some()) && destination != Some(sp.acs_url.as_str()) {
        return Err(Refusal::Invalid(format!(
            "the response is addressed to {destination:?}, not {:?}",
            sp.acs_url
        )));
    }
    if !idp_initiated && (expected_request.is_none() || response.attribute("InResponseTo") != expected_request) {
        return Err(Refusal::Invalid("the response answers another request".into()));
    }
    if let Some(issuer) = response.child(ASSERTION_NS, "Issuer")
        && issuer.trimmed_text() != idp.entity_id
    {
        return Err(Refusal::Invalid(
            "the response is not issued by the configured provider".into(),
        ));
    }
    let status = response
        .child(PROTOCOL_NS, "Status")
        .and_then(|s| s.child(PROTOCOL_NS, "StatusCode"))
        .and_then(|c| c.attribute("Value"));
    if let Some(status) = status
        && status != SUCCESS
    {
        return Err(Refusal::Invalid(format!("the provider answered {status}")));
    }
    Ok(())
}

/// A bearer confirmation for Quire's ACS, answering the expected request
/// (unless IdP-initiated). Its times are checked with the others.
fn check_subject_confirmation(
    assertion: &Element,
    sp: &ServiceProvider,
    expected_request: Option<&str>,
    idp_initiated: bool,
) -> Result<(), Refusal> {
    let subject = assertion.child(ASSERTION_NS, "Subject");
    let bearers = subject
        .into_iter()
        .flat_map(|s| s.children_named(ASSERTION_NS, "SubjectConfirmation"))
        .filter(|c| c.attribute("Method") == Some(BEARER));
    let mut reason = "the assertion has no bearer subject confirmation";
    for confirmation in bearers {
        let Some(data) = confirmation.child(ASSERTION_NS, "SubjectConfirmationData") else {
            reason = "a subject confirmation has no data";
            continue;
        };
        if data.attribute("NotOnOrAfter").is_none() {
            reason = "a subject confirmation has no NotOnOrAfter";
        } else if data.attribute("Recipient") != Some(sp.acs_url.as_str()) {
            reason = "the subject confirmation names another recipient";
        } else if !idp_initiated && (expected_request.is_none() || data.attribute("InResponseTo") != expected_request) {
            reason = "the subject confirmation answers another request";
        } else {
            return Ok(());
        }
    }
    Err(Refusal::Invalid(reason.into()))
}

/// Times on the caller's clock; answers when the assertion stops being
/// usable.
fn check_times(assertion: &Element, now_ms: i64) -> Result<i64, Refusal> {
    let issued_text = assertion.attribute("IssueInstant").unwrap_or_default();
    let issued = time(issued_text, "IssueInstant")?;
    if issued > now_ms + CLOCK_SKEW_MS {
        return Err(Refusal::NotYetValid(rfc3339(issued)));
    }
    if issued + MAX_RESPONSE_AGE_MS + CLOCK_SKEW_MS < now_ms {
        return Err(Refusal::Stale(rfc3339(issued)));
    }
    let conditions = assertion.child(ASSERTION_NS, "Conditions");
    let confirmations = assertion
        .child(ASSERTION_NS, "Subject")
        .into_iter()
        .flat_map(|s| s.children_named(ASSERTION_NS, "SubjectConfirmation"))
        .filter_map(|c| c.child(ASSERTION_NS, "SubjectConfirmationData"));
    let mut not_on_or_after: Option<i64> = None;
    for bounded in conditions.into_iter().chain(confirmations) {
        if let Some(before) = bounded.attribute("NotBefore") {
            let before = time(before, "NotBefore")?;
            if before > now_ms + CLOCK_SKEW_MS {
                return Err(Refusal::NotYetValid(rfc3339(before)));
            }
        }
        if let Some(after) = bounded.attribute("NotOnOrAfter") {
            let after = time(after, "NotOnOrAfter")?;
            not_on_or_after = Some(not_on_or_after.map_or(after, |n| n.min(after)));
        }
    }
    let not_on_or_after = not_on_or_after.unwrap_or(issued + MAX_RESPONSE_AGE_MS);
    if not_on_or_after + CLOCK_SKEW_MS <= now_ms {
        return Err(Refusal::Expired(rfc3339(not_on_or_after)));
    }
    Ok(not_on_or_after)
}

/// The audience must be named, not merely not contradicted.
fn check_audience(assertion: &Element, sp: &ServiceProvider) -> Result<(), Refusal> {
    let named = assertion
        .child(ASSERTION_NS, "Conditions")
        .into_iter()
        .flat_map(|c| c.children_named(ASSERTION_NS, "AudienceRestriction"))
        .flat_map(|r| r.children_named(ASSERTION_NS, "Audience"))
        .any(|a| a.trimmed_text() == sp.entity_id);
    if named {
        Ok(())
    } else {
        Err(Refusal::Audience(sp.entity_id.clone()))
    }
}

/// Who the assertion signs in.
fn read_login(assertion: &Element, not_on_or_after: i64) -> Result<Login, Refusal> {
    let name_id = assertion
        .child(ASSERTION_NS, "Subject")
        .and_then(|s| s.child(ASSERTION_NS, "NameID"))
        .map(|n| n.trimmed_text().to_owned())
        .filter(|n| !n.is_empty())
        .ok_or(Refusal::NoNameId)?;
    let attributes: Vec<(&str, &str)> = assertion
        .children_named(ASSERTION_NS, "AttributeStatement")
        .flat_map(|s| s.children_named(ASSERTION_NS, "Attribute"))
        .flat_map(|a| {
            let names: Vec<&str> = a
                .attribute("Name")
                .into_iter()
                .chain(a.attribute("FriendlyName"))
                .collect();
            a.children_named(ASSERTION_NS, "AttributeValue")
                .map(Element::trimmed_text)
                .filter(|v| !v.is_empty())
                .flat_map(move |v| names.clone().into_iter().map(move |n| (n, v)))
        })
        .collect();
    let first = |keys: &[&str]| {
        keys.iter().find_map(|key| {
            attributes
                .iter()
                .find(|(name, _)| name.eq_ignore_ascii_case(key))
                .map(|(_, v)| (*v).to_owned())
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
        assertion_id: assertion.attribute("ID").unwrap_or_default().to_owned(),
        name_id,
        email,
        display_name,
        not_on_or_after,
    })
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

    fn idp() -> IdentityProvider {
        IdentityProvider {
            entity_id: "https://idp.example.com".into(),
            sso_url: "https://idp.example.com/sso?tenant=1".into(),
            certificate: Vec::new(),
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
        let url = login_request(&sp(), &idp(), "_abc123", "/account", 1_700_000_000_000).expect("a URL");
        assert!(
            url.starts_with("https://idp.example.com/sso?tenant=1&SAMLRequest="),
            "{url}"
        );
        assert!(url.contains("RelayState=%2Faccount"), "{url}");
        let parsed = url::Url::parse(&url).expect("a URL");
        let request = parsed
            .query_pairs()
            .find(|(k, _)| k == "SAMLRequest")
            .map(|(_, v)| v.into_owned())
            .expect("a request");
        let deflated = base64::engine::general_purpose::STANDARD
            .decode(request)
            .expect("base64");
        let mut xml = String::new();
        std::io::Read::read_to_string(&mut flate2::read::DeflateDecoder::new(&deflated[..]), &mut xml)
            .expect("inflates");
        let root = xml::parse(&xml).expect("XML");
        assert!(root.is(PROTOCOL_NS, "AuthnRequest"));
        assert_eq!(root.attribute("ID"), Some("_abc123"));
        assert_eq!(root.attribute("IssueInstant"), Some("2023-11-14T22:13:20.000Z"));
        assert_eq!(
            root.attribute("AssertionConsumerServiceURL"),
            Some(sp().acs_url.as_str())
        );
        assert_eq!(
            root.child(ASSERTION_NS, "Issuer").map(Element::trimmed_text),
            Some(sp().entity_id.as_str())
        );
    }

    #[test]
    fn garbage_is_not_a_response() {
        let verifier = SignatureVerifier::default();
        assert!(matches!(
            verify(&verifier, &sp(), &idp(), "%%%", None, false, 0),
            Err(Refusal::Malformed)
        ));
        let unsigned = base64::engine::general_purpose::STANDARD.encode(format!(
            "<samlp:Response xmlns:samlp=\"{PROTOCOL_NS}\" xmlns:saml=\"{ASSERTION_NS}\" ID=\"x\" Version=\"2.0\" \
             IssueInstant=\"2026-01-01T00:00:00Z\"><saml:Assertion ID=\"a\"/></samlp:Response>"
        ));
        let refusal = verify(&verifier, &sp(), &idp(), &unsigned, None, true, 0).expect_err("unsigned");
        assert!(
            refusal
                .to_string()
                .contains("neither the response nor its assertion is signed"),
            "{refusal}"
        );
    }
}
