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
		{goLang, "total", true},
		{goLang, "Total_2", true},
		{goLang, "名前", true},
		{goLang, "_", false},
		{goLang, "func", false},
		{goLang, "range", false},
		{goLang, "2total", false},
		{goLang, "my-name", false},
		{goLang, "a b", false},
		{goLang, "$x", false},
		{goLang, "", false},
		{pythonLang, "tax_of", true},
		{pythonLang, "match", true}, // soft keyword
		{pythonLang, "café", true},
		{pythonLang, "class", false},
		{pythonLang, "None", false},
		{pythonLang, "lambda", false},
		{typescriptLang, "$el", true},
		{typescriptLang, "_private", true},
		{typescriptLang, "string", true}, // a type name, not reserved
		{typescriptLang, "let", false},
		{typescriptLang, "enum", false},
		{typescriptLang, "await", false},
		{typescriptLang, "x.y", false},
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
		{goLang, "x := \"newVar\" + `newVar` // newVar\n/* newVar */ y := 'n' + newVar", []string{"x", "y", "newVar"}},
		{pythonLang, "a = 'newVar' + \"\"\"newVar\n\"\"\" # newVar\nb = f\"{newVar}\" + rb'x' + newVar", []string{"a", "b", "newVar"}},
		{typescriptLang, "const a = `t ${newLocal + `${b}`} x` + 'newLocal' // newLocal\n/* c */ $d", []string{"const", "a", "newLocal", "b", "$d"}},
		{typescriptLang, "const s = \"é🎉\"; let ünï = 0x1F + 10n;", []string{"const", "s", "let", "ünï"}},
	}
	for _, c := range cases {
		if got := tokenWords(c.lang, c.src); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s %q: tokens %q, want %q", c.lang.DisplayName(), c.src, got, c.want)
		}
	}
}
