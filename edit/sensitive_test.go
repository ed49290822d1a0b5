package edit_test

import (
	"os"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/edit"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/preview"
)

// TestSensitiveFiles: .git internals, .env files, keys and the project's
// policy file are neither read nor changed (issue 8: a patch added
// fsmonitor to .git/config); the refusal names the file and how to allow
// it; a project file's allow opens nothing (a cloned repository writes it).
func TestSensitiveFiles(t *testing.T) {
	gitConfig := "[core]\n\trepositoryformatversion = 0\n"
	v := newEnv(t, map[string]string{
		".git/config":    gitConfig,
		".env":           "TOKEN=secret\n",
		"keys/id_rsa":    "-----BEGIN OPENSSH PRIVATE KEY-----\n",
		"ok.txt":         "ok\n",
		"swap.txt":       "swap\n",
		"dev.key":        "allowed by the project file\n",
		".nvbridge.json": `{"allow": ["dev.key", ".git/config"]}`,
	})
	refused := func(t *testing.T, err error, file string) {
		t.Helper()
		e := wantCode(t, err, apierr.PreconditionFailed)
		if !strings.Contains(e.Message, file) || !strings.Contains(e.Remediation, "--allow-sensitive") {
			t.Errorf("the refusal does not name %s and how to allow it: %+v", file, e)
		}
	}

	t.Run("a patch to .git/config (fsmonitor)", func(t *testing.T) {
		_, err := v.e.ApplyPatch(v.ctx, "--- a/.git/config\n+++ b/.git/config\n@@ -1,2 +1,3 @@\n [core]\n \trepositoryformatversion = 0\n+\tfsmonitor = touch /tmp/pwned\n", edit.Options{Save: true})
		refused(t, err, ".git/config")
		if got := v.disk(".git/config"); got != gitConfig {
			t.Errorf(".git/config = %q", got)
		}
	})

	t.Run("read, create, rename, delete", func(t *testing.T) {
		_, err := v.client.ReadLines(v.ctx, ".env", 0, 0)
		refused(t, err, ".env")
		_, err = v.e.Submit(v.ctx, preview.Changeset{Files: []preview.FileChange{
			{Kind: preview.OpCreate, Path: "server.pem", Edits: []preview.TextEdit{te(0, 0, 0, 0, "x\n")}}}}, edit.Options{Preview: true})
		refused(t, err, "server.pem")
		_, err = v.e.Submit(v.ctx, preview.Changeset{Files: []preview.FileChange{
			{Kind: preview.OpRename, Path: "ok.txt", NewPath: ".env.local"}}}, edit.Options{Save: true})
		refused(t, err, ".env.local")
		_, err = v.e.Submit(v.ctx, preview.Changeset{Files: []preview.FileChange{
			{Kind: preview.OpRename, Path: ".env", NewPath: "public.txt"}}}, edit.Options{Save: true})
		refused(t, err, ".env")
		_, err = v.e.Submit(v.ctx, preview.Changeset{Files: []preview.FileChange{{Kind: preview.OpDelete, Path: "keys/id_rsa"}}}, edit.Options{})
		refused(t, err, "keys/id_rsa")
		_, err = v.e.Save(v.ctx, ".env", true)
		refused(t, err, ".env")
		_, err = v.e.ApplyPatch(v.ctx, "--- a/.nvbridge.json\n+++ b/.nvbridge.json\n@@ -1 +1 @@\n-"+`{"allow": ["dev.key", ".git/config"]}`+"\n\\ No newline at end of file\n+{\"allow\": [\".git\"]}\n", edit.Options{Save: true})
		refused(t, err, ".nvbridge.json")
		if v.disk("ok.txt") != "ok\n" || v.disk(".env") != "TOKEN=secret\n" || v.disk("keys/id_rsa") == "<missing>" || v.disk("server.pem") != "<missing>" {
			t.Error("a refused change reached the disk")
		}
	})

	t.Run("the project file's allow opens nothing", func(t *testing.T) {
		_, err := v.e.Submit(v.ctx, preview.Changeset{Files: []preview.FileChange{fileChange("dev.key", te(0, 0, 0, 7, "ALLOWED"))}}, edit.Options{Save: true})
		refused(t, err, "dev.key")
		if got := v.disk("dev.key"); got != "allowed by the project file\n" {
			t.Errorf("dev.key = %q", got)
		}
	})

	// A file swapped after the preview for a link into .git: Go's re-check
	// refuses by policy; the Lua guard alone refuses because the path no
	// longer resolves to itself.
	for _, lua := range []bool{false, true} {
		res, err := v.e.Submit(v.ctx, preview.Changeset{Files: []preview.FileChange{fileChange("swap.txt", te(0, 0, 0, 4, "SWAP"))}}, edit.Options{Preview: true})
		if err != nil {
			t.Fatal(err)
		}
		v.swapForLink("swap.txt", v.abs(".git/config"))
		v.e.SkipRecheck(lua)
		_, err = v.e.ApplyStored(v.ctx, res.ChangesetID, true)
		v.e.SkipRecheck(false)
		if lua {
			wantCode(t, err, apierr.Conflict)
		} else {
			refused(t, err, "swap.txt")
		}
		if got := v.disk(".git/config"); got != gitConfig {
			t.Fatalf(".git/config = %q", got)
		}
		if err := os.Remove(v.abs("swap.txt")); err != nil {
			t.Fatal(err)
		}
		v.write("swap.txt", "swap\n")
	}
}

// TestSensitiveResults: references in a file the policy denies are listed
// with where they are but not what the line says; a workspace symbol
// search leaves such files out and counts them.
func TestSensitiveResults(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "go")
	if err := os.WriteFile(root+"/.nvbridge.json", []byte(`{"deny": ["orders/batch.go"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	v := newEnvAt(t, root, nil)
	refs, err := v.client.References(v.ctx, "main.go", lsp.Target{Line: 27, Symbol: "Process"}, lsp.ReferencesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var sawBatch, sawMain bool
	for _, f := range refs.Files {
		switch f.File {
		case "orders/batch.go":
			sawBatch = true
			if !f.Sensitive || len(f.References) == 0 || f.References[0].Context != lsp.SensitiveNote {
				t.Errorf("references in the denied file: %+v", f)
			}
		case "main.go":
			sawMain = f.References[0].Context == "total, err := orders.Process(order)"
		}
	}
	if !sawBatch || !sawMain {
		t.Errorf("references: %+v", refs.Files)
	}
	syms, err := v.client.Symbols(v.ctx, lsp.SymbolsQuery{File: "main.go", Query: "ProcessBatch"})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range syms.Symbols {
		if s.File == "orders/batch.go" {
			t.Errorf("a symbol of the denied file is listed: %+v", s)
		}
	}
	if syms.SensitiveOmitted == 0 {
		t.Errorf("no symbol counted as omitted: %+v", syms)
	}
	_, err = v.client.ReadLines(v.ctx, "orders/batch.go", 0, 0)
	wantCode(t, err, apierr.PreconditionFailed)
}
