package release

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/saber-math/saber/artifacts/store"
)

// ConflictError refuses to publish over a version that holds other bytes:
// a published version is never changed.
type ConflictError struct {
	Target string
	Files  []string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("%s already holds another release under this version (%s differ%s): a published version is never overwritten; set a new release.version",
		e.Target, strings.Join(e.Files, ", "), map[bool]string{true: "s", false: ""}[len(e.Files) == 1])
}

// NotVerifiedError refuses to publish a release folder that does not verify.
type NotVerifiedError struct{ Report *Report }

func (e *NotVerifiedError) Error() string {
	var parts []string
	for i, p := range e.Report.Problems {
		if i == 5 {
			parts = append(parts, fmt.Sprintf("and %d more", len(e.Report.Problems)-5))
			break
		}
		parts = append(parts, p.String())
	}
	return "the release does not verify: " + strings.Join(parts, "; ")
}

// StrayError refuses a target version folder that holds objects the
// release does not list: whatever is there, a reader of the published
// version would take them for part of it (and verify would fail).
type StrayError struct {
	Target string
	Files  []string
}

func (e *StrayError) Error() string {
	return fmt.Sprintf("%s holds %d object(s) that are not part of this release: %s — remove them (a published version holds exactly the files of its %s) or publish under a new release.version",
		e.Target, len(e.Files), strings.Join(e.Files, ", "), SumsFile)
}

// PublishSummary is what Publish did.
type PublishSummary struct {
	Uploaded, Skipped int
	Bytes             int64
}

// Publish copies the release folder src to dst write-once: it verifies
// src first, refuses (*ConflictError) when dst holds any file of the
// version with other bytes — before uploading anything — skips the files
// already there with the same SHA-256 (so an interrupted publish resumes
// and a repeated one uploads nothing), writes every other file with
// store.Once (S3: If-None-Match: *), and SHA256SUMS last, so a reader
// that finds the checksums finds every file they list.
func Publish(ctx context.Context, src, dst store.Store, out io.Writer) (PublishSummary, error) {
	var sum PublishSummary
	rep, err := Verify(ctx, src)
	if err != nil {
		return sum, err
	}
	if !rep.OK() {
		return sum, &NotVerifiedError{Report: rep}
	}
	sums, err := store.ReadAll(ctx, src, SumsFile)
	if err != nil {
		return sum, err
	}
	var files []string
	for _, line := range strings.Split(strings.TrimSuffix(string(sums), "\n"), "\n") {
		m := sumLine.FindStringSubmatch(line)
		files = append(files, m[2])
	}
	files = append(files, SumsFile)
	want := map[string]string{SumsFile: hexSHA(sums)}
	for _, line := range strings.Split(strings.TrimSuffix(string(sums), "\n"), "\n") {
		m := sumLine.FindStringSubmatch(line)
		want[m[2]] = m[1]
	}
	// Every conflict first: nothing is uploaded beside another release or
	// beside objects that are not the release's.
	if err := checkStrays(ctx, dst, want); err != nil {
		return sum, err
	}
	there := map[string]bool{}
	var conflicts []string
	for _, f := range files {
		got, err := hashAt(ctx, dst, f)
		if errors.Is(err, store.ErrNotExist) {
			continue
		}
		if err != nil {
			return sum, err
		}
		if got != want[f] {
			conflicts = append(conflicts, f)
			continue
		}
		there[f] = true
	}
	if len(conflicts) > 0 {
		return sum, &ConflictError{Target: dst.URI(""), Files: conflicts}
	}
	for _, f := range files {
		if there[f] {
			sum.Skipped++
			continue
		}
		b, err := store.ReadAll(ctx, src, f)
		if err != nil {
			return sum, err
		}
		if hexSHA(b) != want[f] {
			return sum, fmt.Errorf("%s changed while publishing", src.URI(f))
		}
		if _, err := store.Put(ctx, dst, f, b, store.Once); err != nil {
			if !errors.Is(err, store.ErrExist) {
				return sum, fmt.Errorf("upload %s: %w", dst.URI(f), err)
			}
			// Another publisher got there first: fine if it is the same file.
			got, herr := hashAt(ctx, dst, f)
			if herr != nil {
				return sum, herr
			}
			if got != want[f] {
				return sum, &ConflictError{Target: dst.URI(""), Files: []string{f}}
			}
			sum.Skipped++
			continue
		}
		sum.Uploaded++
		sum.Bytes += int64(len(b))
		fmt.Fprintf(out, "  uploaded %s (%d bytes)\n", f, len(b))
	}
	// What is there now is what readers get: the release exactly, checked
	// as a reader would, after the last upload.
	if err := checkStrays(ctx, dst, want); err != nil {
		return sum, err
	}
	rep, err = Verify(ctx, dst)
	if err != nil {
		return sum, fmt.Errorf("verify %s after publishing: %w", dst.URI(""), err)
	}
	if !rep.OK() {
		return sum, fmt.Errorf("%s does not verify after publishing: %w", dst.URI(""), &NotVerifiedError{Report: rep})
	}
	return sum, nil
}

// checkStrays refuses objects in dst that the release does not list.
func checkStrays(ctx context.Context, dst store.Store, want map[string]string) error {
	infos, err := dst.List(ctx, "")
	if err != nil {
		return fmt.Errorf("list %s: %w", dst.URI(""), err)
	}
	var stray []string
	for _, in := range infos {
		if _, ok := want[in.Key]; !ok {
			stray = append(stray, in.Key)
		}
	}
	if len(stray) > 0 {
		return &StrayError{Target: dst.URI(""), Files: stray}
	}
	return nil
}

func hashAt(ctx context.Context, st store.Store, key string) (string, error) {
	obj, err := st.Open(ctx, key)
	if err != nil {
		return "", err
	}
	defer obj.Close()
	return HashReader(store.Reader(obj))
}
