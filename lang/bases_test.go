package lang

import (
	"fmt"
	"strings"
	"testing"
)

func TestBaseNames(t *testing.T) {
	for _, tc := range []struct {
		lines []string
		want  string // name@line:byte, space-separated
	}{
		{[]string{"class Card(PaymentMethod):"}, "PaymentMethod@0:11"},
		{[]string{"class PremiumCard(Card):"}, "Card@0:18"},
		{[]string{"class A(abc.ABC, Generic[T], metaclass=Meta):"}, "ABC@0:12 Generic@0:17"},
		{[]string{"class A(object):"}, ""},
		{[]string{"class Plain:"}, ""},
		{[]string{"class Wide(", "    Base,", "    mixins.Other,", "):"}, "Base@1:4 Other@2:11"},
		{[]string{"export class Card implements PaymentMethod {"}, "PaymentMethod@0:29"},
		{[]string{"export class PremiumCard extends Card {"}, "Card@0:33"},
		{[]string{"export class Box<T extends Item> extends Base<T> implements A, ns.B<T> {"}, "Base@0:41 A@0:60 B@0:66"},
		{[]string{"export interface RefundableMethod extends PaymentMethod, Named {"}, "PaymentMethod@0:42 Named@0:57"},
		{[]string{"export default abstract class Émile extends Ça {}"}, "Ça@0:45"},
		{[]string{"func notAClass() {}"}, ""},
	} {
		var got []string
		for _, b := range ClassBases(tc.lines) {
			got = append(got, fmt.Sprintf("%s@%d:%d", b.Name, b.Line, b.Byte))
		}
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("baseNames(%q) = %q, want %q", tc.lines, g, tc.want)
		}
	}
}

func TestSubclassAt(t *testing.T) {
	for _, tc := range []struct {
		line string
		ref  string // the referenced name; its first occurrence after the class name is used
		want string // "Name@byte" or ""
	}{
		{"class PremiumCard(Card):", "Card", "PremiumCard@6"},
		{"class Invoice(PaymentMethod):", "PaymentMethod", "Invoice@6"},
		{"export class Card implements PaymentMethod {", "PaymentMethod", "Card@13"},
		{"export class PremiumCard extends Card {", "Card", "PremiumCard@13"},
		{"def charge_first(methods: List[PaymentMethod]) -> None:", "PaymentMethod", ""},
		{"class Holder: field: Card = None", "Card", ""},
		{"class X { y: Card }", "Card", ""},
		{"from shop.payment import DeclinedError, PaymentMethod", "PaymentMethod", ""},
	} {
		m := classHeader.FindStringSubmatchIndex(tc.line)
		from := 0
		if m != nil {
			from = m[3]
		}
		b := strings.Index(tc.line[from:], tc.ref) + from
		got := ""
		if name, at, ok := ClassSubclassAt(tc.line, b); ok {
			got = fmt.Sprintf("%s@%d", name, at)
		}
		if got != tc.want {
			t.Errorf("subclassAt(%q, %q) = %q, want %q", tc.line, tc.ref, got, tc.want)
		}
	}
}
