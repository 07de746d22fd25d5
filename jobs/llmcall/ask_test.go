package llmcall

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/llm"
)

// TestCheckInvalidShare: the share fails only strictly above the
// threshold, with exit 2 and a message naming the share, the key and the
// sample; an empty shard never fails.
func TestCheckInvalidShare(t *testing.T) {
	for _, tc := range []struct {
		invalid, total int64
		max            float64
		fail           bool
	}{
		{0, 0, 0.5, false},
		{0, 10, 0.5, false},
		{5, 10, 0.5, false},
		{6, 10, 0.5, true},
		{10, 10, 0.5, true},
		{10, 10, 1, false},
		{1, 1000, 0.001, false},
		{2, 1000, 0.001, true},
	} {
		err := CheckInvalidShare("documents rejected", tc.invalid, tc.total, "tag.max_invalid_share", tc.max, "document d1: unparseable_answer")
		if (err != nil) != tc.fail {
			t.Errorf("%d of %d, max %v: err = %v, want failure %v", tc.invalid, tc.total, tc.max, err, tc.fail)
			continue
		}
		if err == nil {
			continue
		}
		var ise *InvalidShareError
		if !errors.As(err, &ise) || stage.ExitCode(fmt.Errorf("shard: %w", err)) != stage.ExitBadInput {
			t.Errorf("err %v: want an InvalidShareError, exit 2", err)
		}
		for _, w := range []string{fmt.Sprintf("%d of %d documents rejected", tc.invalid, tc.total), "tag.max_invalid_share", "document d1: unparseable_answer", "%"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("message %q lacks %q", err, w)
			}
		}
	}
}

// TestRejectStopsOnConfigError: a permanent failure of one request is a
// reject row; a configuration error is returned (the shard stops, exit 2),
// never a reject per document.
func TestRejectStopsOnConfigError(t *testing.T) {
	rej, err := Reject("tag", "d1", fmt.Errorf("llm: chat: http_400: %w", llm.ErrPermanent))
	if err != nil || rej == nil || rej.Reason != dataset.ReasonLLMFailed {
		t.Errorf("permanent: %+v, %v; want a reject", rej, err)
	}
	ce := &llm.ConfigError{Setting: "llm.api_key_env", Status: 401, Op: "chat", Msg: "refused"}
	rej, err = Reject("tag", "d1", fmt.Errorf("document d1: %w", ce))
	if rej != nil || !errors.As(err, &ce) || stage.ExitCode(err) != stage.ExitBadInput {
		t.Errorf("config error: %+v, %v (exit %d); want the error back, exit 2", rej, err, stage.ExitCode(err))
	}
}

func TestExcerpt(t *testing.T) {
	long := strings.Repeat("é", 200)
	got := Excerpt(long)
	if !strings.HasSuffix(got, `…"`) || len(got) > 170 || strings.ContainsRune(got, '\uFFFD') {
		t.Errorf("Excerpt cuts %q", got)
	}
	if got := Excerpt("no box\n"); got != `"no box\n"` {
		t.Errorf("Excerpt = %s", got)
	}
}
