package lang

// Python's module names as Python resolves them: a file's dotted name is
// its path from the folder on sys.path that holds its top-level package,
// never the workspace-relative path (a src layout's src/pkg/mod.py is
// pkg.mod, not src.pkg.mod); the standard library's top-level modules
// (isort's stdlib section); the project's minimum Python version
// (requires-python) that new code must stay valid for.

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// PythonModule is the dotted module name importers of abs write: the path
// from the import root holding it (root/src for a src layout, else the
// folder above its outermost regular package, else the root), a package's
// __init__.py being the package.
func PythonModule(s *Scope, abs string) string {
	base := PythonImportRoot(s, abs)
	rel, err := filepath.Rel(base, abs)
	if err != nil {
		return PackageOf(s.Rel(abs))
	}
	rel = filepath.ToSlash(rel)
	mod := strings.TrimSuffix(strings.TrimSuffix(rel, filepath.Ext(rel)), "/__init__")
	if mod == "__init__" {
		mod = ""
	}
	return strings.ReplaceAll(mod, "/", ".")
}

// PythonImportRoot is the folder on sys.path from which abs is imported:
// root/src when abs lies under it (a src layout, namespace packages
// included); else the parent of the outermost folder with an __init__.py
// above abs; else the root.
func PythonImportRoot(s *Scope, abs string) string {
	root := filepath.Clean(s.Root)
	src := filepath.Join(root, "src")
	if strings.HasPrefix(abs, src+string(filepath.Separator)) {
		if st, err := os.Stat(src); err == nil && st.IsDir() {
			return src
		}
	}
	dir := filepath.Dir(abs)
	base := ""
	for strings.HasPrefix(dir, root+string(filepath.Separator)) {
		if _, err := os.Stat(filepath.Join(dir, "__init__.py")); err != nil {
			break
		}
		base = filepath.Dir(dir)
		dir = base
	}
	if base == "" {
		return root
	}
	return base
}

// PythonStdlib reports whether a top-level module name is the standard
// library's (Python 3.11's sys.stdlib_module_names, private ones left
// out): isort's STDLIB section.
func PythonStdlib(top string) bool { return pyStdlib[top] }

var pyStdlib = WordSet(`abc aifc argparse array ast asynchat asyncio asyncore atexit audioop base64 bdb binascii bisect
	builtins bz2 cProfile calendar cgi cgitb chunk cmath cmd code codecs codeop collections colorsys compileall
	concurrent configparser contextlib contextvars copy copyreg crypt csv ctypes curses dataclasses datetime dbm
	decimal difflib dis distutils doctest email encodings ensurepip enum errno faulthandler fcntl filecmp
	fileinput fnmatch fractions ftplib functools gc genericpath getopt getpass gettext glob graphlib grp gzip
	hashlib heapq hmac html http idlelib imaplib imghdr imp importlib inspect io ipaddress itertools json keyword
	lib2to3 linecache locale logging lzma mailbox mailcap marshal math mimetypes mmap modulefinder msilib msvcrt
	multiprocessing netrc nis nntplib nt ntpath nturl2path numbers opcode operator optparse os ossaudiodev
	pathlib pdb pickle pickletools pipes pkgutil platform plistlib poplib posix posixpath pprint profile pstats
	pty pwd py_compile pyclbr pydoc pydoc_data pyexpat queue quopri random re readline reprlib resource
	rlcompleter runpy sched secrets select selectors shelve shlex shutil signal site smtpd smtplib sndhdr socket
	socketserver spwd sqlite3 sre_compile sre_constants sre_parse ssl stat statistics string stringprep struct
	subprocess sunau symtable sys sysconfig syslog tabnanny tarfile telnetlib tempfile termios textwrap this
	threading time timeit tkinter token tokenize tomllib trace traceback tracemalloc tty turtle turtledemo types
	typing unicodedata unittest urllib uu uuid venv warnings wave weakref webbrowser winreg winsound wsgiref
	xdrlib xml xmlrpc zipapp zipfile zipimport zlib zoneinfo __future__`)

var (
	pyRequires   = regexp.MustCompile(`(?m)^\s*requires-python\s*=\s*["']([^"']*)["']`)
	pyRequiresSC = regexp.MustCompile(`(?m)^\s*python_requires\s*=\s*["']?([^"'\n]*)`)
	pyMinVersion = regexp.MustCompile(`>=?\s*(\d+)\.(\d+)|~=\s*(\d+)\.(\d+)|==\s*(\d+)\.(\d+)`)
)

// PythonMinVersion is the oldest Python 3 minor version the project at
// root declares it supports (pyproject.toml's requires-python, else
// setup.cfg's or setup.py's python_requires): 10 for ">=3.10". ok is false
// when none is declared.
func PythonMinVersion(root string) (minor int, ok bool) {
	for _, f := range []struct {
		name string
		re   *regexp.Regexp
	}{{"pyproject.toml", pyRequires}, {"setup.cfg", pyRequiresSC}, {"setup.py", pyRequiresSC}} {
		data, err := os.ReadFile(filepath.Join(root, f.name))
		if err != nil {
			continue
		}
		m := f.re.FindSubmatch(data)
		if m == nil {
			continue
		}
		if minor, ok := ParsePythonMin(string(m[1])); ok {
			return minor, true
		}
	}
	return 0, false
}

// ParsePythonMin reads the lowest Python 3 minor version of a version
// specifier (">=3.7, <4", "~=3.10", ">3.8").
func ParsePythonMin(spec string) (int, bool) {
	best, ok := 0, false
	for _, m := range pyMinVersion.FindAllStringSubmatch(spec, -1) {
		for i := 1; i+1 < len(m); i += 2 {
			if m[i] == "" {
				continue
			}
			major, _ := strconv.Atoi(m[i])
			minor, _ := strconv.Atoi(m[i+1])
			if major != 3 {
				continue
			}
			if !ok || minor < best {
				best, ok = minor, true
			}
		}
	}
	return best, ok
}
