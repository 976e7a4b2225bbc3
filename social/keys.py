"""VAPID keys for Web Push: a new pair as the settings want them (base64url, no padding)."""

from __future__ import annotations

import base64

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def new_pair() -> tuple[str, str]:
    """Return (public, private): the public key as the browser's `applicationServerKey` takes
    it (the uncompressed P-256 point), the private one as its 32 raw bytes."""
    key = ec.generate_private_key(ec.SECP256R1())
    public = key.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return b64url(public), b64url(key.private_numbers().private_value.to_bytes(32, "big"))
