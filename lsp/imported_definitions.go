package lsp

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/lang"
)

// Bounds on read_file's include_imports.
const (
	DefaultImportedSymbols = 20
	MaxImportedSymbols     = 100
)

// ImportedSymbol is one symbol a file takes from an import, with where the
// server says it is defined.
type ImportedSymbol struct {
	// Import is the import as written ("fmt", "./orders", "shop.orders").
	Import string `json:"import"`
	// Symbol is the name used: Go's "orders.Process", Python's and
	// TypeScript's imported name, or the module itself.
	Symbol string `json:"symbol"`
	// Line and Column (1-based line, 0-based character) are where the file
	// names it first: the use for Go, the import statement otherwise.
	Line   int `json:"line"`
	Column int `json:"column"`
	// Definitions are the server's answer, with each declaration's source.
	Definitions []SourceLocation `json:"definitions,omitempty"`
	// Error says why this symbol's definition is missing (the server
	// failed or found none); the other symbols are still answered.
	Error string `json:"error,omitempty"`
}

// ImportedDefinitions is what a file imports, resolved.
type ImportedDefinitions struct {
	Symbols []ImportedSymbol `json:"symbols"`
	// Total is how many distinct imported symbols the file uses;
	// Truncated says only the first max were resolved.
	Total     int  `json:"total"`
	Truncated bool `json:"truncated,omitempty"`
}

// importedUse is a symbol to resolve: its name and the 0-based line and
// byte column of an occurrence the server can resolve.
type importedUse struct {
	imp, symbol string
	line, byte  int
}

// ImportedDefinitions returns the definitions of the symbols file imports,
// in the order the file first names them, at most max (0: the default):
// for Go every package member the file uses (pkg.Name), for languages
// whose imports name what they take (Python's from-imports, TypeScript's
// named imports) each name, else the module. Definitions come from the
// server (textDocument/definition), one request per symbol.
func (c *Client) ImportedDefinitions(ctx context.Context, file string, max int) (ImportedDefinitions, error) {
	switch {
	case max == 0:
		max = DefaultImportedSymbols
	case max < 0 || max > MaxImportedSymbols:
		return ImportedDefinitions{}, apierr.Errorf(apierr.InvalidParameter, fmt.Sprintf("pass max_imports between 1 and %d", MaxImportedSymbols), "max_imports %d is out of range", max)
	}
	doc, err := c.Open(ctx, file)
	if err != nil {
		return ImportedDefinitions{}, err
	}
	l := doc.Language()
	if l == nil || (l.Imports.Members == nil && l.Imports.Parse == nil) {
		return ImportedDefinitions{}, apierr.Errorf(apierr.Unsupported, "read the file without include_imports; find_definition resolves one name",
			"nvbridge cannot read the imports of %s files", doc.Buffer.Filetype)
	}
	lines, err := c.Session.Lines(ctx, doc.Buffer.Bufnr, 0, -1)
	if err != nil {
		return ImportedDefinitions{}, err
	}
	var uses []importedUse
	if l.Imports.Members != nil {
		for _, m := range l.Imports.Members(strings.Join(lines, "\n")) {
			uses = append(uses, importedUse{imp: m.Import, symbol: m.Symbol, line: m.Line, byte: m.Byte})
		}
	} else {
		uses = namedImportUses(l.Imports.Parse(strings.Join(lines, "\n")), lines, l)
	}
	out := ImportedDefinitions{Total: len(uses), Symbols: []ImportedSymbol{}}
	if len(uses) > max {
		uses, out.Truncated = uses[:max], true
	}
	for _, u := range uses {
		col := utf8.RuneCountInString(lines[u.line][:u.byte])
		sym := ImportedSymbol{Import: u.imp, Symbol: u.symbol, Line: u.line + 1, Column: col}
		res, err := c.Definition(ctx, file, Target{Line: u.line + 1, Column: &col})
		switch {
		case err != nil && ctx.Err() != nil:
			return ImportedDefinitions{}, err
		case err != nil:
			sym.Error = apierr.As(err).Message
		case len(res.Locations) == 0:
			sym.Error = "the server found no definition"
		default:
			sym.Definitions = res.Locations
		}
		out.Symbols = append(out.Symbols, sym)
	}
	return out, nil
}

// namedImportUses lists what imports take by name (each name, found in the
// import statement's text), or the module itself for imports without
// names.
func namedImportUses(imports []lang.Import, lines []string, l *lang.Language) []importedUse {
	var uses []importedUse
	seen := map[string]bool{}
	for _, imp := range imports {
		if imp.System {
			continue
		}
		if len(imp.Names) == 0 {
			if !seen[imp.Path] && imp.Line < len(lines) {
				seen[imp.Path] = true
				uses = append(uses, importedUse{imp: imp.Path, symbol: imp.Path, line: imp.Line, byte: imp.Col})
			}
			continue
		}
		for _, name := range imp.Names {
			if name == "*" || seen[imp.Path+"\x00"+name] {
				continue
			}
			if line, b, ok := findIdentifier(lines, imp.Line, name, l); ok {
				seen[imp.Path+"\x00"+name] = true
				uses = append(uses, importedUse{imp: imp.Path, symbol: name, line: line, byte: b})
			}
		}
	}
	return uses
}

// importStatementLines bounds how far below an import's path a multi-line
// import statement's names are looked for (TypeScript's names precede the
// path; Python's follow it).
const importStatementLines = 30

// findIdentifier finds name as a whole identifier near line (the import
// statement), searching the lines before it first for TypeScript's
// "import {\n a,\n} from" and then from it downwards.
func findIdentifier(lines []string, line int, name string, l *lang.Language) (int, int, bool) {
	lo, hi := line-importStatementLines, line+importStatementLines
	if lo < 0 {
		lo = 0
	}
	if hi >= len(lines) {
		hi = len(lines) - 1
	}
	try := func(i int) (int, bool) {
		text := lines[i]
		for from := 0; ; {
			j := strings.Index(text[from:], name)
			if j < 0 {
				return 0, false
			}
			j += from
			before, _ := utf8.DecodeLastRuneInString(text[:j])
			after, _ := utf8.DecodeRuneInString(text[j+len(name):])
			if (j == 0 || !l.Ident.Rune(before, false)) && (j+len(name) == len(text) || !l.Ident.Rune(after, false)) {
				return j, true
			}
			from = j + len(name)
		}
	}
	for i := line; i >= lo; i-- {
		if b, ok := try(i); ok {
			return i, b, true
		}
	}
	for i := line + 1; i <= hi; i++ {
		if b, ok := try(i); ok {
			return i, b, true
		}
	}
	return 0, 0, false
}
