package ingest

// blockMasks returns, for the 64 bytes of b, a bit per byte equal to '"',
// to '\\', to '{' or '[', and to '}' or ']', and each byte's bit 0x20 (clear
// in '[' and ']', set in '{' and '}'); SSE2, in every amd64.
//
//go:noescape
func blockMasks(b *[64]byte) (quote, bslash, open, close, bit5 uint64)

// lineMasks returns, for the 64 bytes of b, a bit per byte equal to '\n',
// to ' ' or '\t', and to ']'; SSE2.
//
//go:noescape
func lineMasks(b *[64]byte) (nl, ws, rb uint64)
