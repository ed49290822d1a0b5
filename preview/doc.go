// Package preview is the pure core of nvbridge's atomic changesets.
//
// It decides what a change is before Neovim applies it: the edit type
// ([TextEdit]), validated all-or-nothing application of edits to a
// [Document] ([Validate], [Apply]), shrinking of whole-document replacements
// into line edits ([Minimize]), git-style unified diff rendering of a
// multi-file [Changeset] ([UnifiedDiff]), and the reverse direction: parsing
// a unified diff ([ParsePatch]) and turning each file's hunks into edits
// ([FilePatch.EditsFor]).
//
// The package does no I/O and knows nothing of Neovim or LSP. Positions are
// Neovim's: 0-based lines and 0-based byte columns. [Mapper] converts a
// text's positions between the four systems nvbridge meets (tool lines and
// characters, columns in an LSP offset encoding, Neovim's bytes, byte
// offsets) and turns byte edits ([ByteEdit]) into TextEdits; turning
// "\r\n" inside LSP newText into "\n" happens in the layer above.
//
// # The text model
//
// A document's text is its lines joined by "\n", plus a final "\n" when the
// file ends with one; [Document.EOL] only matters on disk and in diffs. The
// position (len(Lines), 0) is the end of the document (after the final
// newline if there is one), so inserting there appends, and an edit from the
// end of the last line to (len(Lines), 0) removes or adds the final newline.
//
// Diffs are computed from the edits, never by diffing two whole files, so
// validating, applying and rendering a thousand edits in a 100,000-line file
// takes a few milliseconds (BenchmarkUnifiedDiff1000EditsIn100kLines).
package preview
