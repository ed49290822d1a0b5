# Outside pyright's include: the server never sees these uses.
from pkg.auth import _basic_auth_str
from pkg.utils import _strip, get_auth


def test_get_auth():
    assert get_auth("http://user:pass@host/") == ("user", "pass")


def test_basic_auth_str():
    assert _basic_auth_str("user", "pass") == "Basic dXNlcjpwYXNz"


def test_strip():
    assert _strip(" /a/ ") == "a"


def test_same_header():
    from pkg import same_header

    assert same_header("user", "pass")
