// Package seed derives the seed of every random choice in saber from
// (run seed, stage, key), where key is a query or document id — never a shard
// index — so the number of shards can never change a result.
package seed

import (
	"crypto/sha256"
	"encoding/binary"
	"math/rand/v2"
)

// Derive returns the first 8 bytes (big-endian) of
// SHA-256(run seed as 8 big-endian bytes ‖ stage ‖ 0x00 ‖ key).
// The zero byte keeps ("ab", "c") and ("a", "bc") apart.
func Derive(run uint64, stage, key string) uint64 {
	h := sha256.New()
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], run)
	h.Write(b[:])
	h.Write([]byte(stage))
	h.Write([]byte{0})
	h.Write([]byte(key))
	return binary.BigEndian.Uint64(h.Sum(nil)[:8])
}

// Rand returns a PCG generator seeded by Derive(run, stage, key). Its output
// sequence is fixed by math/rand/v2's specification of PCG.
func Rand(run uint64, stage, key string) *rand.Rand {
	s := Derive(run, stage, key)
	return rand.New(rand.NewPCG(s, s^0x9e3779b97f4a7c15))
}
