package tools

import "github.com/nvbridge/nvbridge/apierr"

// Paging of large results (find_references, get_symbols, get_diagnostics):
// offset skips that many results of the whole ordered list, max_results
// bounds the page; the answer keeps total (how many there are in all) and
// says where the next page starts (next_offset, absent on the last page).

type offsetArg struct {
	Offset int `json:"offset,omitempty" jsonschema:"skip this many results of the full ordered list (paging: pass the previous answer's next_offset; default 0)"`
}

// pageInfo is the paging part of an answer.
type pageInfo struct {
	Offset     int  `json:"offset"`
	NextOffset *int `json:"next_offset,omitempty"`
}

func checkOffset(offset int) error {
	if offset < 0 {
		return apierr.Errorf(apierr.InvalidParameter, "pass an offset of 0 or more", "offset %d is negative", offset)
	}
	return nil
}

// page cuts items (the first offset+limit of the full list, of total) to
// the page from offset; limit <= 0 is no bound.
func page[T any](items []T, offset, limit, total int) ([]T, pageInfo) {
	info := pageInfo{Offset: offset}
	if offset >= len(items) {
		items = items[:0]
	} else {
		items = items[offset:]
	}
	if limit > 0 && len(items) > limit {
		items = items[:limit]
	}
	if next := offset + len(items); next < total {
		info.NextOffset = &next
	}
	return items, info
}
