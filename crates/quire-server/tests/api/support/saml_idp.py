"""A SAML 2.0 identity provider for Quire's tests, built on pysaml2.

It makes two RSA keys with self-signed certificates (the IdP's, and another
one an attacker could have), listens on 127.0.0.1 at a free port and prints
one JSON line: its entity id, its single sign-on URL and the certificates
(also an expired one, for the provider API's checks).

GET /sso takes an AuthnRequest by the HTTP-Redirect binding (SAMLRequest,
RelayState), reads the service provider's metadata from the request's
issuer (Quire's metadata URL), and answers the auto-posting HTML form of the
HTTP-POST binding with a signed Response. Test-only query parameters choose
who signs in and how the response is made:

  email, name   the person (NameID in email format, and attributes)
  variant       good (response and assertion signed, RSA-SHA256),
                assertion-signed, unsigned, other-key, sha1 (RSA-SHA1),
                wrong-audience, expired (NotOnOrAfter ten minutes ago),
                xsw-sibling, xsw-nested
  unsolicited   1: no InResponseTo (IdP-initiated)

GET /unsolicited?acs=...&audience=...&email=... makes an IdP-initiated
response without any request.
"""

import base64
import datetime
import http.server
import json
import os
import re
import sys
import tempfile
import urllib.parse
import urllib.request
import zlib

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID
from saml2 import BINDING_HTTP_POST, BINDING_HTTP_REDIRECT
from saml2.config import IdPConfig
from saml2.saml import NAMEID_FORMAT_EMAILADDRESS, NameID
from saml2.server import Server
from saml2.xmldsig import DIGEST_SHA1, DIGEST_SHA256, SIG_RSA_SHA1, SIG_RSA_SHA256

WORK = tempfile.mkdtemp(prefix="quire-idp-")


def key_pair(name, days_from, days_to):
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now + datetime.timedelta(days=days_from))
        .not_valid_after(now + datetime.timedelta(days=days_to))
        .sign(key, hashes.SHA256())
    )
    key_path = os.path.join(WORK, name + ".key")
    cert_path = os.path.join(WORK, name + ".crt")
    with open(key_path, "wb") as f:
        f.write(
            key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.TraditionalOpenSSL,
                serialization.NoEncryption(),
            )
        )
    pem = cert.public_bytes(serialization.Encoding.PEM).decode()
    with open(cert_path, "w") as f:
        f.write(pem)
    return key_path, cert_path, pem


IDP = key_pair("idp", -1, 365)
OTHER = key_pair("other", -1, 365)
EXPIRED = key_pair("expired", -30, -1)


def inflate(encoded):
    return zlib.decompress(base64.b64decode(encoded), -15).decode()


ELSEWHERE = "https://elsewhere.example/sp"


def server_for(entity_id, sso_url, sp_metadata, keys, lifetime_minutes=5):
    # The same service provider under another entity id too, for responses
    # made out to the wrong audience.
    elsewhere = re.sub(r'entityID="[^"]+"', 'entityID="%s"' % ELSEWHERE, sp_metadata, count=1)
    config = IdPConfig()
    config.load(
        {
            "entityid": entity_id,
            "service": {
                "idp": {
                    "endpoints": {"single_sign_on_service": [(sso_url, BINDING_HTTP_REDIRECT)]},
                    "name_id_format": [NAMEID_FORMAT_EMAILADDRESS],
                    "policy": {"default": {"lifetime": {"minutes": lifetime_minutes}}},
                    "want_authn_requests_signed": False,
                }
            },
            "key_file": keys[0],
            "cert_file": keys[1],
            "metadata": {"inline": [sp_metadata, elsewhere]},
            "xmlsec_binary": "/usr/bin/xmlsec1",
        }
    )
    return Server(config=config)


def forged(xml, kind):
    """A signature-wrapping attack on a response whose assertion is signed:
    an unsigned assertion for mallory@evil.example placed where a careless
    reader takes it, and the signed original kept so the signature still
    verifies."""
    match = re.search(r"<(\w+:)?Assertion[ >].*?</(\w+:)?Assertion>", xml, re.S)
    original = match.group(0)
    evil = re.sub(r"<(\w+:)?Signature[ >].*?</(\w+:)?Signature>", "", original, flags=re.S)
    evil = re.sub(r'ID="[^"]+"', 'ID="id-evil-assertion"', evil, count=1)
    evil = re.sub(r">[^<]*@[^<]*</(\w+:)?NameID>", lambda m: ">mallory@evil.example</" + (m.group(1) or "") + "NameID>", evil)
    evil = re.sub(
        r"(<(\w+:)?AttributeValue[^>]*>)[^<]*@[^<]*(</)", r"\1mallory@evil.example\3", evil
    )
    if kind == "xsw-sibling":
        wrapped = evil + original
    else:
        # The signed assertion hidden inside the evil one.
        close = re.search(r"</(\w+:)?Assertion>$", evil)
        wrapped = evil[: close.start()] + original + evil[close.start():]
    return xml[: match.start()] + wrapped + xml[match.end():]


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, status, body, content_type="text/html; charset=utf-8"):
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        url = urllib.parse.urlparse(self.path)
        query = {k: v[0] for k, v in urllib.parse.parse_qs(url.query).items()}
        try:
            if url.path == "/sso":
                self.sso(query)
            elif url.path == "/unsolicited":
                self.unsolicited(query)
            else:
                self.answer(404, "no such page")
        except Exception as error:  # the test reads the message
            self.answer(500, "IdP error: %r" % (error,), "text/plain")

    def respond(self, query, acs, audience, in_response_to, sp_metadata, relay_state):
        variant = query.get("variant", "good")
        keys = OTHER if variant == "other-key" else IDP
        # "expired": valid until ten minutes ago.
        lifetime = -10 if variant == "expired" else 5
        server = server_for(ENTITY_ID, SSO_URL, sp_metadata, keys, lifetime)
        email = query.get("email", "ada@example.com")
        name = query.get("name", "Ada Lovelace")
        given, _, surname = name.partition(" ")
        identity = {"mail": [email], "displayName": [name], "givenName": [given], "sn": [surname]}
        signed_assertion = variant not in ("unsigned",)
        signed_response = variant in ("good", "other-key", "wrong-audience", "sha1")
        response = server.create_authn_response(
            identity,
            in_response_to,
            acs,
            ELSEWHERE if variant == "wrong-audience" else audience,
            name_id=NameID(format=NAMEID_FORMAT_EMAILADDRESS, text=email),
            sign_response=signed_response,
            sign_assertion=signed_assertion,
            sign_alg=SIG_RSA_SHA1 if variant == "sha1" else SIG_RSA_SHA256,
            digest_alg=DIGEST_SHA1 if variant == "sha1" else DIGEST_SHA256,
        )
        xml = str(response)
        if variant in ("xsw-sibling", "xsw-nested"):
            xml = forged(xml, variant)
        encoded = base64.b64encode(xml.encode()).decode()
        form = (
            '<html><body onload="document.forms[0].submit()">'
            '<form method="post" action="%s">'
            '<input type="hidden" name="SAMLResponse" value="%s"/>'
            '<input type="hidden" name="RelayState" value="%s"/>'
            "</form></body></html>"
        ) % (acs, encoded, relay_state or "")
        self.answer(200, form)

    def sso(self, query):
        request_xml = inflate(query["SAMLRequest"])
        issuer = re.search(r"<(\w+:)?Issuer[^>]*>([^<]+)<", request_xml).group(2)
        # `metadata`: where the SP's metadata is reached when its entity id
        # names a host this machine cannot reach (a server behind TLS).
        sp_metadata = urllib.request.urlopen(query.get("metadata", issuer)).read().decode()
        server = server_for(ENTITY_ID, SSO_URL, sp_metadata, IDP)
        request = server.parse_authn_request(query["SAMLRequest"], BINDING_HTTP_REDIRECT)
        message = request.message
        acs = message.assertion_consumer_service_url
        in_response_to = None if query.get("unsolicited") == "1" else message.id
        self.respond(query, acs, message.issuer.text, in_response_to, sp_metadata, query.get("RelayState"))

    def unsolicited(self, query):
        audience = query["audience"]
        sp_metadata = urllib.request.urlopen(audience).read().decode()
        self.respond(query, query["acs"], audience, None, sp_metadata, "")


httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
PORT = httpd.server_address[1]
ENTITY_ID = "http://127.0.0.1:%d/idp" % PORT
SSO_URL = "http://127.0.0.1:%d/sso" % PORT
print(
    json.dumps(
        {
            "entityID": ENTITY_ID,
            "ssoURL": SSO_URL,
            "certificate": IDP[2],
            "otherCertificate": OTHER[2],
            "expiredCertificate": EXPIRED[2],
        }
    ),
    flush=True,
)
sys.stdout.close()
httpd.serve_forever()
