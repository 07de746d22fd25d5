//go:build amd64 && !purego

#include "textflag.h"
#include "go_asm.h"

// The hash constants of index.go (hashM1, hashM2).
DATA internM1<>+0(SB)/8, $0x9e3779b97f4a7c15
GLOBL internM1<>(SB), RODATA|NOPTR, $8
DATA internM2<>+0(SB)/8, $0xbf58476d1ce4e5b9
GLOBL internM2<>(SB), RODATA|NOPTR, $8

// func internWordsAsm(a *internArgs)
//
// Registers in the loop: R8 the text, R9 the current token's bounds, R11
// its cur element, R12 the slots, R13 mask<<4 (slot offsets are the index
// × 16); per token AX its first word (masked to the token when short), BX
// the hash and then the slot's meta without id, CX the length, DX the
// probed slot's offset, SI and DI the start and end. R10 and R14 are
// scratch. The rare paths (long tokens' bytes, inserts) spill to the frame
// and reload the bounds from R9.
TEXT ·internWordsAsm(SB), NOSPLIT, $32-8
	MOVQ a+0(FP), R10
	MOVQ internArgs_b(R10), R8
	MOVQ internArgs_bounds(R10), R9
	MOVQ internArgs_nb(R10), AX
	LEAQ (R9)(AX*8), AX
	MOVQ AX, end-32(SP)
	MOVQ internArgs_k(R10), AX
	MOVQ internArgs_cur(R10), R11
	LEAQ (R11)(AX*4), R11
	LEAQ (R9)(AX*8), R9
	MOVQ internArgs_slots(R10), R12
	MOVQ internArgs_mask(R10), R13
	SHLQ $4, R13

loop:
	CMPQ R9, end-32(SP)
	JAE  done
	MOVLQSX 0(R9), SI
	MOVLQSX 4(R9), DI
	MOVQ DI, CX
	SUBQ SI, CX
	MOVQ (R8)(SI*1), AX
	CMPQ CX, $8
	JHI  long

	// A short token: w masked to its n bytes, h = (w ^ n·M2)·M1, h ^= h>>32.
	LEAQ  (CX*8), R14
	BZHIQ R14, AX, AX
	MOVQ  CX, BX
	IMULQ internM2<>(SB), BX
	XORQ  AX, BX
	IMULQ internM1<>(SB), BX
	MOVQ  BX, R14
	SHRQ  $32, R14
	XORQ  R14, BX

hashed:
	// BX = h, CX = n. The first slot, and meta = h&tagMask | min(n, 255)<<32.
	MOVQ BX, h-8(SP)
	MOVQ BX, DX
	SHLQ $4, DX
	ANDQ R13, DX
	SHRQ $40, BX
	SHLQ $40, BX
	MOVQ CX, R14
	CMPQ R14, $255
	JLS  2(PC)
	MOVQ $255, R14
	SHLQ $32, R14
	ORQ  R14, BX

probe:
	MOVQ  8(R12)(DX*1), R14
	TESTQ R14, R14
	JZ    insert
	XORQ  BX, R14
	SHRQ  $32, R14
	JNZ   next
	CMPQ  0(R12)(DX*1), AX
	JNE   next
	CMPQ  CX, $8
	JHI   cmpbytes

hit:
	MOVL 8(R12)(DX*1), R14
	DECL R14
	MOVL R14, (R11)
	ADDQ $8, R9
	ADDQ $4, R11
	JMP  loop

next:
	ADDQ $16, DX
	ANDQ R13, DX
	JMP  probe

long:
	// h = (w ^ n·M2)·M1, then h = (h ^ h>>29 ^ v)·M1 for every further
	// word v, the last masked to the token, and h ^= h>>32 (hashLong).
	// CX is scratch here; n is DI − SI again at the end.
	MOVQ  CX, BX
	IMULQ internM2<>(SB), BX
	XORQ  AX, BX
	IMULQ internM1<>(SB), BX
	LEAQ  8(SI), R14

longword:
	CMPQ    R14, DI
	JAE     longend
	MOVQ    DI, CX
	SUBQ    R14, CX
	SHLQ    $3, CX
	MOVL    $64, DX
	CMPQ    CX, DX
	CMOVQHI DX, CX
	MOVQ    (R8)(R14*1), DX
	BZHIQ   CX, DX, DX
	XORQ    BX, DX
	MOVQ    BX, CX
	SHRQ    $29, CX
	XORQ    CX, DX
	IMULQ   internM1<>(SB), DX
	MOVQ    DX, BX
	ADDQ    $8, R14
	JMP     longword

longend:
	MOVQ BX, R14
	SHRQ $32, R14
	XORQ R14, BX
	MOVQ DI, CX
	SUBQ SI, CX
	JMP  hashed

cmpbytes:
	// A long token whose meta and first word match slot DX's: compare the
	// lengths, then the bytes after the first word, word by word, the
	// last masked (keys, like the text, has room for a word past every
	// key).
	MOVQ    DX, slot-16(SP)
	MOVQ    BX, meta-24(SP)
	MOVL    8(R12)(DX*1), R14
	DECL    R14
	SHLQ    $4, R14
	MOVQ    a+0(FP), R10
	ADDQ    internArgs_ent(R10), R14
	MOVLQSX 12(R14), DI
	MOVLQSX 8(R14), R14
	SUBQ    R14, DI
	CMPQ    DI, CX
	JNE     cmpne
	ADDQ    internArgs_keys(R10), R14
	ADDQ    R8, SI
	MOVQ    $8, R10

cmpword:
	MOVQ    CX, DI
	SUBQ    R10, DI
	JLE     cmpeq
	MOVQ    (R14)(R10*1), DX
	XORQ    (SI)(R10*1), DX
	SHLQ    $3, DI
	MOVL    $64, BX
	CMPQ    DI, BX
	CMOVQHI BX, DI
	BZHIQ   DI, DX, DX
	TESTQ   DX, DX
	JNZ     cmpne
	ADDQ    $8, R10
	JMP     cmpword

cmpeq:
	MOVQ slot-16(SP), DX
	JMP  hit

cmpne:
	MOVQ    slot-16(SP), DX
	MOVQ    meta-24(SP), BX
	MOVLQSX 0(R9), SI
	MOVLQSX 4(R9), DI
	JMP     next

insert:
	// Slot DX is empty: the token is new. Stop before the table would be
	// more than half full (insertWord rehashes there).
	MOVQ a+0(FP), R10
	MOVQ internArgs_tn(R10), R14
	INCQ R14
	CMPQ R14, internArgs_limit(R10)
	JHI  done
	MOVQ R14, internArgs_tn(R10)

	// id = nid: the slot, cur, dl[id] = last −1 | df 0. (order only
	// grows by one, which the caller does: its elements past norder are
	// written before they are read.)
	MOVQ internArgs_nid(R10), R14
	MOVQ AX, 0(R12)(DX*1)
	LEAQ 1(R14), AX
	ORQ  BX, AX
	MOVQ AX, 8(R12)(DX*1)
	MOVL R14, (R11)
	MOVQ internArgs_dl(R10), AX
	MOVQ $0xffffffff00000000, BX
	MOVQ BX, (AX)(R14*8)

	// ent[id] = {h, nkeys, nkeys+n}; the bytes to keys[nkeys:], a word
	// at a time.
	MOVQ R14, BX
	SHLQ $4, BX
	ADDQ internArgs_ent(R10), BX
	MOVQ h-8(SP), AX
	MOVQ AX, 0(BX)
	MOVQ internArgs_nkeys(R10), AX
	MOVL AX, 8(BX)
	LEAQ (AX)(CX*1), DX
	MOVL DX, 12(BX)
	MOVQ DX, internArgs_nkeys(R10)
	ADDQ internArgs_keys(R10), AX
	ADDQ R8, SI
	XORL BX, BX

copyword:
	MOVQ (SI)(BX*1), DX
	MOVQ DX, (AX)(BX*1)
	ADDQ $8, BX
	CMPQ BX, CX
	JLT  copyword

	INCQ R14
	MOVQ R14, internArgs_nid(R10)
	ADDQ $8, R9
	ADDQ $4, R11
	JMP  loop

done:
	MOVQ a+0(FP), R10
	SUBQ internArgs_bounds(R10), R9
	SHRQ $3, R9
	MOVQ R9, internArgs_k(R10)
	RET

// func countQueryFirstAsm(a *countArgs)
//
// Registers: SI the current id's address, R8 dl, R9 order, R10 no, R11
// tf + d (a query term's count is at id·ndocs from it), R12 m, R13 ndocs,
// DX the spare slots' offset from R11, BX k; AX the id, DI its dl word.
TEXT ·countQueryFirstAsm(SB), NOSPLIT, $24-8
	MOVQ  a+0(FP), AX
	MOVQ  countArgs_cur(AX), SI
	MOVQ  countArgs_n(AX), CX
	LEAQ  (SI)(CX*4), CX
	MOVQ  CX, end-8(SP)
	MOVQ  countArgs_dl(AX), R8
	MOVQ  countArgs_order(AX), R9
	MOVQ  countArgs_no(AX), R10
	MOVQ  countArgs_d(AX), CX
	MOVQ  countArgs_tf(AX), R11
	LEAQ  (R11)(CX*4), R11
	MOVQ  CX, d-16(SP)
	MOVQ  CX, R14
	SHLQ  $32, R14
	MOVQ  R14, dhi-24(SP)
	MOVQ  countArgs_ndocs(AX), R13
	MOVQ  countArgs_m(AX), R12
	MOVQ  R12, DX
	IMULQ R13, DX
	SUBQ  CX, DX
	XORL  BX, BX

count:
	MOVLQSX (SI), AX
	MOVQ    (R8)(AX*8), DI
	MOVL    AX, (R9)(R10*4)
	MOVQ    DI, CX
	SHRQ    $63, CX
	ADDQ    CX, R10

	// A query term counts in its row, any other token in spare slot k&7.
	MOVQ    AX, CX
	IMULQ   R13, CX
	MOVQ    BX, R14
	ANDQ    $7, R14
	ADDQ    DX, R14
	CMPQ    AX, R12
	CMOVQGE R14, CX
	INCL    (R11)(CX*4)

	// countDoc: dl = d<<32 | df + (last document ≠ d).
	MOVQ DI, CX
	SHRQ $32, CX
	XORL d-16(SP), CX
	MOVL CX, R14
	NEGL R14
	ORL  CX, R14
	SHRL $31, R14
	MOVL DI, CX
	ADDQ R14, CX
	ORQ  dhi-24(SP), CX
	MOVQ CX, (R8)(AX*8)

	ADDQ $4, SI
	INCQ BX
	CMPQ SI, end-8(SP)
	JB   count

	MOVQ a+0(FP), AX
	MOVQ R10, countArgs_no(AX)
	RET
