#include "textflag.h"

// BCAST fills x with the byte whose eight copies are c.
#define BCAST(c, x) \
	MOVQ $c, AX; \
	MOVQ AX, x; \
	PUNPCKLQDQ x, x

// EQMASK compares the chunk in X0 with the bytes of x and ORs the 16-bit
// mask of the equal bytes, moved to the chunk's place sh, into acc.
#define EQMASK(x, sh, acc) \
	MOVOU X0, X1; \
	PCMPEQB x, X1; \
	PMOVMSKB X1, AX; \
	SHLQ $sh, AX; \
	ORQ AX, acc

// func blockMasks(b *[64]byte) (quote, bslash, open, close, bit5 uint64)
//
// Sixteen bytes at a time (SSE2, in every amd64): compare with '"' and
// '\\'; take each byte's bit 0x20 (shifted to the top); OR 0x20 into the
// bytes and compare with '{' (also '[') and '}' (also ']'); each byte
// mask becomes 16 bits at the chunk's place in the 64-bit result.
TEXT ·blockMasks(SB), NOSPLIT, $0-48
	MOVQ b+0(FP), SI
	BCAST(0x2222222222222222, X8)
	BCAST(0x5c5c5c5c5c5c5c5c, X9)
	BCAST(0x2020202020202020, X10)
	BCAST(0x7b7b7b7b7b7b7b7b, X11)
	BCAST(0x7d7d7d7d7d7d7d7d, X12)
	XORQ R8, R8
	XORQ R9, R9
	XORQ R10, R10
	XORQ R11, R11
	XORQ R12, R12

#define CHUNK(off, sh) \
	MOVOU off(SI), X0; \
	EQMASK(X8, sh, R8); \
	EQMASK(X9, sh, R9); \
	MOVOU X0, X2; \
	PSLLW $2, X2; \
	PMOVMSKB X2, AX; \
	SHLQ $sh, AX; \
	ORQ AX, R12; \
	POR X10, X0; \
	EQMASK(X11, sh, R10); \
	EQMASK(X12, sh, R11)

	CHUNK(0, 0)
	CHUNK(16, 16)
	CHUNK(32, 32)
	CHUNK(48, 48)

	MOVQ R8, quote+8(FP)
	MOVQ R9, bslash+16(FP)
	MOVQ R10, open+24(FP)
	MOVQ R11, close+32(FP)
	MOVQ R12, bit5+40(FP)
	RET

// func lineMasks(b *[64]byte) (nl, ws, rb uint64)
//
// Sixteen bytes at a time: compare with '\n', with ' ' and '\t' (ORed),
// and with ']'; each byte mask becomes 16 bits at the chunk's place.
TEXT ·lineMasks(SB), NOSPLIT, $0-32
	MOVQ b+0(FP), SI
	BCAST(0x0a0a0a0a0a0a0a0a, X8)
	BCAST(0x2020202020202020, X9)
	BCAST(0x0909090909090909, X10)
	BCAST(0x5d5d5d5d5d5d5d5d, X11)
	XORQ R8, R8
	XORQ R9, R9
	XORQ R10, R10

#define LCHUNK(off, sh) \
	MOVOU off(SI), X0; \
	EQMASK(X8, sh, R8); \
	EQMASK(X9, sh, R9); \
	EQMASK(X10, sh, R9); \
	EQMASK(X11, sh, R10)

	LCHUNK(0, 0)
	LCHUNK(16, 16)
	LCHUNK(32, 32)
	LCHUNK(48, 48)

	MOVQ R8, nl+8(FP)
	MOVQ R9, ws+16(FP)
	MOVQ R10, rb+24(FP)
	RET
