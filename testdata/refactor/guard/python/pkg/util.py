"""Utilities."""


def to_bytes(text: str) -> bytes:
    return text.encode()
