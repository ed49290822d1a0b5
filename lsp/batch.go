package lsp

// Batches: several questions in one call, each answered (or failed) on
// its own and keyed by its query: workspace symbol searches, and symbols
// named by name whose references or whole understanding are wanted.

import (
	"context"
	"strings"

	"github.com/nvbridge/nvbridge/apierr"
)

// Bounds of a batch.
const (
	// MaxBatchSearches bounds the workspace symbol searches of one batch.
	MaxBatchSearches = 10
	// MaxBatchSymbols bounds the symbols named in one batch.
	MaxBatchSymbols = 50
	// batchConcurrency bounds the questions in flight at once.
	batchConcurrency = 4
)

// BatchRequest is one batch: searches and/or names.
type BatchRequest struct {
	// Searches are workspace symbol queries (at most MaxBatchSearches).
	Searches []string
	// MaxResults bounds each search's symbols (default DefaultMaxSymbols).
	MaxResults int
	// Names are symbols' names, optionally qualified (at most
	// MaxBatchSymbols), each resolved with ResolveName.
	Names []string
	// Ask is what is wanted of each named symbol: "references" or
	// "understand" (understand_symbol's answer; the default).
	Ask string
	// MaxReferences bounds the references listed per symbol (default
	// DefaultUnderstandReferences).
	MaxReferences int
	// File, when given, picks the language server (as get_symbols' file).
	File string
}

// SymbolSearch is one search's answer, or its error.
type SymbolSearch struct {
	Query     string        `json:"query"`
	Total     int           `json:"total,omitempty"`
	Truncated bool          `json:"truncated,omitempty"`
	Symbols   []Symbol      `json:"symbols,omitempty"`
	NotReady  []string      `json:"not_ready,omitempty"`
	Error     *apierr.Error `json:"error,omitempty"`
}

// NamedAnswer is what was asked of one named symbol, or its error: the
// declaration the name resolved to and its references or understanding.
type NamedAnswer struct {
	Name          string            `json:"name"`
	Resolved      *NamedSymbol      `json:"resolved,omitempty"`
	References    *ReferencesResult `json:"references,omitempty"`
	Understanding *UnderstandResult `json:"understanding,omitempty"`
	Error         *apierr.Error     `json:"error,omitempty"`
}

// BatchResult answers a batch, in the order asked.
type BatchResult struct {
	Searches []SymbolSearch `json:"searches"`
	Symbols  []NamedAnswer  `json:"symbols"`
	// Failed counts the entries answered with an error.
	Failed int `json:"failed"`
}

// Batch answers several searches and named symbols in one call, at most
// batchConcurrency at a time; one entry failing fails only that entry.
func (c *Client) Batch(ctx context.Context, req BatchRequest) (BatchResult, error) {
	if len(req.Searches) == 0 && len(req.Names) == 0 {
		return BatchResult{}, apierr.New(apierr.InvalidParameter, "the batch is empty",
			"pass searches (workspace symbol queries) and/or names (symbols' names, optionally qualified)")
	}
	if len(req.Searches) > MaxBatchSearches || len(req.Names) > MaxBatchSymbols {
		return BatchResult{}, apierr.Errorf(apierr.InvalidParameter,
			"split the batch: at most 10 searches and 50 names a call",
			"%d searches and %d names asked (at most %d and %d)", len(req.Searches), len(req.Names), MaxBatchSearches, MaxBatchSymbols)
	}
	switch req.Ask {
	case "":
		req.Ask = "understand"
	case "understand", "references":
	default:
		return BatchResult{}, apierr.Errorf(apierr.InvalidParameter, `ask is "understand" (the default) or "references"`,
			"unknown ask %q", req.Ask)
	}
	if err := checkLimit(&req.MaxResults, "max_results", DefaultMaxSymbols); err != nil {
		return BatchResult{}, err
	}
	if err := checkLimit(&req.MaxReferences, "max_references", DefaultUnderstandReferences); err != nil {
		return BatchResult{}, err
	}
	out := BatchResult{Searches: make([]SymbolSearch, len(req.Searches)), Symbols: make([]NamedAnswer, len(req.Names))}
	n := len(req.Searches) + len(req.Names)
	panics := runBounded(ctx, n, batchConcurrency, func(i int) {
		if i < len(req.Searches) {
			out.Searches[i] = c.batchSearch(ctx, req.Searches[i], req)
			return
		}
		out.Symbols[i-len(req.Searches)] = c.batchNamed(ctx, req.Names[i-len(req.Searches)], req)
	})
	if err := apierr.FromContext(ctx, "batch", "retry with fewer entries or a larger timeout"); err != nil {
		return BatchResult{}, err
	}
	for i, err := range panics {
		if err == nil {
			continue
		}
		if i < len(req.Searches) {
			out.Searches[i] = SymbolSearch{Query: req.Searches[i], Error: apierr.As(err)}
		} else {
			out.Symbols[i-len(req.Searches)] = NamedAnswer{Name: req.Names[i-len(req.Searches)], Error: apierr.As(err)}
		}
	}
	for _, s := range out.Searches {
		if s.Error != nil {
			out.Failed++
		}
	}
	for _, s := range out.Symbols {
		if s.Error != nil {
			out.Failed++
		}
	}
	return out, nil
}

func (c *Client) batchSearch(ctx context.Context, query string, req BatchRequest) SymbolSearch {
	out := SymbolSearch{Query: query}
	if strings.TrimSpace(query) == "" {
		out.Error = apierr.New(apierr.InvalidParameter, "an empty search", "give each search a name to look for")
		return out
	}
	res, err := c.Symbols(ctx, SymbolsQuery{Query: query, File: req.File, MaxResults: req.MaxResults})
	if err != nil {
		out.Error = apierr.As(err)
		return out
	}
	out.Total, out.Truncated, out.Symbols, out.NotReady = res.Total, res.Truncated, res.Symbols, res.NotReady
	return out
}

func (c *Client) batchNamed(ctx context.Context, name string, req BatchRequest) NamedAnswer {
	out := NamedAnswer{Name: name}
	named, err := c.ResolveName(ctx, name, req.File)
	if err != nil {
		out.Error = apierr.As(err)
		return out
	}
	out.Resolved = &named
	s := named.Symbol
	col := s.Column
	switch req.Ask {
	case "references":
		r, err := c.References(ctx, s.File, Target{Line: s.Line, Column: &col}, ReferencesOptions{IncludeDeclaration: true, MaxResults: req.MaxReferences})
		if err != nil {
			out.Error = apierr.As(err)
			return out
		}
		out.References = &r
	default:
		u, err := c.Understand(ctx, UnderstandRequest{File: s.File, Target: Target{Line: s.Line, Column: &col}, MaxReferences: req.MaxReferences})
		if err != nil {
			out.Error = apierr.As(err)
			return out
		}
		out.Understanding = &u
	}
	return out
}
