package lsp_test

// Dockerfile through the registry (lang/dockerfile.go) against real
// dockerfile-language-server-nodejs on a copy of
// testdata/samples/dockerfile: instructions as symbols, the build's
// validation, a build argument's definition, an environment variable
// renamed, UNSUPPORTED naming the server for references.

import (
	"testing"

	"github.com/nvbridge/nvbridge/lsp"
)

func TestDockerfileLanguage(t *testing.T) {
	e := newLangEnv(t, "dockerfile", "dockerfile", "docker-langserver", "docker-langserver")

	t.Run("symbols", func(t *testing.T) {
		e.symbols(t, "Dockerfile", "function ARG Dockerfile:1:0", "function FROM Dockerfile:2:0", "function ENV Dockerfile:3:0",
			"function WORKDIR Dockerfile:4:0", "function COPY Dockerfile:5:0", "function RUN Dockerfile:6:0",
			"function FROM Dockerfile:8:0", "function COPY Dockerfile:9:0", "function CMD Dockerfile:10:0")
	})
	t.Run("diagnostics", func(t *testing.T) {
		e.diagnostics(t, "Dockerfile")
		e.diagnostics(t, "broken.dockerfile", "2 error dockerfile-utils: Invalid containerPort: port")
	})
	t.Run("definition of a build argument", func(t *testing.T) {
		e.definition(t, "Dockerfile", lsp.Target{Line: 2, Symbol: "VERSION"}, "Dockerfile:1:4")
	})
	t.Run("rename", func(t *testing.T) {
		e.rename(t, "Dockerfile", lsp.Target{Line: 3, Symbol: "APP_HOME"}, "APP_DIR", []string{"Dockerfile"},
			"-ENV APP_HOME=/srv/app", "-WORKDIR $APP_HOME", "+ENV APP_DIR=/srv/app", "+WORKDIR $APP_DIR",
			`-RUN echo "building in $APP_HOME"`, `+RUN echo "building in $APP_DIR"`)
	})
	t.Run("references are UNSUPPORTED", func(t *testing.T) {
		_, err := e.client.References(e.ctx, "Dockerfile", lsp.Target{Line: 3, Symbol: "APP_HOME"}, lsp.ReferencesOptions{})
		e.unsupported(t, "find_references", "textDocument/references", err)
	})
}
