"""Utilities."""
from urllib.parse import unquote, urlparse


def get_auth(url):
    """The user and password of a URL."""
    parsed = urlparse(url)
    try:
        return (unquote(parsed.username), unquote(parsed.password))
    except (AttributeError, TypeError):
        return ("", "")


def _strip(value):
    return value.strip(" /")


def clean(value):
    return _strip(value)
