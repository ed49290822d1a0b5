"""A package in a src layout (requests' shape)."""
from .api import same_header
from .auth import HTTPBasicAuth
from .utils import get_auth
