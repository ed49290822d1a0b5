package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"go.lsp.dev/protocol"
)

// Parameter is one parameter of a signature. Label is always text: when
// the server gives [start, end] offsets into the signature's label, the
// label is sliced here.
type Parameter struct {
	Label         string `json:"label"`
	Documentation string `json:"documentation,omitempty"`
}

// Signature is one callable's signature.
type Signature struct {
	Label         string      `json:"label"`
	Documentation string      `json:"documentation,omitempty"`
	Parameters    []Parameter `json:"parameters"`
	// ActiveParameter is this signature's own active parameter (LSP 3.16),
	// when the server gives one.
	ActiveParameter *int `json:"active_parameter,omitempty"`
}

// SignatureHelpResult answers get_signature_help.
type SignatureHelpResult struct {
	From   string `json:"from"`
	Server string `json:"server"`
	// Found is false when the position is not inside a call's arguments.
	Found           bool        `json:"found"`
	Signatures      []Signature `json:"signatures"`
	ActiveSignature int         `json:"active_signature"`
	// ActiveParameter is the 0-based index of the parameter at the
	// position in the active signature, when the server says.
	ActiveParameter *int `json:"active_parameter,omitempty"`
}

// SignatureHelp returns the signatures of the call whose arguments contain
// t in file (textDocument/signatureHelp).
func (c *Client) SignatureHelp(ctx context.Context, file string, t Target) (SignatureHelpResult, error) {
	pos, err := c.resolve(ctx, file, t, protocol.MethodTextDocumentSignatureHelp, "")
	if err != nil {
		return SignatureHelpResult{}, err
	}
	params := protocol.SignatureHelpParams{
		TextDocumentPositionParams: pos.params(),
		Context:                    &protocol.SignatureHelpContext{TriggerKind: protocol.SignatureHelpTriggerKindInvoked},
	}
	help, err := requestAs(ctx, c, pos.doc, pos.server, protocol.MethodTextDocumentSignatureHelp, params,
		func(raw json.RawMessage) (SignatureHelpResult, error) {
			return DecodeSignatureHelp(raw, pos.server.OffsetEncoding)
		})
	if err != nil {
		return SignatureHelpResult{}, err
	}
	help.From, help.Server = pos.where(), pos.server.Name
	return help, nil
}

type signatureHelpWire struct {
	Signatures []struct {
		Label         string          `json:"label"`
		Documentation json.RawMessage `json:"documentation"`
		Parameters    []struct {
			Label         json.RawMessage `json:"label"`
			Documentation json.RawMessage `json:"documentation"`
		} `json:"parameters"`
		ActiveParameter *int `json:"activeParameter"`
	} `json:"signatures"`
	ActiveSignature *int `json:"activeSignature"`
	ActiveParameter *int `json:"activeParameter"`
}

// DecodeSignatureHelp decodes a textDocument/signatureHelp answer: null or
// SignatureHelp, whose parameter labels are strings or [start, end] offsets
// (in enc's units) into the signature label (Neovim advertises
// labelOffsetSupport; go.lsp.dev's ParameterInformation.Label is a string
// and rejects them).
func DecodeSignatureHelp(raw json.RawMessage, enc Encoding) (SignatureHelpResult, error) {
	out := SignatureHelpResult{Signatures: []Signature{}}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return out, nil
	}
	var w signatureHelpWire
	if err := json.Unmarshal(raw, &w); err != nil {
		return out, fmt.Errorf("decode signature help: %w", err)
	}
	for _, s := range w.Signatures {
		sig := Signature{Label: s.Label, Documentation: markupText(s.Documentation), Parameters: []Parameter{},
			ActiveParameter: s.ActiveParameter}
		for _, p := range s.Parameters {
			label, err := parameterLabel(p.Label, s.Label, enc)
			if err != nil {
				return out, err
			}
			sig.Parameters = append(sig.Parameters, Parameter{Label: label, Documentation: markupText(p.Documentation)})
		}
		out.Signatures = append(out.Signatures, sig)
	}
	out.Found = len(out.Signatures) > 0
	if w.ActiveSignature != nil && *w.ActiveSignature >= 0 && *w.ActiveSignature < len(out.Signatures) {
		out.ActiveSignature = *w.ActiveSignature
	}
	out.ActiveParameter = w.ActiveParameter
	if out.Found && out.Signatures[out.ActiveSignature].ActiveParameter != nil {
		// The signature's own index wins over the top-level one (3.16).
		out.ActiveParameter = out.Signatures[out.ActiveSignature].ActiveParameter
	}
	if out.ActiveParameter != nil && out.Found {
		if n := len(out.Signatures[out.ActiveSignature].Parameters); *out.ActiveParameter < 0 || *out.ActiveParameter >= n {
			out.ActiveParameter = nil // out of range: no parameter is active
		}
	}
	return out, nil
}

// parameterLabel returns a parameter label as text: a string as is, or the
// slice [start, end) of the signature label (offsets in enc's units).
func parameterLabel(raw json.RawMessage, signature string, enc Encoding) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '[' {
		var offs []int
		if err := json.Unmarshal(raw, &offs); err != nil || len(offs) != 2 {
			return "", fmt.Errorf("decode parameter label %s: want a string or [start, end]", raw)
		}
		start, _ := UnitsToByte(signature, offs[0], enc)
		end, _ := UnitsToByte(signature, offs[1], enc)
		if end < start {
			return "", fmt.Errorf("parameter label offsets %v are reversed", offs)
		}
		return signature[start:end], nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("decode parameter label: %w", err)
	}
	return s, nil
}
