package lsp

import "github.com/nvbridge/nvbridge/lang"

// docLanguage is the registry's language of a document: by its buffer's
// filetype, else by its file's extension; nil when the registry does not
// know it.
func docLanguage(doc *Document) *lang.Language {
	if l := lang.ForFiletype(doc.Buffer.Filetype); l != nil {
		return l
	}
	return lang.ForFile(doc.Path)
}
