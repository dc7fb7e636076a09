package minilm

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cpuTime returns the CPU time the process has used, user and system: on
// a shared machine it measures the work better than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU milliseconds per op since start.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/1e6/float64(b.N), "cpu-ms/op")
}

// sentence25 is 25 tokens with [CLS] and [SEP].
const sentence25 = "The user moved from Berlin to Bangkok in March 2024 and now works remotely for a small fintech startup there."

func TestSentence25(t *testing.T) {
	if n := len(testModel(t).tok.Encode(sentence25)); n != 25 {
		t.Errorf("sentence25 has %d tokens, want 25", n)
	}
}

// benchTexts returns n varied sentences of 10 to 30 tokens.
func benchTexts(n int) []string {
	subjects := []string{"The user", "User's wife Ana", "Their manager Tom", "My daughter Mia", "The client in São Paulo", "Our backend team"}
	verbs := []string{"prefers", "just moved to", "is allergic to", "wants to learn", "stopped using", "keeps asking about"}
	objects := []string{"dark mode in every editor", "a flat near the river in Lisbon", "peanuts, shellfish and penicillin", "Japanese (JLPT N4) before the trip", "Redux after the 2023 rewrite", "the quarterly report due on 31 March"}
	texts := make([]string, n)
	for i := range texts {
		texts[i] = fmt.Sprintf("%s %s %s, note #%d.", subjects[i%len(subjects)], verbs[(i/len(subjects))%len(verbs)], objects[(i*5+i/7)%len(objects)], i)
	}
	return texts
}

// BenchmarkSentence embeds one 25-token sentence, bypassing the cache:
// run with -cpu 1 for the one-core figure.
func BenchmarkSentence(b *testing.B) {
	m := testModel(b)
	ctx := context.Background()
	texts := []string{sentence25}
	start := cpuTime()
	for b.Loop() {
		if _, err := m.embed(ctx, texts, []int{0}); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N), "ms/sentence")
}

// BenchmarkBatch embeds 64 varied sentences in one call, bypassing the
// cache, and reports sentences per second.
func BenchmarkBatch(b *testing.B) {
	m := testModel(b)
	ctx := context.Background()
	texts := benchTexts(64)
	todo := seq(len(texts))
	start := cpuTime()
	for b.Loop() {
		if _, err := m.embed(ctx, texts, todo); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
	b.ReportMetric(float64(len(texts)*b.N)/b.Elapsed().Seconds(), "sentences/s")
}

// BenchmarkLoad decodes the artifact and packs the weights, as the first
// Embed does.
func BenchmarkLoad(b *testing.B) {
	start := cpuTime()
	for b.Loop() {
		if _, err := load(artifact); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N), "ms/load")
}

// BenchmarkMemory reports the process's resident memory (VmRSS) and its
// peak (VmHWM) after loading the model once and embedding a batch; run
// it alone (-bench Memory) so that other benchmarks' garbage and extra
// loads do not count.
func BenchmarkMemory(b *testing.B) {
	m := testModel(b)
	texts := benchTexts(64)
	for b.Loop() {
		if _, err := m.embed(context.Background(), texts, seq(len(texts))); err != nil {
			b.Fatal(err)
		}
	}
	runtime.GC()
	rss, peak, err := procMemory()
	if err != nil {
		b.Skip(err)
	}
	b.ReportMetric(rss, "MB-RSS")
	b.ReportMetric(peak, "MB-peak")
}

// procMemory reads VmRSS and VmHWM from /proc/self/status, in MB.
func procMemory() (rss, peak float64, err error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 {
			continue
		}
		kb, _ := strconv.ParseFloat(fields[1], 64)
		switch fields[0] {
		case "VmRSS:":
			rss = kb / 1024
		case "VmHWM:":
			peak = kb / 1024
		}
	}
	return rss, peak, sc.Err()
}
