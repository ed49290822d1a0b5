package lsp

// Decoding the answer of definition-like requests and references (null,
// Location, Location[] or LocationLink[]) in one pass: every read tool's
// answer goes through DecodeLocations, and encoding/json's reflection was
// tens of microseconds of a warm read's own time. As for the call
// hierarchy (calls_decode.go), anything unexpected (a null, a key spelled
// in another case, an escape the scanner does not decode) goes to
// encoding/json, so the result is always the one encoding/json gives.

import "go.lsp.dev/protocol"

// locationWire is one element of the union as encoding/json reads it:
// a Location's range, else a link's selection range, else its range.
type locationWire struct {
	uri, targetURI                  string
	rng, targetSel, targetRng       protocol.Range
	hasRng, hasTargetSel, hasTarget bool
}

// scanLocations is DecodeLocations for a non-empty answer, in one pass;
// false hands the answer to encoding/json.
func scanLocations(raw []byte) ([]protocol.Location, bool) {
	s := &jsonScan{b: raw}
	var out []protocol.Location
	add := func() bool {
		var w locationWire
		if !s.location(&w) {
			return false
		}
		switch {
		case w.hasRng:
			out = append(out, protocol.Location{URI: protocol.DocumentURI(w.uri), Range: w.rng})
		case w.hasTargetSel:
			out = append(out, protocol.Location{URI: protocol.DocumentURI(w.targetURI), Range: w.targetSel})
		case w.hasTarget:
			out = append(out, protocol.Location{URI: protocol.DocumentURI(w.targetURI), Range: w.targetRng})
		}
		return true
	}
	s.space()
	if s.i < len(s.b) && s.b[s.i] == '{' {
		if !add() {
			return nil, false
		}
	} else {
		out = make([]protocol.Location, 0, 4)
		if !s.array(add) {
			return nil, false
		}
	}
	s.space()
	if !s.eof() {
		return nil, false
	}
	if out == nil {
		// An object that is none of the three: encoding/json's empty list.
		out = []protocol.Location{}
	}
	return out, true
}

// location reads a Location or LocationLink object into w. A key given
// twice merges as encoding/json merges it (into the same range).
func (s *jsonScan) location(w *locationWire) bool {
	return s.object(func(key string) bool {
		var ok bool
		switch key {
		case "uri":
			w.uri, ok = s.str()
		case "targetUri":
			w.targetURI, ok = s.str()
		case "range":
			w.hasRng, ok = true, s.rangeOf(&w.rng)
		case "targetSelectionRange":
			w.hasTargetSel, ok = true, s.rangeOf(&w.targetSel)
		case "targetRange":
			w.hasTarget, ok = true, s.rangeOf(&w.targetRng)
		default:
			ok = !knownElsewhere(key, "uri", "targetUri", "range", "targetSelectionRange", "targetRange") && s.skip()
		}
		return ok
	})
}
