//go:build race

package eval_test

// raceEnabled reports a -race build, where decompressing and decoding the
// 15 MB of LongMemEval turns takes seconds instead of a fifth of one.
const raceEnabled = true
