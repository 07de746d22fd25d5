//go:build unix

package store

import (
	"errors"
	"os"
	"syscall"
)

// lockFile takes an exclusive flock on f, waiting for it; false where the
// filesystem has no locks. The lock lives as long as the descriptor, so
// the kernel drops it when its process dies, kill -9 included.
func lockFile(f *os.File) bool {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX) == nil
}

// tryLock reports whether f could be locked now (held is false) or is
// locked by a live process (held is true); ok is false where the
// filesystem has no locks.
func tryLock(f *os.File) (held, ok bool) {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	switch {
	case err == nil:
		return false, true
	case errors.Is(err, syscall.EWOULDBLOCK):
		return true, true
	}
	return false, false
}
