package websearch

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nvbridge/nvbridge/apierr"
)

// searxngBody is an answer in SearXNG's documented format=json shape
// (fields nvbridge ignores included, as a real instance sends them).
const searxngBody = `{
  "query": "go context cancel",
  "number_of_results": 0,
  "results": [
    {"url": "https://pkg.go.dev/context", "title": "context package - context - Go Packages",
     "content": "Package context defines the Context type,\n  which carries deadlines, cancellation signals ...",
     "engine": "duckduckgo", "parsed_url": ["https", "pkg.go.dev", "/context", "", "", ""],
     "engines": ["duckduckgo", "brave"], "positions": [1, 2], "score": 4.0, "category": "general"},
    {"url": "", "title": "no url: skipped", "content": ""},
    {"url": "https://go.dev/blog/context", "title": "Go Concurrency Patterns: Context", "content": "In Go servers, each incoming request ...",
     "engine": "brave", "score": 2.0, "category": "general"},
    {"url": "https://stackoverflow.com/q/1", "title": "How to cancel a context", "content": "Call the cancel function ...", "score": 1.0}
  ],
  "answers": [], "corrections": [], "infoboxes": [], "suggestions": [], "unresponsive_engines": []
}`

// braveBody is an answer in the Brave Search API's documented web search
// shape (type "search" with a "web" section of results).
const braveBody = `{
  "type": "search",
  "query": {"original": "neovim lsp", "more_results_available": true},
  "mixed": {"type": "mixed", "main": [{"type": "web", "index": 0, "all": false}]},
  "web": {"type": "search", "results": [
    {"title": "Lsp - Neovim docs", "url": "https://neovim.io/doc/user/lsp.html", "is_source_local": false,
     "description": "Nvim supports the <strong>Language Server Protocol</strong> (LSP) ...", "profile": {"name": "Neovim"}, "language": "en"},
    {"title": "neovim/nvim-lspconfig", "url": "https://github.com/neovim/nvim-lspconfig", "description": "Quickstart configs for Nvim LSP"}
  ], "family_friendly": true}
}`

func newTestClient(t *testing.T, cfg Config) *Client {
	t.Helper()
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if c == nil {
		t.Fatal("New returned no client for a configured provider")
	}
	return c
}

func TestSearXNG(t *testing.T) {
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if r.URL.Path != "/sx/search" || r.URL.Query().Get("format") != "json" || r.URL.Query().Get("q") != "go context cancel" {
			t.Errorf("unexpected request %s", r.URL)
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(searxngBody))
	}))
	defer srv.Close()
	c := newTestClient(t, Config{SearXNGURL: srv.URL + "/sx/"})
	a, err := c.Search(context.Background(), "  go context cancel ", 2)
	if err != nil {
		t.Fatal(err)
	}
	if a.Provider != SearXNG || a.Cached || len(a.Results) != 2 {
		t.Fatalf("answer = %+v", a)
	}
	first, second := a.Results[0], a.Results[1]
	if first.Rank != 1 || first.URL != "https://pkg.go.dev/context" || first.Title != "context package - context - Go Packages" ||
		first.Snippet != "Package context defines the Context type, which carries deadlines, cancellation signals ..." {
		t.Errorf("first = %+v", first)
	}
	if second.Rank != 2 || second.URL != "https://go.dev/blog/context" {
		t.Errorf("second = %+v (the result without a url must be skipped, ranks contiguous)", second)
	}

	// The identical query is answered from the cache; another max is not.
	again, err := c.Search(context.Background(), "go context cancel", 2)
	if err != nil || !again.Cached || len(again.Results) != 2 || requests.Load() != 1 {
		t.Fatalf("second identical search: cached=%v results=%d requests=%d err=%v", again.Cached, len(again.Results), requests.Load(), err)
	}
	three, err := c.Search(context.Background(), "go context cancel", 5)
	if err != nil || three.Cached || len(three.Results) != 3 || requests.Load() != 2 {
		t.Fatalf("search with another max: cached=%v results=%d requests=%d err=%v", three.Cached, len(three.Results), requests.Load(), err)
	}
}

func TestCacheExpires(t *testing.T) {
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		_, _ = w.Write([]byte(searxngBody))
	}))
	defer srv.Close()
	c := newTestClient(t, Config{SearXNGURL: srv.URL, CacheTTL: time.Minute})
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c.now = func() time.Time { return now }
	for _, step := range []struct {
		advance time.Duration
		want    int32
	}{{0, 1}, {30 * time.Second, 1}, {31 * time.Second, 2}} {
		now = now.Add(step.advance)
		if _, err := c.Search(context.Background(), "q", 1); err != nil {
			t.Fatal(err)
		}
		if got := requests.Load(); got != step.want {
			t.Fatalf("after %v: %d requests, want %d", step.advance, got, step.want)
		}
	}
}

func TestBrave(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if got := r.Header.Get("X-Subscription-Token"); got != "secret-key" {
			t.Errorf("token header = %q", got)
		}
		if r.URL.Query().Get("q") != "neovim lsp" || r.URL.Query().Get("count") != "3" {
			t.Errorf("unexpected query %s", r.URL.RawQuery)
		}
		_, _ = w.Write([]byte(braveBody))
	}))
	defer srv.Close()
	c := newTestClient(t, Config{BraveKey: "secret-key", BraveURL: srv.URL})
	a, err := c.Search(context.Background(), "neovim lsp", 3)
	if err != nil {
		t.Fatal(err)
	}
	if a.Provider != Brave || len(a.Results) != 2 {
		t.Fatalf("answer = %+v", a)
	}
	if r := a.Results[0]; r.Rank != 1 || r.URL != "https://neovim.io/doc/user/lsp.html" || !strings.Contains(r.Snippet, "Language Server Protocol") {
		t.Errorf("first = %+v", r)
	}
}

func TestProviderErrors(t *testing.T) {
	cases := []struct {
		name    string
		handler http.HandlerFunc
		code    apierr.Code
		inMsg   string
		inFix   string
	}{
		{"rate limited", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(http.StatusTooManyRequests)
		}, apierr.OperationFailed, "HTTP 429", "retry after 7 s"},
		{"server error", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusBadGateway)
		}, apierr.OperationFailed, "HTTP 502", "retry later"},
		{"forbidden", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusForbidden) // SearXNG without format=json
		}, apierr.OperationFailed, "HTTP 403", "format=json"},
		{"bad json", func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte("<html>not json</html>"))
		}, apierr.OperationFailed, "not the expected JSON", "JSON API"},
		{"slow", func(w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done() // never answers; the client's bound ends it
		}, apierr.Timeout, "did not answer in time", "retry"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.handler)
			defer srv.Close()
			c := newTestClient(t, Config{SearXNGURL: srv.URL, Timeout: 200 * time.Millisecond})
			_, err := c.Search(context.Background(), "anything", 0)
			e := apierr.As(err)
			if err == nil || e.Code != tc.code || !strings.Contains(e.Message, tc.inMsg) || !strings.Contains(e.Remediation, tc.inFix) {
				t.Fatalf("error = %#v, want %s containing %q / %q", e, tc.code, tc.inMsg, tc.inFix)
			}
			// A failure is not cached: the next identical search asks again.
			if _, ok := c.cached(cacheKey{"anything", DefaultResults}); ok {
				t.Error("a failed search was cached")
			}
		})
	}
}

func TestDeadlineIsTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	c := newTestClient(t, Config{SearXNGURL: srv.URL})
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(100*time.Millisecond))
	defer cancel()
	_, err := c.Search(ctx, "q", 1)
	if apierr.CodeOf(err) != apierr.Timeout {
		t.Fatalf("err = %v, want TIMEOUT", err)
	}
}

func TestArgumentsAndConfig(t *testing.T) {
	if c, err := New(Config{}); c != nil || err != nil {
		t.Fatalf("no provider configured: client=%v err=%v, want nil, nil", c, err)
	}
	for _, cfg := range []Config{
		{Provider: "bing"},
		{Provider: SearXNG},
		{Provider: Brave},
		{SearXNGURL: "file:///etc/passwd"},
		{SearXNGURL: "127.0.0.1:8888"},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) accepted a configuration that cannot work", cfg)
		}
	}
	both := newTestClient(t, Config{SearXNGURL: "http://127.0.0.1:1", BraveKey: "k", Provider: "Brave"})
	if both.Provider() != Brave {
		t.Errorf("explicit provider ignored: %s", both.Provider())
	}
	c := newTestClient(t, Config{SearXNGURL: "http://127.0.0.1:1"})
	for _, tc := range []struct {
		query string
		max   int
	}{{"", 1}, {"   ", 1}, {"q", -1}, {"q", MaxResults + 1}} {
		if _, err := c.Search(context.Background(), tc.query, tc.max); apierr.CodeOf(err) != apierr.InvalidParameter {
			t.Errorf("Search(%q, %d) = %v, want INVALID_PARAMETER", tc.query, tc.max, err)
		}
	}
}
