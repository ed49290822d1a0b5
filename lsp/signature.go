package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/preview"
)

// Parameter is one parameter of a signature. Label is always text: when
// the server gives [start, end] offsets into the signature's label, the
// label is sliced here.
type Parameter struct {
	Label         string `json:"label"`
	Documentation string `json:"documentation,omitempty" brief:"omit"`
}

// Signature is one callable's signature.
type Signature struct {
	Label         string      `json:"label"`
	Documentation string      `json:"documentation,omitempty" brief:"omit"`
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
	// Withholding: Signatures is empty (and ActiveParameter absent) when
	// the callee is declared in a sensitive file (Found stays true).
	Withholding
}

// SignatureHelp returns the signatures of the call whose arguments contain
// t in file (textDocument/signatureHelp), unless the callee is declared in
// a sensitive file: a signature's label and documentation come from the
// declaration (parameter names, default values, the doc comment). Where
// the callee is declared is asked together with the signatures.
func (c *Client) SignatureHelp(ctx context.Context, file string, t Target) (SignatureHelpResult, error) {
	pos, err := c.resolve(ctx, file, t, protocol.MethodTextDocumentSignatureHelp, "")
	if err != nil {
		return SignatureHelpResult{}, err
	}
	params := protocol.SignatureHelpParams{
		TextDocumentPositionParams: pos.params(),
		Context:                    &protocol.SignatureHelpContext{TriggerKind: protocol.SignatureHelpTriggerKindInvoked},
	}
	help, w, err := answerChecked(ctx, func(ctx context.Context) (SignatureHelpResult, error) {
		return requestAs(ctx, c, pos.doc, pos.server, protocol.MethodTextDocumentSignatureHelp, params,
			func(raw json.RawMessage) (SignatureHelpResult, error) {
				return DecodeSignatureHelp(raw, pos.server.OffsetEncoding)
			})
	}, func(h SignatureHelpResult) bool { return h.Found },
		func(ctx context.Context) Withholding { return c.checkCallee(ctx, pos) })
	if err != nil {
		return SignatureHelpResult{}, err
	}
	help.From, help.Server, help.Withholding = pos.where(), pos.server.Name, w
	if w.withholds() {
		help.Signatures, help.ActiveSignature, help.ActiveParameter = []Signature{}, 0, nil
	}
	return help, nil
}

// calleeLookback bounds the lines before the position read to find the
// call it is in (a call whose arguments span more lines is withheld).
const calleeLookback = 30

// checkCallee finds the callee of the call whose arguments contain pos
// (lang.OpenCall: the name before the innermost open parenthesis; the
// lines above are read only when pos's line opens no call) and judges
// where it is declared. A callee not found, or one the server knows no
// declaration of, withholds: an agent writes the call it asks about, and
// could aim the search at a name other than the one the server describes.
// (A line read alone that starts inside a multi-line string or comment can
// still mislead it; the name it finds there must then resolve to a
// declaration.)
func (c *Client) checkCallee(ctx context.Context, pos position) Withholding {
	server, ok := definitionServer(pos.doc, pos.server)
	if !ok {
		return notCheckable(pos.doc, "the callee")
	}
	l := lang.ForFile(pos.doc.Path)
	line, text := pos.point.Line, pos.point.Text
	span, found := lang.OpenCall(l, text[:pos.point.Byte])
	if !found && line > 0 {
		first := max(0, line-calleeLookback)
		above, err := c.Session.Lines(ctx, pos.doc.Buffer.Bufnr, first, line)
		if err != nil {
			return unverifiable("the callee", server, err)
		}
		lines := append(above, text[:pos.point.Byte])
		src := strings.Join(lines, "\n")
		if span, found = lang.OpenCall(l, src); found {
			// Back to the callee's own line.
			m := preview.NewMapper(src)
			row, col := m.Position(span.Start)
			line = first + row
			span.Start, span.End = col, col+span.End-span.Start
			if line == pos.point.Line {
				text = pos.point.Text
			} else {
				text = lines[line-first]
			}
		}
	}
	if !found {
		return Withholding{Withheld: fmt.Sprintf("the call around %s was not found in the %d lines above it (its callee is checked against the workspace policy on sensitive files): the signatures are not shown",
			pos.where(), calleeLookback)}
	}
	name := text[span.Start:span.End]
	at := protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: pos.doc.URI},
		Position: protocol.Position{Line: uint32(line), Character: uint32(preview.ByteToUnits(text, span.Start, server.OffsetEncoding))}}
	locs, err := c.declarations(ctx, pos.doc, server, at)
	if err == nil && len(locs) == 0 {
		return Withholding{Withheld: fmt.Sprintf("%s knows no declaration of the callee %q (line %d), so it was not checked against the workspace policy on sensitive files: the signatures are not shown",
			server.Name, name, line+1)}
	}
	return c.disclose(ctx, pos.doc, server, at, name, locs, err)
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
func DecodeSignatureHelp(raw json.RawMessage, enc preview.Encoding) (SignatureHelpResult, error) {
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
func parameterLabel(raw json.RawMessage, signature string, enc preview.Encoding) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '[' {
		var offs []int
		if err := json.Unmarshal(raw, &offs); err != nil || len(offs) != 2 {
			return "", fmt.Errorf("decode parameter label %s: want a string or [start, end]", raw)
		}
		start, _ := preview.UnitsToByte(signature, offs[0], enc)
		end, _ := preview.UnitsToByte(signature, offs[1], enc)
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
