//go:build amd64 && !purego

#include "textflag.h"

// BCAST broadcasts the byte c to every byte of Y register y.
#define BCAST(c, y, x) MOVL $c, AX; MOVD AX, x; VPBROADCASTB x, y

// LOWERSPACE lower-cases the 32 bytes in y (A–Z only), stores them at off(DI),
// and leaves in reg the 32-bit mask of its bytes in \t–\r or 0x1C–' '.
#define LOWERSPACE(y, off, reg) \
	VPCMPGTB Y8, y, Y2;   \
	VPCMPGTB y, Y9, Y3;   \
	VPAND    Y2, Y3, Y2;  \
	VPAND    Y10, Y2, Y2; \
	VPOR     Y2, y, Y2;   \
	VMOVDQU  Y2, off(DI); \
	VPCMPGTB Y11, y, Y2;  \
	VPCMPGTB y, Y12, Y3;  \
	VPAND    Y2, Y3, Y2;  \
	VPCMPGTB Y13, y, Y3;  \
	VPCMPGTB y, Y14, Y4;  \
	VPAND    Y3, Y4, Y3;  \
	VPOR     Y2, Y3, Y2;  \
	VPMOVMSKB Y2, reg

// func lowerSpaceAVX2(dst, src *byte, blocks int, masks *uint64) (high uint32)
TEXT ·lowerSpaceAVX2(SB), NOSPLIT, $0-36
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ blocks+16(FP), CX
	MOVQ masks+24(FP), R8
	// The compares are signed: a byte ≥ 0x80 is negative, so it is
	// neither upper case nor a separator; the caller checks high.
	BCAST(0x40, Y8, X8)  // 'A'−1
	BCAST(0x5b, Y9, X9)  // 'Z'+1
	BCAST(0x20, Y10, X10)
	BCAST(0x08, Y11, X11) // '\t'−1
	BCAST(0x0e, Y12, X12) // '\r'+1
	BCAST(0x1b, Y13, X13) // 0x1C−1
	BCAST(0x21, Y14, X14) // ' '+1
	VPXOR Y15, Y15, Y15

loop:
	TESTQ CX, CX
	JZ    done
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y1
	VPOR    Y0, Y15, Y15
	VPOR    Y1, Y15, Y15
	LOWERSPACE(Y0, 0, AX)
	LOWERSPACE(Y1, 32, BX)
	SHLQ $32, BX
	ORQ  BX, AX
	MOVQ AX, (R8)
	ADDQ $64, SI
	ADDQ $64, DI
	ADDQ $8, R8
	DECQ CX
	JMP  loop

done:
	VPMOVMSKB Y15, AX
	VZEROUPPER
	MOVL AX, high+32(FP)
	RET
