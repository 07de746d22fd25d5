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
