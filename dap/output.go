package dap

import "encoding/json"

// OutputChunk is program (or adapter console) output of one category
// ("stdout", "stderr", "console"), in order.
type OutputChunk struct {
	Category string `json:"category"`
	Text     string `json:"text"`
}

// outputLog collects output events until a result takes them; it keeps at
// most max bytes (the newest), counting what it dropped.
type outputLog struct {
	max     int
	chunks  []OutputChunk
	size    int
	dropped int
}

func (o *outputLog) add(category, text string) {
	if category == "" {
		category = "console"
	}
	if n := len(o.chunks); n > 0 && o.chunks[n-1].Category == category {
		o.chunks[n-1].Text += text
	} else {
		o.chunks = append(o.chunks, OutputChunk{Category: category, Text: text})
	}
	o.size += len(text)
	for o.size > o.max && len(o.chunks) > 0 {
		over := o.size - o.max
		first := &o.chunks[0]
		if len(first.Text) <= over {
			o.size -= len(first.Text)
			o.dropped += len(first.Text)
			o.chunks = o.chunks[1:]
			continue
		}
		first.Text = first.Text[over:]
		o.size -= over
		o.dropped += over
	}
}

// take returns the output collected since the last take and how many
// bytes of it were dropped (oldest first) to stay within the bound.
func (o *outputLog) take() ([]OutputChunk, int) {
	chunks, dropped := o.chunks, o.dropped
	o.chunks, o.size, o.dropped = nil, 0, 0
	if chunks == nil {
		chunks = []OutputChunk{}
	}
	return chunks, dropped
}

func marshal(v any) ([]byte, error) { return json.Marshal(v) }
