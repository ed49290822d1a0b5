package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/nvbridge/nvbridge/websearch"
)

// webTools lists the tools that reach outside the workspace: web_search,
// only when a provider is configured (never a made-up answer).
func webTools(env *Env) []Tool {
	if env == nil || env.Search == nil {
		return nil
	}
	return []Tool{webSearchTool(env)}
}

type webSearchArgs struct {
	Query      string `json:"query" jsonschema:"what to search the web for, e.g. an error message or an API name"`
	MaxResults int    `json:"max_results,omitempty" jsonschema:"how many results to return (default 5, at most 20)"`
}

type webSearchResult struct{ websearch.Answer }

func (r webSearchResult) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d result(s) for %q from %s", len(r.Results), r.Query, r.Provider)
	if r.Cached {
		b.WriteString(" (cached)")
	}
	for _, res := range r.Results {
		fmt.Fprintf(&b, "\n%d. %s\n   %s", res.Rank, res.Title, res.URL)
		if res.Snippet != "" {
			fmt.Fprintf(&b, "\n   %s", res.Snippet)
		}
	}
	return b.String()
}

func webSearchTool(env *Env) Tool {
	return newTool("web_search", "Search the web",
		"Search the web through the provider the user configured (SearXNG or Brave Search): documentation, error messages, APIs that are not in the workspace. Returns title, url, snippet and rank. For code in the workspace use get_symbols, find_references or understand_symbol instead.",
		hints{readOnly: true, openWorld: true}, // the web changes: not idempotent
		func(ctx context.Context, in webSearchArgs) (webSearchResult, error) {
			a, err := env.Search.Search(ctx, in.Query, in.MaxResults)
			return webSearchResult{a}, err
		})
}
