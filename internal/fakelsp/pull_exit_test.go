package fakelsp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nvbridge/nvbridge/internal/fakelsp"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/tools"
)

// TestPullServerExits: a server that exits while asked for a file's
// diagnostics (pull) never answers, and Neovim drops the request's
// callback: the pull must end with the file failed, not wait for its
// caller's deadline (a verified apply during which gopls was killed waited
// forever on it).
func TestPullServerExits(t *testing.T) {
	testenv.Require(t, "nvim")
	root := t.TempDir()
	file := filepath.Join(root, "notes.txt")
	if err := os.WriteFile(file, []byte("hello world\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, err := fakelsp.Spec("fakelsp-pull", []string{"text"}, fakelsp.Script{Methods: map[string]string{
		"textDocument/diagnostic": fakelsp.Crash,
	}})
	if err != nil {
		t.Fatal(err)
	}
	s, client := testenv.EmbeddedWith(t, root, nvim.Options{ExtraServers: []nvim.ServerSpec{spec}})
	env := tools.NewEnv(s, client, t.Logf)
	ctx := testenv.Context(t)
	if _, code, msg := callTool(ctx, t, env, "get_buffer_info", `{"file":"notes.txt","include_content":false}`); code != "" {
		t.Fatal(code, msg)
	}
	real, err := filepath.EvalSymlinks(file)
	if err != nil {
		t.Fatal(err)
	}
	var raw string
	if err := s.ServerBuffers(ctx, &raw, []string{real}); err != nil {
		t.Fatal(err)
	}
	var info struct {
		Clients []struct {
			ID   int    `json:"id"`
			Name string `json:"name"`
		} `json:"clients"`
	}
	if err := json.Unmarshal([]byte(raw), &info); err != nil || len(info.Clients) != 1 || info.Clients[0].Name != "fakelsp-pull" {
		t.Fatalf("clients of notes.txt: %s (%v)", raw, err)
	}
	// The deadline is the test's failure, not the pull's answer: the
	// server's exit must end the pull long before it.
	bounded, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	answer, err := s.PullDiagnostics(bounded, info.Clients[0].ID, []string{real})
	if err != nil {
		t.Fatalf("pull from a server that exits: %v (want an answer naming the file failed)", err)
	}
	var pulled struct {
		Failed map[string]string `json:"failed"`
	}
	if err := json.Unmarshal(answer, &pulled); err != nil {
		var s string
		if json.Unmarshal(answer, &s) != nil || json.Unmarshal([]byte(s), &pulled) != nil {
			t.Fatalf("decode %s: %v", answer, err)
		}
	}
	if msg := pulled.Failed[real]; !strings.Contains(msg, "exited") {
		t.Fatalf("failed = %v, want %s failed as the server exited", pulled.Failed, real)
	}
}
