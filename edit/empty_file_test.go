package edit_test

import (
	"testing"

	"github.com/nvbridge/nvbridge/edit"
)

// An empty file and a file holding one newline look alike in a Neovim
// buffer (one empty line); the engine must still read each as it is on disk.
func TestEmptyFiles(t *testing.T) {
	v := newEnv(t, map[string]string{"empty.txt": "", "newline.txt": "\n", "untouched.txt": ""})

	v.open("untouched.txt")
	d, err := v.e.Diff(v.ctx, "untouched.txt")
	if err != nil {
		t.Fatal(err)
	}
	if d.HasChanges {
		t.Fatalf("an untouched empty file shows changes:\n%s", d.Diff)
	}

	for _, tc := range []struct{ file, want string }{
		{"empty.txt", "first\n"},
		{"newline.txt", "first\n\n"},
	} {
		// Not loaded yet: the engine loads it, edits and saves.
		_, err := v.e.EditLines(v.ctx, tc.file, []edit.LineEdit{{LineStart: 1, LineEnd: 0, NewText: "first"}},
			edit.Options{Save: true})
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		if got := v.disk(tc.file); got != tc.want {
			t.Errorf("%s on disk = %q, want %q", tc.file, got, tc.want)
		}
	}
}
