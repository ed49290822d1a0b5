package tools

import (
	"encoding/json"
	"io"
)

// WriteCatalog writes every tool's definition (name, description, input
// schema, annotations) as a JSON array. Definitions do not need a session.
func WriteCatalog(w io.Writer) error {
	all := All(&Env{})
	defs := make([]any, len(all))
	for i, t := range all {
		defs[i] = t.Tool
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(defs)
}
