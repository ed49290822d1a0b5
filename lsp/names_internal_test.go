package lsp

import (
	"testing"

	"github.com/nvbridge/nvbridge/lang"
)

// TestNameRank: how a written name reads a candidate (module, enclosing
// types, name), the ranks deciding between readings.
func TestNameRank(t *testing.T) {
	cand := func(file, name, container string, module, scope []string) candidate {
		return candidate{s: Symbol{Name: name, File: file, Container: container}, module: module, scope: scope}
	}
	goMethod := cand("logger.go", "Logger.clone", "go.uber.org/zap", []string{"zap"}, []string{"Logger"})
	goType := cand("zapcore/core.go", "Core", "go.uber.org/zap/zapcore", []string{"zapcore"}, nil)
	goField := cand("zapcore/hook.go", "hooked.Core", "go.uber.org/zap/zapcore", []string{"zapcore"}, []string{"hooked"})
	pyMethod := cand("src/requests/sessions.py", "request", "Session", []string{"requests", "sessions"}, []string{"Session"})
	pyFunc := cand("src/requests/api.py", "get", "", []string{"requests", "api"}, nil)
	tsAlias := cand("src/v3/types.ts", "string", "", []string{"src", "v3", "types"}, nil)
	tsMember := cand("src/v3/tests/Mocker.ts", "string", "", []string{"src", "v3", "tests", "Mocker"}, []string{"Mocker"})
	for _, tc := range []struct {
		name string
		c    candidate
		want int
	}{
		{"Logger.clone", goMethod, rankExact},
		{"zap.Logger.clone", goMethod, rankExact},
		{"clone", goMethod, rankExact},
		{"Sugar.clone", goMethod, 0},
		{"zapcore.Core", goType, rankExact},
		{"zapcore.Core", goField, rankContainer},
		{"hooked.Core", goField, rankExact}, // gopls's own name
		{"zapcore.hooked.Core", goField, rankExact},
		{"requests.sessions.Session.request", pyMethod, rankExact},
		{"sessions.Session.request", pyMethod, rankQualified},
		{"Session.request", pyMethod, rankMember},
		{"requests.Session.request", pyMethod, rankReexport},
		{"requests.get", pyFunc, rankReexport},
		{"api.get", pyFunc, rankQualified},
		// An alias reading: it counts only when Session is declared as a
		// module alias (a variable or module), which bestOf checks.
		{"Session.get", pyFunc, rankAlias},
		{"z.string", tsAlias, rankAlias},
		{"z.string", tsMember, 0},
		{"Mocker.string", tsMember, rankMember},
	} {
		if got := nameRank(tc.c, tc.name, lang.SplitName(tc.name), false); got != tc.want {
			t.Errorf("nameRank(%q, %s) = %d, want %d", tc.name, tc.c.s.Name, got, tc.want)
		}
	}
	// Case folds only when asked.
	if nameRank(pyMethod, "session.REQUEST", lang.SplitName("session.REQUEST"), false) != 0 ||
		nameRank(pyMethod, "session.REQUEST", lang.SplitName("session.REQUEST"), true) != rankMember {
		t.Error("case folding")
	}
}
