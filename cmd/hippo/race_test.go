//go:build race

package main

// raceEnabled builds the binary under test with -race when the tests run
// with it, so the binary's own races are caught too.
const raceEnabled = true
