#!/usr/bin/env python3
"""Writes the seed corpora of the key server's fuzz targets under Fuzz/Corpus/, made independently of this package
(Python's json and base64, the PyPI `cryptography` package's AES-GCM, protobuf written by hand):

- publish-request/: publish bodies as apps send them (the verification-certificate fixture's request, a minimal one,
  one with every field and a revision token, one with Go's case-insensitive names, escapes and nulls).
- verification-certificate/: the fixture's real certificate (Scripts/make-verification-certificate-fixture.py, signed
  by key `v1` of the fuzz target's key set) and unsigned variants that reach the other claims' checks.
- revision-token/: tokens as Google's server seals them (`internal/revision`), with the fuzz target's fixed key 1
  (the bytes 0..31) and key 2 (the bytes 32..63), as base64 text and as the envelope's bytes, and a key list.

Deterministic (fixed nonces). Usage: python3 Scripts/make-fuzz-seeds.py
"""
import base64
import json
import pathlib

from cryptography.hazmat.primitives.ciphers.aead import AESGCM

root = pathlib.Path(__file__).resolve().parent.parent
corpus = root / "Fuzz" / "Corpus"
fixture = json.loads((root / "Tests/ENTestSupport/Fixtures/keyserver/verification-certificate.json").read_text())
request = fixture["request"]


def write(target, name, data):
    directory = corpus / target
    directory.mkdir(parents=True, exist_ok=True)
    (directory / name).write_bytes(data if isinstance(data, bytes) else data.encode())


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


# Protobuf, hand-written: varints and length-delimited fields of revision.proto.
def varint(value):
    value &= (1 << 64) - 1
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def field(number, payload):
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def revisable_key(key, interval_number, interval_count):
    out = field(1, key) if key else b""
    if interval_number:
        out += varint(2 << 3) + varint(interval_number)
    if interval_count:
        out += varint(3 << 3) + varint(interval_count)
    return out


def token_data(keys, minimum=28):
    keys = keys + [(bytes(16), 0, 0)] * max(0, minimum - len(keys))
    return b"".join(field(1, revisable_key(*k)) for k in keys)


def seal(kid, key, nonce, plaintext):
    return field(1, str(kid).encode()) + field(2, nonce + AESGCM(key).encrypt(nonce, plaintext, b""))


# publish-request
write("publish-request", "fixture-request.json", json.dumps(request, indent=2))
write("publish-request", "minimal.json", json.dumps({
    "temporaryExposureKeys": [{"key": "z2Cx9hdz2SlxZ8GEgqTYpA==", "rollingStartNumber": 2963664,
                               "rollingPeriod": 144}],
    "healthAuthorityID": "com.example.app"}))
write("publish-request", "every-field.json", json.dumps({
    "temporaryExposureKeys": [
        {"key": "z2Cx9hdz2SlxZ8GEgqTYpA", "rollingStartNumber": 2963664, "rollingPeriod": 144, "transmissionRisk": 8},
        {"key": "-_-_-_-_-_-_-_-_-_-_-A==", "rollingStartNumber": -1, "rollingPeriod": 1, "transmissionRisk": -9}],
    "healthAuthorityID": "com.example.app", "verificationPayload": request["verificationPayload"],
    "hmacKey": request["hmacKey"], "symptomOnsetInterval": 2963520, "traveler": True,
    "revisionToken": "CgExEgA=", "padding": "AAAA"}))
write("publish-request", "go-names-escapes-nulls.json",
      '{"TEMPORARYEXPOSUREKEYS":[{"KEY":"\\u007a2Cx9hdz2SlxZ8GEgqTYpA==","rollingstartnumber":2963664,'
      '"RollingPeriod":144,"transmissionRisk":null},null],"healthAuthorityId":"com.example.\\ud83d\\ude00",'
      '"hmac\u212aey":null,"traveler":false,"padding":"\\"\\\\\\/\\b\\f\\n\\r\\t","symptomOnsetInterval":0}\n')

# verification-certificate
jwt = request["verificationPayload"]
write("verification-certificate", "fixture.jwt", jwt)
header, claims, signature = jwt.split(".")
claims_json = json.loads(base64.urlsafe_b64decode(claims + "=" * (-len(claims) % 4)))
for name, header_json, changes in [
    ("user-report-no-exp", {"alg": "ES256", "kid": "v1"}, {"reportType": "user-report", "exp": None}),
    ("kid-fuzz", {"alg": "ES256", "kid": "fuzz", "typ": "JWT"}, {"symptomOnsetInterval": 0}),
    ("kid-number-alg-none", {"alg": "none", "kid": 1}, {"iss": 7}),
]:
    body = dict(claims_json, **changes)
    body = {k: v for k, v in body.items() if v is not None}
    text = b64url(json.dumps(header_json).encode()) + "." + b64url(json.dumps(body).encode()) + "." + signature
    write("verification-certificate", name + ".jwt", text)

# revision-token
key1, key2 = bytes(range(32)), bytes(range(32, 64))
keys = [(base64.b64decode(k["key"]), k["rollingStartNumber"], k["rollingPeriod"]) for k in request["temporaryExposureKeys"]]
one = seal(1, key1, bytes(range(12)), token_data(keys))
two = seal(2, key2, bytes(range(12, 24)), token_data(keys[:1], minimum=0))
write("revision-token", "three-keys-kid1.txt", base64.b64encode(one).decode())
write("revision-token", "one-key-kid2-unpadded.txt", base64.b64encode(two).decode())
write("revision-token", "three-keys-kid1.bin", one)
write("revision-token", "key-list.bin", token_data(keys, minimum=0))
