package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/nvbridge/nvbridge/preview"
)

// completionKinds names LSP CompletionItemKind values (1-based) as words.
var completionKinds = []string{"", "text", "method", "function", "constructor", "field", "variable", "class",
	"interface", "module", "property", "unit", "value", "enum", "keyword", "snippet", "color", "file",
	"reference", "folder", "enum_member", "constant", "struct", "event", "operator", "type_parameter"}

// CompletionKindName returns the word for an LSP CompletionItemKind, or ""
// when the server gave none.
func CompletionKindName(k int) string {
	if k > 0 && k < len(completionKinds) {
		return completionKinds[k]
	}
	return ""
}

// DefaultMaxCompletions bounds a completion answer by default.
const DefaultMaxCompletions = 50

// completionDocChars bounds an item's documentation (first paragraph).
const completionDocChars = 200

// CompletionOptions tune Completions.
type CompletionOptions struct {
	// MaxResults bounds the items returned (0 = DefaultMaxCompletions).
	MaxResults int
	// Prefix keeps items whose filter text or label starts with it
	// (case-insensitively).
	Prefix string
}

// CompletionItem is one candidate.
type CompletionItem struct {
	Label         string `json:"label"`
	Kind          string `json:"kind,omitempty"`
	Detail        string `json:"detail,omitempty" brief:"omit"`
	Documentation string `json:"documentation,omitempty" brief:"omit"`
	// InsertText is what accepting the item inserts (the text edit's new
	// text, else insertText, else the label).
	InsertText string `json:"insert_text"`
	Deprecated bool   `json:"deprecated,omitempty"`
	// Withholding: Detail and Documentation are left out when a symbol
	// of this name is declared in a sensitive file.
	Withholding
}

// CompletionResult answers get_completions.
type CompletionResult struct {
	From   string `json:"from"`
	Server string `json:"server"`
	// IsIncomplete is the server's flag: typing more may bring other items.
	IsIncomplete bool `json:"is_incomplete"`
	// Total is how many items matched (after the prefix filter).
	Total     int              `json:"total"`
	Truncated bool             `json:"truncated"`
	Items     []CompletionItem `json:"items"`
	// Withholding sums up the items' (how many have their text left out,
	// and why).
	Withholding
}

// Completions returns the completion candidates at t in file, in the
// server's order (sortText, then label). With t.Symbol the cursor is put at
// the symbol's end (completing that word); with t.Column, at that column.
func (c *Client) Completions(ctx context.Context, file string, t Target, opts CompletionOptions) (CompletionResult, error) {
	if err := checkLimit(&opts.MaxResults, "max_results", DefaultMaxCompletions); err != nil {
		return CompletionResult{}, err
	}
	pos, err := c.resolve(ctx, file, t, protocol.MethodTextDocumentCompletion, "")
	if err != nil {
		return CompletionResult{}, err
	}
	if t.Symbol != "" {
		pos.point.Byte += len(t.Symbol)
		pos.point.Char = preview.ByteToChar(pos.point.Text, pos.point.Byte)
	}
	params := protocol.CompletionParams{
		TextDocumentPositionParams: pos.params(),
		Context:                    &protocol.CompletionContext{TriggerKind: protocol.CompletionTriggerKindInvoked},
	}
	// What the qualifier before the cursor says about where the items are
	// declared is asked together with the items (withholdCompletions).
	list, scope, err := together(ctx, func(ctx context.Context) (completion, error) {
		return requestAs(ctx, c, pos.doc, pos.server, protocol.MethodTextDocumentCompletion, params, decodeCompletion)
	}, func(l completion) bool {
		return slices.ContainsFunc(l.Items, func(it decodedItem) bool { return hasText(it.CompletionItem) })
	}, func(ctx context.Context) completionScope { return c.qualifierScope(ctx, pos) },
		func(error) completionScope { return completionScope{} })
	if err != nil {
		return CompletionResult{}, err
	}
	out := CompletionResult{From: pos.where(), Server: pos.server.Name, IsIncomplete: list.IsIncomplete, Items: []CompletionItem{}}
	prefix := strings.ToLower(opts.Prefix)
	for _, it := range list.Items {
		if prefix != "" && !strings.HasPrefix(strings.ToLower(it.filter), prefix) &&
			!strings.HasPrefix(strings.ToLower(it.Label), prefix) {
			continue
		}
		out.Items = append(out.Items, it.CompletionItem)
	}
	out.Total = len(out.Items)
	if len(out.Items) > opts.MaxResults {
		out.Items = out.Items[:opts.MaxResults]
		out.Truncated = true
	}
	if out.Withholding, err = c.withholdCompletions(ctx, pos, scope, out.Items); err != nil {
		return CompletionResult{}, err
	}
	return out, nil
}

// completion is a decoded completion answer, sorted.
type completion struct {
	IsIncomplete bool
	Items        []decodedItem
}

type decodedItem struct {
	CompletionItem
	filter string
	sort   string
}

type completionItemWire struct {
	Label         string          `json:"label"`
	Kind          int             `json:"kind"`
	Detail        string          `json:"detail"`
	Documentation json.RawMessage `json:"documentation"`
	InsertText    string          `json:"insertText"`
	TextEditText  string          `json:"textEditText"`
	TextEdit      *struct {
		NewText string `json:"newText"`
	} `json:"textEdit"`
	FilterText string `json:"filterText"`
	SortText   string `json:"sortText"`
	Deprecated bool   `json:"deprecated"`
	Tags       []int  `json:"tags"`
}

// decodeCompletion decodes a textDocument/completion answer: null,
// CompletionItem[] or CompletionList {isIncomplete, items} (go.lsp.dev's
// *CompletionList rejects the array form). Items are sorted by sortText
// (label when absent), then label.
func decodeCompletion(raw json.RawMessage) (completion, error) {
	raw = bytes.TrimSpace(raw)
	var out completion
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) || bytes.Equal(raw, []byte("{}")) {
		return out, nil
	}
	var items []completionItemWire
	if raw[0] == '[' {
		if err := json.Unmarshal(raw, &items); err != nil {
			return out, fmt.Errorf("decode completion items: %w", err)
		}
	} else {
		var list struct {
			IsIncomplete bool                 `json:"isIncomplete"`
			Items        []completionItemWire `json:"items"`
		}
		if err := json.Unmarshal(raw, &list); err != nil {
			return out, fmt.Errorf("decode completion list: %w", err)
		}
		out.IsIncomplete, items = list.IsIncomplete, list.Items
	}
	for _, w := range items {
		it := decodedItem{filter: w.FilterText, sort: w.SortText}
		if it.filter == "" {
			it.filter = w.Label
		}
		if it.sort == "" {
			it.sort = w.Label
		}
		it.Label, it.Kind, it.Detail = w.Label, CompletionKindName(w.Kind), strings.TrimSpace(w.Detail)
		it.Documentation = shorten(markupText(w.Documentation), completionDocChars)
		switch {
		case w.TextEdit != nil && w.TextEdit.NewText != "":
			it.InsertText = w.TextEdit.NewText
		case w.TextEditText != "":
			it.InsertText = w.TextEditText
		case w.InsertText != "":
			it.InsertText = w.InsertText
		default:
			it.InsertText = w.Label
		}
		it.Deprecated = w.Deprecated
		for _, tag := range w.Tags {
			if tag == 1 { // CompletionItemTag.Deprecated
				it.Deprecated = true
			}
		}
		out.Items = append(out.Items, it)
	}
	sort.SliceStable(out.Items, func(i, j int) bool {
		a, b := out.Items[i], out.Items[j]
		if a.sort != b.sort {
			return a.sort < b.sort
		}
		return a.Label < b.Label
	})
	return out, nil
}

// markupText returns the text of a string or MarkupContent (documentation
// fields), "" for anything else.
func markupText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	if raw[0] == '"' {
		var s string
		_ = json.Unmarshal(raw, &s)
		return s
	}
	var mc struct {
		Value string `json:"value"`
	}
	_ = json.Unmarshal(raw, &mc)
	return mc.Value
}
