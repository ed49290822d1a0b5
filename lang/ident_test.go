package lang

import (
	"reflect"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
)

func TestValidateIdentifier(t *testing.T) {
	cases := []struct {
		lang *Language
		name string
		ok   bool
	}{
		{Go, "total", true},
		{Go, "Total_2", true},
		{Go, "名前", true},
		{Go, "_", false},
		{Go, "func", false},
		{Go, "range", false},
		{Go, "2total", false},
		{Go, "my-name", false},
		{Go, "a b", false},
		{Go, "$x", false},
		{Go, "", false},
		{Python, "tax_of", true},
		{Python, "match", true}, // soft keyword
		{Python, "café", true},
		{Python, "class", false},
		{Python, "None", false},
		{Python, "lambda", false},
		{TypeScript, "$el", true},
		{TypeScript, "_private", true},
		{TypeScript, "string", true}, // a type name, not reserved
		{TypeScript, "let", false},
		{TypeScript, "enum", false},
		{TypeScript, "await", false},
		{TypeScript, "x.y", false},
		{nil, "anything_1", true},
		{nil, "no-dash", false},
	}
	for _, c := range cases {
		err := ValidateIdentifier(c.lang, c.name)
		if (err == nil) != c.ok {
			t.Errorf("ValidateIdentifier(%s, %q) = %v, want ok=%v", c.lang.DisplayName(), c.name, err, c.ok)
		}
		if err != nil && apierr.CodeOf(err) != apierr.InvalidParameter {
			t.Errorf("ValidateIdentifier(%s, %q): code %s, want INVALID_PARAMETER", c.lang.DisplayName(), c.name, apierr.CodeOf(err))
		}
	}
}

func tokenWords(lang *Language, src string) []string {
	var out []string
	for _, t := range Identifiers(lang, src) {
		out = append(out, src[t.Start:t.End])
	}
	return out
}

func TestIdentifierTokensSkipStringsAndComments(t *testing.T) {
	cases := []struct {
		lang *Language
		src  string
		want []string
	}{
		{Go, "x := \"newVar\" + `newVar` // newVar\n/* newVar */ y := 'n' + newVar", []string{"x", "y", "newVar"}},
		{Python, "a = 'newVar' + \"\"\"newVar\n\"\"\" # newVar\nb = f\"{newVar}\" + rb'x' + newVar", []string{"a", "b", "newVar"}},
		{TypeScript, "const a = `t ${newLocal + `${b}`} x` + 'newLocal' // newLocal\n/* c */ $d", []string{"const", "a", "newLocal", "b", "$d"}},
		{TypeScript, "const s = \"é🎉\"; let ünï = 0x1F + 10n;", []string{"const", "s", "let", "ünï"}},
	}
	for _, c := range cases {
		if got := tokenWords(c.lang, c.src); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s %q: tokens %q, want %q", c.lang.DisplayName(), c.src, got, c.want)
		}
	}
}
