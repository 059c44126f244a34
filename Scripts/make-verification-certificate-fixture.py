#!/usr/bin/env python3
"""Writes Tests/ENTestSupport/Fixtures/keyserver/verification-certificate.json: a verification certificate (an
ES256 JWT) as Google's verification server issues it, made independently of this package with the PyPI
`cryptography` package (ECDSA P-256, SHA-256; DER signature converted to the raw r||s form JWS requires) and
Python's own `hmac`, `hashlib`, `base64` and `json`.

The claims follow the verification server's defaults (iss "diagnosis-verification-example", aud
"exposure-notifications-server", kid "v1", iat = nbf = now - 5 s, exp = now + 15 min); `tekmac` is the
HMAC-SHA256, keyed with the request's hmacKey, of the keys sorted by their base64 text, each written
"key.rollingStartNumber.rollingPeriod.transmissionRisk" and joined with ",".

Usage: pip install cryptography && python3 Scripts/make-verification-certificate-fixture.py
"""
import base64
import hashlib
import hmac
import json
import os
import pathlib

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

NOW = 1778307200  # 2026-05-09 06:13:20 UTC, the key-server tests' reference moment
TODAY = NOW // 600 - (NOW // 600) % 144  # the reference day's first interval


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


key = ec.generate_private_key(ec.SECP256R1())
secret = os.urandom(32)
keys = [
    {"key": base64.b64encode(os.urandom(16)).decode(), "rollingStartNumber": TODAY - 144 * d,
     "rollingPeriod": 144, "transmissionRisk": tr}
    for d, tr in [(1, 0), (2, 2), (3, 5)]
]
text = ",".join(
    f"{k['key']}.{k['rollingStartNumber']}.{k['rollingPeriod']}.{k['transmissionRisk']}"
    for k in sorted(keys, key=lambda k: k["key"].encode())
)
tekmac = base64.b64encode(hmac.new(secret, text.encode(), hashlib.sha256).digest()).decode()
header = {"alg": "ES256", "kid": "v1", "typ": "JWT"}
claims = {
    "aud": "exposure-notifications-server", "exp": NOW + 900, "iat": NOW - 5,
    "iss": "diagnosis-verification-example", "nbf": NOW - 5, "reportType": "likely",
    "symptomOnsetInterval": TODAY - 2 * 144, "tekmac": tekmac,
}
signing_input = b64url(json.dumps(header).encode()) + "." + b64url(json.dumps(claims).encode())
der = key.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256()))
r, s = decode_dss_signature(der)
jwt = signing_input + "." + b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big"))
public_pem = key.public_key().public_bytes(
    serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()

fixture = {
    "made": "Scripts/make-verification-certificate-fixture.py (PyPI cryptography), not by this package",
    "now": NOW,
    "publicKeyPEM": public_pem,
    "request": {"temporaryExposureKeys": keys, "healthAuthorityID": "com.example.app",
                "verificationPayload": jwt, "hmacKey": base64.b64encode(secret).decode()},
}
out = pathlib.Path(__file__).resolve().parent.parent / "Tests/ENTestSupport/Fixtures/keyserver/verification-certificate.json"
out.write_text(json.dumps(fixture, indent=2) + "\n")
print(out)
