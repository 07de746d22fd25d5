//go:build amd64 && !purego

#include "textflag.h"

// The compares are signed: a byte ≥ 0x80 is negative, so it is in no
// range and not upper case; the caller checks high for such bytes.

// INRANGE sets r to the bytes of y in range k of the class: y > lo−1 (at
// off(R9)) and not y > hi (at off+32(R9)). It uses Y3.
#define INRANGE(y, off, r) \
	VPCMPGTB off(R9), y, r;     \
	VPCMPGTB off+32(R9), y, Y3; \
	VPANDN   r, Y3, r

// LOWER stores y lower-cased (A–Z only) at off(DI). It uses Y2 and Y3.
#define LOWER(y, off) \
	VPCMPGTB 256(R9), y, Y2; \
	VPCMPGTB 288(R9), y, Y3; \
	VPANDN   Y2, Y3, Y2;     \
	VPAND    320(R9), Y2, Y2; \
	VPOR     Y2, y, Y2;      \
	VMOVDQU  Y2, off(DI)

// func classifyAVX2(dst, src *byte, blocks int, masks *uint64, vec *[11][32]byte, nranges int) (high uint32)
//
// dst may be nil: then only the bitmaps are made.
TEXT ·classifyAVX2(SB), NOSPLIT, $0-52
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ blocks+16(FP), CX
	MOVQ masks+24(FP), R8
	MOVQ vec+32(FP), R9
	MOVQ nranges+40(FP), R10
	VPXOR Y15, Y15, Y15

loop:
	TESTQ CX, CX
	JZ    done
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y1
	VPOR    Y0, Y15, Y15
	VPOR    Y1, Y15, Y15
	TESTQ   DI, DI
	JZ      ranges // no dst: the bitmap only
	LOWER(Y0, 0)
	LOWER(Y1, 32)
	ADDQ $64, DI

ranges:
	// Y4, Y5: the bytes of Y0, Y1 in ranges 0…nranges−1 (2 to 4).
	INRANGE(Y0, 0, Y4)
	INRANGE(Y1, 0, Y5)
	INRANGE(Y0, 64, Y2)
	VPOR Y2, Y4, Y4
	INRANGE(Y1, 64, Y2)
	VPOR Y2, Y5, Y5
	CMPQ R10, $2
	JLE  store
	INRANGE(Y0, 128, Y2)
	VPOR Y2, Y4, Y4
	INRANGE(Y1, 128, Y2)
	VPOR Y2, Y5, Y5
	CMPQ R10, $3
	JLE  store
	INRANGE(Y0, 192, Y2)
	VPOR Y2, Y4, Y4
	INRANGE(Y1, 192, Y2)
	VPOR Y2, Y5, Y5

store:
	VPMOVMSKB Y4, AX
	VPMOVMSKB Y5, BX
	SHLQ $32, BX
	ORQ  BX, AX
	MOVQ AX, (R8)
	ADDQ $64, SI
	ADDQ $8, R8
	DECQ CX
	JMP  loop

done:
	VPMOVMSKB Y15, AX
	VZEROUPPER
	MOVL AX, high+48(FP)
	RET

// The positions 0…15 of a block's first 16 bits, as dwords.
DATA changesIdx<>+0(SB)/4, $0
DATA changesIdx<>+4(SB)/4, $1
DATA changesIdx<>+8(SB)/4, $2
DATA changesIdx<>+12(SB)/4, $3
DATA changesIdx<>+16(SB)/4, $4
DATA changesIdx<>+20(SB)/4, $5
DATA changesIdx<>+24(SB)/4, $6
DATA changesIdx<>+28(SB)/4, $7
DATA changesIdx<>+32(SB)/4, $8
DATA changesIdx<>+36(SB)/4, $9
DATA changesIdx<>+40(SB)/4, $10
DATA changesIdx<>+44(SB)/4, $11
DATA changesIdx<>+48(SB)/4, $12
DATA changesIdx<>+52(SB)/4, $13
DATA changesIdx<>+56(SB)/4, $14
DATA changesIdx<>+60(SB)/4, $15
GLOBL changesIdx<>(SB), RODATA|NOPTR, $64

// CHANGES16 writes the positions of the low 16 bits of BX, Z0 (the
// block's base) plus zi (their offsets in the block), at bounds[AX:], 16
// dwords whatever their number, and adds their number to AX.
#define CHANGES16(zi) \
	KMOVW       BX, K1;         \
	VPADDD      zi, Z0, Z1;     \
	VPCOMPRESSD Z1, K1, Z2;     \
	VMOVDQU32   Z2, (DI)(AX*4); \
	MOVWLZX     BX, DX;         \
	POPCNTL     DX, DX;         \
	ADDQ        DX, AX;         \
	SHRQ        $16, BX

// func changesAVX512(masks *uint64, blocks int, flip uint64, bounds *int32) (nb int)
TEXT ·changesAVX512(SB), NOSPLIT, $0-40
	MOVQ masks+0(FP), SI
	MOVQ blocks+8(FP), CX
	MOVQ flip+16(FP), R8
	MOVQ bounds+24(FP), DI
	XORQ AX, AX  // nb
	MOVQ $1, R9  // carry: the byte before the text is a separator
	XORL R10, R10 // the block's base

	// Z4…Z7: the offsets 0…15, 16…31, 32…47, 48…63.
	VMOVDQU32    changesIdx<>(SB), Z4
	MOVL         $16, R11
	VPBROADCASTD R11, Z3
	VPADDD       Z3, Z4, Z5
	VPADDD       Z3, Z5, Z6
	VPADDD       Z3, Z6, Z7

block:
	TESTQ CX, CX
	JZ    blocksdone

	// t = m ^ (m<<1 | carry), m = the block ^ flip.
	MOVQ (SI), DX
	XORQ R8, DX
	MOVQ DX, BX
	SHLQ $1, BX
	ORQ  R9, BX
	XORQ DX, BX
	SHRQ $63, DX
	MOVQ DX, R9

	VPBROADCASTD R10, Z0
	CHANGES16(Z4)
	CHANGES16(Z5)
	CHANGES16(Z6)
	CHANGES16(Z7)

	ADDQ $8, SI
	ADDL $64, R10
	DECQ CX
	JMP  block

blocksdone:
	VZEROUPPER
	MOVQ AX, nb+32(FP)
	RET
