package side

// Where nvbridge's time goes within a call, read from its own log (--log:
// every exchange with Neovim, stamped to the microsecond). The harness
// knows when each call started and ended; the log says what nvbridge did
// with Neovim in between.

import (
	"bufio"
	"os"
	"regexp"
	"sort"
	"strings"
	"time"
)

// Phases are the medians, in milliseconds, of the parts of one op's calls.
type Phases struct {
	Calls int `json:"calls"`
	// Open: bridge.open_wait, from its start to its answer (reconciling
	// the buffer with the disk, waiting for the servers, the target line).
	OpenMs float64 `json:"open_ms"`
	// Requests: from the first LSP request sent to the last answer.
	RequestsMs float64 `json:"requests_ms"`
	// After: from the last LSP answer to the last exchange with Neovim
	// (reading the lines the answer shows).
	AfterMs float64 `json:"after_ms"`
	// Inside: from the first exchange with Neovim to the last.
	InsideMs float64 `json:"inside_ms"`
	// Outside: the call's time minus Inside: the MCP exchange, decoding
	// the arguments, shaping and encoding the answer, Go work before the
	// first exchange and after the last.
	OutsideMs float64 `json:"outside_ms"`
}

// callSpan is one measured nvbridge call.
type callSpan struct {
	op         string
	start, end time.Time
}

// traceLine is one exchange of the log: an rpc call spans [at, at+took];
// an async or lsp line is a point (its start, or its answer: "←").
type traceLine struct {
	at   time.Time
	took time.Duration
	kind string
	text string
}

func (l traceLine) end() time.Time {
	if l.kind == "rpc" {
		return l.at.Add(l.took)
	}
	return l.at
}

// "nvbridge: 2026/11/27 05:08:36 trace 05:08:36.161377 rpc   text (250µs)"
var (
	logLine  = regexp.MustCompile(`(\d{4}/\d\d/\d\d) \d\d:\d\d:\d\d trace (\d\d:\d\d:\d\d\.\d{6}) (\S+)\s+(.*)$`)
	tookTail = regexp.MustCompile(` \(([0-9.]+(?:µs|ms|s|ns))\)(?: ERR .*)?$`)
)

// readTrace reads the trace lines of an nvbridge log.
func readTrace(path string) ([]traceLine, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []traceLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for sc.Scan() {
		m := logLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		at, err := time.ParseInLocation("2006/01/02 15:04:05.000000", m[1]+" "+m[2], time.Local)
		if err != nil {
			continue
		}
		l := traceLine{at: at, kind: m[3], text: m[4]}
		if t := tookTail.FindStringSubmatch(m[4]); t != nil {
			l.took, _ = time.ParseDuration(t[1])
		}
		out = append(out, l)
	}
	return out, sc.Err()
}

// phasesOf splits the trace by call and returns each op's phase medians.
func phasesOf(lines []traceLine, calls []callSpan) map[string]*Phases {
	// An rpc line is written when its call ends, stamped with its start.
	sort.SliceStable(lines, func(i, j int) bool { return lines[i].at.Before(lines[j].at) })
	type parts struct{ open, requests, after, inside, outside []float64 }
	byOp := map[string]*parts{}
	next := 0
	for _, c := range calls {
		for next < len(lines) && lines[next].at.Before(c.start) {
			next++
		}
		var in []traceLine
		for i := next; i < len(lines) && !lines[i].at.After(c.end); i++ {
			in = append(in, lines[i])
		}
		if len(in) == 0 {
			continue
		}
		p := byOp[c.op]
		if p == nil {
			p = &parts{}
			byOp[c.op] = p
		}
		first, last := in[0].at, in[0].end() // in is in order of at
		var openID string
		var openStart, reqFirst, reqLast time.Time
		for _, l := range in {
			if l.end().After(last) {
				last = l.end()
			}
			switch {
			case l.kind == "async" && openID == "" && strings.Contains(l.text, " open_wait("):
				openID, _, _ = strings.Cut(l.text, " ")
				openStart = l.at
			case l.kind == "async" && openID != "" && strings.HasPrefix(l.text, openID+" ←"):
				p.open = append(p.open, ms(l.at.Sub(openStart)))
			case l.kind == "lsp" && strings.Contains(l.text, " → ") && reqFirst.IsZero():
				reqFirst = l.at
			case l.kind == "lsp" && strings.Contains(l.text, " ← "):
				reqLast = l.at
			}
		}
		inside := last.Sub(first)
		p.inside = append(p.inside, ms(inside))
		p.outside = append(p.outside, ms(c.end.Sub(c.start)-inside))
		if !reqFirst.IsZero() && !reqLast.IsZero() {
			p.requests = append(p.requests, ms(reqLast.Sub(reqFirst)))
			p.after = append(p.after, ms(last.Sub(reqLast)))
		}
	}
	out := map[string]*Phases{}
	for op, p := range byOp {
		out[op] = &Phases{Calls: len(p.inside), OpenMs: Quantile(p.open, .5), RequestsMs: Quantile(p.requests, .5),
			AfterMs: Quantile(p.after, .5), InsideMs: Quantile(p.inside, .5), OutsideMs: Quantile(p.outside, .5)}
	}
	return out
}
