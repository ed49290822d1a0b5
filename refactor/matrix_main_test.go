package refactor_test

import (
	"context"
	"os"
	"testing"

	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
)

// TestMain runs the package's tests and then checks the language matrix
// (testenv.MatrixMain): every cell lang/matrix.json credits to a test of
// this package (the refactorings: rename_symbol) was verified again.
func TestMain(m *testing.M) { os.Exit(testenv.MatrixMain(m)) }

// verifiedBy records that the running test verified tools for language
// through server (its version as the running server says).
func verifiedBy(t *testing.T, ctx context.Context, client *lsp.Client, language, server string, tools ...string) {
	t.Helper()
	testenv.Verified(t, language, server, testenv.ServerVersion(t, ctx, client, server), tools...)
}
