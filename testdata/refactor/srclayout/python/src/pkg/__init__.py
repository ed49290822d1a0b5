"""A package in a src layout (requests' shape)."""
from .auth import HTTPBasicAuth
from .utils import get_auth
