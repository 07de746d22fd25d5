// Package store gives every stage one view of storage: a flat namespace of
// objects under a root URI, on local disk or in an S3-compatible bucket.
//
// Keys are slash-separated and relative to the root ("run/corpus/part-00000-of-00001.parquet").
// Contracts every implementation keeps:
//   - Nothing written through Create is visible under its key until Commit
//     returns nil; a process killed mid-write leaves no object under the key.
//   - Create with Once fails at Commit with an error wrapping fs.ErrExist when
//     the key already exists (S3: If-None-Match: *; local: hard link).
//   - Create with Replace atomically replaces any existing object.
//   - Missing objects give errors wrapping fs.ErrNotExist.
//   - Errors and URIs never carry credentials.
package store

import (
	"context"
	"io"
	"io/fs"
)

// ErrNotExist and ErrExist are the sentinels callers test with errors.Is.
var (
	ErrNotExist = fs.ErrNotExist
	ErrExist    = fs.ErrExist
)

// Mode says what Commit does when the key already exists.
type Mode int

const (
	// Replace atomically replaces an existing object.
	Replace Mode = iota
	// Once fails with ErrExist if the object exists: write-once.
	Once
)

// Info describes one stored object.
type Info struct {
	Key  string
	Size int64
}

// Object is an open object for random access (Parquet reads its footer first).
type Object interface {
	io.ReaderAt
	Size() int64
	Close() error
}

// Writer buffers an object until Commit makes it visible.
type Writer interface {
	io.Writer
	// Commit makes the object visible under its key and returns its size.
	Commit() (Info, error)
	// Abort discards everything written; safe to call after Commit (no-op).
	Abort() error
}

// Store is one storage root. Every method rejects keys that would not mean
// the same on disk and in S3: absolute, with empty, "." or ".." elements, a
// trailing '/', or a base name starting ".tmp-" (local temporaries).
type Store interface {
	// URI returns the full URI of key, for messages and manifests.
	URI(key string) string
	// Open opens key for random access. ctx also bounds the Object's later
	// reads (S3 fetches lazily), so it must outlive them.
	Open(ctx context.Context, key string) (Object, error)
	// Stat returns the object's size, or an error wrapping ErrNotExist.
	Stat(ctx context.Context, key string) (Info, error)
	// List returns every object whose key starts with prefix, sorted by key.
	// Temporaries of uncommitted writes are never listed.
	List(ctx context.Context, prefix string) ([]Info, error)
	// Create starts writing key; see Mode. ctx also bounds the Writer's
	// Commit (S3 uploads then). After Commit returns, successfully or not,
	// the Writer is finished and its temporary data is gone.
	Create(ctx context.Context, key string, mode Mode) (Writer, error)
	// Delete removes key; deleting a missing key is not an error.
	Delete(ctx context.Context, key string) error
}

// S3Options configure s3:// roots. Credentials come from the SDK's standard
// chain (environment, shared files, instance roles), never from here.
type S3Options struct {
	// Endpoint overrides the service endpoint (MinIO, Ceph RGW); empty uses
	// AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL or AWS's default.
	Endpoint string `yaml:"endpoint" json:"endpoint"`
	// Region defaults to AWS_REGION, then us-east-1.
	Region string `yaml:"region" json:"region"`
	// PathStyle addresses buckets as endpoint/bucket/key (needed by most
	// self-hosted servers). Default true.
	PathStyle *bool `yaml:"path_style" json:"path_style"`
	// Profile selects a shared-config profile; empty uses AWS_PROFILE/default.
	Profile string `yaml:"profile" json:"profile"`
	// MultipartThresholdMiB: objects at least this large are uploaded in parts. Default 64.
	MultipartThresholdMiB int `yaml:"multipart_threshold_mib" json:"multipart_threshold_mib"`
	// PartSizeMiB is the multipart part size. Default 16 (S3 minimum is 5).
	PartSizeMiB int `yaml:"part_size_mib" json:"part_size_mib"`
	// MaxAttempts bounds the attempts per request, the first included,
	// with capped exponential backoff between them. Default 10: about
	// 20–40 s of retrying, which outlasts a server restart or a burst of
	// throttling. A request still failing then fails the shard with exit 75.
	MaxAttempts int `yaml:"max_attempts" json:"max_attempts"`
	// TimeoutSeconds fails an attempt (and retries it) when no byte has
	// moved on its connection, either way, for this long: a server that
	// accepts and never answers, or stops in the middle of a body. Default
	// 30. A stalled endpoint fails the shard after about max_attempts ×
	// timeout_seconds plus the backoff.
	TimeoutSeconds float64 `yaml:"timeout_seconds" json:"timeout_seconds"`
	// MaxBackoffSeconds caps the wait between attempts. Default 8.
	MaxBackoffSeconds float64 `yaml:"max_backoff_seconds" json:"max_backoff_seconds"`
	// MinBytesPerSecond fails an attempt (and retries it) whose object
	// body, once timeout_seconds have passed since its first byte, has
	// come slower than this on average: a server that trickles a byte a
	// second never goes silent, so timeout_seconds alone would let it hold
	// a shard for hours. Default 16384 (16 KiB/s, a 16 MiB read in 17
	// minutes: far below any working link).
	MinBytesPerSecond float64 `yaml:"min_bytes_per_second" json:"min_bytes_per_second"`
	// UseInstanceMetadata lets the credential chain ask the EC2
	// instance-metadata service (IMDS) when a custom endpoint is set
	// (endpoint, AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL). Default false: an
	// on-premises S3 server's credentials never come from there, and the
	// lookup is a pointless call off the node. Without a custom endpoint
	// (AWS itself) the SDK's chain is unchanged.
	UseInstanceMetadata bool `yaml:"use_instance_metadata" json:"use_instance_metadata"`
}

// Options configure Open.
type Options struct {
	S3 S3Options `yaml:"s3" json:"s3"`
	// FollowSymlinks lets a folder inside a local root be a symlink that
	// leads out of it. Default false: such a folder is refused (exit 2),
	// since a run's writes through it would land outside the run.
	FollowSymlinks bool `yaml:"follow_symlinks" json:"follow_symlinks"`
}
