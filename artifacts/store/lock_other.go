//go:build !unix

package store

import "os"

// Without flock, stale temporaries are recognised by age alone.
func lockFile(*os.File) bool           { return false }
func tryLock(*os.File) (held, ok bool) { return false, false }
