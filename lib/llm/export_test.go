package llm

import "time"

// SetBackoff shortens the retry backoff so tests of retries run in
// milliseconds; it must be called before the client is used.
func SetBackoff(c *Client, base, cap time.Duration) {
	c.backoffBase, c.backoffCap = base, cap
}
