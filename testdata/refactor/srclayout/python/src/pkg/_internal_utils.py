"""Helpers with few dependencies."""
import re

from .compat import builtin_str

_WORD = re.compile(r"\w+")


def to_native_string(string, encoding="ascii"):
    if isinstance(string, builtin_str):
        return string
    return string.decode(encoding)
