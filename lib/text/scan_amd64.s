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
