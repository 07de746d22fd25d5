// Package dialhook lets lib/llm/llmtest route an llm.Client's connections
// to an in-memory fake server (llmtest.NewPipeServer) without adding a
// test-only knob to llm's exported API: llm sets SetDial in its init, and
// only packages under lib/llm can import this one.
package dialhook

import (
	"context"
	"net"
)

// Dial has the signature of http.Transport.DialContext.
type Dial = func(ctx context.Context, network, addr string) (net.Conn, error)

// SetDial makes every connection client (an *llm.Client) opens from now on
// come from dial, whatever the address. It must be called before the
// client's first request.
var SetDial func(client any, dial Dial)
