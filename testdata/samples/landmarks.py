#!/usr/bin/env python3
"""Generate README.md (the landmark list) for the sample projects.

Every line/column in README.md is computed here from the files on disk, so the
README cannot drift from the samples:

    python3 testdata/samples/landmarks.py          # rewrite README.md
    python3 testdata/samples/landmarks.py --check  # exit 1 if README.md is stale
"""

import os
import re
import sys

ROOT = os.path.dirname(os.path.abspath(__file__))


class Loc:
    def __init__(self, sample, path, line, text, start):
        self.sample, self.path, self.line, self.text = sample, path, line, text
        prefix = text[:start]
        self.cp = len(prefix)  # Unicode code points
        self.u16 = len(prefix.encode("utf-16-le")) // 2  # UTF-16 code units
        self.byte = len(prefix.encode("utf-8"))  # UTF-8 bytes
        self.ascii = text.isascii()

    def __str__(self):
        # file:line, with the 0-based column of the token.
        if self.ascii:
            return f"`{self.path}:{self.line}` col {self.cp}"
        return f"`{self.path}:{self.line}` col {self.cp} chars / {self.u16} UTF-16 / {self.byte} bytes"

    @property
    def fl(self):
        return f"`{self.path}:{self.line}`"


def lines_of(sample, path):
    with open(os.path.join(ROOT, sample, path), encoding="utf-8", newline="") as f:
        text = f.read()
    assert "\r" not in text, path
    return text.split("\n")


def at(sample, path, needle, token, nth_line=0, nth_tok=0):
    """Locate `token` (as a whole word) on the nth line of path containing `needle`."""
    lines = lines_of(sample, path)
    hits = [i for i, l in enumerate(lines) if needle in l]
    assert len(hits) > nth_line, (path, needle, hits)
    i = hits[nth_line]
    cols = [m.start() for m in re.finditer(r"(?<![\w$])" + re.escape(token) + r"(?![\w$])", lines[i])]
    assert len(cols) > nth_tok, (path, needle, token, lines[i])
    return Loc(sample, path, i + 1, lines[i], cols[nth_tok])


def line_of(sample, path, needle, nth_line=0):
    lines = lines_of(sample, path)
    hits = [i + 1 for i, l in enumerate(lines) if needle in l]
    assert len(hits) > nth_line, (path, needle)
    return hits[nth_line]


def files_with(sample, sub, word, ext):
    out = []
    for dirpath, _, names in os.walk(os.path.join(ROOT, sample, sub)):
        for n in names:
            if n.endswith(ext):
                p = os.path.relpath(os.path.join(dirpath, n), os.path.join(ROOT, sample))
                if re.search(r"\b" + word + r"\b", open(os.path.join(ROOT, sample, p), encoding="utf-8").read()):
                    out.append(p)
    return sorted(out)


def cols_table(locs):
    rows = ["| token | line | chars (code points) | UTF-16 units | UTF-8 bytes |", "|---|---|---|---|---|"]
    for name, l in locs:
        rows.append(f"| `{name}` | {l.line} | {l.cp} | {l.u16} | {l.byte} |")
    return "\n".join(rows)


def go_section():
    S = "go"
    g = lambda *a, **k: at(S, *a, **k)
    proc = g("orders/orders.go", "func Process(", "Process")
    proc_calls = [
        (g("main.go", "orders.Process(order)", "Process"), "main"),
        (g("orders/batch.go", "Process(o)", "Process"), "ProcessBatch"),
        (g("orders/orders_test.go", "Process(o)", "Process"), "TestProcess"),
        (g("orders/orders_test.go", "Process(Order{})", "Process"), "TestProcess"),
    ]
    widget = g("widgets/widget.go", "type Widget struct", "Widget")
    newwidget = g("widgets/widget.go", "func NewWidget(", "NewWidget")
    wfiles = files_with(S, ".", "Widget", ".go")
    assert len(wfiles) == 22, wfiles
    nwfiles = files_with(S, ".", "NewWidget", ".go")
    u = "text/unicode.go"
    greet_line = g(u, "greeting := ", "greeting")
    describe_line = g(u, "width := ", "width")
    pricing = "refactor/pricing.go"
    bl = line_of("gobroken", "broken.go", '"three"')
    bcol = lines_of("gobroken", "broken.go")[bl - 1].index('"three"')
    un = at("gobroken", "broken.go", "unused := 42", "unused")
    ex_start = line_of(S, pricing, "subtotal := 0")
    ex_end = line_of(S, pricing, "discount = subtotal / 10") + 1
    assert lines_of(S, pricing)[ex_end - 1].strip() == "}"
    return f"""## `go/` — module `example.com/shop` (go 1.22, no deps)

Check: `cd testdata/samples/go && go build ./... && go vet ./... && go test ./... && gofmt -l .` (gofmt lists nothing).

- **orders.Process** (`func Process(o Order) (Total, error)`) defined at {proc}.
  Called from {"; ".join(f"{l} (in `{fn}`)" for l, fn in proc_calls)}.
  gopls: 5 references including the declaration (4 excluding it); incoming calls = 3 callers
  (`main`, `ProcessBatch`, `TestProcess` — the last with two call ranges).
  Note `orders/orders_test.go:{line_of(S, "orders/orders_test.go", 't.Fatalf("Process(')}` mentions `Process(` only inside a string literal: not a reference.
- Struct with methods: `type Total struct` at {g("orders/orders.go", "type Total struct", "Total")};
  pointer method `(*Total).Add` at {g("orders/orders.go", "func (t *Total) Add(", "Add")} (called at {g("orders/orders.go", "t.Add(l)", "Add")}),
  value method `Total.IsZero` at {g("orders/orders.go", "func (t Total) IsZero(", "IsZero")}.
  `type Order struct` at {g("orders/orders.go", "type Order struct", "Order")}, `type Line struct` at {g("orders/orders.go", "type Line struct", "Line")}.
- **Interface + implementations** (package `payment`):
  - `type Method interface` at {g("payment/payment.go", "type Method interface", "Method")}; its methods `Charge` at {g("payment/payment.go", "Charge(amount int) error", "Charge")}, `Name` at {g("payment/payment.go", "Name() string", "Name")}.
  - `type RefundableMethod interface` (embeds `Method` at {g("payment/payment.go", "	Method", "Method")}) at {g("payment/payment.go", "type RefundableMethod interface", "RefundableMethod")}.
  - `type Card struct` at {g("payment/card.go", "type Card struct", "Card")} — implements `Method` **and** `RefundableMethod` (`Refund` at {g("payment/card.go", "func (c *Card) Refund(", "Refund")}).
  - `type Wallet struct` at {g("payment/wallet.go", "type Wallet struct", "Wallet")} — implements `Method`.
  - `type Invoice struct` at {g("payment/invoice.go", "type Invoice struct", "Invoice")} — implements `Method`.
  - `Charge` implementations: {g("payment/card.go", "func (c *Card) Charge(", "Charge")}; {g("payment/wallet.go", "func (w *Wallet) Charge(", "Charge")}; {g("payment/invoice.go", "func (i *Invoice) Charge(", "Charge")}.
  - gopls `implementation` on `Method` → Card, Wallet, Invoice, RefundableMethod (4 results); on `Card` → Method, RefundableMethod.
  - Type hierarchy: `RefundableMethod` has supertype `Method` and subtype `Card`; `Method` subtypes = Card, Wallet, Invoice, RefundableMethod; `Card` supertypes = Method, RefundableMethod.
  - Interface call site (dynamic dispatch): `method.Charge` at {g("main.go", "method.Charge(", "Charge")}; `m.Charge` at {g("payment/payment.go", "m.Charge(amount)", "Charge")}.
- **Cycle** (graph/walk.go): `Visit` {g("graph/walk.go", "func Visit(", "Visit")} → calls `expand` at {g("graph/walk.go", "expand(n, depth)", "expand")};
  `expand` {g("graph/walk.go", "func expand(", "expand")} → calls `visitChildren` at {g("graph/walk.go", "return visitChildren(", "visitChildren")};
  `visitChildren` {g("graph/walk.go", "func visitChildren(", "visitChildren")} → calls `Visit` at {g("graph/walk.go", "b.WriteString(Visit(", "Visit")}.
  `graph.Visit` is also called from `main` at {g("main.go", "graph.Visit(", "Visit")}.
- **Straight chain** (config/config.go): `main` → `LoadConfig` {g("config/config.go", "func LoadConfig(", "LoadConfig")} (called at {g("main.go", "config.LoadConfig(", "LoadConfig")})
  → `parseConfig` {g("config/config.go", "func parseConfig(", "parseConfig")} (called at {g("config/config.go", "parseConfig(src)", "parseConfig")})
  → `validateConfig` {g("config/config.go", "func validateConfig(", "validateConfig")} (called at {g("config/config.go", "validateConfig(cfg)", "validateConfig")}).
  Incoming calls of `validateConfig` to depth 3: parseConfig ← LoadConfig ← main.
- **Ambiguous name `Normalize`**: `orders.Normalize` at {g("orders/orders.go", "func Normalize(", "Normalize")} (used at {g("orders/format.go", "Normalize(o.ID)", "Normalize")});
  `text.Normalize` at {g("text/normalize.go", "func Normalize(", "Normalize")} (used at {g("main.go", "text.Normalize(", "Normalize")}).
- **Multibyte** ({u}). `utf8Len` defined at {g(u, "func utf8Len(", "utf8Len")}; `Greet` param `name` at {g(u, "func Greet(", "name")}; `Describe` param `label` at {g(u, "func Describe(", "label")}.
  Line {greet_line.line}: `{greet_line.text.strip()}` — `name` follows `é` (2-byte), CJK (3-byte) and `🎉` (4-byte, surrogate pair).
  Line {describe_line.line}: `{describe_line.text.strip()}` — the literal contains `ï`, `e` + U+0301 COMBINING ACUTE (written literally, not escaped), `🙂` and CJK; the second `utf8Len` and `label` follow it.
  0-based columns (line text starts with one tab):

{cols_table([("greeting", greet_line), ("name", g(u, "greeting := ", "name")), ("width", describe_line), ("utf8Len (1st)", g(u, "width := ", "utf8Len")), ("utf8Len (2nd)", g(u, "width := ", "utf8Len", nth_tok=1)), ("label", g(u, "width := ", "label"))])}

  (gopls references on `utf8Len` → 3: definition + both calls on line {describe_line.line}.)
- **Rename across files**: `type Widget struct` at {widget}; `func NewWidget` at {newwidget}.
  `Widget` appears in {len(wfiles)} files (`widgets/widget.go`, `widgets/w01.go` … `widgets/w20.go`, `main.go`): 25 references incl. declaration (`main.go`: 1, `widget.go`: 4, each wNN.go: 1).
  `NewWidget` appears in {len(nwfiles)} files: 22 references incl. declaration (one in each wNN.go at line {g("widgets/w01.go", "NewWidget(", "NewWidget").line} col {g("widgets/w01.go", "NewWidget(", "NewWidget").cp}, one at {g("main.go", "widgets.NewWidget(", "NewWidget")}).
  Each wNN.go declares a different exported constructor (w01 `Button`, w02 `Label`, … w20 `Chip`; `Button` and `Chip` are called from main.go).
- **Extract function** ({pricing}, `func Invoice` at {g(pricing, "func Invoice(", "Invoice")}): select lines {ex_start}–{ex_end}
  (from `subtotal := 0` through the closing `}}` of `if subtotal > 1000`, 5 statements) — gopls extracts `newFunction(lines, taxPercent)` returning `(subtotal, tax, discount)`.
  Extract-variable candidate: expression `l.Qty * l.UnitPrice` on line {line_of(S, pricing, "subtotal += l.Qty")} (col {g(pricing, "subtotal += l.Qty", "l").cp}–{g(pricing, "subtotal += l.Qty", "UnitPrice").cp + len("UnitPrice")}).
  **Inline** candidate: `taxOf` defined at {g(pricing, "func taxOf(", "taxOf")}, called exactly once at {g(pricing, "taxOf(subtotal, taxPercent)", "taxOf")} (gopls `refactor.inline.call` → `tax := subtotal * taxPercent / 100`).
  `cents` at {g(pricing, "func cents(", "cents")} is called 3 times on line {line_of(S, pricing, "cents(subtotal)")}.
- **Organize imports**: orders/format.go has two separate, unsorted import declarations: `import "strings"` (line {line_of(S, "orders/format.go", 'import "strings"')}) then `import "fmt"` (line {line_of(S, "orders/format.go", 'import "fmt"')}). gofmt leaves it alone; gopls `source.organizeImports` merges them into one sorted block `import (\\n\\t"fmt"\\n\\t"strings"\\n)`. No other file in the module is changed by organize imports.
- Diagnostics: the module builds cleanly; `gopls check` on every file reports nothing.

## `gobroken/` — module `example.com/broken` (diagnostics only; does NOT compile)

File `broken.go`, function `Quantity`:
- line {bl}: `var count int = "three"` — type error at 1-based col {bcol + 1} (LSP 0-based {bl - 1}:{bcol}, on the `"three"` literal):
  `cannot use "three" (untyped string constant) as int value in variable declaration`.
- line {un.line}: `unused := 42` — `declared and not used: unused` at 1-based col {un.cp + 1} (LSP {un.line - 1}:{un.cp}).
- `go build ./...` prints exactly these two errors and exits 1.
- gopls publishes exactly these two, both severity 1 (Error), source `compiler`, codes `IncompatibleAssign` (range {bl - 1}:{bcol}–{bl - 1}:{bcol + len('"three"')}) and `UnusedVar` (range {un.line - 1}:{un.cp}–{un.line - 1}:{un.cp + len("unused")}).
"""


def py_section():
    S = "python"
    p = lambda *a, **k: at(S, *a, **k)
    t = "shop/text.py"
    gl = p(t, "greeting = ", "greeting")
    dl = p(t, "width = ", "width")
    ex = "shop/extract.py"
    return f"""## `python/` — project `shop` (requires-python >= 3.9, no deps)

Check: `cd testdata/samples/python && python3 -c 'import shop' && python3 -m unittest -v` (3 tests pass; plain asserts inside a `unittest.TestCase`, so pytest can collect them too — pytest itself was not installed where this was checked) and `pyright .` → 0 errors.

- **process** defined at {p("shop/orders.py", "def process(", "process")}. Call sites:
  {p("shop/app.py", "total = process(order)", "process")} (in `main`); {p("shop/orders.py", "amount += process(", "process")} (in `process_batch`);
  {p("tests/test_orders.py", "total = process(order)", "process")} (in `ProcessTest.test_total`); {p("tests/test_orders.py", "process(Order(", "process")} (in `ProcessTest.test_empty`).
  Imports of `process` (also references): {p("shop/__init__.py", "from shop.orders import", "process")}, {p("shop/app.py", "from shop.orders import", "process")}, {p("tests/test_orders.py", "from shop.orders import", "process")}.
  pyright `references` (includeDeclaration) → 9: the declaration, 4 calls, 3 imports, and the string `"process"` in `__all__` at {p("shop/__init__.py", "__all__", "process")} (col is inside the quotes).
  pyright incoming calls → `process_batch`, `main`, `test_total`, `test_empty`.
- Class with methods: `Total` at {p("shop/orders.py", "class Total:", "Total")}, `Total.add` at {p("shop/orders.py", "def add(", "add")} (called at {p("shop/orders.py", "total.add(line)", "add")}).
- **Class hierarchy**: base `PaymentMethod` at {p("shop/payment.py", "class PaymentMethod:", "PaymentMethod")} (`charge` at {p("shop/payment.py", "def charge(", "charge")}, `name` at {p("shop/payment.py", "def name(", "name")}).
  Subclasses: `Card` at {p("shop/methods/card.py", "class Card(", "Card")}; `Wallet` at {p("shop/methods/wallet.py", "class Wallet(", "Wallet")}; `Invoice` at {p("shop/methods/invoice.py", "class Invoice(", "Invoice")};
  subclass of a subclass: `PremiumCard(Card)` at {p("shop/methods/card.py", "class PremiumCard(", "PremiumCard")}.
  `charge` overrides: {p("shop/methods/card.py", "def charge(", "charge")}; {p("shop/methods/card.py", "def charge(", "charge", nth_line=1)} (PremiumCard); {p("shop/methods/wallet.py", "def charge(", "charge")}; {p("shop/methods/invoice.py", "def charge(", "charge")}.
  Note: pyright implements neither `textDocument/implementation` nor type hierarchy (both answer "Unhandled method").
- **Cycle** (shop/graph.py): `visit` {p("shop/graph.py", "def visit(", "visit")} → calls `expand` at {p("shop/graph.py", "expand(node, depth)", "expand")};
  `expand` {p("shop/graph.py", "def expand(", "expand")} → calls `visit` at {p("shop/graph.py", "rendered += visit(", "visit")}. `visit` also called from `main` at {p("shop/app.py", "print(visit(", "visit")}.
- **Straight chain** (shop/config.py): `main` → `load_config` {p("shop/config.py", "def load_config(", "load_config")} (called at {p("shop/app.py", "cfg = load_config(", "load_config")})
  → `parse_config` {p("shop/config.py", "def parse_config(", "parse_config")} (called at {p("shop/config.py", "return parse_config(", "parse_config")})
  → `validate_config` {p("shop/config.py", "def validate_config(", "validate_config")} (called at {p("shop/config.py", "validate_config(cfg)", "validate_config")}).
- **Ambiguous name `normalize`**: `shop.orders.normalize` at {p("shop/orders.py", "def normalize(", "normalize")} (no callers);
  `shop.text.normalize` at {p(t, "def normalize(", "normalize")} (called as `text.normalize` at {p("shop/app.py", "text.normalize(", "normalize")}).
- **Multibyte** ({t}). `utf8_len` defined at {p(t, "def utf8_len(", "utf8_len")}; `greet` param `name` at {p(t, "def greet(", "name")}; `describe` param `label` at {p(t, "def describe(", "label")}.
  Line {gl.line}: `{gl.text.strip()}`
  Line {dl.line}: `{dl.text.strip()}` (the `é` in `café` is `e` + U+0301 combining acute).
  0-based columns (lines start with 4 spaces):

{cols_table([("greeting", gl), ("name", p(t, "greeting = ", "name")), ("count", p(t, "greeting = ", "count")), ("utf8_len", p(t, "greeting = ", "utf8_len")), ("greeting (2nd)", p(t, "greeting = ", "greeting", nth_tok=1)), ("width", dl), ("utf8_len (1st)", p(t, "width = ", "utf8_len")), ("utf8_len (2nd)", p(t, "width = ", "utf8_len", nth_tok=1)), ("label", p(t, "width = ", "label"))])}

- **Extract** ({ex}, `def invoice` at {p(ex, "def invoice(", "invoice")}): select lines {line_of(S, ex, "subtotal = 0")}–{line_of(S, ex, "discount = subtotal")}
  (`subtotal = 0` … `discount = …`, 4 statements). Extract-variable candidate: `line.qty * line.unit_price` on line {line_of(S, ex, "subtotal += line.qty")} (col {p(ex, "subtotal += line.qty", "line").cp}–{p(ex, "subtotal += line.qty", "unit_price").cp + len("unit_price")}).
  Inline candidate: `tax_of` defined at {p(ex, "def tax_of(", "tax_of")}, called exactly once at {p(ex, "tax = tax_of(", "tax_of")}.
- No deliberate diagnostics: pyright reports 0 errors / 0 warnings, and publishes no diagnostics over LSP.

## `pybroken/` — project `broken` (diagnostics only)

File `broken.py`, function `quantity`:
- line {line_of("pybroken", "broken.py", '"three"')}: `count: int = "three"` — pyright error at 1-based col {lines_of("pybroken", "broken.py")[line_of("pybroken", "broken.py", '"three"') - 1].index('"three"') + 1} (LSP {line_of("pybroken", "broken.py", '"three"') - 1}:{lines_of("pybroken", "broken.py")[line_of("pybroken", "broken.py", '"three"') - 1].index('"three"')}):
  `Type "Literal['three']" is not assignable to declared type "int"` (reportAssignmentType).
- line {at("pybroken", "broken.py", "missing_total", "missing_total").line}: `return count + missing_total` — `"missing_total" is not defined` (reportUndefinedVariable) at 1-based col {at("pybroken", "broken.py", "missing_total", "missing_total").cp + 1} (LSP {at("pybroken", "broken.py", "missing_total", "missing_total").line - 1}:{at("pybroken", "broken.py", "missing_total", "missing_total").cp}).
- `pyright .` → exactly 2 errors.
"""


def ts_section():
    S = "ts"
    s = lambda *a, **k: at(S, *a, **k)
    t = "src/text.ts"
    gl = s(t, "const greeting = ", "greeting")
    dl = s(t, "const width = ", "width")
    ex = "src/extract.ts"
    imp = "src/imports.ts"
    bl = line_of("tsbroken", "src/broken.ts", '"three"')
    bcol = lines_of("tsbroken", "src/broken.ts")[bl - 1].index("count")
    return f"""## `ts/` — package `shop` (strict tsconfig, ES2020/ESNext/Bundler, no deps)

Check: `cd testdata/samples/ts && npx -y -p typescript@5.6 tsc --noEmit -p .` → no output, exit 0.
(`lib` is `["ES2020"]` and `types` is `[]`, so no `@types/*` are needed; `main.ts` declares `console` itself.)

- **process** (`export function process(order: Order): Total`) defined at {s("src/orders.ts", "export function process(", "process")}. Call sites:
  {s("src/main.ts", "const total = process(order)", "process")} (top level of main.ts); {s("src/orders.ts", "amount += process(", "process")} (in `processBatch`); {s(imp, "const total = process(order)", "process")} (in `receipt`).
  Imports (also references): {s("src/main.ts", 'from "./orders"', "process")}, {s(imp, 'from "./orders"', "process")}.
  tsserver references (incl. declaration) → 6; incoming calls → `processBatch`, `receipt`, and the module `src/main.ts` itself (top-level call).
- Class with methods: `Total` at {s("src/orders.ts", "export class Total", "Total")}, `add` at {s("src/orders.ts", "add(line: Line)", "add")} (called at {s("src/orders.ts", "total.add(line)", "add")}).
- **Interface + implementations**: `interface PaymentMethod` at {s("src/payment.ts", "export interface PaymentMethod", "PaymentMethod")} (`charge` at {s("src/payment.ts", "charge(amount: number): void;", "charge")}, `name` at {s("src/payment.ts", "name(): string;", "name")}).
  `class Card implements PaymentMethod` at {s("src/methods/card.ts", "export class Card ", "Card")}; `class Wallet` at {s("src/methods/wallet.ts", "export class Wallet", "Wallet")}; `class Invoice` at {s("src/methods/invoice.ts", "export class Invoice", "Invoice")};
  `class PremiumCard extends Card` at {s("src/methods/card.ts", "export class PremiumCard", "PremiumCard")}.
  Implementations of `PaymentMethod` (tsserver) → Card, Wallet, Invoice, and PremiumCard (via Card) — 4 results.
  Note: typescript-language-server has no type hierarchy (`prepareTypeHierarchy` → "Unhandled method").
  `charge` implementations: {s("src/methods/card.ts", "  charge(amount", "charge")}; {s("src/methods/card.ts", "override charge(", "charge")} (PremiumCard); {s("src/methods/wallet.ts", "  charge(amount", "charge")}; {s("src/methods/invoice.ts", "  charge(amount", "charge")}.
- **Cycle** (src/graph.ts): `visit` {s("src/graph.ts", "export function visit(", "visit")} → calls `expand` at {s("src/graph.ts", "expand(node, depth)", "expand")};
  `expand` {s("src/graph.ts", "function expand(", "expand")} → calls `visit` at {s("src/graph.ts", "rendered += visit(", "visit")}. `visit` also called at {s("src/main.ts", "console.log(visit(", "visit")}.
- **Straight chain** (src/config.ts): `loadConfig` {s("src/config.ts", "export function loadConfig(", "loadConfig")} (called at {s("src/main.ts", "const cfg = loadConfig(", "loadConfig")})
  → `parseConfig` {s("src/config.ts", "function parseConfig(", "parseConfig")} (called at {s("src/config.ts", "return parseConfig(", "parseConfig")})
  → `validateConfig` {s("src/config.ts", "function validateConfig(", "validateConfig")} (called at {s("src/config.ts", "  validateConfig(cfg);", "validateConfig")}).
- **Ambiguous name `normalize`**: orders.ts {s("src/orders.ts", "export function normalize(", "normalize")} (used at {s(imp, "${normalize(", "normalize")});
  text.ts {s(t, "export function normalize(", "normalize")} (used at {s("src/main.ts", "customer: normalize(", "normalize")}).
- **Multibyte** ({t}). `utf8Len` defined at {s(t, "export function utf8Len(", "utf8Len")}; `greet` param `name` at {s(t, "export function greet(", "name")}; `describe` param `label` at {s(t, "export function describe(", "label")}.
  Line {gl.line}: `{gl.text.strip()}`
  Line {dl.line}: `{dl.text.strip()}` (the `é` in `café` is `e` + U+0301 combining acute).
  0-based columns (lines start with 2 spaces):

{cols_table([("greeting", gl), ("name", s(t, "const greeting = ", "name")), ("count", s(t, "const greeting = ", "count")), ("utf8Len", s(t, "const greeting = ", "utf8Len")), ("greeting (2nd)", s(t, "const greeting = ", "greeting", nth_tok=1)), ("width", dl), ("utf8Len (1st)", s(t, "const width = ", "utf8Len")), ("utf8Len (2nd)", s(t, "const width = ", "utf8Len", nth_tok=1)), ("label", s(t, "const width = ", "label"))])}

- **Extract** ({ex}, `invoice` at {s(ex, "export function invoice(", "invoice")}): select lines {line_of(S, ex, "let subtotal = 0")}–{line_of(S, ex, "const discount = ")}
  (`let subtotal = 0;` … `const discount = …;`, 4 statements). Extract-constant candidate: `line.qty * line.unitPrice` on line {line_of(S, ex, "subtotal += line.qty")} (col {s(ex, "subtotal += line.qty", "line").cp}–{s(ex, "subtotal += line.qty", "unitPrice").cp + len("unitPrice")}).
  Helper called once: `taxOf` defined at {s(ex, "function taxOf(", "taxOf")}, called exactly once at {s(ex, "const tax = taxOf(", "taxOf")} (TS 5.6 has no "inline function" refactor).
  Inline-variable candidate: `const header` at {s(ex, 'const header = ', "header")}, used once at {s(ex, "return `${header}", "header")} (tsserver offers "Inline variable" there).
  tsserver offers `function_scope_0/1` (extract function) for the line range, and additionally `constant_scope_0` for the expression.
- **Organize imports** ({imp}): lines {line_of(S, imp, 'from "./graph"')}–{line_of(S, imp, 'from "./orders"')} import `./graph`, `./text`, `./methods/card`, `./orders` (unsorted);
  `visit` (imported at {s(imp, 'from "./graph"', "visit")}) is **unused** (tsc accepts it since `noUnusedLocals` is false).
  Organize imports removes the `./graph` line and sorts the rest to `./methods/card`, `./orders`, `./text`.
- Diagnostics: no errors. The only diagnostic typescript-language-server publishes for the project is a severity-4 (Hint) code 6133
  `'visit' is declared but its value is never read.` at {imp} line {line_of(S, imp, 'from "./graph"')} (LSP range starts at {line_of(S, imp, 'from "./graph"') - 1}:0 — the whole import declaration, since `visit` is its only specifier).

## `tsbroken/` — package `shop-broken` (diagnostics only)

File `src/broken.ts`, line {bl}: `const count: number = "three";` — tsc `src/broken.ts({bl},{bcol + 1}): error TS2322: Type 'string' is not assignable to type 'number'.` (LSP {bl - 1}:{bcol}, on `count`). Exactly one error (typescript-language-server publishes the same, severity 1, code 2322).
"""


def c_section():
    S = "c"
    s = lambda *a, **k: at(S, *a, **k)
    t = "src/text.c"
    gl = s(t, "const char *greeting = ", "greeting")
    return f"""## `c/` — C11, rooted by `compile_commands.json` (clangd 14)

Check: `cd testdata/samples/c && cc -std=c11 -Wall -Werror -Iinclude src/*.c` (builds, no warnings).
`compile_commands.json` names its folder as `@SAMPLE_ROOT@`: clangd 14 does not resolve a relative `directory`, so
`testenv.CopySample` writes the copy's absolute path there (as a build tool would generate the database).
clangd indexes the project in the background right after attaching (`$/progress`); cross-file answers need that index.

- **area** (`double area(const struct shape *s)`) declared at {s("include/geometry.h", "double area(", "area")}, defined at {s("src/geometry.c", "double area(", "area")}.
  Called from {s("src/geometry.c", "sum += area(", "area")} (in `total_area`) and {s("src/main.c", "area(&shapes[0])", "area")} (in `main`).
  clangd references (incl. declaration) → 4; incoming calls → `main`, `total_area`.
- `total_area` defined at {s("src/geometry.c", "double total_area(", "total_area")} (called at {s("src/main.c", "total_area(shapes", "total_area")});
  file-local `static double square` at {s("src/geometry.c", "static double square(", "square")} (called at {s("src/geometry.c", "3.14159 * square(", "square")}).
- **Cycle** (src/graph.c): `visit` {s("src/graph.c", "int visit(", "visit")} → calls `expand` at {s("src/graph.c", "return expand(", "expand")};
  `expand` {s("src/graph.c", "static int expand(int node, int depth)", "expand", nth_line=1)} → calls `visit` twice at {s("src/graph.c", "return visit(node", "visit")} and {s("src/graph.c", "return visit(node", "visit", nth_tok=1)}.
  `visit` also called from `main` at {s("src/main.c", "visit(1, 3)", "visit")}.
- No outgoing calls in clangd 14 (`callHierarchy/outgoingCalls` → MethodNotFound).
- **Multibyte** ({t}). `utf8_len` defined at {s(t, "int utf8_len(", "utf8_len")}; `greet` param `name` at {s(t, "int greet(", "name")}.
  Line {gl.line}: `{gl.text.strip()}`
  0-based columns (the line starts with one tab):

{cols_table([("greeting", gl), ("utf8_len (1st)", s(t, "const char *greeting = ", "utf8_len")), ("utf8_len (2nd)", s(t, "const char *greeting = ", "utf8_len", nth_tok=1)), ("name", s(t, "const char *greeting = ", "name"))])}
"""


HEADER = """# Sample projects for integration tests

Generated by `python3 testdata/samples/landmarks.py` from the files themselves — do not edit by hand
(after changing a sample, re-run it; `--check` fails if this file is stale).

Conventions:
- `path:line` — path relative to the sample root, **line is 1-based**.
- `col` is **0-based** (LSP style) and points at the first character of the named token.
  On pure-ASCII lines code points = UTF-16 units = bytes, so one number is given; on lines with
  non-ASCII text the column is given in all three units.
- gopls CLI output (`gopls references`, `gopls call_hierarchy`) uses 1-based byte columns: add 1 to the byte column.
- All files are UTF-8, LF line endings, no BOM.

"""


def main():
    text = HEADER + go_section() + "\n" + py_section() + "\n" + ts_section() + "\n" + c_section()
    out = os.path.join(ROOT, "README.md")
    if "--check" in sys.argv:
        with open(out, encoding="utf-8") as f:
            if f.read() != text:
                print("README.md is stale; run python3 testdata/samples/landmarks.py", file=sys.stderr)
                sys.exit(1)
        return
    with open(out, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


if __name__ == "__main__":
    main()
