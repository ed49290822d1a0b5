package tools_test

import (
	"os"
	"testing"

	"github.com/nvbridge/nvbridge/internal/fakelsp"
)

// TestMain lets this test binary double as the scripted fake language
// server (fault injection only: a crash for get_status).
func TestMain(m *testing.M) {
	fakelsp.MaybeServe()
	os.Exit(m.Run())
}
