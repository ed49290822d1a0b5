package tools

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/nvbridge/nvbridge/apierr"
)

// toolHint is what suggest_tools knows of a tool beyond its description:
// words an intent uses for it, and one example call.
type toolHint struct {
	words   string
	example string
}

// toolHints cover the tools an intent most often means; a tool without one
// is matched by its name and description (so tools added later are found
// too) and its example is built from its required arguments.
var toolHints = map[string]toolHint{
	"rename_symbol":       {"rename identifier name variable function method type everywhere", `{"file":"orders/orders.go","line":33,"symbol":"Process","new_name":"ProcessOrder"}`},
	"replace_in_buffer":   {"replace text string literal comment typo wording", `{"file":"README.md","old_text":"teh","new_text":"the"}`},
	"edit_buffer":         {"edit lines insert delete add code write change", `{"file":"main.go","start_line":10,"end_line":12,"new_text":"..."}`},
	"apply_patch":         {"patch diff unified apply git", `{"patch":"--- a/main.go\n+++ b/main.go\n@@ ..."}`},
	"find_references":     {"references usages uses callers who where used", `{"file":"orders/orders.go","line":33,"symbol":"Process"}`},
	"find_definition":     {"definition defined declaration go to source where", `{"file":"main.go","line":27,"symbol":"Process"}`},
	"get_diagnostics":     {"errors warnings diagnostics compile problems lint broken", `{"file":"main.go","severity":"error"}`},
	"apply_code_action":   {"fix quick fix code action refactor import", `{"file":"main.go","line":12}`},
	"prepare_change":      {"impact risk safe change before refactor callers affected", `{"file":"orders/orders.go","line":33,"symbol":"Process"}`},
	"understand_symbol":   {"understand explain what symbol overview", `{"query":"orders.Process"}`},
	"get_call_hierarchy":  {"callers callees call graph calls who calls", `{"file":"orders/orders.go","line":33,"symbol":"Process","direction":"incoming"}`},
	"get_symbols":         {"symbols outline functions list structure file workspace search", `{"file":"orders/orders.go"}`},
	"read_file":           {"read file content view show lines", `{"file":"main.go","start_line":1,"end_line":40}`},
	"start_debug_session": {"debug debugger breakpoint failing test run step", `{"test":"TestProcess","program":"orders","breakpoints":[{"file":"orders/orders.go","line":40}]}`},
	"organize_imports":    {"imports unused sort organize", `{"file":"main.go"}`},
	"run_tests":           {"run tests test suite failing passing affected verify", `{"file":"orders/orders.go","line":33,"symbol":"Process"}`},
	"detect_changes":      {"changes changed diff review git working tree since commit branch", `{"revision":"HEAD"}`},
	"format":              {"format formatter indentation gofmt prettier style whitespace", `{"file":"main.go"}`},
	"check_changeset":     {"check chain several changesets together errors before applying", `{"changeset_ids":["cs_1","cs_2"]}`},
	"get_status":          {"status health working servers installed ready", `{}`},
	"extract_function":    {"extract function method split long", `{"file":"main.go","line":20,"end_line":30,"name":"helper"}`},
	"explore":             {"explore area package folder module overview architecture depends importers key recent changes", `{"target":"orders","focus":"changes"}`},
	"batch":               {"batch several many symbols searches names at once list", `{"searches":["Process","Card"],"names":["orders.Process"],"ask":"references"}`},
}

var stopWords = map[string]bool{"the": true, "and": true, "for": true, "with": true, "from": true, "into": true, "this": true, "that": true, "want": true, "need": true, "how": true, "can": true, "all": true, "its": true, "of": true, "to": true, "in": true, "a": true, "an": true, "my": true, "i": true}

type suggestToolsArgs struct {
	Intent string `json:"intent" jsonschema:"what you want to do, in a few words, e.g. rename a function everywhere, fix the errors in main.go, debug a failing test"`
}

// ToolSuggestion is one tool that fits an intent.
type ToolSuggestion struct {
	Tool    string `json:"tool"`
	Why     string `json:"why"`
	Example string `json:"example"`
}

type suggestToolsResult struct {
	Intent      string           `json:"intent"`
	Suggestions []ToolSuggestion `json:"suggestions"`
}

func (r suggestToolsResult) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Tools for %q:", r.Intent)
	for _, s := range r.Suggestions {
		fmt.Fprintf(&b, "\n- %s %s\n  %s", s.Tool, s.Example, s.Why)
	}
	return b.String()
}

func suggestToolsTool(env *Env) Tool {
	return newTool("suggest_tools", "Suggest tools",
		"Name the few tools (at most 5) that fit what you want to do, each with one example call and the first sentence of its description. Use it when unsure which tool fits (replace_in_buffer for text, rename_symbol for identifiers, apply_patch for a diff you already have); only tools the current mode shows are suggested.",
		readOnly,
		func(ctx context.Context, in suggestToolsArgs) (suggestToolsResult, error) {
			words := intentWords(in.Intent)
			if len(words) == 0 {
				return suggestToolsResult{}, apierr.New(apierr.InvalidParameter, "intent says nothing to match", "describe the task in a few words, e.g. \"rename a function everywhere\"")
			}
			f := toolFamilies(env)
			type scored struct {
				s     ToolSuggestion
				score int
			}
			var all []scored
			for _, t := range allTools(env) {
				if env.Modes.refusal(f, t.Tool) != nil || t.Tool.Name == "suggest_tools" {
					continue
				}
				hint := toolHints[t.Tool.Name]
				name := strings.ReplaceAll(t.Tool.Name, "_", " ")
				desc := strings.ToLower(t.Tool.Description)
				score := 0
				for _, w := range words {
					switch {
					case strings.Contains(hint.words, w) || strings.Contains(name, w):
						score += 3
					case strings.Contains(desc, w):
						score++
					}
				}
				if score == 0 {
					continue
				}
				ex := hint.example
				if ex == "" {
					ex = exampleOf(t)
				}
				why, _, _ := strings.Cut(t.Tool.Description, ". ")
				all = append(all, scored{ToolSuggestion{Tool: t.Tool.Name, Why: why, Example: ex}, score})
			}
			sort.SliceStable(all, func(i, j int) bool {
				if all[i].score != all[j].score {
					return all[i].score > all[j].score
				}
				return all[i].s.Tool < all[j].s.Tool
			})
			out := suggestToolsResult{Intent: in.Intent, Suggestions: []ToolSuggestion{}}
			for i := 0; i < len(all) && i < 5; i++ {
				out.Suggestions = append(out.Suggestions, all[i].s)
			}
			if len(out.Suggestions) == 0 {
				return out, apierr.Errorf(apierr.ResourceNotFound, "rephrase the intent with the words of a task (rename, references, errors, debug, edit), or call tools/list", "no tool matches %q", in.Intent)
			}
			return out, nil
		})
}

func intentWords(intent string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(intent), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		if len(w) >= 3 && !stopWords[w] {
			out = append(out, strings.TrimSuffix(w, "s"))
		}
	}
	return out
}

// exampleOf sketches a call from the tool's required arguments.
func exampleOf(t Tool) string {
	var parts []string
	for _, name := range t.Tool.InputSchema.Required {
		parts = append(parts, fmt.Sprintf("%q:...", name))
	}
	return "{" + strings.Join(parts, ",") + "}"
}
