"""Aliased imports of the moved function and of its module."""
from . import auth as a
from .auth import HTTPBasicAuth, \
    _basic_auth_str as basic


def same_header(user, password):
    header = HTTPBasicAuth(user, password).header()
    return a._basic_auth_str(user, password) == header == basic(user, password)
