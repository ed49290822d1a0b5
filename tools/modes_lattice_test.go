package tools

import (
	"slices"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
)

// The modes set may choose under each start mode: those whose tool
// families the start mode shows (explore ⊂ edit ⊂ all, explore ⊂ debug ⊂
// all).
func TestModeLattice(t *testing.T) {
	allowed := map[string][]string{
		ModeExplore: {ModeExplore},
		ModeEdit:    {ModeExplore, ModeEdit},
		ModeDebug:   {ModeExplore, ModeDebug},
		ModeAll:     {ModeExplore, ModeEdit, ModeDebug, ModeAll},
	}
	for _, start := range ModeNames {
		for _, to := range ModeNames {
			m, err := NewModes(start, false)
			if err != nil {
				t.Fatal(err)
			}
			_, err = m.set(to)
			want := slices.Contains(allowed[start], to)
			if (err == nil) != want {
				t.Errorf("started in %s, set_mode %s: %v; want allowed=%v", start, to, err, want)
			}
			if err != nil && (apierr.CodeOf(err) != apierr.PreconditionFailed || !strings.Contains(apierr.As(err).Remediation, "--mode all")) {
				t.Errorf("started in %s, set_mode %s: %v", start, to, err)
			}
			if mode, _ := m.Get(); (err == nil && mode != to) || (err != nil && mode != start) || m.Ceiling() != start {
				t.Errorf("started in %s, set_mode %s: mode %s, ceiling %s", start, to, mode, m.Ceiling())
			}
		}
	}
}
