# Outside pyright's include, through the module: a use a rename lists in
# left_behind (only names imported by name are followed).
import pkg.utils


def test_qualified():
    assert pkg.utils.get_auth("http://a:b@host/") == ("a", "b")
