package cmdline

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/readmetest"
)

// RELIABILITY.md's figures for the drop-in's own flags must be their
// defaults as registered: changing either side fails here.
func TestRELIABILITY_FiguresAreTheDropInsFlagDefaults(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(filepath.Dir(readmetest.Path()), "RELIABILITY.md"))
	if err != nil {
		t.Fatal(err)
	}
	// Lines are wrapped anywhere: every run of white space is one space.
	doc := strings.Join(strings.Fields(string(data)), " ")
	fs := NewFlagSet("core-manager", &Options{})
	for _, c := range []struct {
		pattern string
		// flags are read in the order of the pattern's figures.
		flags []string
		// duration reads the figures as "10 s" rather than numbers.
		duration bool
	}{
		{"`--kube-api-qps` and `--kube-api-burst` \\(([\\d,]+) and ([\\d,]+) by default in both runtime-sdk-controller and the drop-in core-manager",
			[]string{"kube-api-qps", "kube-api-burst"}, false},
		{"in the drop-in core-manager `--leader-elect-renew-deadline`, also (\\d+ s)\\)",
			[]string{"leader-elect-renew-deadline"}, true},
	} {
		matches := regexp.MustCompile(c.pattern).FindAllStringSubmatch(doc, -1)
		if len(matches) == 0 {
			t.Errorf("RELIABILITY.md has nothing matching %q", c.pattern)
			continue
		}
		for _, m := range matches {
			for i, name := range c.flags {
				f := fs.Lookup(name)
				if f == nil {
					t.Fatalf("no --%s", name)
				}
				got, want := strings.ReplaceAll(m[i+1], ",", ""), f.DefValue
				if c.duration {
					d, err := time.ParseDuration(strings.ReplaceAll(got, " ", ""))
					if err != nil {
						t.Fatalf("figure %q: %v", m[i+1], err)
					}
					got = d.String()
				}
				if got != want {
					t.Errorf("RELIABILITY.md says %s for --%s, whose default is %s", m[i+1], name, want)
				}
			}
		}
	}
}
