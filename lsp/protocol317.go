package lsp

// LSP 3.17 type hierarchy, which go.lsp.dev/protocol v0.12.0 (3.16) lacks.
// Items are also kept as the raw JSON the server sent, so the follow-up
// requests (supertypes, subtypes) send each item back exactly, data and
// unknown fields included.

import (
	"encoding/json"

	"go.lsp.dev/protocol"
)

// Type hierarchy methods (LSP 3.17).
const (
	MethodTextDocumentPrepareTypeHierarchy = "textDocument/prepareTypeHierarchy"
	MethodTypeHierarchySupertypes          = "typeHierarchy/supertypes"
	MethodTypeHierarchySubtypes            = "typeHierarchy/subtypes"
)

// TypeHierarchyItem is one type of a type hierarchy (LSP 3.17).
type TypeHierarchyItem struct {
	Name           string               `json:"name"`
	Kind           protocol.SymbolKind  `json:"kind"`
	Tags           []protocol.SymbolTag `json:"tags,omitempty"`
	Detail         string               `json:"detail,omitempty"`
	URI            protocol.DocumentURI `json:"uri"`
	Range          protocol.Range       `json:"range"`
	SelectionRange protocol.Range       `json:"selectionRange"`
	// Data is preserved between the prepare request and the supertypes and
	// subtypes requests.
	Data json.RawMessage `json:"data,omitempty"`
}

// TypeHierarchyPrepareParams are the parameters of
// textDocument/prepareTypeHierarchy.
type TypeHierarchyPrepareParams struct {
	protocol.TextDocumentPositionParams
	protocol.WorkDoneProgressParams
}

// TypeHierarchySupertypesParams are the parameters of
// typeHierarchy/supertypes.
type TypeHierarchySupertypesParams struct {
	protocol.WorkDoneProgressParams
	protocol.PartialResultParams
	Item json.RawMessage `json:"item"` // a TypeHierarchyItem exactly as the server sent it
}

// TypeHierarchySubtypesParams are the parameters of typeHierarchy/subtypes.
type TypeHierarchySubtypesParams struct {
	protocol.WorkDoneProgressParams
	protocol.PartialResultParams
	Item json.RawMessage `json:"item"` // a TypeHierarchyItem exactly as the server sent it
}
