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
// × 16); per token AX its first word, BX its hash, CX its length, DX the
// probed slot's offset, SI and DI its start and end, R14 the slot's meta.
// R10 is scratch. The rare paths (long tokens' bytes, inserts) reload a
// and the bounds from memory.
TEXT ·internWordsAsm(SB), NOSPLIT, $24-8
	MOVQ a+0(FP), R10
	MOVQ internArgs_b(R10), R8
	MOVQ internArgs_bounds(R10), R9
	MOVQ internArgs_nb(R10), AX
	LEAQ (R9)(AX*8), AX
	MOVQ AX, end-8(SP)
	MOVQ internArgs_k(R10), AX
	MOVQ internArgs_cur(R10), R11
	LEAQ (R11)(AX*4), R11
	LEAQ (R9)(AX*8), R9
	MOVQ internArgs_slots(R10), R12
	MOVQ internArgs_mask(R10), R13
	SHLQ $4, R13

loop:
	CMPQ R9, end-8(SP)
	JAE  done
	MOVLQSX 0(R9), SI
	MOVLQSX 4(R9), DI
	MOVQ DI, CX
	SUBQ SI, CX
	MOVQ (R8)(SI*1), AX
	CMPQ CX, $8
	JHI  long

	// A short token: w masked to its n bytes, h = (w ^ n·M2)·M1, h ^= h>>32.
	LEAQ  (CX*8), R10
	BZHIQ R10, AX, AX
	MOVQ  CX, BX
	IMULQ internM2<>(SB), BX
	XORQ  AX, BX
	IMULQ internM1<>(SB), BX
	MOVQ  BX, R10
	SHRQ  $32, R10
	XORQ  R10, BX
	MOVQ  BX, DX
	SHLQ  $4, DX
	ANDQ  R13, DX

probe:
	// Hash and class (the length, CX) identify a short token.
	MOVQ  8(R12)(DX*1), R14
	TESTQ R14, R14
	JZ    insert
	CMPQ  0(R12)(DX*1), BX
	JNE   next
	MOVQ  R14, R10
	SHRQ  $32, R10
	CMPQ  R10, CX
	JNE   next

hit:
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
	MOVQ BX, DX
	SHLQ $4, DX
	ANDQ R13, DX

probelong:
	// A long token: hash and class (longClass) first, then its bytes.
	MOVQ  8(R12)(DX*1), R14
	TESTQ R14, R14
	JZ    insert
	CMPQ  0(R12)(DX*1), BX
	JNE   nextlong
	MOVQ  R14, R10
	SHRQ  $32, R10
	CMPQ  R10, $const_longClass
	JEQ   cmpbytes

nextlong:
	ADDQ $16, DX
	ANDQ R13, DX
	JMP  probelong

cmpbytes:
	// Compare the lengths, then the bytes word by word, the last masked
	// (keys, like the text, has room for a word past every key). SI, DI,
	// AX and R10 are scratch; SI and DI are reloaded from the bounds.
	MOVQ    DX, slot-16(SP)
	MOVL    R14, R10
	SHLQ    $4, R10
	MOVQ    a+0(FP), AX
	ADDQ    internArgs_ent(AX), R10
	MOVLQSX 12(R10), DI
	MOVLQSX 8(R10), R10
	SUBQ    R10, DI
	CMPQ    DI, CX
	JNE     cmpne
	ADDQ    internArgs_keys(AX), R10
	ADDQ    R8, SI
	XORL    AX, AX

cmpword:
	MOVQ    CX, DI
	SUBQ    AX, DI
	JLE     cmpeq
	MOVQ    (R10)(AX*1), DX
	XORQ    (SI)(AX*1), DX
	SHLQ    $3, DI
	MOVL    $64, R14
	CMPQ    DI, R14
	CMOVQHI R14, DI
	BZHIQ   DI, DX, DX
	TESTQ   DX, DX
	JNZ     cmpne
	ADDQ    $8, AX
	JMP     cmpword

cmpeq:
	MOVQ slot-16(SP), DX
	MOVQ 8(R12)(DX*1), R14
	JMP  hit

cmpne:
	MOVQ    slot-16(SP), DX
	MOVLQSX 0(R9), SI
	MOVLQSX 4(R9), DI
	JMP     nextlong

insert:
	// Slot DX is empty: the token is new. Stop before the table would be
	// fuller than its fill, a.limit (insertWord rehashes there).
	MOVQ a+0(FP), R10
	MOVQ internArgs_tn(R10), R14
	INCQ R14
	CMPQ R14, internArgs_limit(R10)
	JHI  done
	MOVQ R14, internArgs_tn(R10)

	// id = nid: the slot {h, class<<32 | id}, cur, dl[id] = last −1 |
	// df 0. (order only grows by one, which the caller does: its elements
	// past norder are written before they are read.)
	MOVQ internArgs_nid(R10), R14
	MOVQ BX, 0(R12)(DX*1)
	MOVQ CX, AX
	CMPQ AX, $const_longClass
	JLS  2(PC)
	MOVQ $const_longClass, AX
	SHLQ $32, AX
	ORQ  R14, AX
	MOVQ AX, 8(R12)(DX*1)
	MOVL R14, (R11)
	MOVQ internArgs_dl(R10), AX
	MOVQ $0xffffffff00000000, DX
	MOVQ DX, (AX)(R14*8)

	// ent[id] = {h, nkeys, nkeys+n}; the bytes to keys[nkeys:], a word
	// at a time.
	MOVQ R14, DX
	SHLQ $4, DX
	ADDQ internArgs_ent(R10), DX
	MOVQ BX, 0(DX)
	MOVQ internArgs_nkeys(R10), AX
	MOVL AX, 8(DX)
	LEAQ (AX)(CX*1), BX
	MOVL BX, 12(DX)
	MOVQ BX, internArgs_nkeys(R10)
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
// tf + d (a query term's count is at id·ndocs from it), R12 m, R13 d, BX
// tf's 8 spare slots; AX the id, DI its last document, R14 the address
// incremented. On the stack: the end of cur and ndocs.
TEXT ·countQueryFirstAsm(SB), NOSPLIT, $16-8
	MOVQ  a+0(FP), AX
	MOVQ  countArgs_cur(AX), SI
	MOVQ  countArgs_n(AX), CX
	LEAQ  (SI)(CX*4), CX
	MOVQ  CX, end-8(SP)
	MOVQ  countArgs_ndocs(AX), CX
	MOVQ  CX, ndocs-16(SP)
	MOVQ  countArgs_dl(AX), R8
	MOVQ  countArgs_order(AX), R9
	MOVQ  countArgs_no(AX), R10
	MOVQ  countArgs_d(AX), R13
	MOVQ  countArgs_tf(AX), R11
	MOVQ  countArgs_m(AX), R12
	MOVQ  R12, BX
	IMULQ CX, BX
	LEAQ  (R11)(BX*4), BX
	LEAQ  (R11)(R13*4), R11

count:
	// The last document (high half of dl) is loaded and d stored over
	// it, a 32-bit load and store of the same half, so that the store
	// forwards to the next load of it.
	MOVLQSX (SI), AX
	MOVL    4(R8)(AX*8), DI
	MOVL    R13, 4(R8)(AX*8)
	MOVL    AX, (R9)(R10*4)
	MOVL    DI, CX
	SHRL    $31, CX
	ADDQ    CX, R10

	// Increment: a query term's tf; else its df (the low half of dl) if
	// d was not its last document; else one of 8 spare slots in turn (by
	// the address of the id, which steps by 4), so that no increment
	// waits on the one before through memory.
	MOVQ    SI, R14
	ANDQ    $28, R14
	ADDQ    BX, R14
	LEAQ    (R8)(AX*8), CX
	CMPL    DI, R13
	CMOVQNE CX, R14
	MOVQ    AX, CX
	IMULQ   ndocs-16(SP), CX
	LEAQ    (R11)(CX*4), CX
	CMPQ    AX, R12
	CMOVQLT CX, R14
	INCL    (R14)

	ADDQ $4, SI
	CMPQ SI, end-8(SP)
	JB   count

	MOVQ a+0(FP), AX
	MOVQ R10, countArgs_no(AX)
	RET

// func prefetch(p unsafe.Pointer, n int) int
//
// PREFETCHT0 of every cache line of p[0:n]: from the line that holds p,
// 64 bytes at a time, to the one that holds p+n−1; it returns how many.
// A prefetch never faults, and changes nothing but the cache.
TEXT ·prefetch(SB), NOSPLIT, $0-24
	MOVQ  p+0(FP), AX
	MOVQ  n+8(FP), CX
	XORL  DX, DX
	TESTQ CX, CX
	JLE   pfdone
	ADDQ  AX, CX
	ANDQ  $~63, AX

pfline:
	PREFETCHT0 (AX)
	INCQ       DX
	ADDQ       $64, AX
	CMPQ       AX, CX
	JB         pfline

pfdone:
	MOVQ DX, ret+16(FP)
	RET

// The multiplier of mixPair.
DATA pairMul<>+0(SB)/8, $0x9e3779b97f4a7c15
GLOBL pairMul<>(SB), RODATA|NOPTR, $8

// func internPairsAsm(a *pairArgs)
//
// Registers in the loop: R8 the current pair, R11 its output, R9 the
// singles' ids, R12 the slots, R13 mask<<4, SI the multiplier; per pair
// AX its first token, then scratch, BX its key (the packed ids), DI its
// hash, DX the probed slot's offset, R14 the slot's meta. On the stack:
// the pairs' end and ncur − 1.
TEXT ·internPairsAsm(SB), NOSPLIT, $16-8
	MOVQ a+0(FP), R10
	MOVQ pairArgs_pairs(R10), R8
	MOVQ pairArgs_np(R10), AX
	LEAQ (R8)(AX*4), AX
	MOVQ AX, end-8(SP)
	MOVQ pairArgs_j(R10), AX
	LEAQ (R8)(AX*4), R8
	MOVQ pairArgs_out(R10), R11
	LEAQ (R11)(AX*4), R11
	MOVQ pairArgs_cur(R10), R9
	MOVQ pairArgs_ncur(R10), AX
	DECQ AX
	MOVQ AX, last-16(SP)
	MOVQ pairArgs_slots(R10), R12
	MOVQ pairArgs_mask(R10), R13
	SHLQ $4, R13
	MOVQ pairMul<>(SB), SI

pairloop:
	CMPQ    R8, end-8(SP)
	JAE     pairdone
	MOVLQSX (R8), AX
	CMPQ    AX, last-16(SP)
	JAE     pairbad

	// key = cur[k]<<32 | cur[k+1]; h = key·M, h ^= h>>32 (mixPair).
	MOVL  (R9)(AX*4), BX
	MOVL  4(R9)(AX*4), CX
	SHLQ  $32, BX
	ORQ   CX, BX
	MOVQ  BX, DI
	IMULQ SI, DI
	MOVQ  DI, AX
	SHRQ  $32, AX
	XORQ  AX, DI
	MOVQ  DI, DX
	SHLQ  $4, DX
	ANDQ  R13, DX

pairprobe:
	MOVQ  8(R12)(DX*1), R14
	TESTQ R14, R14
	JZ    pairinsert
	CMPQ  0(R12)(DX*1), BX
	JNE   pairnext
	MOVL  R14, (R11)
	ADDQ  $4, R8
	ADDQ  $4, R11
	JMP   pairloop

pairnext:
	ADDQ $16, DX
	ANDQ R13, DX
	JMP  pairprobe

pairinsert:
	// Slot DX is empty: the pair is new. Stop before the table would be
	// fuller than its fill, a.limit (insertPair rehashes there).
	MOVQ a+0(FP), R10
	MOVQ pairArgs_tn(R10), R14
	INCQ R14
	CMPQ R14, pairArgs_limit(R10)
	JHI  pairdone
	MOVQ R14, pairArgs_tn(R10)

	// id = nid: the slot {key, pairClass<<32 | id}, the output, dl[id] =
	// last −1 | df 0, ent[id] = {h, ^a, b}. (order only grows by one,
	// which the caller does.)
	MOVQ pairArgs_nid(R10), R14
	MOVQ BX, 0(R12)(DX*1)
	MOVQ $const_pairClass, AX
	SHLQ $32, AX
	ORQ  R14, AX
	MOVQ AX, 8(R12)(DX*1)
	MOVL R14, (R11)
	MOVQ pairArgs_dl(R10), AX
	MOVQ $0xffffffff00000000, CX
	MOVQ CX, (AX)(R14*8)
	MOVQ R14, DX
	SHLQ $4, DX
	ADDQ pairArgs_ent(R10), DX
	MOVQ DI, 0(DX)
	MOVQ BX, AX
	SHRQ $32, AX
	NOTL AX
	MOVL AX, 8(DX)
	MOVL BX, 12(DX)
	INCQ R14
	MOVQ R14, pairArgs_nid(R10)
	ADDQ $4, R8
	ADDQ $4, R11
	JMP  pairloop

pairbad:
	MOVQ a+0(FP), R10
	MOVQ $1, pairArgs_bad(R10)

pairdone:
	MOVQ a+0(FP), R10
	SUBQ pairArgs_pairs(R10), R8
	SHRQ $2, R8
	MOVQ R8, pairArgs_j(R10)
	RET
