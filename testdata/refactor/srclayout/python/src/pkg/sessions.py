"""Sessions: a parenthesized import of the moved function."""
from .auth import (
    HTTPBasicAuth,
    _basic_auth_str,
)
from .utils import get_auth


def proxy_header(url):
    username, password = get_auth(url)
    return _basic_auth_str(username, password)


def basic(url):
    return HTTPBasicAuth(*get_auth(url)).header()
