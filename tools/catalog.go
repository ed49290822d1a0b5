package tools

import (
	"encoding/json"
	"io"
)

// WriteCatalog writes every tool's definition (name, description, input
// schema, annotations) as a JSON array. Definitions do not need a session.
func WriteCatalog(w io.Writer) error { return WriteCatalogFor(w, &Env{}) }

// WriteCatalogFor writes the tools env serves: the optional ones (web_search)
// only when configured.
func WriteCatalogFor(w io.Writer, env *Env) error {
	all := All(env)
	defs := make([]any, len(all))
	for i, t := range all {
		defs[i] = t.Tool
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(defs)
}
