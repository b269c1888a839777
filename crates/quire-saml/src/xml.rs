//! A small, strict XML tree for SAML responses.
//!
//! The response is read once into [`Element`]s; everything Quire takes from
//! it is read from that tree after its signatures were checked. The reader
//! refuses what a signature checker and a second parser could disagree on:
//! a document type declaration (and so any entity but the five predefined
//! ones), an encoding other than UTF-8 (the declaration is not signed), and
//! more than one root. Text is the concatenation of an element's
//! own text and CDATA with comments skipped, which is what canonical XML
//! (and so the signature) covers: a comment inside a NameID cannot cut it
//! short.

use quick_xml::events::Event;
use quick_xml::name::ResolveResult;

pub const ASSERTION_NS: &str = "urn:oasis:names:tc:SAML:2.0:assertion";
pub const PROTOCOL_NS: &str = "urn:oasis:names:tc:SAML:2.0:protocol";
pub const DSIG_NS: &str = "http://www.w3.org/2000/09/xmldsig#";

/// One element: its namespace, local name, unprefixed attributes (namespace
/// declarations and prefixed attributes left out), text and children.
#[derive(Debug, Clone, Default)]
pub struct Element {
    pub namespace: Option<String>,
    pub name: String,
    pub attributes: Vec<(String, String)>,
    pub text: String,
    pub children: Vec<Element>,
}

impl Element {
    /// Whether this is `name` in namespace `namespace`.
    pub fn is(&self, namespace: &str, name: &str) -> bool {
        self.name == name && self.namespace.as_deref() == Some(namespace)
    }

    /// An unprefixed attribute's value.
    pub fn attribute(&self, name: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    /// The direct children named `name` in `namespace`.
    pub fn children_named<'a>(&'a self, namespace: &'a str, name: &'a str) -> impl Iterator<Item = &'a Element> {
        self.children.iter().filter(move |c| c.is(namespace, name))
    }

    /// The first direct child named `name` in `namespace`.
    pub fn child(&self, namespace: &str, name: &str) -> Option<&Element> {
        self.children.iter().find(|c| c.is(namespace, name))
    }

    /// Every element at or below this one, depth first.
    pub fn descendants(&self) -> Vec<&Element> {
        let mut all = vec![self];
        let mut at = 0;
        while at < all.len() {
            let element = all[at];
            all.extend(element.children.iter());
            at += 1;
        }
        all
    }

    /// The element's own text, trimmed.
    pub fn trimmed_text(&self) -> &str {
        self.text.trim()
    }
}

/// Reads a document into its root element, or says why it cannot.
pub fn parse(xml: &str) -> Result<Element, String> {
    let mut reader = quick_xml::NsReader::from_str(xml);
    let mut open: Vec<Element> = Vec::new();
    let mut root: Option<Element> = None;
    loop {
        let (namespace, event) = reader
            .read_resolved_event()
            .map_err(|e| format!("is not well-formed XML ({e})"))?;
        let namespace = match namespace {
            ResolveResult::Bound(ns) => Some(String::from_utf8_lossy(ns.as_ref()).into_owned()),
            ResolveResult::Unbound => None,
            ResolveResult::Unknown(prefix) => {
                return Err(format!(
                    "uses the undeclared prefix {:?}",
                    String::from_utf8_lossy(&prefix)
                ));
            }
        };
        match event {
            Event::Start(_) | Event::Empty(_) if root.is_some() => {
                return Err("has more than one root element".into());
            }
            Event::Start(start) => open.push(element(namespace, &start)?),
            Event::Empty(start) => {
                let element = element(namespace, &start)?;
                close(&mut open, &mut root, element);
            }
            Event::End(_) => {
                let element = open.pop().ok_or("closes an element it never opened")?;
                close(&mut open, &mut root, element);
            }
            Event::Text(text) => {
                let text = text.xml10_content().map_err(|e| format!("has unreadable text ({e})"))?;
                append_text(&mut open, &text)?;
            }
            Event::CData(data) => {
                let text = data.xml10_content().map_err(|e| format!("has unreadable text ({e})"))?;
                append_text(&mut open, &text)?;
            }
            Event::GeneralRef(reference) => {
                let text = match reference.resolve_char_ref() {
                    Ok(Some(c)) => c.to_string(),
                    _ => match reference.as_ref() {
                        b"amp" => "&".into(),
                        b"lt" => "<".into(),
                        b"gt" => ">".into(),
                        b"quot" => "\"".into(),
                        b"apos" => "'".into(),
                        _ => return Err("refers to an entity XML does not predefine".into()),
                    },
                };
                append_text(&mut open, &text)?;
            }
            Event::DocType(_) => return Err("declares a document type".into()),
            Event::Decl(declaration) => {
                if let Some(encoding) = declaration.encoding() {
                    let encoding = encoding.map_err(|e| format!("has a malformed declaration ({e})"))?;
                    if !encoding.eq_ignore_ascii_case(b"utf-8") {
                        return Err("declares an encoding other than UTF-8".into());
                    }
                }
            }
            Event::Eof => break,
            Event::Comment(_) | Event::PI(_) => {}
        }
    }
    if !open.is_empty() {
        return Err("ends before its elements are closed".into());
    }
    root.ok_or_else(|| "holds no element".into())
}

fn element(namespace: Option<String>, start: &quick_xml::events::BytesStart<'_>) -> Result<Element, String> {
    let mut attributes = Vec::new();
    for attribute in start.attributes().with_checks(true) {
        let attribute = attribute.map_err(|e| format!("has a malformed attribute ({e})"))?;
        let key = attribute.key;
        if key.as_namespace_binding().is_some() || key.prefix().is_some() {
            continue;
        }
        let value = attribute
            .normalized_value(quick_xml::XmlVersion::Implicit1_0)
            .map_err(|e| format!("has an unreadable attribute value ({e})"))?;
        attributes.push((String::from_utf8_lossy(key.as_ref()).into_owned(), value.into_owned()));
    }
    Ok(Element {
        namespace,
        name: String::from_utf8_lossy(start.local_name().as_ref()).into_owned(),
        attributes,
        text: String::new(),
        children: Vec::new(),
    })
}

fn close(open: &mut [Element], root: &mut Option<Element>, element: Element) {
    match open.last_mut() {
        Some(parent) => parent.children.push(element),
        None => *root = Some(element),
    }
}

fn append_text(open: &mut [Element], text: &str) -> Result<(), String> {
    match open.last_mut() {
        Some(element) => {
            element.text.push_str(text);
            Ok(())
        }
        None if text.trim().is_empty() => Ok(()),
        None => Err("has text outside its root element".into()),
    }
}

/// The shape every response must have before its signature is even looked
/// at: a `samlp:Response` root holding exactly one `saml:Assertion`, as its
/// direct child, and no encrypted one. Signature wrapping needs a second
/// assertion (beside the signed one, or around it); such a document is
/// refused here, whatever its signatures say.
pub fn check_shape(root: &Element) -> Result<(), String> {
    if !root.is(PROTOCOL_NS, "Response") {
        return Err("is not a samlp:Response".into());
    }
    let mut assertions = 0usize;
    for element in root.descendants() {
        if element.namespace.as_deref() == Some(ASSERTION_NS)
            && (element.name == "Assertion" || element.name == "EncryptedAssertion")
        {
            assertions += 1;
            let direct = root.children.iter().any(|c| std::ptr::eq(c, element));
            if !direct || element.name == "EncryptedAssertion" {
                return Err("holds an assertion somewhere other than directly in the response".into());
            }
        }
    }
    match assertions {
        1 => Ok(()),
        0 => Err("holds no assertion".into()),
        n => Err(format!("holds {n} assertions; exactly one is taken")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn response(inner: &str) -> String {
        format!(
            "<samlp:Response xmlns:samlp=\"{PROTOCOL_NS}\" xmlns:saml=\"{ASSERTION_NS}\" ID=\"r\">{inner}</samlp:Response>"
        )
    }

    fn shape(xml: &str) -> Result<(), String> {
        check_shape(&parse(xml)?)
    }

    #[test]
    fn only_one_assertion_directly_in_a_response_is_taken() {
        let one = "<saml:Assertion ID=\"a\"><saml:Subject/></saml:Assertion>";
        assert!(shape(&response(one)).is_ok());
        assert!(shape(&response(&format!("{one}{one}"))).is_err(), "siblings");
        let nested = format!("<saml:Assertion ID=\"evil\"><saml:Advice>{one}</saml:Advice></saml:Assertion>");
        assert!(shape(&response(&nested)).is_err(), "nested");
        let hidden = format!("<samlp:Extensions>{one}</samlp:Extensions>");
        assert!(shape(&response(&hidden)).is_err(), "in extensions");
        assert!(shape(&response("")).is_err(), "none");
        assert!(
            shape(&format!("<x xmlns:saml=\"{ASSERTION_NS}\">{one}</x>")).is_err(),
            "a bare assertion"
        );
        assert!(shape(&format!("<!DOCTYPE x [<!ENTITY e \"e\">]>{}", response(one))).is_err());
    }

    #[test]
    fn text_skips_comments_and_reads_references() {
        let root = parse("<a>user@evil.com<!-- -->.example&amp;&#65;<![CDATA[<b>]]></a>").expect("parses");
        assert_eq!(root.text, "user@evil.com.example&A<b>");
        assert!(parse("<a>&custom;</a>").is_err());
        assert!(parse("<a/><b/>").is_err());
        assert!(parse("<a><b></a>").is_err());
        assert!(parse("<p:a/>").is_err(), "undeclared prefix");
        assert!(parse("<?xml version=\"1.0\" encoding=\"UTF-8\"?><a/>").is_ok());
        assert!(parse("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a/>").is_err());
    }

    #[test]
    fn attributes_are_unprefixed_and_normalized() {
        let root = parse("<a xmlns:x=\"urn:x\" ID=\"one\ntwo\" x:ID=\"other\"/>").expect("parses");
        assert_eq!(root.attribute("ID"), Some("one two"));
        assert_eq!(root.attributes.len(), 1);
    }
}
