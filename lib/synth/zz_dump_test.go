package synth

import (
	"fmt"
	"os"
	"strconv"
	"testing"
)

func TestZZDump(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("DUMPN"))
	tmpl := os.Getenv("DUMPT")
	for i := 0; i < n; i++ {
		p := Generate(Config{Seed: 7}, i)
		if tmpl != "" && p.Template != tmpl {
			continue
		}
		fmt.Printf("[%s] %s/%s src=%s dup=%s topics=%v\nS: %s\nA: %s\n\n", p.ID, p.Domain, p.Template, p.Source, p.DupOf, p.Topics, p.Statement, p.Solution)
	}
}
