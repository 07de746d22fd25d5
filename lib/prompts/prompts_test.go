package prompts

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/saber-math/saber/lib/llm"
)

// TestVersionsPinned fails when a template's text changes under the same
// version: cached answers would be served for a prompt that no longer
// produced them. Add a new file and version instead.
func TestVersionsPinned(t *testing.T) {
	want := map[string]struct{ version, sha string }{
		Topics:           {"f1.v1", "10e355041c24a843bb0b9a4ea205d9c4ce773207dd7f8e962712fd7882eaadef"},
		Summary:          {"f2.v1", "12fc13ccf9964e158e25738841bbe70f787e77f4864697426ba4787d819704bc"},
		Judge:            {"f3.v1", "d008e7c897d46d7bc384a1dd87de8cc1cfe3bbc0ba87a40cab78e45aaf6176be"},
		Audit:            {"a1.v1", "0a56b0eee976cb729451e8d7bfac7250a4f589989ef428b47842c720526611f4"},
		Rewrite:          {"b4.v1", "b8a8b9d4f6fbae37da7fca2b975dabc05604daf39a86364967f75cc0304b39cf"},
		Format:           {"f5.v1", "fbf97b9d2eea0889612373ed3962b7dbd707f572fcd03c3ebe05d42079fe2c46"},
		Ordinal:          {"f4.v1", "c90de20c4d80963745aba5fc4dcc028bc474043d57d63a01f3353b7f173b8126"},
		JudgeConfidence:  {"c1.v1", "91cbf21041bd1c06b58f120797d9422294e6054adeaca2fb7b9f70dcbfc5a31a"},
		JudgeSharedFirst: {"f3s.v1", "577022cfef15fc23a8d61db47ab965ab3836ea425a95aa8b4cff4e2fc31c66d4"},
	}
	if got := Names(); len(got) != len(want) {
		t.Fatalf("Names() = %v", got)
	}
	for name, w := range want {
		p, err := Get(name)
		if err != nil {
			t.Fatal(err)
		}
		if p.Name != name || p.Version != w.version {
			t.Errorf("%s: name %q version %q, want version %q", name, p.Name, p.Version, w.version)
		}
		raw, err := files.ReadFile(registry[name].file)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(raw)
		if got := hex.EncodeToString(sum[:]); got != w.sha {
			t.Errorf("%s: %s changed (sha256 %s) but its version is still %s: add a new file and version", name, registry[name].file, got, p.Version)
		}
	}
	if _, err := Get("rerank"); err == nil || !strings.Contains(err.Error(), "topics") {
		t.Errorf("Get(rerank) err = %v", err)
	}
}

func TestTopicsRender(t *testing.T) {
	p, err := Get(Topics)
	if err != nil {
		t.Fatal(err)
	}
	text := "Problem: Find all x with x^2 < 4 & x > 0.\nSolution: 0 < x < 2."
	msgs, err := p.Render(TopicsData{ProblemAndSolution: text, Tags: JoinTags([]string{"Algebra", "Inequalities", "Number Theory"})})
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 2 || msgs[0].Role != llm.RoleSystem || msgs[1].Role != llm.RoleUser {
		t.Fatalf("messages = %+v", msgs)
	}
	sys, user := msgs[0].Content, msgs[1].Content
	for _, s := range []string{
		"You are an Expert Mathematical Annotator.",
		"You must assign relevance score for each of the tags with respect to the provided text.",
		"# INPUT\nYou will be provided with:\n1. A mathematical text\n2. A comma-separated list of tags",
		"For each of the provided tags assign a real number from the interval [0.0, 1.0].",
		"The most relevant tag to the text must have a relevance score of 1.0 and the most irrelevant must have a score of 0.0.",
		"Constrain your output to a pure JSON with no explanations, markdown or comments. Return only pure JSON.",
		`"<tagName>": <float tag relevance score 0.0-1.0 to the provided mathematical text>,`,
	} {
		if !strings.Contains(sys, s) {
			t.Errorf("system message lacks %q", s)
		}
	}
	if strings.Contains(sys, "[USER]") || strings.Contains(sys, "[SYSTEM]") || strings.Contains(sys, "&lt;") || strings.Contains(sys, "{{") {
		t.Errorf("system message has markers or artifacts:\n%s", sys)
	}
	wantUser := "# Mathematical Text:\n" + text + "\n\nWith respect to the above text, assign relevance scores to the following tags and return the results in JSON:\nAlgebra, Inequalities, Number Theory"
	if user != wantUser {
		t.Errorf("user message =\n%s\nwant\n%s", user, wantUser)
	}
}

func TestSummaryRender(t *testing.T) {
	p, err := Get(Summary)
	if err != nil {
		t.Fatal(err)
	}
	if p.System != "" {
		t.Errorf("F.2 is one user message; system = %q", p.System)
	}
	msgs, err := p.Render(SummaryData{Problem: "Show that n^2 + n is even.", Solution: "n(n+1) is a product of consecutive integers."})
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 1 || msgs[0].Role != llm.RoleUser {
		t.Fatalf("messages = %+v", msgs)
	}
	u := msgs[0].Content
	for _, s := range []string{
		"You are an expert mathematical annotator tasked with identifying the *core idea*-the central mathematical insight-from a math problem.",
		"1. Identify what makes the solution work conceptually, not how to carry it out.",
		"2. Never include any multi-step reasoning, equations, or numeric computations.",
		"3. Never try to solve the problem on your own, and don't include your reasoning or thoughts.",
		"4. Output a single valid JSON object matching the schema below.",
		"5. Structure the ideas imperatively so they look like you are giving a hint to someone.",
		"store its value as 'null' and set the 'noCoreIdea' to 'true'.",
		`"noCoreIdea": <true|false>,`,
		`"coreIdea": "<string - one short sentence (up to 30 words) naming the main insight to the problem>",`,
		`"supportingIdeas": ["<strings - 0-3 short technique phrases>"],`,
		`"confidence": <0.0-1.0>`,
	} {
		if !strings.Contains(u, s) {
			t.Errorf("message lacks %q", s)
		}
	}
	if !strings.HasSuffix(u, "Here are the problem statement and solution:\nStatement: Show that n^2 + n is even.\nSolution: n(n+1) is a product of consecutive integers.") {
		t.Errorf("message ends wrong:\n%s", u)
	}
	if !strings.HasPrefix(u, "# INSTRUCTION\n") {
		t.Errorf("message starts wrong: %q", u[:20])
	}
}

func TestRenderAcceptsMapsAndRejectsMissingFields(t *testing.T) {
	p, _ := Get(Summary)
	if _, err := p.Render(map[string]string{"Problem": "p", "Solution": "s"}); err != nil {
		t.Errorf("map data: %v", err)
	}
	if _, err := p.Render(map[string]string{"Problem": "p"}); err == nil {
		t.Error("map without Solution rendered")
	}
	if _, err := p.Render(TopicsData{}); err == nil {
		t.Error("TopicsData rendered the summary prompt")
	}
	q, _ := Get(Topics)
	if _, err := q.Render(SummaryData{}); err == nil {
		t.Error("SummaryData rendered the topics prompt")
	}
}

func TestRenderDoesNotEscape(t *testing.T) {
	p, _ := Get(Summary)
	msgs, err := p.Render(SummaryData{Problem: `a < b && "c" > 'd'`, Solution: "{{.X}}"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(msgs[0].Content, `Statement: a < b && "c" > 'd'`+"\nSolution: {{.X}}") {
		t.Errorf("data was altered:\n%s", msgs[0].Content)
	}
}

func TestSplit(t *testing.T) {
	for _, bad := range []string{"[SYSTEM]\nonly", "x\n[USER]\ny"} {
		if _, _, err := split(bad); err == nil {
			t.Errorf("split(%q) accepted", bad)
		}
	}
}

func TestJudgeRender(t *testing.T) {
	p, err := Get(Judge)
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := p.Render(JudgeData{TargetProblem: "TP", TargetSolution: "TS", Sample1Problem: "AP", Sample1Solution: "AS", Sample2Problem: "BP", Sample2Solution: "BS"})
	if err != nil {
		t.Fatal(err)
	}
	u := msgs[len(msgs)-1].Content
	for _, want := range []string{"[Target]\n- Problem: TP\n- Correct Solution: TS", "[Sample 1]\n- Problem: AP\n- Correct Solution: AS",
		"[Sample 2]\n- Problem: BP\n- Correct Solution: BS", "$\\boxed{1}$ -> corresponding to the first sample", "$\\boxed{2}$ ->"} {
		if !strings.Contains(u, want) {
			t.Errorf("judge prompt lacks %q", want)
		}
	}
	if _, err := p.Render(map[string]string{"TargetProblem": "x"}); err == nil {
		t.Error("a missing field rendered without error")
	}
}

// TestJudgeSharedFirstIsF3Reordered: F.3s has F.3's lines, each as
// often, none changed (only their order), and puts what every comparison
// shares (the instructions, then the target) before the two samples.
func TestJudgeSharedFirstIsF3Reordered(t *testing.T) {
	lines := func(file string) []string {
		raw, err := files.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		ls := strings.Split(strings.TrimRight(string(raw), "\n"), "\n")
		sort.Strings(ls)
		return ls
	}
	if a, b := lines(registry[Judge].file), lines(registry[JudgeSharedFirst].file); !slices.Equal(a, b) {
		t.Errorf("F.3s is not a reordering of F.3's lines:\n%q\n%q", a, b)
	}
	p, err := Get(JudgeSharedFirst)
	if err != nil {
		t.Fatal(err)
	}
	d := JudgeData{TargetProblem: "TP", TargetSolution: "TS", Sample1Problem: "AP", Sample1Solution: "AS", Sample2Problem: "BP", Sample2Solution: "BS"}
	msgs, err := p.Render(d)
	if err != nil {
		t.Fatal(err)
	}
	u := msgs[len(msgs)-1].Content
	out, target, s1 := strings.Index(u, "OUTPUT FORMAT"), strings.Index(u, "- Problem: TP"), strings.Index(u, "- Problem: AP")
	if len(msgs) != 1 || out < 0 || !(out < target && target < s1) {
		t.Errorf("F.3s is not instructions, target, samples in that order:\n%s", u)
	}
	// Two comparisons of one target share everything up to Sample 1.
	d2 := d
	d2.Sample1Problem, d2.Sample2Problem = "CP", "DP"
	msgs2, _ := p.Render(d2)
	if !strings.HasPrefix(msgs2[0].Content, u[:s1]) {
		t.Error("two comparisons of one target do not share the prompt up to Sample 1")
	}
}

func TestAuditRender(t *testing.T) {
	p, err := Get(Audit)
	if err != nil {
		t.Fatal(err)
	}
	if p.System != "" || p.Version != "a1.v1" {
		t.Errorf("A.1 is one user message, version a1.v1; system %q, version %q", p.System, p.Version)
	}
	msgs, err := p.Render(AuditData{QueryProblem: "QP", QuerySolution: "QS", DocumentProblem: "DP", DocumentSolution: "DS"})
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 1 || msgs[0].Role != llm.RoleUser {
		t.Fatalf("messages = %+v", msgs)
	}
	u := msgs[0].Content
	for _, want := range []string{
		"[Problem A]\n- Problem: QP\n- Solution: QS\n\n[Problem B]\n- Problem: DP\n- Solution: DS\n",
		"EQUIVALENT when they state the same mathematical content up to renaming, rewording or notation",
		"DISTINCT when their mathematical content differs",
		"a special case, a generalisation, a part or the converse",
		"1. Reasoning:",
		"$\\boxed{equivalent}$ ->",
		"$\\boxed{distinct}$ ->",
	} {
		if !strings.Contains(u, want) {
			t.Errorf("audit prompt lacks %q", want)
		}
	}
	if i, j := strings.Index(u, "Reasoning"), strings.LastIndex(u, `\boxed{distinct}`); i < 0 || j < i {
		t.Error("the verdict is not asked for after the reasoning")
	}
	if strings.Contains(u, "{{") || strings.Contains(u, "<no value>") {
		t.Errorf("unfilled placeholders:\n%s", u)
	}
	if _, err := p.Render(JudgeData{}); err == nil {
		t.Error("JudgeData rendered the audit prompt")
	}
}

// TestOrdinalAndConfidenceRender: F.4 fills the target and the one sample
// and ends with its boxed score; C.1 is F.3 but for the confidence line.
func TestOrdinalAndConfidenceRender(t *testing.T) {
	p, err := Get(Ordinal)
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := p.Render(OrdinalData{TargetProblem: "TP", TargetSolution: "TS", SampleProblem: "SP", SampleSolution: "SS"})
	if err != nil {
		t.Fatal(err)
	}
	u := msgs[len(msgs)-1].Content
	for _, s := range []string{"[Target]\nProblem: TP\nCorrect Solution: TS", "[Sample]\nProblem: SP\nCorrect Solution: SS",
		"Assign a single integer score from 0 to 100", `Final Score: \boxed{N} where N is a single integer from 0 to 100.`} {
		if !strings.Contains(u, s) {
			t.Errorf("ordinal prompt lacks %q", s)
		}
	}
	c, err := Get(JudgeConfidence)
	if err != nil {
		t.Fatal(err)
	}
	j, _ := Get(Judge)
	head := j.User[:strings.Index(j.User, "OUTPUT FORMAT")]
	if !strings.HasPrefix(c.User, head) || !strings.Contains(c.User, "Confidence: N") || !strings.HasSuffix(c.User, "being more similar to the target.") {
		t.Errorf("confidence prompt is not F.3 with a confidence line:\n%s", c.User[len(head):])
	}
}
