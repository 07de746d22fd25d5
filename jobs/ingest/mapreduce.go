package ingest

import (
	"cmp"
	"container/heap"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"iter"
	"path"
	"slices"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
)

// inputsOf expands every source's paths, in source order, logging to log
// a warning for each file a source names twice (expand), and telling
// listed (when set) what each path matched. Two sources may read one
// file: each reads it whole, with its own field map and where:.
func inputsOf(ctx context.Context, cfg *config.Config, log zerolog.Logger, listed func(path string, uris []string)) ([]input, error) {
	sources := Section.Of(cfg).Sources
	if len(sources) == 0 {
		return nil, stage.BadInput(fmt.Errorf("ingest.sources: no sources configured"))
	}
	var inputs []input
	for i := range sources {
		ins, err := expand(ctx, cfg, &sources[i], log, listed)
		if err != nil {
			return nil, err
		}
		inputs = append(inputs, ins...)
	}
	return inputs, nil
}

// mapShard reads this shard's spans of the inputs (plan), judges each row
// and writes them, accepted or rejected, with where they were read, to
// ingest_rows, and what it read to ingest_spans. Every input is recorded,
// by size, as an input of the shard: the plan is made from every size, so
// any size change makes every shard stale. So is what each source path
// matched (env.AddListing): every shard's share depends on the whole set,
// so a file added under a glob or folder, or gone, makes every shard stale.
func mapShard(ctx context.Context, env *stage.Env) error {
	cfg := env.Config
	c := Section.Of(cfg)
	inputs, err := inputsOf(ctx, cfg, env.Log, env.AddListing)
	if err != nil {
		return err
	}
	sizes := make([]int64, len(inputs))
	for i, in := range inputs {
		info, err := in.file.Store.Stat(ctx, in.file.Key)
		if err != nil {
			return stage.BadInput(fmt.Errorf("stat %s: %w", in.uri, err))
		}
		sizes[i] = info.Size
		env.AddFile(layout.Object{URI: in.uri, Size: info.Size, Unread: true})
	}
	srcIndex := map[*Source]int32{}
	for i := range c.Sources {
		srcIndex[&c.Sources[i]] = int32(i)
	}
	spans := plan(inputs, sizes, env.Shard.Count, env.Shard.Index)
	var mine int64
	for _, sp := range spans {
		mine += sp.end - sp.start
	}
	// The share's problems go to ingest_problems as they are read while
	// their ids come in order, as most corpora's do, so that the shard
	// holds the text of a chunk of problems at a time (dataset.WriteChunk,
	// and the row group being compressed), not its whole share. The first id out of order
	// stops that: the share is read again, held and sorted. Either way
	// the rows and their cuts are the same, and so are the bytes.
	ps, err := newProblemStream(ctx, env)
	if err != nil {
		return err
	}
	defer func() { ps.w.Abort() }()
	sh, err := readShare(ctx, env, inputs, spans, srcIndex, mine, ps)
	outOfOrder := int64(0)
	if errors.Is(err, errOutOfOrder) {
		outOfOrder = 1
		env.Log.Info().Err(err).Msg("reading this shard's share again, to hold and sort it")
		ps.w.Abort()
		if ps, err = newProblemStream(ctx, env); err != nil {
			return err
		}
		sh, err = readShare(ctx, env, inputs, spans, srcIndex, mine, nil)
	}
	if err != nil {
		return err
	}
	// bytes_read are the input bytes this shard owns and read, so that the
	// shards' sum is the inputs' size; bytes_reread those it read to find
	// its first line in a byte range, owned by the range before.
	env.Count("bytes_read", sh.owned)
	env.Count("bytes_reread", sh.reread)
	// reread_out_of_order is 1 when the share was read twice, its ids
	// out of order: a cost a corpus sorted by id does not pay.
	env.Count("reread_out_of_order", outOfOrder)
	env.Count("spans", int64(len(spans)))
	env.Count("rows_staged", int64(sh.rows.len()))
	env.Log.Info().Int("inputs", len(inputs)).Int("spans", len(spans)).Int64("bytes_read", sh.owned).Int("rows", sh.rows.len()).Bool("ids_in_order", outOfOrder == 0).Msg("read this shard's share")
	n, err := writeStaged(ctx, env, &sh.rows, ps)
	if err != nil {
		return err
	}
	env.Count("problems_staged", n)
	return stage.WriteOutput(ctx, env, dataset.IngestSpans, sh.spans)
}

// share is what a map shard read: its rows, its spans and its bytes.
type share struct {
	rows          rowChunks
	spans         []dataset.IngestSpan
	owned, reread int64
}

// errOutOfOrder stops readShare at the first problem whose id comes
// before the last one streamed.
var errOutOfOrder = errors.New("problem ids out of order")

// readShare reads this shard's spans of the inputs, judges each row and
// keeps it, with where it was read. An accepted row's problem goes to ps
// when ps is given, which keeps the row's id alone; without ps the row
// keeps its problem, for writeStaged.
func readShare(ctx context.Context, env *stage.Env, inputs []input, spans []span, srcIndex map[*Source]int32, mine int64, ps *problemStream) (*share, error) {
	cfg := env.Config
	hs := hashState{h: sha256.New()}
	sh := &share{}
	rows := &sh.rows
	prog := env.Progress("read bytes", mine)
	var texts *textArena
	if ps != nil {
		texts = &textArena{written: ps.idle}
	}
	for _, sp := range spans {
		in := inputs[sp.file]
		in.texts = texts
		t := newTally(in.src) // the fields of this span's rows
		first := rows.len()
		// mapRows applies the field map's where:, files:, templates and
		// list explosion; a filtered row reaches only t (counted, not
		// staged), an exploded row comes back once per element.
		rs, err := scan(ctx, in, sp, Section.Of(cfg).MaxLineBytes, prog, mapRows(ctx, env, in, t, func(r record) error {
			p, bad := validate(cfg, in, r, hs)
			t.row(r, nil)
			row := rows.add()
			row.file, row.line, row.elem = int32(sp.file), r.line, int32(r.elem)
			switch {
			case bad != nil:
				row.reject = bad
			case ps != nil:
				if err := ps.add(p); err != nil {
					return err
				}
				row.id = p.ID
			default:
				row.id, row.problem = p.ID, &p
			}
			return nil
		}))
		if err != nil {
			return nil, err
		}
		for i := first; i < rows.len(); i++ {
			rows.at(i).start = rs.start
		}
		o := layout.Object{URI: in.uri, SHA256: rs.sum, Size: rs.size}
		if !sp.whole {
			o.Offset, o.Length = rs.start, rs.end-rs.start
		}
		env.AddFile(o)
		span := dataset.IngestSpan{
			Source: srcIndex[in.src], File: int32(sp.file), Name: in.name, Start: rs.start, End: rs.end, Size: rs.size,
			Lines: rs.lines, Rows: int64(rows.len() - first), Objects: t.objects, Filtered: t.filtered,
		}
		t.spanLists(&span)
		sh.spans = append(sh.spans, span)
		sh.owned += rs.end - rs.start
		sh.reread += rs.reread
	}
	prog.Finish()
	return sh, nil
}

// writeStaged writes the shard's rows, in key order, to ingest_rows, and,
// unless ps took them as they were read, the first accepted row of each id
// to ingest_problems through ps. It returns the problems written.
//
// ingest_rows is streamed from the held rows where they lie, sorted
// through an index, a row group at a time. Copying the rows into one
// sorted slice for stage.WriteOutput, and each problem into the writer's
// buffer, grown as it came, took more memory than the rows themselves: a
// tenth of the shard's CPU went to that memory's page faults and to the
// copies.
func writeStaged(ctx context.Context, env *stage.Env, rows *rowChunks, ps *problemStream) (int64, error) {
	staged, err := stage.StreamOutput(ctx, env, dataset.IngestRows)
	if err != nil {
		return 0, err
	}
	defer staged.Abort()
	for _, i := range rows.sorted() {
		r := rows.at(i)
		if r.problem != nil {
			if err := ps.add(*r.problem); err != nil {
				return 0, err
			}
			r.problem = nil // let the text go
		}
		// The writer holds a chunk of rows (dataset.WriteChunk) at a
		// time, not a row group (7.6 MB of fresh memory).
		if err := staged.WriteRow(r.row()); err != nil {
			return 0, err
		}
	}
	n, err := ps.close()
	if err != nil {
		return 0, err
	}
	_, err = staged.Close()
	return n, err
}

// problemStream writes ingest_problems from the accepted rows in key
// order: the first row of each id, in the row groups groupCut cuts
// counting from the shard's first problem. The text is compressed once,
// here, in its final form; ingest_rows keeps an accepted row's problem by
// its id alone, all the reduce needs. Problems come as readShare reads
// them, and may then come out of order, or from writeStaged's sorted rows.
//
// The writer copies the problems' texts a chunk at a time
// (dataset.WriteChunk), not a row group (16,384 on average) at a time, so
// a streaming shard's text arena starts again every chunk and stays ~1
// MB, in cache, instead of growing to the largest group's texts (tens of
// MB of fresh memory, whose page faults were a tenth of a map shard's
// CPU).
type problemStream struct {
	w    *stage.OutputWriter[dataset.Problem]
	cut  groupCut
	n    int64
	prev string
}

func newProblemStream(ctx context.Context, env *stage.Env) (*problemStream, error) {
	w, err := stage.StreamOutput(ctx, env, dataset.IngestProblems)
	if err != nil {
		return nil, err
	}
	return &problemStream{w: w}, nil
}

// add takes the next accepted row's problem: a later row of an id is the
// reduce's duplicate_id, and an id before the last is errOutOfOrder.
func (s *problemStream) add(p dataset.Problem) error {
	if s.n > 0 {
		switch c := strings.Compare(p.ID, s.prev); {
		case c < 0:
			return fmt.Errorf("%w: %q after %q", errOutOfOrder, p.ID, s.prev)
		case c == 0:
			return nil
		}
	}
	s.prev = p.ID
	s.n++
	if err := s.w.WriteRow(p); err != nil {
		return err
	}
	if s.cut.end(p.ID) {
		return s.w.EndRowGroup()
	}
	return nil
}

// idle reports whether every problem taken so far is written: the writer
// has copied them all.
func (s *problemStream) idle() bool { return s.w.Pending() == 0 }

// close writes the last row group and commits the part.
func (s *problemStream) close() (int64, error) {
	_, err := s.w.Close()
	return s.n, err
}

// heldRow is what a map shard holds of a row until it writes ingest_rows:
// where the row was read, its id or why it was rejected, and its problem
// when readShare did not stream it: 56 bytes, where a row as ingest_rows
// stores it (dataset.IngestRow) is 152, nearly all of them a reject's
// empty strings.
type heldRow struct {
	id          string // the accepted problem's id; "" for a reject, as in ingest_rows
	file, elem  int32
	start, line int64
	reject      *dataset.Reject  // nil for an accepted row
	problem     *dataset.Problem // the accepted row's problem, until written
}

// row is h as ingest_rows stores it: an accepted row's problem by its id.
func (h *heldRow) row() dataset.IngestRow {
	r := dataset.IngestRow{File: h.file, Start: h.start, Line: h.line, Elem: h.elem, ID: h.id}
	if h.reject != nil {
		r.Reject = *h.reject
	}
	return r
}

// compareHeld orders held rows as dataset.IngestRows.Compare orders
// their rows (TestRowChunks).
func compareHeld(a, b *heldRow) int {
	return cmp.Or(strings.Compare(a.id, b.id), cmp.Compare(a.file, b.file), cmp.Compare(a.start, b.start), cmp.Compare(a.line, b.line), cmp.Compare(a.elem, b.elem))
}

// rowChunks holds a shard's rows until they are sorted and written, in
// chunks that never move: growing one slice of rows by doubling (or by
// an estimate from the bytes read so far, which the reader's read-ahead
// skews) copied them several times over, a tenth of a map shard's CPU
// with the write barriers of a copy during GC.
type rowChunks struct {
	chunks [][]heldRow
	n      int
}

// rowChunk is the rows per chunk: ~224 KB, few enough chunks to index.
const rowChunk = 4096

// add returns a new row, zero, to be filled in place.
func (c *rowChunks) add() *heldRow {
	if c.n%rowChunk == 0 {
		c.chunks = append(c.chunks, make([]heldRow, rowChunk))
	}
	r := &c.chunks[len(c.chunks)-1][c.n%rowChunk]
	c.n++
	return r
}

func (c *rowChunks) len() int { return c.n }

func (c *rowChunks) at(i int) *heldRow { return &c.chunks[i/rowChunk][i%rowChunk] }

// sorted returns the indices of the rows in ingest_rows' key order (rows
// of equal keys, which a shard never has, in the order added).
func (c *rowChunks) sorted() []int {
	order := make([]int, c.n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return compareHeld(c.at(a), c.at(b)) })
	return order
}

// spanKey names a span: its file and first byte.
type spanKey struct {
	file  int32
	start int64
}

// reduce settles duplicate ids across the map shards and writes problems
// and rejects, one part each, whatever ingest.shards is. It merges the
// shards' ingest_rows parts, each sorted by (id, file, start, line), so
// the rows of one id arrive together in source order: the first is kept,
// the others are duplicate_id rejects. Problems are written as they come,
// in id order, a row group at a time (problemWriter): one that is a map
// shard's own is copied from its ingest_problems without being decoded,
// any other decoded and encoded again. The reduce holds one batch of
// ingest_rows per map part, one decoded row group of ingest_problems, the
// rejects and the spans; and, from S3, each ingest_rows and
// ingest_problems part of up to 128 MiB whole, compressed (a local part
// is read from its file; see dataset.ScanVerified).
func reduce(ctx context.Context, env *stage.Env) error {
	c := Section.Of(env.Config)
	spanParts, err := env.Upstream(ctx, dataset.IngestSpans.Name)
	if err != nil {
		return err
	}
	var spans []dataset.IngestSpan
	for _, p := range spanParts {
		rows, err := stage.ReadPart[dataset.IngestSpan](ctx, env, p)
		if err != nil {
			return err
		}
		spans = append(spans, rows...)
	}
	slices.SortFunc(spans, func(a, b dataset.IngestSpan) int { return dataset.IngestSpans.Compare(&a, &b) })
	base, err := lineBases(spans)
	if err != nil {
		return err
	}
	names := map[int32]string{}
	source := map[int32]int32{}
	tallies := make([]*tally, len(c.Sources))
	for i := range c.Sources {
		tallies[i] = newTally(&c.Sources[i])
	}
	var rowsRead int64
	for i := range spans {
		sp := &spans[i]
		if int(sp.Source) >= len(c.Sources) {
			return stage.BadInput(fmt.Errorf("ingest_spans names source %d of %d: the map ran with another config; rerun ingest map with --force", sp.Source, len(c.Sources)))
		}
		names[sp.File], source[sp.File] = sp.Name, sp.Source
		tallies[sp.Source].span(sp)
		rowsRead += sp.Rows
	}

	rowParts, err := env.Upstream(ctx, dataset.IngestRows.Name)
	if err != nil {
		return err
	}
	problemParts, err := env.Upstream(ctx, dataset.IngestProblems.Name)
	if err != nil {
		return err
	}
	if len(problemParts) != len(rowParts) {
		return fmt.Errorf("%d parts of ingest_problems, %d of ingest_rows: the map shards wrote one of each", len(problemParts), len(rowParts))
	}
	staged := make([]*stagedProblems, len(problemParts))
	for i, p := range problemParts {
		// Part k of each is map shard k's: the merge names rows by k.
		if path.Base(p.Key) != path.Base(rowParts[i].Key) {
			return fmt.Errorf("ingest_problems part %s beside ingest_rows part %s: not one map shard's (a bug)", p.URI, rowParts[i].URI)
		}
		part, err := stage.OpenPart[dataset.Problem](ctx, env, p)
		if err != nil {
			return err
		}
		defer part.Close()
		staged[i] = newStagedProblems(part)
	}
	m, err := newMerge(ctx, env, rowParts)
	if err != nil {
		return err
	}
	defer m.stop()
	w, err := stage.StreamOutput(ctx, env, dataset.Problems)
	if err != nil {
		return err
	}
	defer w.Abort()
	pw := &problemWriter{w: w, staged: staged}
	type placed struct {
		r    dataset.Reject
		file int32
	}
	var rejects []placed
	var kept int64
	var prevID, prevFile string
	var prevLine int64
	// next[k] is the row of shard k's ingest_problems that holds the
	// next id first accepted in its share, last[k] that id.
	next := make([]int64, len(staged))
	last := make([]string, len(staged))
	for {
		r, k, ok, err := m.next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		line := base[spanKey{r.File, r.Start}] + r.Line
		if r.Reject.Reason != "" {
			rr := r.Reject
			rr.Line = line
			rejects = append(rejects, placed{rr, r.File})
			continue
		}
		at := int64(-1) // r's problem in shard k's ingest_problems: the first of its id there
		if next[k] == 0 || r.ID != last[k] {
			at, last[k] = next[k], r.ID
			next[k]++
		}
		if kept > 0 && r.ID == prevID {
			src := &c.Sources[source[r.File]]
			rejects = append(rejects, placed{dataset.Reject{
				Input: src.Name, File: names[r.File], Line: line, ID: r.ID, Field: fieldNames(src)["id"],
				Reason: dataset.ReasonDuplicateID, Detail: fmt.Sprintf("first seen at %s:%d", prevFile, prevLine),
			}, r.File})
			continue
		}
		if at < 0 {
			return fmt.Errorf("read %s: problem %s is not the first of its id in its part (a bug in the map, or the part was changed)", rowParts[k].URI, r.ID)
		}
		prevID, prevFile, prevLine = r.ID, names[r.File], line
		if err := pw.add(k, at, r.ID); err != nil {
			return err
		}
		kept++
	}
	if err := m.err(); err != nil {
		return err
	}
	if err := pw.flush(); err != nil {
		return err
	}
	for k, st := range staged {
		if next[k] != st.len() {
			return fmt.Errorf("%s holds %d problems, but its shard's ingest_rows part has %d ids accepted first there (a bug, or staging changed under the reduce)", problemParts[k].URI, st.len(), next[k])
		}
	}
	env.Count("row_groups_copied", pw.copied)
	env.Count("row_groups_encoded", pw.encoded)
	if got := kept + int64(len(rejects)); got != rowsRead {
		return fmt.Errorf("ingest_rows holds %d rows, ingest_spans counts %d (a bug, or staging changed under the reduce)", got, rowsRead)
	}
	// The tallies see rejects in source order, so each reason's example
	// is its first occurrence, as one reader of every input would find.
	slices.SortStableFunc(rejects, func(a, b placed) int { return cmp.Or(cmp.Compare(a.file, b.file), cmp.Compare(a.r.Line, b.r.Line)) })
	out := make([]dataset.Reject, len(rejects))
	for i, p := range rejects {
		out[i] = p.r
		tallies[source[p.file]].reject(&out[i])
	}
	for i := range c.Sources {
		if err := tallies[i].verdict(&c.Sources[i], i, env); err != nil {
			return err
		}
	}
	env.Count("rows_read", rowsRead)
	env.Count("problems_total", kept)
	seen := map[string]bool{}
	for _, r := range out {
		env.Count("rejected_"+r.Reason, 1)
		if r.Reason == dataset.ReasonExcluded {
			seen[r.ID] = true
		}
	}
	// An exclude id no row has is most likely a typo, and would leave in
	// the document it was meant to take out (the leak the audit flagged)
	// until release refuses it: say so here, where it is fixed.
	var unmatched []string
	for _, id := range c.Exclude {
		if !seen[id] {
			seen[id] = true // each once, however often it is listed
			unmatched = append(unmatched, id)
		}
	}
	if len(unmatched) > 0 {
		env.Count("exclude_unmatched", int64(len(unmatched)))
		env.Log.Warn().Strs("ids", unmatched[:min(len(unmatched), 20)]).Int("count", len(unmatched)).
			Msg("ingest.exclude names ids no input row has (a typo, or an id_prefix left out?): they exclude nothing")
	}
	env.Log.Info().Int("files", len(names)).Int64("problems", kept).Int("rejects", len(out)).Msg("settled duplicate ids")
	if _, err := w.Close(); err != nil {
		return err
	}
	return stage.WriteOutput(ctx, env, dataset.Rejects, out)
}

// lineBases checks that the spans, sorted by (file, start), tile every file
// from its first byte to its last with no gap or overlap (the map shards
// made one plan) and that a file split into ranges has rows, and returns
// the lines before each span in its file.
func lineBases(spans []dataset.IngestSpan) (map[spanKey]int64, error) {
	base := make(map[spanKey]int64, len(spans))
	replan := "the map shards did not read the same plan of the inputs (did an input change while they ran?); rerun ingest map with --force"
	var lines, rows int64
	for i, sp := range spans {
		if i == 0 || sp.File != spans[i-1].File {
			if sp.File != int32(0) && (i == 0 || sp.File != spans[i-1].File+1) {
				return nil, stage.BadInput(fmt.Errorf("ingest_spans: no span of input %d: %s", sp.File-1, replan))
			}
			if sp.Start != 0 {
				return nil, stage.BadInput(fmt.Errorf("ingest_spans: %s starts at byte %d: %s", sp.Name, sp.Start, replan))
			}
			lines, rows = 0, 0
		} else if prev := spans[i-1]; sp.Start != prev.End {
			return nil, stage.BadInput(fmt.Errorf("ingest_spans: %s read to byte %d, then from byte %d: %s", sp.Name, prev.End, sp.Start, replan))
		}
		base[spanKey{sp.File, sp.Start}] = lines
		lines += sp.Lines
		rows += sp.Rows + sp.Filtered // a file whose rows where: all dropped has rows
		if i == len(spans)-1 || spans[i+1].File != sp.File {
			if sp.End != sp.Size {
				return nil, stage.BadInput(fmt.Errorf("ingest_spans: %s read to byte %d of %d: %s", sp.Name, sp.End, sp.Size, replan))
			}
			if rows == 0 {
				return nil, stage.BadInput(fmt.Errorf("%s: no rows", sp.Name))
			}
		}
	}
	return base, nil
}

// merge yields the rows of several ingest_rows parts, each in key order,
// in key order overall.
type merge struct {
	cursors []*cursor
	h       cursorHeap
}

type cursor struct {
	idx   int // the part's index in newMerge's parts
	part  layout.Object
	next  func() (dataset.IngestRow, bool)
	stop  func()
	err   error
	head  dataset.IngestRow
	valid bool
	// prev is the row before head, for advance's order check: kept here,
	// as a local its address (for Compare) put a 256-byte row on the
	// heap for every row merged, a sixth of the reduce's CPU.
	prev dataset.IngestRow
}

var errStopped = errors.New("stopped")

func newMerge(ctx context.Context, env *stage.Env, parts []layout.Object) (*merge, error) {
	m := &merge{}
	for i, p := range parts {
		c := &cursor{idx: i, part: p}
		var seq iter.Seq[dataset.IngestRow] = func(yield func(dataset.IngestRow) bool) {
			if err := scanStaged(ctx, env, p, yield); err != nil && !errors.Is(err, errStopped) {
				c.err = err
			}
		}
		c.next, c.stop = iter.Pull(seq)
		m.cursors = append(m.cursors, c)
		if err := m.advance(c); err != nil {
			m.stop()
			return nil, err
		}
		if c.valid {
			m.h = append(m.h, c)
		}
	}
	heap.Init(&m.h)
	return m, nil
}

// scanStaged yields the rows of an ingest_rows part, verified and recorded
// as stage.ScanPart would, from parquet-go's rows of values: assembling
// each into an IngestRow by reflection (parquet-go's generic reader), its
// columns nearly all empty (22 of them then, in version 2), was a fifth of
// the reduce's CPU. It returns errStopped when yield stops it.
func scanStaged(ctx context.Context, env *stage.Env, p layout.Object, yield func(dataset.IngestRow) bool) error {
	part, err := stage.OpenPart[dataset.IngestRow](ctx, env, p)
	if err != nil {
		return err
	}
	defer part.Close()
	cols, err := stagedColumnsOf(part.Schema())
	if err != nil {
		return fmt.Errorf("read %s: %w", p.URI, err)
	}
	buf := make([]parquet.Row, 256)
	for _, rg := range part.RowGroups() {
		if err := ctx.Err(); err != nil {
			return err
		}
		rows := rg.Rows()
		for {
			n, rerr := rows.ReadRows(buf)
			for _, row := range buf[:n] {
				r, err := cols.row(row)
				if err != nil {
					rows.Close()
					return fmt.Errorf("read %s: %w", p.URI, err)
				}
				if !yield(r) {
					rows.Close()
					return errStopped
				}
			}
			if errors.Is(rerr, io.EOF) {
				break
			}
			if rerr != nil {
				rows.Close()
				return fmt.Errorf("read %s: %w", p.URI, rerr)
			}
		}
		rows.Close()
	}
	return nil
}

// stagedColumns are the leaf columns of ingest_rows, by their index in a
// part's schema (which OpenPart has checked holds every IngestRow column).
type stagedColumns struct {
	n                                               int // columns a row has
	file, start, line, elem, id                     int
	input, rfile, rline, rid, field, reason, detail int // the reject's
}

func stagedColumnsOf(s *parquet.Schema) (stagedColumns, error) {
	c := stagedColumns{n: len(s.Columns())}
	for _, col := range []struct {
		at   *int
		path []string
	}{
		{&c.file, []string{"file"}}, {&c.start, []string{"start"}}, {&c.line, []string{"line"}}, {&c.elem, []string{"elem"}},
		{&c.id, []string{"id"}},
		{&c.input, []string{"reject", "input"}}, {&c.rfile, []string{"reject", "file"}}, {&c.rline, []string{"reject", "line"}},
		{&c.rid, []string{"reject", "id"}}, {&c.field, []string{"reject", "field"}}, {&c.reason, []string{"reject", "reason"}},
		{&c.detail, []string{"reject", "detail"}},
	} {
		leaf, ok := s.Lookup(col.path...)
		if !ok || leaf.MaxRepetitionLevel != 0 || leaf.MaxDefinitionLevel != 0 {
			return c, fmt.Errorf("column %s: not a required column of ingest_rows", strings.Join(col.path, "."))
		}
		*col.at = leaf.ColumnIndex
	}
	return c, nil
}

// row is the IngestRow of one row of values: an accepted row's problem by
// its ID alone, as the map wrote it.
func (c stagedColumns) row(v parquet.Row) (dataset.IngestRow, error) {
	if len(v) != c.n {
		return dataset.IngestRow{}, fmt.Errorf("a row of %d values, want one for each of its %d columns", len(v), c.n)
	}
	str := func(i int) string { return string(v[i].ByteArray()) }
	r := dataset.IngestRow{File: v[c.file].Int32(), Start: v[c.start].Int64(), Line: v[c.line].Int64(), Elem: v[c.elem].Int32(),
		ID: str(c.id)}
	if reason := str(c.reason); reason != "" {
		r.Reject = dataset.Reject{Input: str(c.input), File: str(c.rfile), Line: v[c.rline].Int64(), ID: str(c.rid),
			Field: str(c.field), Reason: reason, Detail: str(c.detail)}
	}
	return r, nil
}

// advance moves c to its next row, checking the part is in key order.
func (m *merge) advance(c *cursor) error {
	had := c.valid
	c.prev = c.head
	c.head, c.valid = c.next()
	if c.err != nil {
		return c.err
	}
	if had && c.valid && dataset.IngestRows.Compare(&c.prev, &c.head) > 0 {
		return fmt.Errorf("read %s: rows out of key order (a bug in the map, or the part was changed)", c.part.URI)
	}
	return nil
}

// next returns the next row and the index of the part it came from.
func (m *merge) next() (dataset.IngestRow, int, bool, error) {
	if len(m.h) == 0 {
		return dataset.IngestRow{}, 0, false, nil
	}
	c := m.h[0]
	r := c.head
	if err := m.advance(c); err != nil {
		return r, c.idx, false, err
	}
	if c.valid {
		heap.Fix(&m.h, 0)
	} else {
		heap.Pop(&m.h)
	}
	return r, c.idx, true, nil
}

// problemWriter writes problems from the map shards' ingest_problems parts
// in the row groups groupCut cuts: a group that is one of a part's own
// row groups is copied, compressed pages and all; any other is decoded
// from the parts and encoded again.
type problemWriter struct {
	w       *stage.OutputWriter[dataset.Problem]
	staged  []*stagedProblems
	cut     groupCut
	group   []problemRef
	copied  int64
	encoded int64
}

// problemRef is row at of shard part's ingest_problems.
type problemRef struct {
	part int
	at   int64
}

// add appends row at of part k, whose id is id.
func (p *problemWriter) add(k int, at int64, id string) error {
	p.group = append(p.group, problemRef{k, at})
	if p.cut.end(id) {
		return p.flush()
	}
	return nil
}

// flush writes the group so far.
func (p *problemWriter) flush() error {
	g := p.group
	if len(g) == 0 {
		return nil
	}
	p.group = g[:0]
	// One part's rows, consecutive in it: the group is the part's own
	// when the part cut a row group at both ends.
	first, own := g[0], true
	for i, ref := range g {
		own = own && ref.part == first.part && ref.at == first.at+int64(i)
	}
	if own {
		if rg, ok := p.staged[first.part].group(first.at, first.at+int64(len(g))); ok {
			p.copied++
			return p.w.CopyRowGroup(rg)
		}
	}
	for _, ref := range g {
		row, err := p.staged[ref.part].row(ref.at)
		if err != nil {
			return fmt.Errorf("ingest_problems part %d: %w", ref.part, err)
		}
		if err := p.w.WriteRow(row); err != nil {
			return err
		}
	}
	p.encoded++
	return p.w.EndRowGroup()
}

func (m *merge) err() error {
	for _, c := range m.cursors {
		if c.err != nil {
			return c.err
		}
	}
	return nil
}

func (m *merge) stop() {
	for _, c := range m.cursors {
		c.stop()
	}
}

// cursorHeap orders cursors by their head row; no two rows share a key
// (file, start and line place one row).
type cursorHeap []*cursor

func (h cursorHeap) Len() int { return len(h) }
func (h cursorHeap) Less(i, j int) bool {
	return dataset.IngestRows.Compare(&h[i].head, &h[j].head) < 0
}
func (h cursorHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *cursorHeap) Push(x any)   { *h = append(*h, x.(*cursor)) }
func (h *cursorHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}
