package tools

import (
	"context"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nvbridge/nvbridge/internal/progress"
)

// progressInterval rate-limits one call's progress notifications: a
// report within it of the last one sent is dropped unless its message
// differs (a new phase, a new server title).
const progressInterval = 100 * time.Millisecond

// withProgress gives a call whose client asked for progress (a
// progressToken in _meta) a reporter (internal/progress) that sends
// notifications/progress for that token. The values it sends increase
// strictly, as MCP requires, whatever the domain reports.
func withProgress(ctx context.Context, req mcp.CallToolRequest) context.Context {
	if req.Params.Meta == nil || req.Params.Meta.ProgressToken == nil {
		return ctx
	}
	srv := ServerOf(ctx)
	if srv == nil {
		return ctx
	}
	token := req.Params.Meta.ProgressToken
	var (
		mu      sync.Mutex
		sent    bool
		last    float64
		lastMsg string
		at      time.Time
	)
	return progress.With(ctx, func(done, total float64, message string) {
		mu.Lock()
		defer mu.Unlock()
		if ctx.Err() != nil {
			return
		}
		now := time.Now()
		if sent && message == lastMsg && now.Sub(at) < progressInterval {
			return
		}
		if sent && done <= last {
			done = last + 1
		}
		params := map[string]any{"progressToken": token, "progress": done}
		if total > 0 && total >= done {
			params["total"] = total
		}
		if message != "" {
			params["message"] = message
		}
		if err := srv.SendNotificationToClient(ctx, "notifications/progress", params); err != nil {
			return // no session, or its queue is full: progress is best effort
		}
		sent, last, lastMsg, at = true, done, message, now
		if w := watcherOf(srv); w != nil {
			w.agentEvent("NvbridgeToolProgress", map[string]any{"tool": req.Params.Name, "progress": done, "total": total, "message": message, "channel": w.channel()})
		}
	})
}
