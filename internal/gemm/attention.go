package gemm

import "fmt"

// MulT sets dst (m×n) to a·bᵀ, a being m×k and b n×k, both row-major and
// unpacked: the attention scores Q·Kᵀ.
func MulT(dst, a, b []float32, m, n, k int) {
	MulTStrided(dst, n, a, k, b, k, m, n, k)
}

// MulN sets dst (m×n) to a·b, a being m×k and b k×n, both row-major: the
// attention-weighted values P·V.
func MulN(dst, a, b []float32, m, n, k int) {
	MulNStrided(dst, n, a, k, b, n, m, n, k)
}

// kcAttn is the depth of the packed slice of B an attention product keeps
// on the stack: the head size, so Q·Kᵀ packs once per 32 keys into 4 KB
// (which Go zeroes on every call); deeper products are summed over slices.
const kcAttn = 32

// MulTStrided is MulT on matrices inside larger ones: row i of a starts
// at a[i·lda], row j of b at b[j·ldb] and row i of dst at dst[i·ldc]. So
// one head's Q and K can be read in place from a fused m×1152 QKV matrix
// (lda = ldb = 1152, a and b starting at the head's columns). It packs 32
// rows of b at a time, transposed, so the kernel sees a panel.
func MulTStrided(dst []float32, ldc int, a []float32, lda int, b []float32, ldb int, m, n, k int) {
	checkStrided("MulTStrided", dst, ldc, a, lda, b, ldb, m, n, k, k, n, (n-1)*ldb+k)
	if m == 0 || n == 0 {
		return
	}
	if k == 0 {
		zeroRows(dst, ldc, m, n)
		return
	}
	mr := maxRows(impl)
	nt := (m + mr - 1) / mr
	var buf [kcAttn * nr]float32
	for j0 := 0; j0 < n; j0 += nr {
		cols := min(nr, n-j0)
		for p0 := 0; p0 < k; p0 += kcAttn {
			kc := min(kcAttn, k-p0)
			for jj := 0; jj < cols; jj++ {
				row := b[(j0+jj)*ldb+p0 : (j0+jj)*ldb+p0+kc]
				for p, x := range row {
					buf[p*nr+jj] = x
				}
			}
			mode := modeAcc
			if p0 == 0 {
				mode = modeZero
			}
			for t := 0; t < nt; t++ {
				r0, r1 := t*m/nt, (t+1)*m/nt
				tile(r1-r0, kc, a[r0*lda+p0:], lda, buf[:], nr, dst[r0*ldc+j0:], ldc, nil, mode, cols)
			}
		}
	}
}

// MulNStrided is MulN with row strides lda, ldb and ldc, as for
// MulTStrided: b can be one head's V inside a fused QKV matrix and dst
// that head's columns of the m×384 context. Full 32-column panels of b
// are read in place; a narrower last panel is copied.
func MulNStrided(dst []float32, ldc int, a []float32, lda int, b []float32, ldb int, m, n, k int) {
	checkStrided("MulNStrided", dst, ldc, a, lda, b, ldb, m, n, k, n, n, (k-1)*ldb+n)
	if m == 0 || n == 0 {
		return
	}
	if k == 0 {
		zeroRows(dst, ldc, m, n)
		return
	}
	mr := maxRows(impl)
	nt := (m + mr - 1) / mr
	for j0 := 0; j0 < n; j0 += nr {
		cols := min(nr, n-j0)
		if cols == nr || impl == implGeneric || (impl == implAVX2 && cols == 16) {
			for t := 0; t < nt; t++ {
				r0, r1 := t*m/nt, (t+1)*m/nt
				tile(r1-r0, k, a[r0*lda:], lda, b[j0:], ldb, dst[r0*ldc+j0:], ldc, nil, modeZero, cols)
			}
			continue
		}
		mulNPartial(dst[j0:], ldc, a, lda, b[j0:], ldb, m, cols, k)
	}
}

// mulNPartial is MulNStrided for the last panel, narrower than 32 columns,
// which it copies kcAttn rows at a time into a zero-padded scratch panel.
func mulNPartial(dst []float32, ldc int, a []float32, lda int, b []float32, ldb int, m, cols, k int) {
	mr := maxRows(impl)
	nt := (m + mr - 1) / mr
	var buf [kcAttn * nr]float32
	for p0 := 0; p0 < k; p0 += kcAttn {
		kc := min(kcAttn, k-p0)
		for p := 0; p < kc; p++ {
			copy(buf[p*nr:p*nr+cols], b[(p0+p)*ldb:(p0+p)*ldb+cols])
		}
		mode := modeAcc
		if p0 == 0 {
			mode = modeZero
		}
		for t := 0; t < nt; t++ {
			r0, r1 := t*m/nt, (t+1)*m/nt
			tile(r1-r0, kc, a[r0*lda+p0:], lda, buf[:], nr, dst[r0*ldc:], ldc, nil, mode, cols)
		}
	}
}

// checkStrided panics unless the strided operands hold what the product
// reads and writes; bMin is the length b needs and ldbMin its least
// stride.
func checkStrided(name string, dst []float32, ldc int, a []float32, lda int, b []float32, ldb int, m, n, k, ldbMin, ldcMin, bMin int) {
	bad := m < 0 || n < 0 || k < 0 || lda < k || ldb < ldbMin || ldc < ldcMin
	if !bad && m > 0 && n > 0 {
		bad = len(dst) < (m-1)*ldc+n || len(a) < (m-1)*lda+k || (k > 0 && len(b) < bMin)
	}
	if bad {
		panic(fmt.Sprintf("gemm: %s of %d×%d by %d×%d with strides %d, %d, %d and lengths %d, %d, %d",
			name, m, k, k, n, lda, ldb, ldc, len(a), len(b), len(dst)))
	}
}

func zeroRows(dst []float32, ldc, m, n int) {
	for i := 0; i < m; i++ {
		clear(dst[i*ldc : i*ldc+n])
	}
}
