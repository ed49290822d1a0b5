package lang

// Protocol Buffers: buf's language server (`buf lsp serve`, from the Go
// module proxy), rooted by buf.yaml: compile errors as diagnostics,
// messages, enums and services as symbols, definitions and references of
// types across files.

func init() { Register(protoLang) }

var protoLang = &Language{
	Name:       "proto",
	Display:    "Protocol Buffers",
	Filetypes:  []string{"proto"},
	Extensions: []string{".proto"},
	Markers:    []string{"buf.yaml", "buf.work.yaml"},
	Servers: []ServerSpec{{
		Name: "buf",
		Cmd:  []string{"buf", "lsp", "serve"},
	}},
	Ident: Ident{
		Keywords: WordSet(`syntax edition import weak public package option message enum service rpc returns
			stream oneof map reserved extensions extend to max repeated optional required group true false
			double float int32 int64 uint32 uint64 sint32 sint64 fixed32 fixed64 sfixed32 sfixed64 bool string bytes`),
	},
}
