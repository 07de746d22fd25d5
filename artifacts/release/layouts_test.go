package release

import (
	"bytes"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/saber-math/saber/artifacts/dataset"
)

// idRow is the row of the test layout's one file.
type idRow struct {
	ID string `parquet:"_id"`
}

// idsLayout is a layout declared in one place, this value: each setting's
// query ids as Parquet.
var idsLayout = Layout{
	Name: "IDS",
	Dir:  "ids/",
	Setting: func(c *Contents, setting string) ([]File, error) {
		var rows []idRow
		for _, q := range c.Queries {
			rows = append(rows, idRow{ID: q.ID})
		}
		data, err := dataset.Encode(rows)
		return []File{{Path: "ids/" + setting + "/queries.parquet", Data: data, Rows: int64(len(rows)), Kind: "ids"}}, err
	},
	Schema: func(string) (dataset.Info, bool) { return infoOf[idRow](), true },
	Check: func(k *layoutCheck, p string, b []byte) {
		if rows, err := dataset.Decode[idRow](b, p); err == nil {
			k.same(p, "query", idsOf(rows, func(r idRow) string { return r.ID }), k.queries)
		}
	},
	Regen: func(string) string { return "IDS query ids equal data/queries.parquet" },
	CardConfigs: func(settings []string) []cardConfig {
		var out []cardConfig
		for _, s := range settings {
			out = append(out, cardConfig{Name: "ids-" + s, DataFiles: []cardFile{{Split: CardSplit, Path: "ids/" + s + "/queries.parquet"}}})
		}
		return out
	},
	Describe: func(*Contents) string { return "`ids/<setting>/queries.parquet` (`_id`)." },
	Load: func(_ *Contents, b *bytes.Buffer) {
		b.WriteString("With IDS, read `ids/<setting>/queries.parquet`.\n\n")
	},
}

// A layout added to Layouts alone is built, declared and described by
// the card, listed by Croissant and the manifest, and checked by Verify.
func TestAddedLayout(t *testing.T) {
	saved := Layouts
	t.Cleanup(func() { Layouts = saved })
	Layouts = append(slices.Clone(Layouts), idsLayout)

	files := build(t, sample())
	have := map[string][]byte{}
	for _, f := range files {
		have[f.Path] = f.Data
	}
	for _, s := range Settings {
		if _, ok := have["ids/"+s+"/queries.parquet"]; !ok {
			t.Errorf("no ids/%s/queries.parquet among %d files", s, len(files))
		}
	}
	card := string(have[CardFile])
	for _, want := range []string{"config_name: ids-statement-full", "- **IDS**: `ids/<setting>/queries.parquet` (`_id`).\n",
		"With IDS, read", "the BEIR, MTEB, TREC and IDS files join to them by id"} {
		if !strings.Contains(card, want) {
			t.Errorf("the card lacks %q", want)
		}
	}
	for _, f := range []string{CroissantFile, ManifestFile} {
		if !bytes.Contains(have[f], []byte(`"ids/statement-full/queries.parquet"`)) {
			t.Errorf("%s does not list ids/statement-full/queries.parquet", f)
		}
	}
	if rep := verify(t, write(t, files)); !rep.OK() {
		t.Errorf("Verify of a release with the added layout: %v", rep.Problems)
	}

	// Its file losing a query, the checksums rewritten to match: its
	// Check and its Regen name the file.
	const p = "ids/statement-full/queries.parquet"
	data, err := dataset.Encode([]idRow{{ID: "q1"}})
	if err != nil {
		t.Fatal(err)
	}
	var edited []File
	for _, f := range files {
		switch f.Path {
		case p:
			f.Data = data
		case SumsFile:
			continue
		}
		edited = append(edited, f)
	}
	edited = append(edited, File{Path: SumsFile, Data: Sums(edited)})
	rep := verify(t, write(t, edited))
	var got []string
	for _, pr := range rep.Problems {
		if pr.File == p {
			got = append(got, pr.Msg)
		}
	}
	msgs := strings.Join(got, "\n")
	if !strings.Contains(msgs, "lacks query q2") || !strings.Contains(msgs, "(check: IDS query ids equal data/queries.parquet)") {
		t.Errorf("Verify's problems of the edited %s: %q, want its Check's and its Regen's", p, got)
	}
}

// docs/release.md's table of the folder has a row per layout, and no
// folder other than data/ that is not a layout's.
func TestDocsListEveryLayout(t *testing.T) {
	b, err := os.ReadFile("../../docs/release.md")
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z_]+/)").FindAllStringSubmatch(string(b), -1) {
		if m[1] != "data/" {
			dirs = append(dirs, m[1])
		}
	}
	var want []string
	for _, l := range Layouts {
		want = append(want, l.Dir)
	}
	if !slices.Equal(dirs, want) {
		t.Errorf("docs/release.md's table has the folders %q beside data/, the layouts are %q", dirs, want)
	}
}
