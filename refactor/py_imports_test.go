package refactor

// The Python import editing a move does, from texts alone: every form of
// from-import (one line, parenthesized over lines, backslashes, aliases)
// losing a name, a name joining the module's from-import or a new
// statement landing in its isort section, relative module names.

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nvbridge/nvbridge/preview"
)

func TestPyRemoveFromEntry(t *testing.T) {
	cases := []struct{ name, text, drop, want string }{
		{"one line, first", "from .utils import a, b, c\nx = 1\n", "a", "from .utils import b, c\nx = 1\n"},
		{"one line, last", "from .utils import a, b  # note\n", "b", "from .utils import a  # note\n"},
		{"only name", "import os\nfrom .utils import a\nx = 1\n", "a", "import os\nx = 1\n"},
		{"aliased", "from .utils import a as aa, b\n", "a", "from .utils import b\n"},
		{"parenthesized one per line", "from .utils import (\n    a,\n    b,\n    c,\n)\n", "b", "from .utils import (\n    a,\n    c,\n)\n"},
		{"parenthesized last without comma", "from .utils import (\n    a,\n    b\n)\n", "b", "from .utils import (\n    a,\n)\n"},
		{"parenthesized shared line", "from .utils import (a, b,\n    c)\n", "b", "from .utils import (a,\n    c)\n"},
		{"parenthesized one line", "from .utils import (a, b)\n", "a", "from .utils import (b)\n"},
		{"backslash", "from .utils import a, \\\n    b\n", "a", "from .utils import b\n"},
	}
	for _, c := range cases {
		st, ok := parsePyFrom(c.text, lineOf(c.text, "from"))
		if !ok {
			t.Errorf("%s: not parsed", c.name)
			continue
		}
		k := -1
		for i, e := range st.entries {
			if e.name == c.drop {
				k = i
			}
		}
		if k < 0 {
			t.Errorf("%s: %s not among %+v", c.name, c.drop, st.entries)
			continue
		}
		got, err := preview.ApplyByteEdits(c.text, []preview.ByteEdit{st.removeEntry(c.text, k)})
		if err != nil || got != c.want {
			t.Errorf("%s:\n%q\nwant\n%q (%v)", c.name, got, c.want, err)
		}
	}
}

func lineOf(text, prefix string) int {
	for i, l := range splitLines(text) {
		if len(l) >= len(prefix) && l[:len(prefix)] == prefix {
			return i
		}
	}
	return 0
}

func splitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

func TestPyAddImport(t *testing.T) {
	style := pyStyle{lineLength: 79, firstParty: map[string]bool{"requests": true}}
	head := "\"\"\"Doc.\"\"\"\nimport os\nimport re\nfrom base64 import b64encode\n\nimport urllib3\n\nfrom ._internal_utils import to_native_string\nfrom .compat import str\n\nX = 1\n"
	cases := []struct {
		name string
		text string
		add  pyAdd
		want string
	}{
		{"joins the module's from-import, sorted", head, pyAdd{module: ".compat", name: "basestring"},
			"\"\"\"Doc.\"\"\"\nimport os\nimport re\nfrom base64 import b64encode\n\nimport urllib3\n\nfrom ._internal_utils import to_native_string\nfrom .compat import basestring, str\n\nX = 1\n"},
		{"standard library, sorted in its group", head, pyAdd{module: "warnings"},
			"\"\"\"Doc.\"\"\"\nimport os\nimport re\nimport warnings\nfrom base64 import b64encode\n\nimport urllib3\n\nfrom ._internal_utils import to_native_string\nfrom .compat import str\n\nX = 1\n"},
		{"local group, sorted", head, pyAdd{module: ".auth", name: "_basic_auth_str"},
			"\"\"\"Doc.\"\"\"\nimport os\nimport re\nfrom base64 import b64encode\n\nimport urllib3\n\nfrom ._internal_utils import to_native_string\nfrom .auth import _basic_auth_str\nfrom .compat import str\n\nX = 1\n"},
		{"first party: a new group before the local one", head, pyAdd{module: "requests.auth", name: "HTTPBasicAuth"},
			"\"\"\"Doc.\"\"\"\nimport os\nimport re\nfrom base64 import b64encode\n\nimport urllib3\n\nrequests_placeholder"},
		{"already there", head, pyAdd{module: ".compat", name: "str"}, head},
		{"parenthesized list gets a line", "from .utils import (\n    a,\n    c,\n)\n\nX = 1\n", pyAdd{module: ".utils", name: "b"},
			"from .utils import (\n    a,\n    b,\n    c,\n)\n\nX = 1\n"},
		{"parenthesized list, last without comma", "from .utils import (\n    a,\n    b\n)\n", pyAdd{module: ".utils", name: "c"},
			"from .utils import (\n    a,\n    b,\n    c,\n)\n"},
		{"too long: wrapped as black does", "from .utils import aaaaaaaaaaaaaaaaaaaaa, bbbbbbbbbbbbbbbbbbbbbbbbb, ccccccccccccccccccc\n", pyAdd{module: ".utils", name: "ddd"},
			"from .utils import (\n    aaaaaaaaaaaaaaaaaaaaa,\n    bbbbbbbbbbbbbbbbbbbbbbbbb,\n    ccccccccccccccccccc,\n    ddd,\n)\n"},
	}
	cases[3].want = "\"\"\"Doc.\"\"\"\nimport os\nimport re\nfrom base64 import b64encode\n\nimport urllib3\n\nfrom requests.auth import HTTPBasicAuth\n\nfrom ._internal_utils import to_native_string\nfrom .compat import str\n\nX = 1\n"
	for _, c := range cases {
		if got := pyAddImport(c.text, c.add, style); got != c.want {
			t.Errorf("%s:\n%s\nwant\n%s", c.name, got, c.want)
		}
	}
}

func TestPyRelativeModules(t *testing.T) {
	for _, c := range [][3]string{
		{"requests", "requests._internal_utils", "._internal_utils"},
		{"requests.sub", "requests.auth", "..auth"},
		{"requests", "requests.sub.mod", ".sub.mod"},
		{"other", "requests.auth", ""},
	} {
		if got := pyRelative(c[0], c[1]); got != c[2] {
			t.Errorf("pyRelative(%s, %s) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
	for _, c := range [][3]string{
		{"requests", ".auth", "requests.auth"},
		{"requests.sub", "..auth", "requests.auth"},
		{"requests", ".", "requests"},
		{"requests", "os.path", "os.path"},
	} {
		if got := pyAbsolute(c[0], c[1]); got != c[2] {
			t.Errorf("pyAbsolute(%s, %s) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
}

// The project's line length, from the files ruff and black read.
func TestPyProjectStyleLineLength(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		want  int
	}{
		{"nothing: PEP 8", map[string]string{}, 79},
		{"pyproject without a tool", map[string]string{"pyproject.toml": "[project]\nname = \"x\"\n"}, 79},
		{"black's default", map[string]string{"pyproject.toml": "[tool.black]\ntarget-version = [\"py310\"]\n"}, 88},
		{"ruff's line-length", map[string]string{"pyproject.toml": "[tool.ruff]\nline-length = 100\n"}, 100},
		{"ruff.toml first", map[string]string{"ruff.toml": "line-length = 120\n", "pyproject.toml": "[tool.black]\nline-length = 90\n"}, 120},
		{"a .ruff.toml without one: ruff's default", map[string]string{".ruff.toml": "[lint]\nselect = [\"I\"]\n"}, 88},
		{"not pylint's max-line-length", map[string]string{"pyproject.toml": "[tool.pylint]\nmax-line-length = 60\n"}, 79},
	}
	for _, c := range cases {
		root := t.TempDir()
		for name, text := range c.files {
			if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if got := pyProjectStyle(root).lineLength; got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}
