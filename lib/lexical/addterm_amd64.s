//go:build amd64 && !purego

#include "textflag.h"

// func addTermAVX2(scores *float64, row *int32, norm *float64, n int, w, k1p1 float64)
//
// scores[d] += w · (f·k1p1 / (f + norm[d])) for d < n, f = row[d]: four
// documents a step in Y registers, then the rest one at a time, each
// operation rounded as Go's (and numpy's) are. Y4 holds w, Y5 k1p1; AX is
// d.
TEXT ·addTermAVX2(SB), NOSPLIT, $0-48
	MOVQ         scores+0(FP), DI
	MOVQ         row+8(FP), SI
	MOVQ         norm+16(FP), DX
	MOVQ         n+24(FP), CX
	VBROADCASTSD w+32(FP), Y4
	VBROADCASTSD k1p1+40(FP), Y5
	XORL         AX, AX
	LEAQ         -4(CX), BX

quad:
	CMPQ      AX, BX
	JGT       single
	VCVTDQ2PD (SI)(AX*4), Y0
	VMULPD    Y5, Y0, Y1
	VADDPD    (DX)(AX*8), Y0, Y2
	VDIVPD    Y2, Y1, Y1
	VMULPD    Y4, Y1, Y1
	VADDPD    (DI)(AX*8), Y1, Y1
	VMOVUPD   Y1, (DI)(AX*8)
	ADDQ      $4, AX
	JMP       quad

single:
	CMPQ     AX, CX
	JGE      done
	VCVTSI2SDL (SI)(AX*4), X0, X0
	VMULSD    X5, X0, X1
	VADDSD    (DX)(AX*8), X0, X2
	VDIVSD    X2, X1, X1
	VMULSD    X4, X1, X1
	VADDSD    (DI)(AX*8), X1, X1
	VMOVSD    X1, (DI)(AX*8)
	INCQ      AX
	JMP       single

done:
	VZEROUPPER
	RET
