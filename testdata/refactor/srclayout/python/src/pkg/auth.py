"""Authentication."""
import warnings
from base64 import b64encode

from ._internal_utils import to_native_string
from .compat import basestring


def _basic_auth_str(username, password):
    """Returns a Basic Auth string."""
    if not isinstance(username, basestring):
        warnings.warn("non-string username", category=DeprecationWarning)
        username = str(username)
    if isinstance(username, str):
        username = username.encode("latin1")
    if isinstance(password, str):
        password = password.encode("latin1")
    return "Basic " + to_native_string(b64encode(b":".join((username, password))).strip())


class HTTPBasicAuth:
    def __init__(self, username, password):
        self.username = username
        self.password = password

    def header(self):
        return _basic_auth_str(self.username, self.password)
