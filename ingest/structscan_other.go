//go:build !amd64

package ingest

func blockMasks(b *[64]byte) (quote, bslash, open, close, bit5 uint64) { return blockMasksGo(b) }
