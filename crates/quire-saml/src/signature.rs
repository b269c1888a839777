//! XML signatures on a response, checked with the `xmlsec1` command.
//!
//! Before `xmlsec1` runs, the signatures' structure is checked here: a
//! signature may sit only directly in the response or directly in its
//! assertion (one each at most), must reference exactly its parent by the
//! parent's `ID` (no other element shares it), and may use only the
//! algorithms below (no SHA-1). Then `xmlsec1 --verify` checks each one,
//! selected by its exact place, against the identity provider's certificate
//! and nothing else (keys in the document are ignored), as pysaml2 does.
//! The assertion counts as signed when the response or the assertion
//! signature covers it, and every signature present must verify.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;
use std::sync::{Mutex, OnceLock};

use crate::xml::{ASSERTION_NS, DSIG_NS, Element, PROTOCOL_NS};

const SIGNATURE_METHODS: &[&str] = &[
    "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256",
    "http://www.w3.org/2001/04/xmldsig-more#rsa-sha384",
    "http://www.w3.org/2001/04/xmldsig-more#rsa-sha512",
    "http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256",
    "http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha384",
    "http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha512",
];
const DIGEST_METHODS: &[&str] = &[
    "http://www.w3.org/2001/04/xmlenc#sha256",
    "http://www.w3.org/2001/04/xmldsig-more#sha384",
    "http://www.w3.org/2001/04/xmlenc#sha512",
];
const CANONICALIZATIONS: &[&str] = &[
    "http://www.w3.org/2001/10/xml-exc-c14n#",
    "http://www.w3.org/TR/2001/REC-xml-c14n-20010315",
    "http://www.w3.org/2006/12/xml-c14n11",
];
const ENVELOPED: &str = "http://www.w3.org/2000/09/xmldsig#enveloped-signature";

/// Where a signature sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    Response,
    Assertion,
}

impl Place {
    /// The XPath that selects exactly this signature (the shape check made
    /// the response hold one assertion).
    fn xpath(self) -> String {
        let signature = format!("*[local-name()='Signature' and namespace-uri()='{DSIG_NS}']");
        let response = format!("/*[local-name()='Response' and namespace-uri()='{PROTOCOL_NS}']");
        match self {
            Place::Response => format!("{response}/{signature}"),
            Place::Assertion => {
                format!("{response}/*[local-name()='Assertion' and namespace-uri()='{ASSERTION_NS}']/{signature}")
            }
        }
    }
}

/// Runs `xmlsec1`: the program to run, as the operator configured it.
#[derive(Debug, Clone)]
pub struct SignatureVerifier {
    program: PathBuf,
}

/// Whether each program runs, asked once per process.
static READINESS: OnceLock<Mutex<HashMap<PathBuf, Result<String, String>>>> = OnceLock::new();

impl Default for SignatureVerifier {
    fn default() -> SignatureVerifier {
        SignatureVerifier::new("xmlsec1")
    }
}

impl SignatureVerifier {
    pub fn new(program: impl Into<PathBuf>) -> SignatureVerifier {
        SignatureVerifier {
            program: program.into(),
        }
    }

    /// [`SignatureVerifier::version`], asked once per process and program.
    pub fn readiness(&self) -> Result<String, String> {
        let known = READINESS.get_or_init(Mutex::default);
        if let Some(answer) = known.lock().ok().and_then(|k| k.get(&self.program).cloned()) {
            return answer;
        }
        let answer = self.version();
        if let Ok(mut known) = known.lock() {
            known.insert(self.program.clone(), answer.clone());
        }
        answer
    }

    /// The program's version line, or why it cannot run: SAML sign-in
    /// needs it, and says so when it is missing.
    pub fn version(&self) -> Result<String, String> {
        let output = Command::new(&self.program).arg("--version").output().map_err(|e| {
            format!(
                "`{}` cannot run ({e}); install xmlsec1 (Debian: apt-get install xmlsec1) to verify SAML responses",
                self.program.display()
            )
        })?;
        let version = String::from_utf8_lossy(&output.stdout).trim().to_owned();
        if !output.status.success() || version.is_empty() {
            return Err(format!("`{} --version` failed", self.program.display()));
        }
        Ok(version)
    }

    /// Checks the response's signatures (see the module's documentation).
    /// `xml` is the document as received, `root` the same document read.
    pub fn check(&self, xml: &str, root: &Element, certificate_der: &[u8]) -> Result<(), String> {
        self.readiness()?;
        let places = signed_places(root)?;
        if !places.contains(&Place::Response) && !places.contains(&Place::Assertion) {
            return Err("neither the response nor its assertion is signed".into());
        }
        let dir = tempfile::tempdir().map_err(|e| format!("no room to check signatures ({e})"))?;
        let document = dir.path().join("response.xml");
        let certificate = dir.path().join("idp.pem");
        std::fs::write(&document, xml).map_err(|e| format!("no room to check signatures ({e})"))?;
        std::fs::write(&certificate, crate::certificate::pem(certificate_der))
            .map_err(|e| format!("no room to check signatures ({e})"))?;
        for place in places {
            self.run(place, &document, &certificate)?;
        }
        Ok(())
    }

    fn run(&self, place: Place, document: &std::path::Path, certificate: &std::path::Path) -> Result<(), String> {
        let output = Command::new(&self.program)
            .arg("--verify")
            .args(["--enabled-reference-uris", "same-doc"])
            .args(["--enabled-key-data", "raw-x509-cert"])
            .arg("--pubkey-cert-pem")
            .arg(certificate)
            .args(["--id-attr:ID", &format!("{PROTOCOL_NS}:Response")])
            .args(["--id-attr:ID", &format!("{ASSERTION_NS}:Assertion")])
            .args(["--node-xpath", &place.xpath()])
            .arg(document)
            .output()
            .map_err(|e| format!("`{}` cannot run ({e})", self.program.display()))?;
        let said = String::from_utf8_lossy(&output.stderr);
        let verified = output.status.success() && said.lines().any(|line| line.trim() == "OK");
        if verified {
            Ok(())
        } else {
            let what = match place {
                Place::Response => "the response's signature",
                Place::Assertion => "the assertion's signature",
            };
            Err(format!("{what} does not verify with the provider's certificate"))
        }
    }
}

/// Where the document is signed, after checking each signature's structure.
fn signed_places(root: &Element) -> Result<Vec<Place>, String> {
    let assertion = root
        .child(ASSERTION_NS, "Assertion")
        .ok_or("the response holds no assertion")?;
    let mut ids = std::collections::HashSet::new();
    for element in root.descendants() {
        if let Some(id) = element.attribute("ID")
            && !ids.insert(id)
        {
            return Err(format!("two elements share the ID {id:?}"));
        }
    }
    let mut places = Vec::new();
    for (place, parent) in [(Place::Response, root), (Place::Assertion, assertion)] {
        let signatures: Vec<&Element> = parent.children_named(DSIG_NS, "Signature").collect();
        match signatures.as_slice() {
            [] => {}
            [signature] => {
                check_structure(signature, parent)?;
                places.push(place);
            }
            _ => return Err("an element carries more than one signature".into()),
        }
    }
    let expected = places.len();
    let everywhere = root
        .descendants()
        .into_iter()
        .filter(|e| e.is(DSIG_NS, "Signature"))
        .count();
    if everywhere != expected {
        return Err("a signature sits somewhere signatures do not belong".into());
    }
    Ok(places)
}

/// A signature must reference its parent, whole, with allowed algorithms.
fn check_structure(signature: &Element, parent: &Element) -> Result<(), String> {
    let id = parent
        .attribute("ID")
        .filter(|id| !id.is_empty())
        .ok_or("a signed element has no ID")?;
    let signed_info = only(signature, "SignedInfo")?;
    let algorithm = |element: &Element| element.attribute("Algorithm").unwrap_or_default().to_owned();
    let canonicalization = algorithm(only(signed_info, "CanonicalizationMethod")?);
    if !CANONICALIZATIONS.contains(&canonicalization.as_str()) {
        return Err(format!("the canonicalization {canonicalization:?} is not allowed"));
    }
    let method = algorithm(only(signed_info, "SignatureMethod")?);
    if !SIGNATURE_METHODS.contains(&method.as_str()) {
        return Err(format!("the signature algorithm {method:?} is not allowed"));
    }
    let reference = only(signed_info, "Reference")?;
    if reference.attribute("URI") != Some(&format!("#{id}")) {
        return Err("a signature references something other than the element that carries it".into());
    }
    if let Some(transforms) = reference.child(DSIG_NS, "Transforms") {
        for transform in transforms.children.iter() {
            let name = algorithm(transform);
            if !transform.is(DSIG_NS, "Transform") || !(name == ENVELOPED || CANONICALIZATIONS.contains(&name.as_str()))
            {
                return Err(format!("the transform {name:?} is not allowed"));
            }
        }
    }
    let digest = algorithm(only(reference, "DigestMethod")?);
    if !DIGEST_METHODS.contains(&digest.as_str()) {
        return Err(format!("the digest algorithm {digest:?} is not allowed"));
    }
    Ok(())
}

/// The one child `name` (in the signature namespace) of `element`.
fn only<'a>(element: &'a Element, name: &'a str) -> Result<&'a Element, String> {
    let mut found = element.children_named(DSIG_NS, name);
    match (found.next(), found.next()) {
        (Some(one), None) => Ok(one),
        (None, _) => Err(format!("a signature has no {name}")),
        (Some(_), Some(_)) => Err(format!("a signature has more than one {name}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xml::parse;

    fn signature(uri: &str, method: &str, digest: &str) -> String {
        format!(
            "<ds:Signature><ds:SignedInfo>\
             <ds:CanonicalizationMethod Algorithm=\"http://www.w3.org/2001/10/xml-exc-c14n#\"/>\
             <ds:SignatureMethod Algorithm=\"{method}\"/>\
             <ds:Reference URI=\"{uri}\"><ds:Transforms>\
             <ds:Transform Algorithm=\"{ENVELOPED}\"/></ds:Transforms>\
             <ds:DigestMethod Algorithm=\"{digest}\"/><ds:DigestValue>x</ds:DigestValue></ds:Reference>\
             </ds:SignedInfo><ds:SignatureValue>x</ds:SignatureValue></ds:Signature>"
        )
    }

    fn response(response_signature: &str, assertion_signature: &str, extra: &str) -> Element {
        parse(&format!(
            "<samlp:Response xmlns:samlp=\"{PROTOCOL_NS}\" xmlns:saml=\"{ASSERTION_NS}\" xmlns:ds=\"{DSIG_NS}\" ID=\"r\">\
             {response_signature}<saml:Assertion ID=\"a\">{assertion_signature}<saml:Subject/>{extra}</saml:Assertion>\
             </samlp:Response>"
        ))
        .expect("parses")
    }

    const RSA256: &str = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256";
    const SHA256: &str = "http://www.w3.org/2001/04/xmlenc#sha256";

    #[test]
    fn signatures_must_reference_their_parent_with_allowed_algorithms() {
        let good = signature("#a", RSA256, SHA256);
        assert_eq!(signed_places(&response("", &good, "")), Ok(vec![Place::Assertion]));
        let both = response(&signature("#r", RSA256, SHA256), &good, "");
        assert_eq!(signed_places(&both), Ok(vec![Place::Response, Place::Assertion]));
        assert!(
            signed_places(&response("", &signature("#r", RSA256, SHA256), "")).is_err(),
            "points elsewhere"
        );
        assert!(
            signed_places(&response("", &signature("", RSA256, SHA256), "")).is_err(),
            "whole document"
        );
        let sha1 = signature("#a", "http://www.w3.org/2000/09/xmldsig#rsa-sha1", SHA256);
        assert!(signed_places(&response("", &sha1, "")).is_err(), "SHA-1 signature");
        let sha1_digest = signature("#a", RSA256, "http://www.w3.org/2000/09/xmldsig#sha1");
        assert!(signed_places(&response("", &sha1_digest, "")).is_err(), "SHA-1 digest");
        assert!(
            signed_places(&response("", &format!("{good}{good}"), "")).is_err(),
            "two"
        );
        let stray = format!("<saml:Advice>{good}</saml:Advice>");
        assert!(
            signed_places(&response("", &good, &stray)).is_err(),
            "a signature elsewhere"
        );
        let twin = "<saml:Conditions ID=\"a\"/>";
        assert!(signed_places(&response("", &good, twin)).is_err(), "shared ID");
    }

    #[test]
    fn a_missing_program_says_so() {
        let verifier = SignatureVerifier::new("/nonexistent/xmlsec1");
        let said = verifier.version().expect_err("missing");
        assert!(said.contains("install xmlsec1"), "{said}");
        assert_eq!(verifier.readiness(), Err(said));
    }
}
