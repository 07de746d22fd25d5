package store

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/feature/ec2/imds"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/saber-math/saber/lib/parallel"
)

const (
	// readBlock and readBlocks size each open object's read cache: Parquet
	// readers issue many small ReadAt calls (footer, page headers) that
	// would otherwise each be a GET.
	readBlock  = 1 << 20
	readBlocks = 8
	// partsInFlight bounds concurrent UploadPart calls of one Commit.
	partsInFlight = 4
	minPartSize   = 5 << 20 // S3's minimum for all parts but the last
	maxParts      = 10000   // S3's maximum part count
)

// s3Store keeps objects under bucket/prefix. Errors name the failing call
// and the s3:// URI; the SDK's errors carry no credentials and nothing here
// formats the config or credentials.
type s3Store struct {
	c         *s3.Client
	bucket    string
	prefix    string // "" or ending in "/"
	threshold int64
	partSize  int64
	policy    retryPolicy
}

func openS3(ctx context.Context, bucket, prefix string, o S3Options) (Store, error) {
	if o.MultipartThresholdMiB < 0 || o.PartSizeMiB < 0 || o.MaxAttempts < 0 || o.TimeoutSeconds < 0 || o.MaxBackoffSeconds < 0 || o.MinBytesPerSecond < 0 {
		return nil, errors.New("store: s3 options: negative multipart_threshold_mib, part_size_mib, max_attempts, timeout_seconds, max_backoff_seconds or min_bytes_per_second")
	}
	if o.PartSizeMiB != 0 && o.PartSizeMiB < minPartSize>>20 {
		return nil, fmt.Errorf("store: s3 options: part_size_mib %d is below S3's minimum of 5", o.PartSizeMiB)
	}
	c, err := newS3Client(ctx, o)
	if err != nil {
		return nil, err
	}
	if prefix != "" {
		prefix += "/"
	}
	return &s3Store{
		c:         c,
		bucket:    bucket,
		prefix:    prefix,
		threshold: int64(cmp.Or(o.MultipartThresholdMiB, 64)) << 20,
		partSize:  int64(cmp.Or(o.PartSizeMiB, 16)) << 20,
		policy:    newRetryPolicy(o),
	}, nil
}

// newS3Client builds a client from the SDK's standard configuration chain
// (credentials, profile, AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL) with
// settings that work on S3-compatible servers too, connections that fail
// when stalled (the SDK has no timeout for S3 by default, so a server that
// accepts and never answers would block a shard forever) and the retry
// policy of s3retry.go.
func newS3Client(ctx context.Context, o S3Options) (*s3.Client, error) {
	if o.Endpoint != "" {
		// An endpoint with user:secret@ would reach error messages via the
		// request URL; refuse it without echoing it.
		u, err := url.Parse(o.Endpoint)
		if err != nil || u.User != nil || u.Scheme == "" || u.Host == "" {
			return nil, errors.New("store: s3 endpoint must be a plain scheme://host[:port] URL without credentials")
		}
	}
	p := newRetryPolicy(o)
	load := []func(*config.LoadOptions) error{
		config.WithRetryer(func() aws.Retryer { return newRetryer(p) }),
		config.WithAPIOptions([]func(*middleware.Stack) error{countAttempts}),
	}
	if o.Profile != "" {
		load = append(load, config.WithSharedConfigProfile(o.Profile))
	}
	// With a custom endpoint (MinIO, Ceph RGW on premises) the EC2
	// instance-metadata address is no credential source: when nothing
	// else gives credentials, the SDK's chain would still ask it, sending
	// packets off the node and waiting seconds for nothing. Asked only
	// when the config says so.
	if customEndpoint(o) && !o.UseInstanceMetadata {
		load = append(load, config.WithEC2IMDSClientEnableState(imds.ClientDisabled))
	}
	cfg, err := config.LoadDefaultConfig(ctx, load...)
	if err != nil {
		return nil, fmt.Errorf("store: s3: load AWS config: %w", err)
	}
	region := cmp.Or(o.Region, cfg.Region, "us-east-1")
	return s3.NewFromConfig(cfg, func(so *s3.Options) {
		so.Region = region
		if o.Endpoint != "" {
			so.BaseEndpoint = aws.String(o.Endpoint)
		}
		so.UsePathStyle = o.PathStyle == nil || *o.PathStyle
		// Set here, after the client has resolved its HTTP client (with
		// AWS_CA_BUNDLE) and replaced its dialer, so that ours stays.
		hc, ok := so.HTTPClient.(*awshttp.BuildableClient)
		if !ok {
			hc = awshttp.NewBuildableClient()
		}
		so.HTTPClient = hc.WithTransportOptions(func(tr *http.Transport) {
			tr.DialContext = stallDialer(p.timeout)
			// Close idle connections before their stall deadline could
			// fire under a request that just picked one up.
			tr.IdleConnTimeout = p.timeout / 2
			// HTTP/1.1 only: on one HTTP/2 connection a stalled request
			// would go unnoticed while others keep bytes moving (and S3
			// itself speaks HTTP/1.1).
			tr.ForceAttemptHTTP2 = false
		})
		// The SDK's default CRC32 checksums break older S3-compatible servers.
		so.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
		so.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
	}), nil
}

// customEndpoint reports an S3 endpoint other than AWS's: the config's,
// or the SDK's environment variables for one.
func customEndpoint(o S3Options) bool {
	return o.Endpoint != "" || os.Getenv("AWS_ENDPOINT_URL_S3") != "" || os.Getenv("AWS_ENDPOINT_URL") != ""
}

func (s *s3Store) URI(key string) string { return "s3://" + s.bucket + "/" + s.prefix + key }

// fail wraps err as "s3 Op s3://bucket/key: ...", adding ErrNotExist for
// 404s so callers can test with errors.Is, and a Kind (errors.go) where
// the cause is known.
func (s *s3Store) fail(op, key string, err error) error {
	if isNotFound(err) {
		return fmt.Errorf("s3 %s %s: %w: %w", op, s.URI(key), ErrNotExist, err)
	}
	return kindErr(fmt.Sprintf("s3 %s %s", op, s.URI(key)), err)
}

func httpStatus(err error) int {
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

// isNotFound reports a missing object: the error codes S3 uses for one, or
// a bare 404 without a code. Other 404s (NoSuchBucket, or versitygw's
// XAdminUserNotFound for an unknown access key) are not "not exist". A HEAD
// answer has no body, so there a missing bucket looks like a missing key.
func isNotFound(err error) bool {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		code := ae.ErrorCode()
		return code == "NotFound" || code == "NoSuchKey"
	}
	return httpStatus(err) == 404
}

// isExists reports a failed If-None-Match: * (412), or a concurrent
// conditional write to the same key (409 ConditionalRequestConflict).
func isExists(err error) bool {
	switch httpStatus(err) {
	case 412:
		return true
	case 409:
		var ae smithy.APIError
		return errors.As(err, &ae) && ae.ErrorCode() == "ConditionalRequestConflict"
	}
	return false
}

func (s *s3Store) head(ctx context.Context, op, key string) (*s3.HeadObjectOutput, error) {
	if err := checkKey(key); err != nil {
		return nil, fmt.Errorf("s3 %s: %w", op, err)
	}
	h, err := s.c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &s.bucket, Key: aws.String(s.prefix + key)})
	if err != nil {
		return nil, s.fail("HeadObject", key, err)
	}
	return h, nil
}

// Open reads the object with ranged GETs under ctx, which therefore bounds
// the Object's whole life, not just this call. Every GET carries If-Match
// with the ETag seen here, so an object replaced while open fails loudly
// instead of mixing two versions.
func (s *s3Store) Open(ctx context.Context, key string) (Object, error) {
	h, err := s.head(ctx, "Open", key)
	if err != nil {
		return nil, err
	}
	return &s3Object{s: s, ctx: ctx, key: key, etag: h.ETag, size: aws.ToInt64(h.ContentLength),
		blocks: map[int64][]byte{}}, nil
}

func (s *s3Store) Stat(ctx context.Context, key string) (Info, error) {
	h, err := s.head(ctx, "Stat", key)
	if err != nil {
		return Info{}, err
	}
	return Info{Key: key, Size: aws.ToInt64(h.ContentLength)}, nil
}

func (s *s3Store) List(ctx context.Context, prefix string) ([]Info, error) {
	if err := checkPrefix(prefix); err != nil {
		return nil, fmt.Errorf("s3 List: %w", err)
	}
	var out []Info
	p := s3.NewListObjectsV2Paginator(s.c, &s3.ListObjectsV2Input{Bucket: &s.bucket, Prefix: aws.String(s.prefix + prefix)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, s.fail("ListObjectsV2", prefix, err)
		}
		for _, o := range page.Contents {
			k, ok := strings.CutPrefix(aws.ToString(o.Key), s.prefix)
			// Skip "dir/" markers some tools create; they are not objects.
			if ok && k != "" && !strings.HasSuffix(k, "/") {
				out = append(out, Info{Key: k, Size: aws.ToInt64(o.Size)})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

// Create spools to a local temporary file (in $TMPDIR) so that the upload
// knows its size and can be retried; nothing reaches S3 before Commit. The
// spool is unlinked at once and used through its descriptor only, so a
// killed writer leaves nothing behind: the kernel frees it with the process.
func (s *s3Store) Create(ctx context.Context, key string, mode Mode) (Writer, error) {
	if err := checkKey(key); err != nil {
		return nil, fmt.Errorf("s3 Create: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, s.fail("Create", key, err)
	}
	f, err := os.CreateTemp("", "saber-s3-spool-*")
	if err != nil {
		return nil, s.fail("Create", key, fmt.Errorf("spool file: %w", err))
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, s.fail("Create", key, fmt.Errorf("unlink spool file: %w", err))
	}
	return &s3Writer{s: s, ctx: ctx, key: key, mode: mode, f: f}, nil
}

func (s *s3Store) Delete(ctx context.Context, key string) error {
	if err := checkKey(key); err != nil {
		return fmt.Errorf("s3 Delete: %w", err)
	}
	_, err := s.c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &s.bucket, Key: aws.String(s.prefix + key)})
	if err != nil && !isNotFound(err) {
		return s.fail("DeleteObject", key, err)
	}
	return nil
}

// s3Object serves ReadAt from a small LRU of readBlock-sized blocks; reads
// of a block or more go straight to one ranged GET.
type s3Object struct {
	s    *s3Store
	ctx  context.Context
	key  string
	etag *string
	size int64

	mu     sync.Mutex
	blocks map[int64][]byte // block index -> data; nil once closed
	lru    []int64          // block indexes, least recently used first
}

func (o *s3Object) Size() int64 { return o.size }

func (o *s3Object) Close() error {
	o.mu.Lock()
	o.blocks, o.lru = nil, nil
	o.mu.Unlock()
	return nil
}

func (o *s3Object) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("s3 ReadAt %s: negative offset %d", o.s.URI(o.key), off)
	}
	if off >= o.size {
		return 0, io.EOF
	}
	var eof error
	if rest := o.size - off; int64(len(p)) >= rest {
		p, eof = p[:rest], io.EOF
	}
	if len(p) >= readBlock {
		if err := o.get(p, off); err != nil {
			return 0, err
		}
		return len(p), eof
	}
	n := 0
	for n < len(p) {
		pos := off + int64(n)
		b, err := o.block(pos / readBlock)
		if err != nil {
			return n, err
		}
		n += copy(p[n:], b[pos%readBlock:])
	}
	return n, eof
}

func (o *s3Object) block(i int64) ([]byte, error) {
	o.mu.Lock()
	if o.blocks == nil {
		o.mu.Unlock()
		return nil, fmt.Errorf("s3 ReadAt %s: object closed", o.s.URI(o.key))
	}
	if b, ok := o.blocks[i]; ok {
		o.touch(i)
		o.mu.Unlock()
		return b, nil
	}
	o.mu.Unlock()
	// Fetch unlocked so parallel readers of other blocks are not serialised;
	// two readers of the same missing block may both fetch it.
	start := i * readBlock
	b := make([]byte, min(readBlock, o.size-start))
	if err := o.get(b, start); err != nil {
		return nil, err
	}
	o.mu.Lock()
	if o.blocks != nil {
		if _, ok := o.blocks[i]; !ok && len(o.lru) >= readBlocks {
			delete(o.blocks, o.lru[0])
			o.lru = o.lru[1:]
		}
		o.blocks[i] = b
		o.touch(i)
	}
	o.mu.Unlock()
	return b, nil
}

// touch moves block i to the most recently used end; o.mu is held.
func (o *s3Object) touch(i int64) {
	if j := slices.Index(o.lru, i); j >= 0 {
		o.lru = slices.Delete(o.lru, j, j+1)
	}
	o.lru = append(o.lru, i)
}

// get fills p from offset off with a ranged GET. The SDK retries the
// request, but not the body, which is read after the call returns: a body
// that stalls or breaks off is fetched again here, under the same policy.
func (o *s3Object) get(p []byte, off int64) error {
	for attempt := 1; ; attempt++ {
		bodyErr, err := o.getOnce(p, off)
		if err == nil {
			return nil
		}
		if !bodyErr || attempt >= o.s.policy.attempts || o.ctx.Err() != nil || !transientErr(err) {
			return o.s.fail("GetObject", o.key, err)
		}
		noteRetry(o.ctx, "GetObject body", attempt, o.s.policy.attempts, err)
		if err := sleepCtx(o.ctx, o.s.policy.backoff(attempt)); err != nil {
			return o.s.fail("GetObject", o.key, err)
		}
	}
}

// getOnce is one GET; bodyErr says the failure came while reading the body.
func (o *s3Object) getOnce(p []byte, off int64) (bodyErr bool, err error) {
	rng := fmt.Sprintf("bytes=%d-%d", off, off+int64(len(p))-1)
	out, err := o.s.c.GetObject(o.ctx, &s3.GetObjectInput{
		Bucket: &o.s.bucket, Key: aws.String(o.s.prefix + o.key), Range: &rng, IfMatch: o.etag})
	if err != nil {
		if httpStatus(err) == 412 {
			err = fmt.Errorf("object replaced since Open: %w", err)
		}
		return false, err
	}
	defer out.Body.Close()
	// A server that ignores Range answers with the whole object from 0.
	if want := fmt.Sprintf("bytes %d-", off); !strings.HasPrefix(aws.ToString(out.ContentRange), want) {
		return false, fmt.Errorf("asked for %s, got Content-Range %q", rng, aws.ToString(out.ContentRange))
	}
	body := &rateReader{r: out.Body, min: o.s.policy.minRate, window: o.s.policy.timeout, start: time.Now()}
	if _, err := io.ReadFull(body, p); err != nil {
		var slow *slowError
		if errors.As(err, &slow) {
			return true, fmt.Errorf("reading body of %s: %w", rng, err)
		}
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			// A body cut short is a broken connection, not a short object:
			// Content-Range promised the bytes.
			return true, &truncatedError{fmt.Errorf("reading body of %s: %w (connection closed early)", rng, err)}
		}
		return true, fmt.Errorf("reading body of %s: %w", rng, err)
	}
	return false, nil
}

// s3Writer spools to f until Commit uploads it. After Commit or Abort the
// writer is finished and the spool file removed, whatever the outcome.
type s3Writer struct {
	s    *s3Store
	ctx  context.Context
	key  string
	mode Mode
	f    *os.File // nil once finished
	n    int64
}

func (w *s3Writer) Write(p []byte) (int, error) {
	if w.f == nil {
		return 0, fmt.Errorf("s3 Write %s: writer already committed or aborted", w.s.URI(w.key))
	}
	n, err := w.f.Write(p)
	w.n += int64(n)
	if err != nil {
		return n, w.s.fail("Write", w.key, fmt.Errorf("spool file: %w", err))
	}
	return n, nil
}

// Commit uploads with PutObject below the multipart threshold, else in
// parts. With Once the request carries If-None-Match: *, so the server
// decides atomically; 412 becomes ErrExist. (A Once commit whose success
// response is lost and whose retry then sees its own object also reports
// ErrExist.)
func (w *s3Writer) Commit() (Info, error) {
	if w.f == nil {
		return Info{}, fmt.Errorf("s3 Commit %s: writer already committed or aborted", w.s.URI(w.key))
	}
	defer w.Abort()
	var err error
	if w.n < w.s.threshold {
		err = w.put()
	} else {
		err = w.multipart()
	}
	if err != nil {
		return Info{}, err
	}
	return Info{Key: w.key, Size: w.n}, nil
}

func (w *s3Writer) ifNoneMatch() *string {
	if w.mode == Once {
		return aws.String("*")
	}
	return nil
}

func (w *s3Writer) commitErr(op string, err error) error {
	if w.mode == Once && isExists(err) {
		return fmt.Errorf("s3 %s %s: %w: %w", op, w.s.URI(w.key), ErrExist, err)
	}
	return w.s.fail(op, w.key, err)
}

func (w *s3Writer) put() error {
	_, err := w.s.c.PutObject(w.ctx, &s3.PutObjectInput{
		Bucket: &w.s.bucket, Key: aws.String(w.s.prefix + w.key),
		Body: io.NewSectionReader(w.f, 0, w.n), ContentLength: aws.Int64(w.n),
		IfNoneMatch: w.ifNoneMatch(),
	})
	if err != nil {
		return w.commitErr("PutObject", err)
	}
	return nil
}

// multipart uploads the spool in parts, partsInFlight at a time, and aborts
// the upload on any failure so no orphaned parts keep costing storage.
func (w *s3Writer) multipart() error {
	ctx, c, key := w.ctx, w.s.c, aws.String(w.s.prefix+w.key)
	part := max(w.s.partSize, (w.n+maxParts-1)/maxParts)
	cr, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: &w.s.bucket, Key: key})
	if err != nil {
		return w.s.fail("CreateMultipartUpload", w.key, err)
	}
	parts, err := w.uploadParts(cr.UploadId, part)
	if err == nil {
		_, err = c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{
			Bucket: &w.s.bucket, Key: key, UploadId: cr.UploadId,
			MultipartUpload: &types.CompletedMultipartUpload{Parts: parts},
			IfNoneMatch:     w.ifNoneMatch(),
		})
		if err != nil {
			err = w.commitErr("CompleteMultipartUpload", err)
		}
	}
	if err != nil {
		// Abort even when ctx is what failed.
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		if _, aerr := c.AbortMultipartUpload(actx, &s3.AbortMultipartUploadInput{
			Bucket: &w.s.bucket, Key: key, UploadId: cr.UploadId}); aerr != nil {
			err = errors.Join(err, w.s.fail("AbortMultipartUpload", w.key, aerr))
		}
	}
	return err
}

func (w *s3Writer) uploadParts(uploadID *string, part int64) ([]types.CompletedPart, error) {
	ctx, cancel := context.WithCancel(w.ctx)
	defer cancel()
	parts := make([]types.CompletedPart, (w.n+part-1)/part)
	sem := make(chan struct{}, partsInFlight)
	var (
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
	)
	for i := range parts {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		parallel.Go(func() {
			defer wg.Done()
			defer func() { <-sem }()
			num, off := int32(i+1), int64(i)*part
			size := min(part, w.n-off)
			out, err := w.s.c.UploadPart(ctx, &s3.UploadPartInput{
				Bucket: &w.s.bucket, Key: aws.String(w.s.prefix + w.key), UploadId: uploadID,
				PartNumber: &num, Body: io.NewSectionReader(w.f, off, size), ContentLength: &size,
			})
			if err != nil {
				errOnce.Do(func() {
					firstErr = w.s.fail(fmt.Sprintf("UploadPart %d", num), w.key, err)
					cancel()
				})
				return
			}
			parts[i] = types.CompletedPart{ETag: out.ETag, PartNumber: &num}
		})
	}
	wg.Wait()
	if firstErr == nil && ctx.Err() != nil {
		firstErr = w.s.fail("UploadPart", w.key, ctx.Err())
	}
	return parts, firstErr
}

func (w *s3Writer) Abort() error {
	if w.f == nil {
		return nil
	}
	f := w.f
	w.f = nil
	return f.Close() // the spool was unlinked in Create
}

// EnsureBucket creates the bucket of an s3:// URI if it does not exist.
// It is for tests and CI setup; Open never creates buckets, so a typo in a
// job's output URI fails instead of scattering data into a new bucket.
func EnsureBucket(ctx context.Context, uri string, opts Options) error {
	m := schemeRE.FindStringSubmatch(uri)
	if m == nil || !strings.EqualFold(m[1], "s3") {
		return errors.New("store: EnsureBucket needs an s3://bucket[/prefix] URI")
	}
	bucket, _, err := parseS3(uri[len(m[0]):])
	if err != nil {
		return err
	}
	c, err := newS3Client(ctx, opts.S3)
	if err != nil {
		return err
	}
	_, err = c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: &bucket})
	if err == nil {
		return nil
	}
	if !isNotFound(err) {
		return kindErr("s3 HeadBucket s3://"+bucket, err)
	}
	in := &s3.CreateBucketInput{Bucket: &bucket}
	if r := c.Options().Region; r != "us-east-1" {
		in.CreateBucketConfiguration = &types.CreateBucketConfiguration{LocationConstraint: types.BucketLocationConstraint(r)}
	}
	var owned *types.BucketAlreadyOwnedByYou
	if _, err := c.CreateBucket(ctx, in); err != nil && !errors.As(err, &owned) {
		return kindErr("s3 CreateBucket s3://"+bucket, err)
	}
	return nil
}
