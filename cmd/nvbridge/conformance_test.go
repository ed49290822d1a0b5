package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/nvbridge/nvbridge/internal/testenv"
)

// conformanceScenarios are the official MCP conformance suite's server
// scenarios (@modelcontextprotocol/conformance 0.1.16, `conformance list
// --server`) that apply to a server with its own tools, prompts and
// resources. The others exercise the suite's reference server and need its
// fixtures, which nvbridge does not (and should not) serve:
//
//	tools-call-simple-text, -image, -audio, -embedded-resource,
//	-mixed-content, -with-logging, -error, -with-progress, -sampling,
//	-elicitation, json-schema-2020-12, elicitation-sep1034-defaults,
//	elicitation-sep1330-enums       call reference tools (test_simple_text, json_schema_2020_12_tool, ...)
//	resources-read-text, -read-binary, resources-templates-read
//	                                read reference resources (test://static-text, test://template/{id}/data)
//	prompts-get-simple, -with-args, -embedded-resource, -with-image
//	                                get reference prompts (test_simple_prompt, ...)
//	server-sse-polling              calls the reference tool test_reconnection (without it: no check runs)
//
// What those cover for nvbridge's own tools, prompts and resources (calls,
// errors, progress, logging, reads) is tested against the real server in
// tools/ and by TestMCPTypeScriptSDK and TestMCPInspectorCLI.
var conformanceScenarios = []string{
	"server-initialize",
	"ping",
	"logging-set-level",
	"completion-complete",
	"tools-list",
	"prompts-list",
	"resources-list",
	"resources-subscribe",
	"resources-unsubscribe",
	"server-sse-multiple-streams",
	"dns-rebinding-protection",
}

// conformanceCheck is one entry of a scenario's checks.json.
type conformanceCheck struct {
	ID           string `json:"id"`
	Status       string `json:"status"`
	ErrorMessage string `json:"errorMessage"`
}

// TestConformance runs every applicable scenario of the official MCP
// conformance suite (make deps installs it with its Node 22 into .deps)
// against `nvbridge mcp --http` on the Go sample: each must report at least
// one SUCCESS and no FAILURE or WARNING.
func TestConformance(t *testing.T) {
	testenv.Require(t, "nvim", "gopls")
	testenv.Isolate(t)
	suite := filepath.Join(testenv.RepoRoot(t), ".deps", "bin", "mcp-conformance")
	if _, err := os.Stat(suite); err != nil {
		t.Fatalf("the MCP conformance suite is not installed (%v): run `make deps`", err)
	}
	root := testenv.CopySample(t, "go")
	// No token: the suite's client sends none (loopback only, --no-auth).
	_, url := serveHTTPProc(t, root, "--no-auth")
	for _, scenario := range conformanceScenarios {
		t.Run(scenario, func(t *testing.T) {
			out := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), testenv.Timeout())
			defer cancel()
			cmd := exec.CommandContext(ctx, suite, "server", "--url", url, "--scenario", scenario, "-o", out)
			var output bytes.Buffer
			cmd.Stdout, cmd.Stderr = &output, &output
			start := time.Now()
			runErr := cmd.Run()
			checks := readConformanceChecks(t, out)
			passed := 0
			for _, c := range checks {
				switch c.Status {
				case "SUCCESS":
					passed++
				case "FAILURE", "WARNING":
					t.Errorf("%s: %s: %s", c.ID, c.Status, c.ErrorMessage)
				}
			}
			if passed == 0 {
				t.Errorf("no check passed (exit: %v)", runErr)
			}
			if runErr != nil && !t.Failed() {
				t.Errorf("the suite failed without a failing check: %v", runErr)
			}
			if t.Failed() {
				t.Logf("suite output:\n%s", output.String())
			}
			t.Logf("%s: %d check(s) passed in %s", scenario, passed, time.Since(start).Round(time.Millisecond))
		})
	}
}

// readConformanceChecks reads the checks.json the suite wrote under dir
// (in a folder named after the scenario and the time).
func readConformanceChecks(t *testing.T, dir string) []conformanceCheck {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*", "checks.json"))
	if len(files) != 1 {
		t.Fatalf("want one checks.json under %s, found %v", dir, files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var checks []conformanceCheck
	if err := json.Unmarshal(b, &checks); err != nil {
		t.Fatalf("%s: %v", files[0], err)
	}
	return checks
}
