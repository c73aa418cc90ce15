//go:build !amd64

package ingest

func blockMasks(b *[64]byte) (quote, bslash, open, close, bit5 uint64) { return blockMasksGo(b) }

func lineMasks(b *[64]byte) (nl, ws, rb uint64) { return lineMasksGo(b) }
