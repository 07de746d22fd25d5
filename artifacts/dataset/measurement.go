package dataset

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"

	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
)

// WriteNamed sorts rows by the dataset's key and writes them write-once
// under the key that name gives for their SHA-256, for a measurement
// dataset (layout.MeasurementKey): two processes finishing the same shard
// then store two objects rather than one replacing the other, so any
// manifest naming one names bytes that stay stored. An existing object
// under the name already holds these bytes (the name is their hash) and
// is accepted.
func (d Dataset[T]) WriteNamed(ctx context.Context, st store.Store, name func(sha256hex string) string, rows []T) (layout.Object, error) {
	sort.SliceStable(rows, func(i, j int) bool { return d.Compare(&rows[i], &rows[j]) < 0 })
	data, err := Encode(rows)
	if err != nil {
		return layout.Object{}, fmt.Errorf("encode %s: %w", d.Name, err)
	}
	sum := sha256.Sum256(data)
	sha := hex.EncodeToString(sum[:])
	key := name(sha)
	info, err := store.Put(ctx, st, key, data, store.Once)
	if errors.Is(err, store.ErrExist) {
		info, err = store.Info{Key: key, Size: int64(len(data))}, nil
	}
	if err != nil {
		return layout.Object{}, fmt.Errorf("write %s: %w", st.URI(key), err)
	}
	return layout.Object{URI: st.URI(key), Key: key, SHA256: sha, Size: info.Size, Rows: int64(len(rows))}, nil
}
