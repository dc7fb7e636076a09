package gemm

// tileGeneric is the portable kernel behind tile: 4×4 blocks of C in
// local variables, which the compiler keeps in registers, so each loaded
// value of A and B serves four multiply-adds. It reads only cols columns
// of b.
func tileGeneric(mr, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int, bias []float32, mode, cols int) {
	i := 0
	for ; i+4 <= mr; i += 4 {
		j := 0
		for ; j+4 <= cols; j += 4 {
			block4x4(k, a[i*lda:], lda, b[j:], ldb, c[i*ldc+j:], ldc, bias, j, mode)
		}
		if j < cols {
			blockAny(4, cols-j, k, a[i*lda:], lda, b[j:], ldb, c[i*ldc+j:], ldc, bias, j, mode)
		}
	}
	if i < mr {
		blockAny(mr-i, cols, k, a[i*lda:], lda, b, ldb, c[i*ldc:], ldc, bias, 0, mode)
	}
}

// start is the value an accumulator for C[i][j] starts from.
func start(c []float32, i, ldc int, bias []float32, j, jb, mode int) float32 {
	switch mode {
	case modeBias:
		return bias[jb+j]
	case modeAcc:
		return c[i*ldc+j]
	}
	return 0
}

func block4x4(k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int, bias []float32, jb, mode int) {
	var s [4][4]float32
	for i := range 4 {
		for j := range 4 {
			s[i][j] = start(c, i, ldc, bias, j, jb, mode)
		}
	}
	c00, c01, c02, c03 := s[0][0], s[0][1], s[0][2], s[0][3]
	c10, c11, c12, c13 := s[1][0], s[1][1], s[1][2], s[1][3]
	c20, c21, c22, c23 := s[2][0], s[2][1], s[2][2], s[2][3]
	c30, c31, c32, c33 := s[3][0], s[3][1], s[3][2], s[3][3]
	a0, a1, a2, a3 := a[:k], a[lda:lda+k], a[2*lda:2*lda+k], a[3*lda:3*lda+k]
	for p := range a0 {
		br := b[p*ldb : p*ldb+4]
		b0, b1, b2, b3 := br[0], br[1], br[2], br[3]
		x := a0[p]
		c00 += x * b0
		c01 += x * b1
		c02 += x * b2
		c03 += x * b3
		x = a1[p]
		c10 += x * b0
		c11 += x * b1
		c12 += x * b2
		c13 += x * b3
		x = a2[p]
		c20 += x * b0
		c21 += x * b1
		c22 += x * b2
		c23 += x * b3
		x = a3[p]
		c30 += x * b0
		c31 += x * b1
		c32 += x * b2
		c33 += x * b3
	}
	r0 := c[0:4]
	r0[0], r0[1], r0[2], r0[3] = c00, c01, c02, c03
	r1 := c[ldc : ldc+4]
	r1[0], r1[1], r1[2], r1[3] = c10, c11, c12, c13
	r2 := c[2*ldc : 2*ldc+4]
	r2[0], r2[1], r2[2], r2[3] = c20, c21, c22, c23
	r3 := c[3*ldc : 3*ldc+4]
	r3[0], r3[1], r3[2], r3[3] = c30, c31, c32, c33
}

// blockAny covers the edges: any rows × cols, one dot product at a time.
func blockAny(rows, cols, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int, bias []float32, jb, mode int) {
	for i := 0; i < rows; i++ {
		ar := a[i*lda : i*lda+k]
		for j := 0; j < cols; j++ {
			s := start(c, i, ldc, bias, j, jb, mode)
			for p, x := range ar {
				s += x * b[p*ldb+j]
			}
			c[i*ldc+j] = s
		}
	}
}
