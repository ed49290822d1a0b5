// Package refactor computes the refactoring tools' changes: rename_symbol,
// extract_function and extract_variable, apply_code_action,
// organize_imports, move_symbol, inline_function and change_signature. Each
// is a function over an *lsp.Client that returns a plan holding a
// preview.Changeset, computed against the files as Neovim holds them and
// never applied here: the caller previews or applies it through
// edit.Engine.
//
// A language's part of a refactoring (its move, its inliner, how
// change_signature reads its declarations and calls) is one file that
// registers itself under the language's lang.Language (languages.go); the
// shared code looks it up and never compares a language's name.
package refactor
