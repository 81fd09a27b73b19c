// Command bench is the course's benchmark: it measures the reference
// servers beside the official Go SDK, mcp-go and the TypeScript SDK (the
// peers in bench/peers) and a canned-answer server (the ceiling), every row
// of the table in one run, and prints medians and ratios.
//
//	cd bench && npm ci --prefix peers/ts && go run ./cmd/bench -rounds 3 -out results.md
//	go run ./cmd/bench -smoke            # every row, tiny counts: that it runs, not how fast
//
// On a machine with two cores or more, each server runs pinned to one core
// (taskset -c 0) and the load generator to another (-c 1). Each round
// measures every row on every server, in an order that turns with the
// round, with a fresh server process per measurement. Beside each
// throughput it reports the server's CPU time per operation, which stays
// honest when the load generator, not the server, is the bottleneck. It
// also measures how busy the rest of the machine was during each
// measurement, and repeats one taken while something else ran.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"time"

	"mcpcourse/bench/load"
	"mcpcourse/tools/courseroot"
)

type env struct {
	sizes     sizes
	serverCPU int // -1: not pinned
}

func (e *env) startHTTP(t *target, stateless bool, flags ...string) (*load.Server, error) {
	return load.Start(t.name, load.StartOptions{Argv: append(t.http(stateless), flags...), CPU: e.serverCPU})
}

func (e *env) startStdio(t *target) (*load.Server, error) {
	return load.Start(t.name, load.StartOptions{Argv: t.stdio, Stdio: true, CPU: e.serverCPU})
}

func main() {
	rounds := flag.Int("rounds", 3, "rounds; the table shows each figure's median")
	smoke := flag.Bool("smoke", false, "run every row once with tiny counts: a check that the harness works, not a measurement")
	only := flag.String("rows", "", "run only the rows whose id matches this regexp (ids: http-1, http-16, http-64, http-stateless-16, sessions, session-rss, stdio-seq, stdio-pipe, sse-one, origin-16, get-streams, replay, producer, drops)")
	targetsRE := flag.String("targets", "", "run only the servers whose name matches this regexp")
	withTS := flag.Bool("ts", true, "measure the TypeScript SDK peer (needs node and npm ci --prefix peers/ts)")
	pin := flag.Bool("pin", true, "pin the server and the load generator to a core each, with taskset, when there are two")
	maxOther := flag.Float64("max-other", 0.10, "repeat a measurement during which the rest of the machine used more than this share of a core")
	retries := flag.Int("retries", 10, "measure at most this many times before keeping a measurement the rest of the machine disturbed")
	retryWait := flag.Duration("retry-wait", 15*time.Second, "wait this long before measuring again")
	quietLoad := flag.Float64("quiet-load", 0, "before each round, wait until the 1-minute load average is below this (0: do not wait)")
	quietWait := flag.Duration("quiet-wait", 2*time.Hour, "how long to wait for -quiet-load in all")
	out := flag.String("out", "", "also write the report (Markdown) to this file")
	jsonOut := flag.String("json", "", "write every measurement to this file, as JSON")
	baseline := flag.String("baseline", "", "also measure stage 01 and the newest HTTP stage as they are at this git revision (such as main): a before and an after in one run")
	profileDir := flag.String("profile", "", "instead of the table, write CPU and allocation profiles of the reference under load to this folder")
	flag.Parse()

	if *pin && runtime.NumCPU() >= 2 && os.Getenv("BENCH_PINNED") == "" {
		if taskset, err := exec.LookPath("taskset"); err == nil {
			// Run the load generator on core 1; the servers get core 0.
			self, _ := os.Executable()
			argv := append([]string{taskset, "-c", "1", self}, os.Args[1:]...)
			err := syscall.Exec(taskset, argv, append(os.Environ(), "BENCH_PINNED=1"))
			fatal(fmt.Errorf("re-running under taskset: %w", err))
		}
	}
	e := &env{sizes: fullSizes, serverCPU: -1}
	if os.Getenv("BENCH_PINNED") == "1" {
		e.serverCPU = 0
	}
	if *smoke {
		e.sizes, *rounds, *maxOther = smokeSizes, 1, 1e9
	}
	raiseFileLimit()

	courseRoot, err := courseroot.Find()
	fatal(err)
	benchRoot := filepath.Join(courseRoot, "bench")
	dir, err := os.MkdirTemp("", "mcp-bench-")
	fatal(err)
	defer os.RemoveAll(dir)
	if *profileDir != "" {
		fatal(profiles(courseRoot, *profileDir, e))
		return
	}
	if *smoke { // the profile hook must keep building too
		fatal(profiles(courseRoot, filepath.Join(dir, "profiles"), e))
	}
	began := time.Now()
	targets, err := build(courseRoot, benchRoot, dir, *withTS, *baseline)
	fatal(err)
	fmt.Fprintf(os.Stderr, "built %d servers in %.1fs\n", len(targets), time.Since(began).Seconds())
	if *targetsRE != "" {
		re := regexp.MustCompile(*targetsRE)
		var kept []*target
		for _, t := range targets {
			if re.MatchString(t.name) {
				kept = append(kept, t)
			}
		}
		targets = kept
	}
	all := rows(targets)
	if *only != "" {
		re := regexp.MustCompile(*only)
		var kept []row
		for _, r := range all {
			if re.MatchString(r.id) {
				kept = append(kept, r)
			}
		}
		all = kept
	}

	rep := &report{targets: targets, rows: all, env: e, started: time.Now(), machine: machineNotes(e), maxOther: *maxOther}
	failed := 0
	deadline := time.Now().Add(*quietWait)
	for round := 1; round <= *rounds; round++ {
		if *quietLoad > 0 {
			for load.LoadAverage() >= *quietLoad {
				if time.Now().After(deadline) {
					fatal(fmt.Errorf("the load average stayed at or above %.2f for %v", *quietLoad, *quietWait))
				}
				fmt.Fprintf(os.Stderr, "waiting for a quiet machine: load average %.2f\n", load.LoadAverage())
				time.Sleep(30 * time.Second)
			}
		}
		rep.loads = append(rep.loads, [2]float64{load.LoadAverage(), 0})
		for _, r := range all {
			var ts []*target
			for _, t := range targets {
				if r.applies(t) && (!r.streams || t == newestHTTP(targets)) {
					ts = append(ts, t)
				}
			}
			for i := range ts { // turn the order with the round
				t := ts[(i+round-1)%len(ts)]
				var c cell
				var err error
				for try := 1; ; try++ {
					c, err = r.run(e, t)
					if err != nil || c.OtherBusy <= *maxOther {
						break
					}
					if try == *retries {
						rep.noisy++
						break
					}
					rep.retried++
					fmt.Fprintf(os.Stderr, "  the rest of the machine used %.2f cores: measuring again in %v\n", c.OtherBusy, *retryWait)
					time.Sleep(*retryWait)
				}
				c.Row, c.Target, c.Round = r.id, t.name, round
				if err != nil {
					failed++
					fmt.Fprintf(os.Stderr, "FAIL round %d %-18s %-14s %v\n", round, r.id, t.name, err)
					continue
				}
				rep.cells = append(rep.cells, c)
				fmt.Fprintf(os.Stderr, "round %d %-18s %-14s %s\n", round, r.id, t.name, c.summary(r))
			}
		}
		rep.loads[len(rep.loads)-1][1] = load.LoadAverage()
	}
	rep.finished = time.Now()
	text := rep.markdown()
	fmt.Print(text)
	if *out != "" {
		fatal(os.WriteFile(*out, []byte(text), 0o644))
	}
	if *jsonOut != "" {
		b, _ := json.MarshalIndent(rep.cells, "", "  ")
		fatal(os.WriteFile(*jsonOut, b, 0o644))
	}
	if failed > 0 {
		fmt.Fprintf(os.Stderr, "bench: %d measurement(s) failed\n", failed)
		os.Exit(1)
	}
}

func (c cell) summary(r row) string {
	if r.streams {
		var parts []string
		for _, k := range sortedKeys(c.Extra) {
			parts = append(parts, fmt.Sprintf("%s %.1f", k, c.Extra[k]))
		}
		return strings.Join(parts, ", ")
	}
	s := fmt.Sprintf("%10.0f %s", c.Value, r.unit)
	if c.CPUPerOp > 0 {
		s += fmt.Sprintf("  server %.1f µs/op  p50 %v p99 %v  cores: server %.2f client %.2f other %.2f",
			us(c.CPUPerOp), c.P50.Round(time.Microsecond), c.P99.Round(time.Microsecond), c.ServerBusy, c.ClientBusy, c.OtherBusy)
	}
	return s
}

// raiseFileLimit lets this process, and the servers it starts, hold the
// many connections of the streams rows.
func raiseFileLimit() {
	var l syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l) == nil && l.Cur < l.Max {
		l.Cur = l.Max
		syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l)
	}
}

func machineNotes(e *env) string {
	cpu := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		if m := regexp.MustCompile(`model name\s*:\s*(.*)`).FindSubmatch(b); m != nil {
			cpu = string(m[1])
		}
	}
	pinned := "not pinned"
	if e.serverCPU >= 0 {
		pinned = "server pinned to core 0, load generator to core 1 (taskset)"
	}
	goVersion, _ := exec.Command("go", "env", "GOVERSION").Output()
	node, _ := exec.Command("node", "--version").Output()
	cores := bytes.Count(must(os.ReadFile("/proc/cpuinfo")), []byte("\nprocessor")) + 1
	return fmt.Sprintf("%d cores (%s), %s; %s, node %s", cores, cpu, pinned,
		strings.TrimSpace(string(goVersion)), strings.TrimSpace(string(node)))
}

func must(b []byte, _ error) []byte { return b }

func fatal(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}
