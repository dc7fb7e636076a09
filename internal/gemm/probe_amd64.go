package gemm

// Probes used by the benchmarks only (see probe_amd64.s).

//go:noescape
func fmaLoop512(n int)

//go:noescape
func fmaLoop256(n int)

//go:noescape
func readLoop(p *float32, n int)
