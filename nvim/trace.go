package nvim

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
)

// TraceSize is how many exchanges a session's trace keeps (the oldest are
// dropped); TraceTextLimit clips each entry's text.
const (
	TraceSize      = 256
	TraceTextLimit = 300
)

// TraceEntry is one recorded exchange with Neovim: an RPC call (a bridge
// function, a Lua chunk) or an LSP request through the bridge, once sent
// and once answered.
type TraceEntry struct {
	At time.Time
	// Kind is "rpc" (Call, ExecLua), "async" (a bridge operation that
	// answers with nvbridge_done), or "lsp" (async.request: an LSP
	// request to a server).
	Kind string
	// Text says what was sent, or what came back (clipped).
	Text string
	// Took is how long the answer took (0 on the sending entry).
	Took time.Duration
	Err  string
}

func (e TraceEntry) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %-5s %s", e.At.Format("15:04:05.000000"), e.Kind, e.Text)
	if e.Took > 0 {
		fmt.Fprintf(&b, " (%s)", e.Took.Round(10*time.Microsecond))
	}
	if e.Err != "" {
		b.WriteString(" ERR " + e.Err)
	}
	return b.String()
}

// traceRing is a bounded ring of recent exchanges; sink (when set) also
// receives every entry as it is recorded (--log).
type traceRing struct {
	mu      sync.Mutex
	entries []TraceEntry
	next    int
	full    bool
	sink    func(format string, args ...any)
}

func newTraceRing(sink func(string, ...any)) *traceRing {
	return &traceRing{entries: make([]TraceEntry, TraceSize), sink: sink}
}

func (r *traceRing) add(e TraceEntry) {
	if e.At.IsZero() {
		e.At = time.Now()
	}
	// Folded when read: most entries never are, and a walk records
	// hundreds. Only the start of a long text is kept, as a copy (a cut
	// would hold a whole LSP result in memory).
	e.Text, e.Err = keepHead(e.Text), keepHead(e.Err)
	r.mu.Lock()
	r.entries[r.next] = e
	r.next = (r.next + 1) % len(r.entries)
	if r.next == 0 {
		r.full = true
	}
	sink := r.sink
	r.mu.Unlock()
	if sink != nil {
		sink("trace %s", e.clipped())
	}
}

func (e TraceEntry) clipped() TraceEntry {
	e.Text, e.Err = clip(e.Text), clip(e.Err)
	return e
}

// keepHead is what add keeps of a text: the start clip folds.
func keepHead(s string) string {
	if head, long := traceHead(s); long {
		return head + "…" // a new string: nothing of s is held
	}
	return s
}

// snapshot returns the entries, oldest first.
func (r *traceRing) snapshot() []TraceEntry {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []TraceEntry
	if r.full {
		out = append(out, r.entries[r.next:]...)
	}
	out = append(out, r.entries[:r.next]...)
	for i := range out {
		out[i] = out[i].clipped()
	}
	return out
}

func clip(s string) string {
	// Fold only the start of a long text (an LSP result can be megabytes,
	// and every request and reply is traced).
	s, long := traceHead(s)
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= TraceTextLimit {
		if long {
			s += "…"
		}
		return s
	}
	return s[:utf8Start(s, TraceTextLimit)] + "…"
}

// traceHead is the start of s worth folding for a trace line, and whether
// anything was cut.
func traceHead(s string) (string, bool) {
	if len(s) <= 4*TraceTextLimit {
		return s, false
	}
	return s[:utf8Start(s, 4*TraceTextLimit)], true
}

// utf8Start moves i back to the start of the UTF-8 sequence it is in.
func utf8Start(s string, i int) int {
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	return i
}

// describeArgs renders call arguments for the trace, cheaply: strings
// (clipped), numbers and booleans; other values by type (a plan's texts are
// not formatted just to be clipped).
func describeArgs(args []any) string {
	// Every call is traced, a walk's hundred requests too: strconv, not fmt.
	b := make([]byte, 0, 64)
	for i, a := range args {
		if i > 0 {
			b = append(b, ", "...)
		}
		switch v := a.(type) {
		case string:
			if len(v) > TraceTextLimit {
				v = v[:TraceTextLimit]
			}
			b = strconv.AppendQuote(b, v)
		case int:
			b = strconv.AppendInt(b, int64(v), 10)
		case int64:
			b = strconv.AppendInt(b, v, 10)
		case bool:
			b = strconv.AppendBool(b, v)
		case []string:
			b = append(strconv.AppendInt(append(b, '['), int64(len(v)), 10), " strings]"...)
		case []int:
			b = fmt.Append(b, v)
		default:
			b = fmt.Appendf(b, "%T", v)
		}
	}
	return string(b)
}

// Trace returns the session's recent exchanges with Neovim (at most
// TraceSize), oldest first.
func (s *Session) Trace() []TraceEntry { return s.trace.snapshot() }

// WriteTrace writes the recent exchanges, one per line.
func (s *Session) WriteTrace(w io.Writer) error {
	for _, e := range s.Trace() {
		if _, err := fmt.Fprintln(w, e); err != nil {
			return err
		}
	}
	return nil
}
