package lsp_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
)

func stFactor(t *testing.T, res lsp.ImpactResult, name string) lsp.RiskFactor {
	t.Helper()
	for _, f := range res.Factors {
		if f.Name == name {
			return f
		}
	}
	t.Fatalf("no factor %q in %+v", name, res.Factors)
	return lsp.RiskFactor{}
}

func stCallers(cs []lsp.ImpactCaller) string {
	var out []string
	for _, c := range cs {
		out = append(out, fmt.Sprintf("%s@%d<-%s", c.Name, c.Depth, c.Calls))
	}
	return stSorted(out...)
}

func TestImpactGopls(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "go")
	_, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)

	t.Run("orders.Process: exported, crosses packages, tested", func(t *testing.T) {
		res, err := client.Impact(ctx, lsp.ImpactRequest{File: "orders/orders.go", Target: stAt(33, "Process")})
		if err != nil {
			t.Fatal(err)
		}
		if res.Symbol.Name != "Process" || res.Symbol.Kind != "function" || res.Package != "orders" || !res.Exported {
			t.Fatalf("symbol %+v package %q exported %v", res.Symbol, res.Package, res.Exported)
		}
		if got := stCallers(res.DirectCallers); got != "ProcessBatch@1<- TestProcess@1<- main@1<-" {
			t.Errorf("direct callers = %q", got)
		}
		if len(res.TransitiveCallers) != 0 || res.References != 4 || res.Truncated {
			t.Errorf("transitive %+v references %d truncated %v", res.TransitiveCallers, res.References, res.Truncated)
		}
		if strings.Join(res.Files, " ") != "main.go orders/batch.go orders/orders_test.go" || strings.Join(res.Packages, " ") != ". orders" {
			t.Errorf("files %v packages %v", res.Files, res.Packages)
		}
		if len(res.Tests) != 1 || res.Tests[0].File != "orders/orders_test.go" {
			t.Errorf("tests = %+v", res.Tests)
		}
		if f := stFactor(t, res, "crosses_packages"); f.Value != true || f.Points != 1 || !strings.Contains(f.Detail, ".") {
			t.Errorf("crosses_packages = %+v", f)
		}
		if strings.Join(res.DirectPackages, " ") != "." || len(res.ReachedPackages) != 0 {
			t.Errorf("direct packages %v, reached packages %v; want . and none", res.DirectPackages, res.ReachedPackages)
		}
		if f := stFactor(t, res, "exported"); f.Value != true || f.Points != 1 {
			t.Errorf("exported = %+v", f)
		}
		if f := stFactor(t, res, "tests"); f.Value != 1 || f.Points != -1 {
			t.Errorf("tests = %+v", f)
		}
		if f := stFactor(t, res, "files"); f.Value != 3 || f.Points != 1 {
			t.Errorf("files = %+v", f)
		}
		if res.Score != 2 || res.Risk != lsp.RiskMedium {
			t.Errorf("score %d risk %s, factors %+v", res.Score, res.Risk, res.Factors)
		}
	})

	t.Run("validateConfig: private chain to main, untested", func(t *testing.T) {
		res, err := client.Impact(ctx, lsp.ImpactRequest{File: "config/config.go", Target: stAt(45, "validateConfig")})
		if err != nil {
			t.Fatal(err)
		}
		if res.Exported || res.Package != "config" {
			t.Fatalf("exported %v package %q", res.Exported, res.Package)
		}
		if got := stCallers(res.DirectCallers); got != "parseConfig@1<-" {
			t.Errorf("direct callers = %q", got)
		}
		if got := stCallers(res.TransitiveCallers); got != "LoadConfig@2<-parseConfig main@3<-LoadConfig" {
			t.Errorf("transitive callers = %q", got)
		}
		if strings.Join(res.Files, " ") != "main.go" || strings.Join(res.Packages, " ") != "." {
			t.Errorf("files %v packages %v", res.Files, res.Packages)
		}
		if f := stFactor(t, res, "crosses_packages"); f.Value != false || f.Points != 0 ||
			!strings.Contains(f.Detail, "directly only inside its own package config") ||
			!strings.Contains(f.Detail, "reached through callers of callers from 1 other package(s): .") {
			t.Errorf("crosses_packages = %+v (only main, a transitive caller, is elsewhere)", f)
		}
		if len(res.DirectPackages) != 0 || strings.Join(res.ReachedPackages, " ") != "." {
			t.Errorf("direct packages %v, reached packages %v; want none and .", res.DirectPackages, res.ReachedPackages)
		}
		if f := stFactor(t, res, "tests"); f.Value != 0 || f.Points != 1 {
			t.Errorf("tests = %+v", f)
		}
		if res.Risk != lsp.RiskLow || res.Score != 1 || res.Truncated {
			t.Errorf("score %d risk %s truncated %v", res.Score, res.Risk, res.Truncated)
		}
	})

	t.Run("depth 1 cuts the chain", func(t *testing.T) {
		res, err := client.Impact(ctx, lsp.ImpactRequest{File: "config/config.go", Target: stAt(45, "validateConfig"), Depth: 1})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Truncated || len(res.TransitiveCallers) != 0 || stFactor(t, res, "truncated").Points != 1 {
			t.Fatalf("truncated %v transitive %+v", res.Truncated, res.TransitiveCallers)
		}
	})

	t.Run("Widget: a type used in 22 files is high risk", func(t *testing.T) {
		res, err := client.Impact(ctx, lsp.ImpactRequest{File: "widgets/widget.go", Target: stAt(7, "Widget")})
		if err != nil {
			t.Fatal(err)
		}
		if res.NotApplicable["callers"] == "" || len(res.DirectCallers) != 0 {
			t.Errorf("callers of a type: %+v / %v", res.DirectCallers, res.NotApplicable)
		}
		if res.References != 24 || len(res.Files) != 21 || res.Symbol.Kind != "struct" {
			t.Errorf("references %d files %d symbol %+v", res.References, len(res.Files), res.Symbol)
		}
		if res.Risk != lsp.RiskHigh {
			t.Errorf("risk %s score %d factors %+v", res.Risk, res.Score, res.Factors)
		}
	})

	t.Run("errors", func(t *testing.T) {
		_, err := client.Impact(ctx, lsp.ImpactRequest{File: "orders/orders.go", Target: stAt(33, "Process"), Depth: 7})
		stWantCode(t, err, apierr.InvalidParameter)
		_, err = client.Impact(ctx, lsp.ImpactRequest{File: "orders/orders.go", Target: stAt(33, "Missing")})
		stWantCode(t, err, apierr.ResourceNotFound)
	})
}

func TestImpactPyright(t *testing.T) {
	testenv.Require(t, "nvim", "pyright-langserver")
	root := testenv.CopySample(t, "python")
	_, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)

	var res lsp.ImpactResult
	stEventually(ctx, t, "pyright sees every reference to process", func() error {
		var err error
		res, err = client.Impact(ctx, lsp.ImpactRequest{File: "shop/orders.py", Target: stAt(37, "process")})
		if err == nil && res.References < 8 {
			err = fmt.Errorf("references %d", res.References)
		}
		return err
	})
	if !res.Exported || res.Package != "shop.orders" {
		t.Fatalf("exported %v package %q", res.Exported, res.Package)
	}
	if got := stCallers(res.DirectCallers); got != "main@1<- process_batch@1<- test_empty@1<- test_total@1<-" {
		t.Errorf("direct callers = %q", got)
	}
	if strings.Join(res.Packages, " ") != "shop shop.app tests.test_orders" {
		t.Errorf("packages = %v", res.Packages)
	}
	if len(res.Tests) != 1 || res.Tests[0].File != "tests/test_orders.py" {
		t.Errorf("tests = %+v", res.Tests)
	}
	if f := stFactor(t, res, "crosses_packages"); f.Value != true || f.Points != 2 {
		t.Errorf("crosses_packages = %+v", f)
	}
}
