package openai

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/dsn"
)

const (
	userAgent = "hippo"
	// maxWait caps any single wait between attempts, so a server asking
	// for an hour via Retry-After cannot stall a tool call.
	maxWait = 30 * time.Second
	// baseBackoff is the first retry's nominal wait; it doubles each time.
	baseBackoff = time.Second
	// errorBodyLimit bounds what is read of an error response: only an
	// excerpt is kept.
	errorBodyLimit = 64 << 10
	// excerptLen is how many characters of a server's error text are quoted.
	excerptLen = 300
)

// client posts JSON to one endpoint with retries. It is immutable after
// construction and safe for concurrent use.
type client struct {
	url     string // the endpoint requests go to
	name    string // the endpoint with its credentials redacted, for messages
	apiKey  string
	hc      *http.Client
	timeout time.Duration
	retries int
	maxBody int64
	// noRetryOnTimeout keeps an attempt that timed out from being sent
	// again (see NewLLM).
	noRetryOnTimeout bool

	// explain, when set, may turn a non-retryable error status into a more
	// specific error; nil falls back to the generic one.
	explain func(status int, body []byte) error
	// backoff and sleep are fields so tests can run without waiting.
	backoff func(attempt int) time.Duration
	sleep   func(ctx context.Context, d time.Duration) error
	// onRetry and onUsage are Config's hooks.
	onRetry func()
	onUsage func(Usage)
}

// reply is one HTTP response, read in full.
type reply struct {
	status int
	header http.Header
	body   []byte
}

func newClient(cfg Config, defaultBase, path string, maxBody int64) (*client, error) {
	base := cfg.BaseURL
	if base == "" {
		base = defaultBase
	}
	u, err := url.Parse(base)
	if err != nil {
		return nil, hippo.Invalidf("base_url", "%q is not a valid URL", dsn.Redact(base))
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, hippo.Invalidf("base_url", "%q is not an http:// or https:// URL", dsn.Redact(base))
	}
	if cfg.Timeout < 0 {
		return nil, hippo.Invalidf("timeout", "must not be negative, got %v", cfg.Timeout)
	}
	endpoint := u.JoinPath(path)
	c := &client{
		url:     endpoint.String(),
		name:    dsn.Redact(endpoint.String()),
		apiKey:  cfg.APIKey,
		hc:      cfg.HTTPClient,
		timeout: cfg.Timeout,
		retries: cfg.MaxRetries,
		maxBody: maxBody,
		backoff: backoff,
		sleep:   sleep,
		onRetry: cfg.OnRetry,
		onUsage: cfg.OnUsage,
	}
	if c.hc == nil {
		c.hc = http.DefaultClient
	}
	if c.timeout == 0 {
		c.timeout = DefaultTimeout
	}
	switch {
	case c.retries == 0:
		c.retries = DefaultMaxRetries
	case c.retries < 0:
		c.retries = 0
	}
	return c, nil
}

// post sends payload as JSON and returns the body of the 2xx response,
// retrying what is worth retrying. Errors are *hippo.Error values; those
// caused by the context or the network also wrap that cause.
func (c *client) post(ctx context.Context, payload any) ([]byte, error) {
	data, err := json.Marshal(payload)
	if err != nil {
		return nil, c.errorf(hippo.EINTERNAL, "encoding request: %v", err)
	}
	var last string // the last failure, reported if the context ends the wait
	for attempt := 1; ; attempt++ {
		r, retry, err := c.attempt(ctx, data)
		if ctx.Err() != nil {
			return nil, c.canceled(ctx, last)
		}
		var wait time.Duration
		switch {
		case err != nil:
			last = err.Error()
			if !retry || attempt > c.retries {
				return nil, c.wrap(err, "%s%s", gaveUp(attempt), last)
			}
			wait = c.backoff(attempt)
		case r.status >= 200 && r.status < 300:
			return r.body, nil
		case retryable(r.status):
			last = c.statusText(r.status, r.body)
			if attempt > c.retries {
				return nil, c.errorf(hippo.EINTERNAL, "%s%s", gaveUp(attempt), last)
			}
			if d, ok := retryAfter(r.header.Get("Retry-After"), time.Now()); ok {
				wait = d
			} else {
				wait = c.backoff(attempt)
			}
		default:
			if c.explain != nil {
				if err := c.explain(r.status, r.body); err != nil {
					return nil, err
				}
			}
			return nil, c.errorf(hippo.EINTERNAL, "%s", c.statusText(r.status, r.body))
		}
		if err := c.sleep(ctx, min(wait, maxWait)); err != nil {
			return nil, c.canceled(ctx, last)
		}
		if c.onRetry != nil {
			c.onRetry()
		}
	}
}

// attempt sends one request under its own timeout and reads the response.
// On error, retry reports whether the failure may be transient.
func (c *client) attempt(ctx context.Context, data []byte) (r reply, retry bool, err error) {
	actx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, c.url, bytes.NewReader(data))
	if err != nil {
		return reply{}, false, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", userAgent)
	if c.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return reply{}, transient(err) && c.retryAfterTimeout(ctx, actx), c.netErr(actx, err)
	}
	defer resp.Body.Close()

	ok := resp.StatusCode >= 200 && resp.StatusCode < 300
	limit := c.maxBody
	if !ok {
		limit = errorBodyLimit
	}
	body, err := readAll(io.LimitReader(resp.Body, limit+1), min(resp.ContentLength, limit+1, maxPresized))
	if err != nil {
		return reply{}, c.retryAfterTimeout(ctx, actx), c.netErr(actx, fmt.Errorf("reading response: %w", err))
	}
	if int64(len(body)) > limit {
		if ok {
			return reply{}, false, fmt.Errorf("response body exceeds the %d-byte limit", limit)
		}
		body = body[:limit] // error bodies are only quoted
	}
	return reply{status: resp.StatusCode, header: resp.Header, body: body}, false, nil
}

// maxPresized bounds the buffer a response's Content-Length sets aside
// before its bytes arrive.
const maxPresized = 1 << 20

// readAll is io.ReadAll into a buffer of size bytes to begin with, the
// response's Content-Length when it has one (size <= 0: io.ReadAll's
// own): a 1,536-dimension embedding outgrew io.ReadAll's first 512 bytes
// five times.
func readAll(r io.Reader, size int64) ([]byte, error) {
	if size <= 0 {
		return io.ReadAll(r)
	}
	b := make([]byte, 0, size+1) // room to read the end without growing
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}

// retryAfterTimeout is false when the attempt under actx ran out of its
// own time (not the caller's) and c does not retry timeouts.
func (c *client) retryAfterTimeout(ctx, actx context.Context) bool {
	timedOut := ctx.Err() == nil && errors.Is(actx.Err(), context.DeadlineExceeded)
	return !(timedOut && c.noRetryOnTimeout)
}

// netErr describes a transport failure without repeating the URL. A
// timeout always wraps context.DeadlineExceeded, so callers can tell it.
func (c *client) netErr(actx context.Context, err error) error {
	if ue, ok := errors.AsType[*url.Error](err); ok {
		err = ue.Err
	}
	if errors.Is(actx.Err(), context.DeadlineExceeded) {
		if !errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("%w (%w)", context.DeadlineExceeded, err)
		}
		return fmt.Errorf("no response within %v: %w", c.timeout, err)
	}
	return err
}

// transient reports whether a transport error may go away on retry. A
// certificate or protocol mismatch will not.
func transient(err error) bool {
	if _, ok := errors.AsType[*tls.CertificateVerificationError](err); ok {
		return false
	}
	if _, ok := errors.AsType[tls.RecordHeaderError](err); ok {
		return false
	}
	return true
}

func retryable(status int) bool {
	return status == http.StatusTooManyRequests || status == http.StatusRequestTimeout || status >= 500
}

// retryAfter parses a Retry-After header, given in seconds or as an HTTP
// date. A date in the past means no wait.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil {
		if s < 0 {
			return 0, false
		}
		if s > int64(maxWait/time.Second) {
			return maxWait, true // avoids overflow; post caps anyway
		}
		return time.Duration(s) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	return max(t.Sub(now), 0), true
}

// backoff is exponential with "equal jitter": half the nominal wait plus a
// random share of the other half, so concurrent clients spread out.
func backoff(attempt int) time.Duration {
	d := maxWait
	if attempt >= 1 && attempt < 16 {
		d = min(baseBackoff<<(attempt-1), maxWait)
	}
	return d/2 + rand.N(d/2+1)
}

// sleep waits for d or until ctx is done, whichever comes first.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func gaveUp(attempt int) string {
	if attempt == 1 {
		return ""
	}
	return fmt.Sprintf("gave up after %d attempts: ", attempt)
}

// errorf returns an error naming the endpoint, with the API key scrubbed
// from the message in case the server echoed it.
func (c *client) errorf(code, format string, args ...any) *hippo.Error {
	msg := "openai: POST " + c.name + ": " + fmt.Sprintf(format, args...)
	return &hippo.Error{Code: code, Message: c.scrub(msg)}
}

// wrap is errorf with code EINTERNAL that also wraps cause, so callers can
// match context.Canceled or a net.Error.
func (c *client) wrap(cause error, format string, args ...any) error {
	return &causeError{err: c.errorf(hippo.EINTERNAL, format, args...), cause: cause}
}

// canceled reports that ctx ended the call, with the last failure if any.
func (c *client) canceled(ctx context.Context, last string) error {
	if last == "" {
		return c.wrap(ctx.Err(), "%v", ctx.Err())
	}
	return c.wrap(ctx.Err(), "%v while waiting to retry after: %s", ctx.Err(), last)
}

// statusText describes an error response: its status and an excerpt of
// the server's message.
func (c *client) statusText(status int, body []byte) string {
	s := fmt.Sprintf("%d %s", status, http.StatusText(status))
	if ex := c.excerpt(body); ex != "" {
		s += ": " + ex
	}
	return s
}

// excerpt returns the server's error message, or the start of the body
// when it is not an OpenAI error object, on one line. The key is scrubbed
// before truncating so no fragment of it can survive the cut.
func (c *client) excerpt(body []byte) string {
	text := apiErrorMessage(body)
	if text == "" {
		text = string(body)
	}
	text = strings.Join(strings.Fields(c.scrub(text)), " ")
	if utf8.RuneCountInString(text) > excerptLen {
		text = string([]rune(text)[:excerptLen]) + "…"
	}
	return text
}

// scrub replaces the API key wherever it appears in s.
func (c *client) scrub(s string) string {
	if c.apiKey == "" {
		return s
	}
	return strings.ReplaceAll(s, c.apiKey, "[redacted]")
}

// apiErrorMessage extracts the message of an error body in the shapes
// servers use: {"error":{"message":...}}, {"error":"..."} or
// {"message":...}. It returns "" for anything else.
func apiErrorMessage(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(body, &v) != nil {
		return ""
	}
	if msg := errorField(v.Error); msg != "" {
		return msg
	}
	return v.Message
}

// errorField reads the "error" member of a response, "" when absent.
func errorField(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var o struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &o) == nil && o.Message != "" {
		return o.Message
	}
	return string(raw)
}

// causeError is a *hippo.Error that also wraps its cause: hippo.ErrorCode
// still sees the code and errors.Is still sees context.Canceled. Its text
// is the scrubbed message alone.
type causeError struct {
	err   *hippo.Error
	cause error
}

func (e *causeError) Error() string   { return e.err.Message }
func (e *causeError) Unwrap() []error { return []error{e.err, e.cause} }
