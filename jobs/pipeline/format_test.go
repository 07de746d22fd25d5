package pipeline

import (
	"bytes"
	"flag"
	"os"
	"testing"
)

var updateFormat = flag.Bool("update-format", false, "rewrite artifacts/layout/FORMAT.md from the code")

// TestFormatDoc keeps FORMAT.md, the layout's format document, equal to
// what the dataset definitions and the steps' declarations say.
func TestFormatDoc(t *testing.T) {
	got := Default().FormatDoc()
	if *updateFormat {
		if err := os.WriteFile(formatDocPath, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(formatDocPath)
	if err != nil {
		t.Fatalf("%v (run go test ./jobs/pipeline -run TestFormatDoc -update-format)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the code; regenerate it with go test ./jobs/pipeline -run TestFormatDoc -update-format", formatDocPath)
	}
}
