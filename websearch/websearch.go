// Package websearch is nvbridge's thin, honest client of a web search
// provider the user configured: a SearXNG instance (its JSON API) or the
// Brave Search API. nvbridge has no search engine of its own: with no
// provider configured there is no web_search tool, never a made-up answer.
package websearch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nvbridge/nvbridge/apierr"
)

// Providers nvbridge can query.
const (
	SearXNG = "searxng"
	Brave   = "brave"
)

// Environment variables that configure a provider when no flag does.
const (
	EnvSearXNGURL = "NVBRIDGE_SEARXNG_URL"
	EnvBraveKey   = "BRAVE_API_KEY"
)

// BraveEndpoint is the Brave Search API's web search endpoint.
const BraveEndpoint = "https://api.search.brave.com/res/v1/web/search"

// Bounds on one search.
const (
	DefaultResults = 5
	MaxResults     = 20
	// maxBody bounds what is read of a provider's answer.
	maxBody = 4 << 20
	// snippetRunes bounds one result's snippet.
	snippetRunes = 500
)

// Config selects and configures a provider.
type Config struct {
	// Provider is SearXNG, Brave or "" (chosen from what is configured).
	Provider string
	// SearXNGURL is the SearXNG instance's base URL, e.g.
	// http://127.0.0.1:8888 (its /search endpoint must allow format=json).
	SearXNGURL string
	// BraveKey is the Brave Search API subscription token.
	BraveKey string
	// BraveURL overrides BraveEndpoint (tests, proxies).
	BraveURL string
	// Timeout bounds one request to the provider (default 10 s).
	Timeout time.Duration
	// CacheTTL is how long an identical query is answered from memory
	// (default 5 minutes; negative disables the cache).
	CacheTTL time.Duration
	// HTTPClient is used for requests (default: a client with Timeout).
	HTTPClient *http.Client
}

// FromEnv fills what the configuration leaves empty from the environment.
func (c Config) FromEnv() Config {
	if c.SearXNGURL == "" {
		c.SearXNGURL = os.Getenv(EnvSearXNGURL)
	}
	if c.BraveKey == "" {
		c.BraveKey = os.Getenv(EnvBraveKey)
	}
	return c
}

// HowToEnable says how to configure a provider; get_status and the CLI
// show it when none is.
const HowToEnable = "web_search needs a provider: run a SearXNG instance with the JSON format enabled and pass --searxng-url URL (or set " +
	EnvSearXNGURL + "), or set " + EnvBraveKey + " to a Brave Search API key (--search-provider chooses when both are set)"

// Result is one search hit.
type Result struct {
	Rank    int    `json:"rank"`
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"snippet,omitempty"`
}

// Answer is what a search returns.
type Answer struct {
	Query    string   `json:"query"`
	Provider string   `json:"provider"`
	Results  []Result `json:"results"`
	// Cached says the answer came from the short cache of identical
	// queries rather than a new request.
	Cached bool `json:"cached,omitempty"`
}

// Client queries one provider, with a short cache of identical queries.
type Client struct {
	provider string
	endpoint string // SearXNG base URL or Brave endpoint
	key      string
	http     *http.Client
	ttl      time.Duration

	mu    sync.Mutex
	cache map[cacheKey]cacheEntry
	now   func() time.Time
}

type cacheKey struct {
	query string
	max   int
}

type cacheEntry struct {
	results []Result
	at      time.Time
}

// maxCacheEntries bounds the cache; the oldest entry is dropped first.
const maxCacheEntries = 128

// New returns a client for the configured provider, nil when none is
// configured, or an error for a configuration that cannot work.
func New(cfg Config) (*Client, error) {
	provider := strings.ToLower(strings.TrimSpace(cfg.Provider))
	if provider == "" {
		switch {
		case cfg.SearXNGURL != "":
			provider = SearXNG
		case cfg.BraveKey != "":
			provider = Brave
		default:
			return nil, nil
		}
	}
	c := &Client{provider: provider, ttl: cfg.CacheTTL, http: cfg.HTTPClient, cache: map[cacheKey]cacheEntry{}, now: time.Now}
	if c.ttl == 0 {
		c.ttl = 5 * time.Minute
	}
	if c.http == nil {
		timeout := cfg.Timeout
		if timeout <= 0 {
			timeout = 10 * time.Second
		}
		c.http = &http.Client{Timeout: timeout}
	}
	switch provider {
	case SearXNG:
		if cfg.SearXNGURL == "" {
			return nil, fmt.Errorf("--search-provider searxng needs --searxng-url or %s", EnvSearXNGURL)
		}
		u, err := url.Parse(cfg.SearXNGURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("searxng URL %q: want http(s)://host[:port][/path]", cfg.SearXNGURL)
		}
		c.endpoint = strings.TrimRight(u.String(), "/") + "/search"
	case Brave:
		if cfg.BraveKey == "" {
			return nil, fmt.Errorf("--search-provider brave needs %s", EnvBraveKey)
		}
		c.key = cfg.BraveKey
		c.endpoint = BraveEndpoint
		if cfg.BraveURL != "" {
			c.endpoint = cfg.BraveURL
		}
	default:
		return nil, fmt.Errorf("unknown search provider %q (want %s or %s)", cfg.Provider, SearXNG, Brave)
	}
	return c, nil
}

// Provider names the configured provider.
func (c *Client) Provider() string { return c.provider }

// Search returns up to max results for query (DefaultResults when max is 0).
func (c *Client) Search(ctx context.Context, query string, max int) (Answer, error) {
	query = strings.TrimSpace(query)
	if query == "" {
		return Answer{}, apierr.New(apierr.InvalidParameter, "query is empty", "pass the words to search for")
	}
	if max == 0 {
		max = DefaultResults
	}
	if max < 1 || max > MaxResults {
		return Answer{}, apierr.Errorf(apierr.InvalidParameter, fmt.Sprintf("pass max_results between 1 and %d", MaxResults),
			"max_results %d is out of range", max)
	}
	key := cacheKey{query, max}
	if results, ok := c.cached(key); ok {
		return Answer{Query: query, Provider: c.provider, Results: results, Cached: true}, nil
	}
	var results []Result
	var err error
	switch c.provider {
	case SearXNG:
		results, err = c.searxng(ctx, query, max)
	default:
		results, err = c.brave(ctx, query, max)
	}
	if err != nil {
		return Answer{}, err
	}
	c.store(key, results)
	return Answer{Query: query, Provider: c.provider, Results: results}, nil
}

func (c *Client) cached(k cacheKey) ([]Result, bool) {
	if c.ttl < 0 {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.cache[k]
	if !ok || c.now().Sub(e.at) > c.ttl {
		return nil, false
	}
	return append([]Result(nil), e.results...), true
}

func (c *Client) store(k cacheKey, results []Result) {
	if c.ttl < 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.cache) >= maxCacheEntries {
		var oldest cacheKey
		first := true
		for key, e := range c.cache {
			if first || e.at.Before(c.cache[oldest].at) {
				oldest, first = key, false
			}
		}
		delete(c.cache, oldest)
	}
	c.cache[k] = cacheEntry{results: append([]Result(nil), results...), at: c.now()}
}

// searxngAnswer is the part of SearXNG's format=json answer nvbridge reads.
type searxngAnswer struct {
	Results []struct {
		Title   string `json:"title"`
		URL     string `json:"url"`
		Content string `json:"content"`
	} `json:"results"`
}

func (c *Client) searxng(ctx context.Context, query string, max int) ([]Result, error) {
	q := url.Values{"q": {query}, "format": {"json"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.endpoint+"?"+q.Encode(), nil)
	if err != nil {
		return nil, apierr.Errorf(apierr.OperationFailed, "check --searxng-url", "cannot build the SearXNG request: %v", err)
	}
	req.Header.Set("Accept", "application/json")
	var a searxngAnswer
	if err := c.do(req, "SearXNG", &a); err != nil {
		return nil, err
	}
	var out []Result
	for _, r := range a.Results {
		if len(out) == max {
			break
		}
		if r.URL == "" {
			continue
		}
		out = append(out, Result{Rank: len(out) + 1, Title: clean(r.Title), URL: r.URL, Snippet: clean(r.Content)})
	}
	return out, nil
}

// braveAnswer is the part of Brave's web search answer nvbridge reads.
type braveAnswer struct {
	Web *struct {
		Results []struct {
			Title       string `json:"title"`
			URL         string `json:"url"`
			Description string `json:"description"`
		} `json:"results"`
	} `json:"web"`
}

func (c *Client) brave(ctx context.Context, query string, max int) ([]Result, error) {
	q := url.Values{"q": {query}, "count": {strconv.Itoa(max)}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.endpoint+"?"+q.Encode(), nil)
	if err != nil {
		return nil, apierr.Errorf(apierr.OperationFailed, "check the Brave endpoint", "cannot build the Brave request: %v", err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("X-Subscription-Token", c.key)
	var a braveAnswer
	if err := c.do(req, "Brave Search", &a); err != nil {
		return nil, err
	}
	var out []Result
	if a.Web != nil {
		for _, r := range a.Web.Results {
			if len(out) == max {
				break
			}
			if r.URL == "" {
				continue
			}
			out = append(out, Result{Rank: len(out) + 1, Title: clean(r.Title), URL: r.URL, Snippet: clean(r.Description)})
		}
	}
	return out, nil
}

// do sends req and decodes a JSON answer into v, turning every way a
// provider can fail into a structured error.
func (c *Client) do(req *http.Request, name string, v any) error {
	resp, err := c.http.Do(req)
	if err != nil {
		if errors.Is(req.Context().Err(), context.Canceled) {
			return req.Context().Err() // the caller gave up; not the provider's failure
		}
		if req.Context().Err() != nil {
			return apierr.Errorf(apierr.Timeout, "retry the search, with a longer bound if the provider is slow", "%s did not answer before the request's deadline", name)
		}
		var netErr net.Error
		if errors.As(err, &netErr) && netErr.Timeout() {
			return apierr.Errorf(apierr.Timeout, "retry later; the provider is slow or unreachable", "%s did not answer in time", name)
		}
		return apierr.Errorf(apierr.OperationFailed, "check that the provider is reachable from this machine", "cannot reach %s: %v", name, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return apierr.Errorf(apierr.OperationFailed, "retry the search", "reading %s's answer: %v", name, err)
	}
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
		wait := "retry later"
		if after := resp.Header.Get("Retry-After"); after != "" {
			wait = "retry after " + after + " s"
		}
		return apierr.Errorf(apierr.OperationFailed, wait+"; the provider limits how often it may be asked", "%s refused the search: rate limited (HTTP 429)", name)
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return apierr.Errorf(apierr.OperationFailed, "check the API key ("+EnvBraveKey+") or the instance's access settings (SearXNG must allow format=json in settings.yml: search.formats)",
			"%s refused the search (HTTP %d)", name, resp.StatusCode)
	case resp.StatusCode >= 500:
		return apierr.Errorf(apierr.OperationFailed, "retry later; the provider has a problem of its own", "%s failed (HTTP %d)", name, resp.StatusCode)
	case resp.StatusCode != http.StatusOK:
		return apierr.Errorf(apierr.OperationFailed, "check the provider's URL and settings", "%s answered HTTP %d", name, resp.StatusCode)
	}
	if len(body) > maxBody {
		return apierr.Errorf(apierr.OperationFailed, "check the provider's URL", "%s's answer is larger than %d bytes", name, maxBody)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return apierr.Errorf(apierr.OperationFailed, "check that the URL is the provider's JSON API (SearXNG: format=json enabled)",
			"%s's answer is not the expected JSON: %v", name, err)
	}
	return nil
}

// clean collapses whitespace and bounds a title or snippet.
func clean(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > snippetRunes {
		s = string(r[:snippetRunes]) + "…"
	}
	return s
}
