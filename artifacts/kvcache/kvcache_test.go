package kvcache

import (
	"context"
	"testing"

	"github.com/saber-math/saber/artifacts/store"
)

func TestGetPut(t *testing.T) {
	ctx := context.Background()
	st := store.NewMem()
	c := New(st, "run/_cache/llm/")
	if _, ok, err := c.Get(ctx, "abcdef"); ok || err != nil {
		t.Fatalf("empty cache: %v %v", ok, err)
	}
	if err := c.Put(ctx, "abcdef", []byte("one")); err != nil {
		t.Fatal(err)
	}
	// A second writer of the same key keeps the first value and succeeds.
	if err := c.Put(ctx, "abcdef", []byte("two")); err != nil {
		t.Fatal(err)
	}
	v, ok, err := c.Get(ctx, "abcdef")
	if !ok || err != nil || string(v) != "one" {
		t.Fatalf("Get = %q %v %v", v, ok, err)
	}
	if _, err := st.Stat(ctx, "run/_cache/llm/ab/abcdef"); err != nil {
		t.Errorf("layout: %v", err)
	}
	for _, bad := range []string{"", "ab", "../x", "a/b/c"} {
		if err := c.Put(ctx, bad, nil); err == nil {
			t.Errorf("Put(%q) accepted", bad)
		}
	}
}

// TestLayeredNeverWritesUnder: verify's cache reads the run's answers and
// writes new ones to its scratch storage only.
func TestLayeredNeverWritesUnder(t *testing.T) {
	ctx := context.Background()
	run, scratch := store.NewMem(), store.NewMem()
	if err := New(run, "r/_cache/llm").Put(ctx, "aa01", []byte("cached")); err != nil {
		t.Fatal(err)
	}
	c := Layered(run, scratch, "r/_cache/llm")
	if v, ok, err := c.Get(ctx, "aa01"); !ok || err != nil || string(v) != "cached" {
		t.Fatalf("Get of the run's answer = %q %v %v", v, ok, err)
	}
	if err := c.Put(ctx, "bb02", []byte("new")); err != nil {
		t.Fatal(err)
	}
	if v, ok, _ := c.Get(ctx, "bb02"); !ok || string(v) != "new" {
		t.Fatalf("Get of a new answer = %q %v", v, ok)
	}
	if infos, _ := run.List(ctx, ""); len(infos) != 1 {
		t.Errorf("the run's store has %d objects, want only the first answer", len(infos))
	}
	if _, err := scratch.Stat(ctx, "r/_cache/llm/bb/bb02"); err != nil {
		t.Errorf("new answer not in scratch: %v", err)
	}
}
