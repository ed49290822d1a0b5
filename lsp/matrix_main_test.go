package lsp_test

import (
	"os"
	"testing"

	"github.com/nvbridge/nvbridge/internal/testenv"
)

// TestMain runs the package's tests and then checks the language matrix
// (testenv.MatrixMain): every cell lang/matrix.json credits to a test of
// this package was verified again.
func TestMain(m *testing.M) { os.Exit(testenv.MatrixMain(m)) }
