"""A software passkey authenticator for the API tests: it makes a P-256 key, answers a
registration with the "none" attestation and signs sign-in assertions, as a browser's
authenticator would. Every part of an answer can be spoilt on purpose (the origin, the
signature, the sign count), so each check of the server is driven by a test."""

from __future__ import annotations

import hashlib
import json
import secrets
import struct
from base64 import urlsafe_b64encode
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

UP, UV, AT = 0x01, 0x04, 0x40  # authenticator data flags: user present, verified, attested data


def b64url(data: bytes) -> str:
    return urlsafe_b64encode(data).rstrip(b"=").decode()


@dataclass
class Authenticator:
    origin: str = "http://testserver"
    key: ec.EllipticCurvePrivateKey = field(default_factory=lambda: ec.generate_private_key(ec.SECP256R1()))
    credential_id: bytes = field(default_factory=lambda: secrets.token_bytes(32))
    sign_count: int = 0
    user_handle: bytes = b""

    @property
    def rp_id_hash(self) -> bytes:
        return hashlib.sha256((urlsplit(self.origin).hostname or "").encode()).digest()

    def _client_data(self, kind: str, challenge: str, origin: str | None) -> bytes:
        return json.dumps({"type": kind, "challenge": challenge, "origin": origin or self.origin, "crossOrigin": False}).encode()

    def _cose_key(self) -> bytes:
        numbers = self.key.public_key().public_numbers()
        return bytes(cbor2.dumps({1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"), -3: numbers.y.to_bytes(32, "big")}))

    def register(self, options: dict[str, Any], origin: str | None = None) -> dict[str, Any]:
        """The credential for navigator.credentials.create()'s `options` (as the server sent them)."""
        self.user_handle = _unb64(options["user"]["id"])
        self.sign_count += 1
        attested = bytes(16) + struct.pack(">H", len(self.credential_id)) + self.credential_id + self._cose_key()
        auth_data = self.rp_id_hash + bytes([UP | UV | AT]) + struct.pack(">I", self.sign_count) + attested
        attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": auth_data})
        client_data = self._client_data("webauthn.create", options["challenge"], origin)
        return {"id": b64url(self.credential_id), "rawId": b64url(self.credential_id), "type": "public-key",
                "response": {"clientDataJSON": b64url(client_data), "attestationObject": b64url(attestation)}}

    def sign_in(self, options: dict[str, Any], origin: str | None = None, count: int | None = None,
                forge: bool = False) -> dict[str, Any]:
        """The assertion for navigator.credentials.get()'s `options`: from `origin` if given, with
        sign count `count` if given (else the next), its signature spoilt with `forge`."""
        self.sign_count = self.sign_count + 1 if count is None else count
        auth_data = self.rp_id_hash + bytes([UP | UV]) + struct.pack(">I", self.sign_count)
        client_data = self._client_data("webauthn.get", options["challenge"], origin)
        signature = self.key.sign(auth_data + hashlib.sha256(client_data).digest(), ec.ECDSA(hashes.SHA256()))
        if forge:
            signature = ec.generate_private_key(ec.SECP256R1()).sign(auth_data + hashlib.sha256(client_data).digest(), ec.ECDSA(hashes.SHA256()))
        return {"id": b64url(self.credential_id), "rawId": b64url(self.credential_id), "type": "public-key",
                "response": {"clientDataJSON": b64url(client_data), "authenticatorData": b64url(auth_data),
                             "signature": b64url(signature), "userHandle": b64url(self.user_handle)}}


def _unb64(text: str) -> bytes:
    from base64 import urlsafe_b64decode

    return urlsafe_b64decode(text + "=" * (-len(text) % 4))
