package tools_test

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/tools"
	"github.com/nvbridge/nvbridge/websearch"
)

// web_search is listed only when a provider is configured, and answers over
// MCP from a local server speaking SearXNG's JSON format.
func TestWebSearchOverMCP(t *testing.T) {
	for _, tool := range tools.All(&tools.Env{}) {
		if tool.Tool.Name == "web_search" {
			t.Fatal("web_search is listed with no provider configured")
		}
	}
	var status atomic.Int32
	status.Store(http.StatusOK)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if code := int(status.Load()); code != http.StatusOK {
			w.WriteHeader(code)
			return
		}
		_, _ = w.Write([]byte(`{"results":[{"url":"https://pkg.go.dev/errors","title":"errors package","content":"Package errors implements functions to manipulate errors."},
			{"url":"https://go.dev/blog/go1.13-errors","title":"Working with Errors in Go 1.13","content":"wrapping"}]}`))
	}))
	defer srv.Close()
	search, err := websearch.New(websearch.Config{SearXNGURL: srv.URL, CacheTTL: -1})
	if err != nil {
		t.Fatal(err)
	}
	c := mcpClient(t, &tools.Env{Search: search})
	list, err := c.ListTools(testenv.Context(t), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var def *mcp.Tool
	for i := range list.Tools {
		if list.Tools[i].Name == "web_search" {
			def = &list.Tools[i]
		}
	}
	if def == nil {
		t.Fatal("web_search is not listed with a provider configured")
	}
	if def.Annotations.OpenWorldHint == nil || !*def.Annotations.OpenWorldHint || def.Annotations.ReadOnlyHint == nil || !*def.Annotations.ReadOnlyHint {
		t.Errorf("annotations = %+v, want read-only and open-world", def.Annotations)
	}

	res := mcpCall(t, c, "web_search", `{"query":"go errors wrap","max_results":1}`)
	if e := toolError(t, res); e != nil {
		t.Fatalf("web_search failed: %+v", e)
	}
	got := content(t, res)
	if v, _ := at(got, "results.0.url"); v != "https://pkg.go.dev/errors" {
		t.Errorf("results.0.url = %v in %v", v, got)
	}
	if v, _ := at(got, "results.1"); v != nil {
		t.Errorf("max_results 1 returned a second result: %v", v)
	}
	if v, _ := at(got, "provider"); v != websearch.SearXNG {
		t.Errorf("provider = %v", v)
	}

	wantError(t, mcpCall(t, c, "web_search", `{"query":"x","max_results":99}`), apierr.InvalidParameter, "max_results")
	status.Store(http.StatusServiceUnavailable)
	wantError(t, mcpCall(t, c, "web_search", `{"query":"go errors wrap"}`), apierr.OperationFailed, "HTTP 503")
}
