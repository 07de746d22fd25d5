package store_test

import (
	"testing"

	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/artifacts/store/storetest"
)

func TestMem(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return store.NewMem() })
}
