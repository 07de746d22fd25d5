package prompts

import (
	"strings"
	"testing"
	texttemplate "text/template"
)

// TestFillMatchesTextTemplate renders every registered prompt both ways,
// with field values that look like real problems (braces, dollar signs,
// angle brackets, "{{" inside the data), and asks for the same bytes that
// text/template, which the prompts were written for, renders.
func TestFillMatchesTextTemplate(t *testing.T) {
	value := func(name string) string {
		return `Let $f(x) = \frac{x^{2}}{2}$ for ` + name + ` <b>&</b> {{.Tags}} and \boxed{1}.`
	}
	for _, name := range Names() {
		p, err := Get(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, src := range []string{p.System, p.User} {
			if src == "" {
				continue
			}
			ours, err := parseTemplate(src)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			data := map[string]string{}
			for _, f := range ours.fields {
				data[f] = value(f)
			}
			got, err := ours.fill(data)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			tt, err := texttemplate.New("").Option("missingkey=error").Parse(src)
			if err != nil {
				t.Fatal(err)
			}
			var want strings.Builder
			if err := tt.Execute(&want, data); err != nil {
				t.Fatal(err)
			}
			if got != want.String() {
				t.Errorf("%s renders differently from text/template:\n got %q\nwant %q", name, got, want.String())
			}
		}
	}
}

func TestParseTemplate(t *testing.T) {
	for _, tc := range []struct {
		src, wantErr string
		fields       int
	}{
		{"no actions", "", 0},
		{"a {{.A}} b {{ .B_2 }} c", "", 2},
		{"}} alone is text", "", 0},
		{"{{if .A}}x{{end}}", "only {{.Field}}", 0},
		{"{{.a}}", "only {{.Field}}", 0},
		{"{{.A.B}}", "only {{.Field}}", 0},
		{"{{.A", "unclosed", 0},
	} {
		tpl, err := parseTemplate(tc.src)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%q: err %v, want %q", tc.src, err, tc.wantErr)
			}
			continue
		}
		if err != nil || len(tpl.fields) != tc.fields || len(tpl.texts) != tc.fields+1 {
			t.Errorf("%q: %+v, %v", tc.src, tpl, err)
		}
	}
}

func TestFillData(t *testing.T) {
	tpl, err := parseTemplate("[{{.Problem}}|{{.N}}]")
	if err != nil {
		t.Fatal(err)
	}
	type withN struct {
		Problem string
		N       int
	}
	for _, tc := range []struct {
		data    any
		want    string
		wantErr string
	}{
		{withN{"p", 3}, "[p|3]", ""},
		{&withN{"p", 3}, "[p|3]", ""},
		{map[string]any{"Problem": "p", "N": 3}, "[p|3]", ""},
		{map[string]string{"Problem": "p"}, "", "no such key"},
		{SummaryData{Problem: "p"}, "", "not in prompts.SummaryData"},
		{(*withN)(nil), "", "nil"},
		{"text", "", "not a struct or map"},
		{map[int]string{1: "x"}, "", "not strings"},
	} {
		got, err := tpl.fill(tc.data)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%#v: err %v, want %q", tc.data, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%#v: %q, %v; want %q", tc.data, got, err, tc.want)
		}
	}
}
