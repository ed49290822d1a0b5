package dap

import (
	"os/exec"

	"github.com/nvbridge/nvbridge/lang"
)

// AdapterStatus says whether a language's debug adapter is installed.
type AdapterStatus struct {
	Language string `json:"language"`
	Adapter  string `json:"adapter"`
	Found    bool   `json:"found"`
	// Command is the first of the adapter's commands found (what a debug
	// session would start).
	Command string `json:"command,omitempty"`
	// Install is the remediation when it is not found.
	Install string `json:"install,omitempty"`
}

// Adapters lists the registry's debug adapters with whether each is found
// (on PATH, .deps/bin first under make), as a session would look for it.
func Adapters() []AdapterStatus {
	out := []AdapterStatus{}
	for _, l := range lang.Debuggable() {
		a := AdapterStatus{Language: l.Name, Adapter: l.Debug.Name}
		for _, c := range l.Debug.Commands {
			if path, err := exec.LookPath(c[0]); err == nil {
				a.Found, a.Command = true, path
				break
			}
		}
		if !a.Found {
			a.Install = l.Debug.Install
		}
		out = append(out, a)
	}
	return out
}
