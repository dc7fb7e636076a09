//go:build ignore

// gen_kernels writes kernels_amd64.s: the AVX-512 (up to 14×32) and AVX2
// (up to 6×16) micro-kernels, one fully unrolled body per row count so
// every row keeps its accumulators in registers. Run it with go generate.
package main

import (
	"bytes"
	"fmt"
	"os"
)

var out bytes.Buffer

func p(format string, args ...any) { fmt.Fprintf(&out, "\t"+format+"\n", args...) }

func label(l string) { fmt.Fprintf(&out, "%s:\n", l) }

// aBases holds a, a+3·lda, a+6·lda, …: row i is aBases[i/3] plus
// (i%3)·lda, which the addressing modes (DX*1) and (DX*2) express.
var aBases = []string{"SI", "R10", "R11", "R12", "R13"}

func aAddr(row, u int) string {
	idx := []string{"", "(DX*1)", "(DX*2)"}[row%3]
	off := ""
	if u > 0 {
		off = fmt.Sprint(4 * u)
	}
	return fmt.Sprintf("%s(%s)%s", off, aBases[row/3], idx)
}

// bAddr is row u (0…3) of the B panel: DI + u·ldb, with BX = ldb and
// R9 = 3·ldb in bytes.
func bAddr(u, off int) string {
	o := ""
	if off > 0 {
		o = fmt.Sprint(off)
	}
	return o + []string{"(DI)", "(DI)(BX*1)", "(DI)(BX*2)", "(DI)(R9*1)"}[u]
}

// prologue loads the arguments common to both kernels and leaves the row
// count in AX for the dispatch.
func prologue(maxMR int) {
	p("MOVQ k+8(FP), CX")
	p("MOVQ a+16(FP), SI")
	p("MOVQ lda+24(FP), DX")
	p("SHLQ $2, DX")
	p("MOVQ b+32(FP), DI")
	p("MOVQ ldb+40(FP), BX")
	p("SHLQ $2, BX")
	p("LEAQ (BX)(BX*2), R9")
	p("LEAQ (BX*4), R8")
	for i := 1; i < (maxMR+2)/3; i++ {
		p("LEAQ (%s)(DX*2), %s", aBases[i-1], aBases[i])
		p("ADDQ DX, %s", aBases[i])
	}
	p("MOVQ mr+0(FP), AX")
}

type isa struct {
	name   string
	maxMR  int
	vecs   int    // vectors per row: 2 zmm or 2 ymm
	reg    string // "Z" or "Y"
	width  int    // bytes per vector
	bcast  bool   // FMA with an embedded broadcast operand (AVX-512)
	breg   [2]int // B panel registers
	tmpReg [2]int // broadcast registers (AVX2)
}

func (s isa) r(i int) string { return fmt.Sprintf("%s%d", s.reg, i) }

func (s isa) body(mr int, u int, dual bool) {
	set := 0
	if dual && u%2 == 1 {
		set = 2 * mr
	}
	p("VMOVUPS %s, %s", bAddr(u, 0), s.r(s.breg[0]))
	p("VMOVUPS %s, %s", bAddr(u, s.width), s.r(s.breg[1]))
	for i := 0; i < mr; i++ {
		if s.bcast {
			p("VFMADD231PS.BCST %s, %s, %s", aAddr(i, u), s.r(s.breg[0]), s.r(set+2*i))
			p("VFMADD231PS.BCST %s, %s, %s", aAddr(i, u), s.r(s.breg[1]), s.r(set+2*i+1))
		} else {
			t := s.r(s.tmpReg[i%2])
			p("VBROADCASTSS %s, %s", aAddr(i, u), t)
			p("VFMADD231PS %s, %s, %s", s.r(s.breg[0]), t, s.r(set+2*i))
			p("VFMADD231PS %s, %s, %s", s.r(s.breg[1]), t, s.r(set+2*i+1))
		}
	}
}

func (s isa) kernel(mr int) {
	// With few rows there are too few independent accumulators to cover
	// the FMA latency, so odd k steps go to a second set, summed at the end.
	dual := mr <= 3
	l := func(x string) string { return fmt.Sprintf("%s_%d_%s", s.name, mr, x) }
	label(fmt.Sprintf("%s_%d", s.name, mr))
	s.kernelStart(mr, dual, l)
	s.kernelLoop(mr, dual, l)
	s.kernelStore(mr, dual)
}

// kernelStart prefetches the C tile and starts the accumulators at zero,
// at the bias or at C, by mode.
func (s isa) kernelStart(mr int, dual bool, l func(string) string) {
	nacc := 2 * mr
	if dual {
		nacc *= 2
	}
	// Fetch the C tile now so that the stores at the end, thousands of
	// cycles later, hit cache instead of waiting on memory for every line
	// (for m in the thousands C does not fit in L2).
	p("MOVQ c+48(FP), AX")
	p("MOVQ ldc+56(FP), R8")
	p("SHLQ $2, R8")
	for i := 0; i < mr; i++ {
		p("PREFETCHT0 (AX)")
		if s.width == 64 {
			p("PREFETCHT0 64(AX)")
		}
		if i < mr-1 {
			p("ADDQ R8, AX")
		}
	}
	p("LEAQ (BX*4), R8")
	p("MOVQ mode+72(FP), AX")
	p("CMPQ AX, $1")
	p("JEQ %s", l("bias"))
	p("JGT %s", l("loadc"))
	for i := 0; i < nacc; i++ {
		p("VXORPS %s, %s, %s", s.r(i), s.r(i), s.r(i))
	}
	p("JMP %s", l("loop4"))
	label(l("bias"))
	p("MOVQ bias+64(FP), AX")
	p("VMOVUPS (AX), %s", s.r(0))
	p("VMOVUPS %d(AX), %s", s.width, s.r(1))
	for i := 2; i < 2*mr; i++ {
		p("VMOVAPS %s, %s", s.r(i%2), s.r(i))
	}
	for i := 2 * mr; i < nacc; i++ {
		p("VXORPS %s, %s, %s", s.r(i), s.r(i), s.r(i))
	}
	p("JMP %s", l("loop4"))
	label(l("loadc"))
	p("MOVQ c+48(FP), AX")
	p("MOVQ ldc+56(FP), R8")
	p("SHLQ $2, R8")
	for i := 0; i < mr; i++ {
		p("VMOVUPS (AX), %s", s.r(2*i))
		p("VMOVUPS %d(AX), %s", s.width, s.r(2*i+1))
		if i < mr-1 {
			p("ADDQ R8, AX")
		}
	}
	for i := 2 * mr; i < nacc; i++ {
		p("VXORPS %s, %s, %s", s.r(i), s.r(i), s.r(i))
	}
	p("LEAQ (BX*4), R8")
}

// kernelLoop runs over k four steps at a time, then one at a time.
func (s isa) kernelLoop(mr int, dual bool, l func(string) string) {
	nb := (mr + 2) / 3
	label(l("loop4"))
	p("CMPQ CX, $4")
	p("JLT %s", l("tail"))
	for u := 0; u < 4; u++ {
		s.body(mr, u, dual)
	}
	for i := 0; i < nb; i++ {
		p("ADDQ $16, %s", aBases[i])
	}
	p("ADDQ R8, DI")
	p("SUBQ $4, CX")
	p("JMP %s", l("loop4"))

	label(l("tail"))
	p("TESTQ CX, CX")
	p("JEQ %s", l("store"))
	s.body(mr, 0, false)
	for i := 0; i < nb; i++ {
		p("ADDQ $4, %s", aBases[i])
	}
	p("ADDQ BX, DI")
	p("DECQ CX")
	p("JMP %s", l("tail"))
	label(l("store"))
}

// kernelStore adds the second set of accumulators, if any, and stores the
// tile to C.
func (s isa) kernelStore(mr int, dual bool) {
	if dual {
		for i := 0; i < 2*mr; i++ {
			p("VADDPS %s, %s, %s", s.r(2*mr+i), s.r(i), s.r(i))
		}
	}
	p("MOVQ c+48(FP), AX")
	p("MOVQ ldc+56(FP), R8")
	p("SHLQ $2, R8")
	for i := 0; i < mr; i++ {
		p("VMOVUPS %s, (AX)", s.r(2*i))
		p("VMOVUPS %s, %d(AX)", s.r(2*i+1), s.width)
		if i < mr-1 {
			p("ADDQ R8, AX")
		}
	}
	p("VZEROUPPER")
	p("RET")
	out.WriteString("\n")
}

func (s isa) gen(doc string) {
	out.WriteString(doc)
	fmt.Fprintf(&out, "TEXT ·%s(SB), NOSPLIT, $0-80\n", s.name)
	prologue(s.maxMR)
	for mr := 1; mr < s.maxMR; mr++ {
		p("CMPQ AX, $%d", mr)
		p("JEQ %s_%d", s.name, mr)
	}
	p("JMP %s_%d", s.name, s.maxMR)
	out.WriteString("\n")
	for mr := 1; mr <= s.maxMR; mr++ {
		s.kernel(mr)
	}
}

func main() {
	out.WriteString("// Code generated by gen_kernels.go; DO NOT EDIT.\n\n#include \"textflag.h\"\n\n")
	isa{name: "kernAVX512", maxMR: 14, reg: "Z", width: 64, bcast: true, breg: [2]int{28, 29}}.gen(
		`// func kernAVX512(mr, k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, bias *float32, mode int)
// C[mr×32] (=|+=) A[mr×k]·B[k×32]: per k step two zmm loads of the B row
// and 2·mr FMAs whose A operand is an embedded broadcast, so 28 of the 32
// zmm registers hold accumulators.
`)
	isa{name: "kernAVX2", maxMR: 6, reg: "Y", width: 32, breg: [2]int{12, 13}, tmpReg: [2]int{14, 15}}.gen(
		`// func kernAVX2(mr, k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, bias *float32, mode int)
// C[mr×16] (=|+=) A[mr×k]·B[k×16]: 12 ymm accumulators, two for the B
// row and two broadcast registers.
`)
	if err := os.WriteFile("kernels_amd64.s", out.Bytes(), 0o644); err != nil {
		panic(err)
	}
}
