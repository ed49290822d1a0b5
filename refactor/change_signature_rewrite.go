package refactor

// change_signature's rewriting, from the syntax alone: each declaration's
// parameter list and its renamed parameters' uses, each call's arguments
// (reordered, dropped, added, by keyword where Python needs it), as byte
// edits that become the changeset. No request to a server: planned from
// texts, table-tested without one (change_signature_rewrite_test.go).

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/preview"
)

// withEdits returns text[start:end] with the file's edits inside that range
// applied (inner call sites rewritten before the outer one).
func (f *sigFile) withEdits(start, end int) string {
	var inner []preview.ByteEdit
	for _, e := range f.edits {
		if e.Start >= start && e.End <= end {
			inner = append(inner, preview.ByteEdit{Start: e.Start - start, End: e.End - start, Text: e.Text})
		}
	}
	out, err := preview.ApplyByteEdits(f.text[start:end], outermost(inner))
	if err != nil {
		panic("change_signature: outermost edits overlap: " + err.Error()) // outermost leaves none
	}
	return out
}

// outermost is edits without those nested in another (the outer one
// carries them), sorted by start: an edit starting where another ends
// stays.
func outermost(edits []preview.ByteEdit) []preview.ByteEdit {
	sorted := slices.Clone(edits)
	slices.SortStableFunc(sorted, func(a, b preview.ByteEdit) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(b.End, a.End))
	})
	var out []preview.ByteEdit
	end := -1
	for _, e := range sorted {
		if e.Start < end {
			continue
		}
		end = max(end, e.End)
		out = append(out, e)
	}
	return out
}

// rewriteSites rewrites the declarations taking part and the call sites
// (inner calls first), and leaves alone, with the reason, a reference
// that is no call nvbridge can rewrite. Another declaration of the name
// among the sites (an override the server lists as a reference) takes
// part when it has the target's shape.
func (p *sigPlanner) rewriteSites(ctx context.Context, sites []sigSite) error {
	declAt := p.declsByKey()
	// Inner calls first: an outer call's arguments then carry them.
	type call struct {
		sigSite
		call *sigCall
	}
	var calls []call
	var refusals []string
	for _, s := range sites {
		d, err := p.syn.funcAt(ctx, s.file.rel, s.file.m, s.off)
		if err != nil {
			return err
		}
		if d != nil && d.NameOff == s.off {
			// Another declaration of the name (an override the server
			// lists as a reference): rewritten when it has the same shape.
			at := s.file.location(d.NameOff)
			if declAt[declKey(at)] != nil {
				continue
			}
			if len(d.Params) == len(p.target.fn.Params) {
				dd := &sigDecl{file: s.file, fn: d, loc: at}
				declAt[declKey(at)] = dd
				p.decls = append(p.decls, dd)
				continue
			}
		}
		cl, why, err := p.syn.callAt(ctx, s.file.rel, s.file.m, s.off)
		if err != nil {
			return err
		}
		if cl == nil {
			if why != importRef {
				p.plan.LeftAlone = append(p.plan.LeftAlone, SignatureSite{Location: s.loc, Reason: why})
			}
			continue
		}
		calls = append(calls, call{s, cl})
	}
	sort.SliceStable(calls, func(i, j int) bool {
		return calls[i].call.ListEnd-calls[i].call.ListStart < calls[j].call.ListEnd-calls[j].call.ListStart
	})
	// Declarations first (their bodies may hold call sites: the renamed
	// parameters' uses are edits inside the call's arguments).
	for _, d := range p.decls {
		if err := p.rewriteDecl(d); err != nil {
			return err
		}
	}
	for _, cl := range calls {
		text, why, refusal := p.rewriteCall(cl.file, cl.call)
		if refusal != "" {
			refusals = append(refusals, fmt.Sprintf("%s:%d: %s", cl.loc.File, cl.loc.Line, refusal))
			continue
		}
		if why != "" {
			p.plan.LeftAlone = append(p.plan.LeftAlone, SignatureSite{Location: cl.loc, Reason: why})
			continue
		}
		cl.file.edits = append(cl.file.edits, preview.ByteEdit{Start: cl.call.ListStart, End: cl.call.ListEnd, Text: text})
		p.plan.CallSites = append(p.plan.CallSites, SignatureSite{Location: cl.loc})
	}
	if len(refusals) > 0 {
		return apierr.Errorf(apierr.PreconditionFailed,
			"pass allow_side_effects: true to drop or reorder them anyway (a dropped argument is no longer evaluated), or move the side effect out of the call first",
			"%d call site(s) pass an argument with side effects that the change would drop or evaluate in another order: %s",
			len(refusals), strings.Join(refusals, "; ")).WithDetails(map[string]any{"call_sites": refusals})
	}
	return nil
}

// rewriteDecl rewrites a declaration's parameter list and the uses of its
// renamed parameters.
func (p *sigPlanner) rewriteDecl(d *sigDecl) error {
	fn := d.fn
	where := fmt.Sprintf("%s:%d", d.loc.File, d.loc.Line)
	if fn.Comments {
		return apierr.Errorf(apierr.PreconditionFailed, "move the comments out of the parameter list (e.g. into the doc comment), then retry",
			"the parameter list of %s (%s) holds comments that rewriting it would lose", fn.Name, where)
	}
	for _, j := range p.removed {
		if uses := fn.Params[j].Uses; len(uses) > 0 {
			var lines []string
			for _, u := range uses {
				line, _ := d.file.m.CharPosition(u)
				lines = append(lines, fmt.Sprint(line))
			}
			return apierr.Errorf(apierr.PreconditionFailed,
				"remove its uses from the body first, or keep the parameter",
				"the parameter %q of %s (%s) is still used in its body (line(s) %s): removing it would break the function",
				fn.Params[j].Name, fn.Name, where, strings.Join(lines, ", "))
		}
	}
	var out []renderedParam
	for _, np := range p.params {
		if np.from < 0 {
			out = append(out, renderedParam{Name: np.Name, Type: np.Type, Default: np.Default, Start: -1, End: -1, Added: true})
			continue
		}
		old := fn.Params[np.from]
		rp := renderedParam{Name: old.Name, Type: old.Type, Default: old.Default, Variadic: old.Variadic, Keyword: old.Keyword, KwSplat: old.KwSplat, Optional: old.Optional, Text: old.Text, Group: old.Group, Start: old.Start, End: old.End}
		targetName := p.target.fn.Params[np.from].Name
		if d == p.target || old.Name == targetName {
			if old.Name != np.Name && old.Name != "" {
				if fn.BodyNames[np.Name] {
					return apierr.Errorf(apierr.PreconditionFailed, "pick another name",
						"renaming %q to %q in %s (%s): the body already uses %q", old.Name, np.Name, fn.Name, where, np.Name)
				}
				rp.Name, rp.Text = np.Name, ""
				for _, u := range old.Uses {
					d.file.edits = append(d.file.edits, preview.ByteEdit{Start: u, End: u + len(old.Name), Text: np.Name})
				}
				for _, u := range old.Shorthand {
					d.file.edits = append(d.file.edits, preview.ByteEdit{Start: u, End: u + len(old.Name), Text: old.Name + ": " + np.Name})
				}
			}
		}
		if np.Type != "" && np.Type != old.Type {
			rp.Type, rp.Text, rp.Group = np.Type, "", 0
		}
		out = append(out, rp)
	}
	text := p.syn.renderParams(fn, out)
	d.file.edits = append(d.file.edits, preview.ByteEdit{Start: fn.ListStart, End: fn.ListEnd, Text: text})
	if d == p.target {
		newHeader := fn.Signature
		list := p.syn.renderParams(&sigFunc{}, out)
		if fn.LeadComma && list != "" {
			list = ", " + list
		}
		oldList := d.file.text[fn.ListStart:fn.ListEnd]
		if oldList != "" && strings.Contains(newHeader, oneLine(oldList)) {
			newHeader = strings.Replace(newHeader, oneLine(oldList), list, 1)
		} else if i := strings.Index(newHeader, "()"); oldList == "" && i >= 0 {
			newHeader = newHeader[:i+1] + list + newHeader[i+1:]
		}
		p.plan.NewSignature = newHeader
	}
	p.plan.Declarations = append(p.plan.Declarations, SignatureSite{Location: d.loc})
	return nil
}

// rewriteCall computes a call site's new argument list. why says why the
// site is left alone; refusal why the whole change is refused.
func (p *sigPlanner) rewriteCall(f *sigFile, cl *sigCall) (text, why, refusal string) {
	if cl.Comments {
		return "", "comments between its arguments (rewriting the list would lose them): change it by hand", ""
	}
	params := p.target.fn.Params
	n := len(params)
	args := make([][]sigArg, n) // per old parameter (a variadic one takes several)
	byName := map[string]int{}
	// Positional arguments fill the parameters before the variadic one (or
	// before the first keyword-only one), the rest go to the variadic one;
	// keyword arguments go by name, unknown names to **kwargs.
	vi, kwi, posLimit := -1, -1, n
	for i, prm := range params {
		byName[prm.Name] = i
		switch {
		case prm.Variadic && vi < 0:
			vi, posLimit = i, i
		case prm.KwSplat:
			kwi = i
		}
		if (prm.Keyword || prm.KwSplat) && vi < 0 && posLimit == n {
			posLimit = i
		}
	}
	variadic := vi >= 0
	pos := 0
	for _, a := range cl.Args {
		switch {
		case a.Spread && strings.HasPrefix(a.Text, "**") && kwi >= 0:
			args[kwi] = append(args[kwi], a)
		case a.Spread && !(vi >= 0 && pos >= vi):
			return "", "passes a spread argument (" + a.Text + "): which parameters it fills is not known from the syntax", ""
		case a.Name != "":
			i, ok := byName[a.Name]
			switch {
			case ok && !params[i].Variadic && !params[i].KwSplat:
				args[i] = append(args[i], a)
			case kwi >= 0:
				args[kwi] = append(args[kwi], a)
			default:
				return "", fmt.Sprintf("passes the keyword argument %q, which %s does not declare", a.Name, p.target.fn.Name), ""
			}
		case pos < posLimit:
			args[pos] = append(args[pos], a)
			pos++
		case vi >= 0:
			args[vi] = append(args[vi], a)
			pos++
		default:
			return "", fmt.Sprintf("passes %d arguments where %s declares %d", len(cl.Args), p.target.fn.Name, n), ""
		}
	}
	if p.rules.exactArity && !variadic && len(cl.Args) != n {
		return "", fmt.Sprintf("passes %d argument(s) for %d parameters (a call returning several values?)", len(cl.Args), n), ""
	}
	if !p.req.AllowSideEffects {
		for _, j := range p.removed {
			for _, a := range args[j] {
				if !a.Pure {
					return "", "", fmt.Sprintf("drops `%s` (passed for the removed parameter %q)", a.Text, params[j].Name)
				}
			}
		}
		if p.reorders {
			var impure []int
			for _, np := range p.params {
				if np.from >= 0 {
					for _, a := range args[np.from] {
						if !a.Pure {
							impure = append(impure, np.from)
						}
					}
				}
			}
			for i := 1; i < len(impure); i++ {
				if impure[i] < impure[i-1] {
					return "", "", fmt.Sprintf("evaluates the arguments for %q and %q in another order and both have side effects",
						params[impure[i]].Name, params[impure[i-1]].Name)
				}
			}
		}
	}
	var parts []string
	keywords := false // Python: a skipped optional parameter makes the rest keyword arguments
	for _, np := range p.params {
		if np.from < 0 {
			s := strings.TrimSpace(np.Default)
			if keywords {
				s = np.Name + "=" + s
			}
			parts = append(parts, s)
			continue
		}
		as := args[np.from]
		if len(as) == 0 {
			if params[np.from].Variadic || params[np.from].Keyword {
				continue
			}
			if params[np.from].Default == "" && p.rules.omitted == "" {
				return "", fmt.Sprintf("passes no argument for %q", params[np.from].Name), ""
			}
			if p.rules.omitted == "" {
				keywords = true
				continue
			}
			// An omitted optional argument stays omitted only at the end.
			parts = append(parts, p.rules.omitted)
			continue
		}
		for _, a := range as {
			s := f.withEdits(a.Start, a.End)
			switch {
			case a.Name != "" && a.Name == params[np.from].Name:
				s = np.Name + s[len(a.Name):] // name=value: the name follows a rename
				keywords = true
			case a.Name != "" || params[np.from].KwSplat:
				keywords = true // into **kwargs, as written
			case params[np.from].Variadic && keywords:
				return "", "its arguments for *" + params[np.from].Name + " would follow keyword arguments", ""
			case keywords:
				s = np.Name + "=" + s
			}
			parts = append(parts, s)
		}
	}
	// Placeholders of omitted optional parameters at the end are dropped.
	for p.rules.omitted != "" && len(parts) > 0 && parts[len(parts)-1] == p.rules.omitted {
		parts = parts[:len(parts)-1]
	}
	return joinArgs(f, cl, parts), "", ""
}

// joinArgs joins new arguments with the call's own separators (a call
// written one argument per line stays so).
func joinArgs(f *sigFile, cl *sigCall, parts []string) string {
	lead, trail := "", ""
	var seps []string
	if n := len(cl.Args); n > 0 {
		lead = f.text[cl.ListStart:cl.Args[0].Start]
		trail = f.text[cl.Args[n-1].End:cl.ListEnd]
		for i := 1; i < n; i++ {
			seps = append(seps, f.text[cl.Args[i-1].End:cl.Args[i].Start])
		}
	}
	return joinParts(lead, seps, trail, parts)
}

// joinParts joins list items with a list's own separators: the text
// before the first item, between items (the last one again for more
// items), after the last one; ", " where the list had none or where its
// text holds more than commas and white space (a comment stays out).
func joinParts(lead string, seps []string, trail string, parts []string) string {
	if len(parts) == 0 {
		return ""
	}
	blank := func(s string) bool { return strings.Trim(s, ", \t\r\n") == "" }
	if !blank(lead) || !blank(trail) {
		lead, trail = "", ""
	}
	if strings.Contains(lead, ",") && !strings.HasPrefix(strings.TrimLeft(lead, " \t\r\n"), ",") {
		lead = ""
	}
	var b strings.Builder
	b.WriteString(lead)
	for i, s := range parts {
		if i > 0 {
			switch {
			case i-1 < len(seps) && blank(seps[i-1]):
				b.WriteString(seps[i-1])
			case len(seps) > 0 && blank(seps[len(seps)-1]):
				b.WriteString(seps[len(seps)-1])
			default:
				b.WriteString(", ")
			}
		}
		b.WriteString(s)
	}
	b.WriteString(trail)
	return b.String()
}

// rewrite turns the collected edits into the changeset. A change that
// moves, adds or removes parameters is refused while places using the
// function are left alone (unless AllowLeftAlone): a callback passed on
// keeps being called with the old arguments, which no type checker sees
// when the types agree (zod's floatSafeRemainder passed to addConstant).
func (p *sigPlanner) rewrite() error {
	if shape := p.reorders || len(p.params) != len(p.target.fn.Params); shape && !p.req.AllowLeftAlone && len(p.plan.LeftAlone) > 0 {
		var places []string
		for _, l := range p.plan.LeftAlone {
			places = append(places, fmt.Sprintf("%s:%d: %s", l.File, l.Line, l.Reason))
		}
		return apierr.Errorf(apierr.PreconditionFailed,
			"change those places by hand first (e.g. wrap the value use in a function with the new order), or pass allow_left_alone: true to change everything else and fix them after",
			"the change moves, adds or removes parameters of %s, and %d place(s) using it cannot be rewritten: they would keep the old arguments: %s",
			p.target.fn.Name, len(places), strings.Join(places, "; ")).WithDetails(map[string]any{"left_alone": places})
	}
	var rels []string
	for rel, f := range p.files {
		if len(f.edits) > 0 {
			rels = append(rels, rel)
		}
	}
	sort.Strings(rels)
	for _, rel := range rels {
		f := p.files[rel]
		var kept []preview.TextEdit
		for _, e := range outermost(f.edits) {
			if f.text[e.Start:e.End] != e.Text {
				kept = append(kept, f.m.TextEdit(e))
			}
		}
		if len(kept) == 0 {
			continue
		}
		p.plan.Changeset.Files = append(p.plan.Changeset.Files, preview.FileChange{Kind: preview.OpEdit, Path: rel, Old: f.doc, Edits: kept})
		p.plan.Files = append(p.plan.Files, rel)
	}
	for _, list := range [][]SignatureSite{p.plan.CallSites, p.plan.LeftAlone, p.plan.Declarations} {
		slices.SortStableFunc(list, func(a, b SignatureSite) int {
			return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line))
		})
	}
	if p.plan.CallSites == nil {
		p.plan.CallSites = []SignatureSite{}
	}
	if p.plan.LeftAlone == nil {
		p.plan.LeftAlone = []SignatureSite{}
	}
	return nil
}

// oneLine collapses runs of white space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// notCalled is why a reference that is no call is left alone.
const notCalled = "not called here (used as a value, e.g. assigned or passed): the new signature may not fit; change it by hand"

// literalType is the TypeScript type of a literal default ("" for other
// expressions).
func literalType(def string) string {
	d := strings.TrimSpace(def)
	switch {
	case d == "true" || d == "false":
		return "boolean"
	case len(d) >= 2 && (d[0] == '"' || d[0] == '\'' || d[0] == '`') && d[len(d)-1] == d[0]:
		return "string"
	}
	if _, err := strconv.ParseFloat(strings.TrimPrefix(d, "-"), 64); err == nil {
		return "number"
	}
	return ""
}

// importRef marks a reference in an import or export (no call site).
const importRef = "import"
