"""Runs the tests without pytest (PyPI is not reachable here)."""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(here, "..", "src"), here]
import test_utils  # noqa: E402

for name in sorted(dir(test_utils)):
    if name.startswith("test_"):
        getattr(test_utils, name)()
print("ok")
