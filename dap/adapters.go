package dap

import (
	"os"
	"strings"

	"github.com/nvbridge/nvbridge/lang"
)

// The dap package knows no language: each language's debug adapter and
// launch configuration live in its file of the registry (lang.Language's
// Debug, lang/go.go and lang/python.go). This file looks them up.

// Adapter is a language's debug adapter, as the registry declares it.
type Adapter struct {
	Language string
	*lang.DebugAdapter
}

// LaunchSpec is what a launch configuration is built from (lang.LaunchSpec).
type LaunchSpec = lang.LaunchSpec

// The transports (lang.DebugTransport).
const (
	Stdio = lang.DebugStdio
	TCP   = lang.DebugTCP
)

// adapterFor returns the adapter of a language ("go", "python"), nil when
// the registry has none.
func adapterFor(language string) *Adapter {
	l := lang.ByName(language)
	if l == nil || l.Debug == nil {
		return nil
	}
	return &Adapter{Language: l.Name, DebugAdapter: l.Debug}
}

// Languages lists the languages with an adapter, by name.
func Languages() []string {
	var out []string
	for _, l := range lang.Debuggable() {
		out = append(out, l.Name)
	}
	return out
}

// languagesText lists them for messages ("go and python").
func languagesText(last string) string {
	names := Languages()
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + last + names[len(names)-1]
}

// languageOf guesses the language with an adapter of a file (by extension)
// or a folder (by the source files in it).
func languageOf(path string, isDir bool) string {
	if !isDir {
		if l := lang.ForFile(path); l != nil && l.Debug != nil {
			return l.Name
		}
		return ""
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return ""
	}
	for _, l := range lang.Debuggable() {
		for _, e := range entries {
			if !e.IsDir() && lang.ForFile(e.Name()) == l {
				return l.Name
			}
		}
	}
	return ""
}
