package stage

import (
	"context"
	"slices"

	"github.com/parquet-go/parquet-go"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
)

// OutputWriter streams this shard's part of a dataset, for a step that
// produces its rows in the dataset's order and cannot hold them all (see
// WriteOutput, which sorts a slice).
type OutputWriter[T any] struct {
	env *Env
	ds  string
	w   *dataset.Writer[T]
}

// StreamOutput starts this shard's part of ds; the step must declare it.
// Rows must come in the dataset's order. Close records the part as an
// output; Abort drops it.
func StreamOutput[T any](ctx context.Context, env *Env, ds dataset.Dataset[T]) (*OutputWriter[T], error) {
	if !slices.Contains(env.decl.Outputs, ds.Name) {
		return nil, &UndeclaredError{Stage: env.Stage, Step: env.Step, What: "output dataset " + ds.Name}
	}
	w, err := ds.NewWriter(ctx, env.Out, env.DataKey(ds.Name)) // the dataset's own options: a staging part's fast codec
	if err != nil {
		return nil, err
	}
	return &OutputWriter[T]{env: env, ds: ds.Name, w: w}, nil
}

// Write appends rows.
func (o *OutputWriter[T]) Write(rows ...T) error { return o.w.Write(rows) }

// WriteRow writes one row (see dataset.Writer.WriteRow).
func (o *OutputWriter[T]) WriteRow(r T) error { return o.w.WriteRow(r) }

// Pending is how many written rows the Parquet writer has not yet copied
// (see dataset.Writer.Pending).
func (o *OutputWriter[T]) Pending() int { return o.w.Pending() }

// EndRowGroup ends the current row group (see dataset.Writer.EndRowGroup).
func (o *OutputWriter[T]) EndRowGroup() error { return o.w.EndRowGroup() }

// CopyRowGroup appends a row group of an input part opened with OpenPart
// (see dataset.Writer.CopyRowGroup).
func (o *OutputWriter[T]) CopyRowGroup(rg parquet.RowGroup) error { return o.w.CopyRowGroup(rg) }

// Close commits the part and records it.
func (o *OutputWriter[T]) Close() (layout.Object, error) {
	obj, err := o.w.Close()
	if err != nil {
		return obj, err
	}
	obj.Dataset = o.ds
	o.env.AddOutput(obj)
	return obj, nil
}

// Abort drops a part not yet closed.
func (o *OutputWriter[T]) Abort() { o.w.Abort() }
