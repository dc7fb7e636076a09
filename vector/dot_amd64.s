#include "textflag.h"

// func dotAVX2(a, b *float32, n int) float32
// Four 8-wide FMA accumulators: 32 floats per iteration.
TEXT ·dotAVX2(SB), NOSPLIT, $0-28
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3

f32loop32:
	CMPQ CX, $32
	JL   f32loop8
	VMOVUPS (SI), Y4
	VMOVUPS 32(SI), Y5
	VMOVUPS 64(SI), Y6
	VMOVUPS 96(SI), Y7
	VFMADD231PS (DI), Y4, Y0
	VFMADD231PS 32(DI), Y5, Y1
	VFMADD231PS 64(DI), Y6, Y2
	VFMADD231PS 96(DI), Y7, Y3
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $32, CX
	JMP  f32loop32

f32loop8:
	CMPQ CX, $8
	JL   f32reduce
	VMOVUPS (SI), Y4
	VFMADD231PS (DI), Y4, Y0
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JMP  f32loop8

f32reduce:
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0

f32tail:
	CMPQ CX, $0
	JE   f32done
	VMOVSS (SI), X1
	VFMADD231SS (DI), X1, X0
	ADDQ $4, SI
	ADDQ $4, DI
	DECQ CX
	JMP  f32tail

f32done:
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// func dotInt8AVX2(a, b *int8, n int) int32
// Sign-extend 16 bytes to 16 int16 lanes, multiply pairwise and add
// adjacent products into int32 lanes (VPMADDWD): 32 bytes per iteration.
TEXT ·dotInt8AVX2(SB), NOSPLIT, $0-28
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	VPXOR Y0, Y0, Y0
	VPXOR Y5, Y5, Y5

i8loop32:
	CMPQ CX, $32
	JL   i8loop16
	VPMOVSXBW (SI), Y1
	VPMOVSXBW (DI), Y2
	VPMADDWD Y2, Y1, Y1
	VPADDD Y1, Y0, Y0
	VPMOVSXBW 16(SI), Y3
	VPMOVSXBW 16(DI), Y4
	VPMADDWD Y4, Y3, Y3
	VPADDD Y3, Y5, Y5
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $32, CX
	JMP  i8loop32

i8loop16:
	CMPQ CX, $16
	JL   i8reduce
	VPMOVSXBW (SI), Y1
	VPMOVSXBW (DI), Y2
	VPMADDWD Y2, Y1, Y1
	VPADDD Y1, Y0, Y0
	ADDQ $16, SI
	ADDQ $16, DI
	SUBQ $16, CX
	JMP  i8loop16

i8reduce:
	VPADDD Y5, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD X1, X0, X0
	VPHADDD X0, X0, X0
	VPHADDD X0, X0, X0
	VMOVD X0, AX

i8tail:
	CMPQ CX, $0
	JE   i8done
	MOVBQSX (SI), BX
	MOVBQSX (DI), DX
	IMULQ DX, BX
	ADDL BX, AX
	INCQ SI
	INCQ DI
	DECQ CX
	JMP  i8tail

i8done:
	VZEROUPPER
	MOVL AX, ret+24(FP)
	RET

// func dotInt8BatchAVX2(q *int16, codes *int8, dim, n int, out *int32)
// out[r] = Σ_j q[j]·codes[r·dim+j] for each of n rows: the query's codes
// come sign-extended to int16 once, so each 16 codes of a row cost one
// widening load and one VPMADDWD against the query in cache.
TEXT ·dotInt8BatchAVX2(SB), NOSPLIT, $0-40
	MOVQ q+0(FP), R8
	MOVQ codes+8(FP), DI
	MOVQ dim+16(FP), R9
	MOVQ n+24(FP), R10
	MOVQ out+32(FP), R11

brow:
	TESTQ R10, R10
	JZ    bdone
	MOVQ  R8, SI
	MOVQ  R9, CX
	VPXOR Y0, Y0, Y0
	VPXOR Y5, Y5, Y5

bloop32:
	CMPQ      CX, $32
	JL        bloop16
	VPMOVSXBW (DI), Y1
	VPMADDWD  (SI), Y1, Y1
	VPADDD    Y1, Y0, Y0
	VPMOVSXBW 16(DI), Y3
	VPMADDWD  32(SI), Y3, Y3
	VPADDD    Y3, Y5, Y5
	ADDQ      $32, DI
	ADDQ      $64, SI
	SUBQ      $32, CX
	JMP       bloop32

bloop16:
	CMPQ      CX, $16
	JL        breduce
	VPMOVSXBW (DI), Y1
	VPMADDWD  (SI), Y1, Y1
	VPADDD    Y1, Y0, Y0
	ADDQ      $16, DI
	ADDQ      $32, SI
	SUBQ      $16, CX

breduce:
	VPADDD       Y5, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPHADDD      X0, X0, X0
	VPHADDD      X0, X0, X0
	VMOVD        X0, AX

btail:
	TESTQ   CX, CX
	JZ      bstore
	MOVWQSX (SI), BX
	MOVBQSX (DI), DX
	IMULQ   DX, BX
	ADDL    BX, AX
	ADDQ    $2, SI
	INCQ    DI
	DECQ    CX
	JMP     btail

bstore:
	MOVL AX, (R11)
	ADDQ $4, R11
	DECQ R10
	JMP  brow

bdone:
	VZEROUPPER
	RET
