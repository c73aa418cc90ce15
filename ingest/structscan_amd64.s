#include "textflag.h"

// func blockMasks(b *[64]byte) (quote, bslash, open, close, bit5 uint64)
//
// Sixteen bytes at a time (SSE2, in every amd64): compare with '"' and
// '\\'; take each byte's bit 0x20 (shifted to the top); OR 0x20 into the
// bytes and compare with '{' (also '[') and '}' (also ']'); each byte
// mask becomes 16 bits at the chunk's place in the 64-bit result.
TEXT ·blockMasks(SB), NOSPLIT, $0-48
	MOVQ b+0(FP), SI
	MOVQ $0x2222222222222222, AX
	MOVQ AX, X8
	PUNPCKLQDQ X8, X8
	MOVQ $0x5c5c5c5c5c5c5c5c, AX
	MOVQ AX, X9
	PUNPCKLQDQ X9, X9
	MOVQ $0x2020202020202020, AX
	MOVQ AX, X10
	PUNPCKLQDQ X10, X10
	MOVQ $0x7b7b7b7b7b7b7b7b, AX
	MOVQ AX, X11
	PUNPCKLQDQ X11, X11
	MOVQ $0x7d7d7d7d7d7d7d7d, AX
	MOVQ AX, X12
	PUNPCKLQDQ X12, X12
	XORQ R8, R8
	XORQ R9, R9
	XORQ R10, R10
	XORQ R11, R11
	XORQ R12, R12

#define CHUNK(off, sh) \
	MOVOU off(SI), X0; \
	MOVOU X0, X1; \
	PCMPEQB X8, X1; \
	PMOVMSKB X1, AX; \
	SHLQ $sh, AX; \
	ORQ AX, R8; \
	MOVOU X0, X1; \
	PCMPEQB X9, X1; \
	PMOVMSKB X1, AX; \
	SHLQ $sh, AX; \
	ORQ AX, R9; \
	MOVOU X0, X2; \
	PSLLW $2, X2; \
	PMOVMSKB X2, AX; \
	SHLQ $sh, AX; \
	ORQ AX, R12; \
	POR X10, X0; \
	MOVOU X0, X1; \
	PCMPEQB X11, X1; \
	PMOVMSKB X1, AX; \
	SHLQ $sh, AX; \
	ORQ AX, R10; \
	PCMPEQB X12, X0; \
	PMOVMSKB X0, AX; \
	SHLQ $sh, AX; \
	ORQ AX, R11

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
