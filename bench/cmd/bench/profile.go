package main

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"mcpcourse/bench/load"
)

//go:embed overlay/zz_benchprofile.go.txt
var profileHook []byte

// profiles writes CPU and allocation profiles of the reference under load
// into dir: the newest HTTP stage at 16 clients, stateful and stateless,
// and stage 01 over stdio, sequential and pipelined. Each is built with a
// hook added by go build -overlay, and prints its top functions.
func profiles(courseRoot, dir string, e *env) error {
	window := load.Window{Warmup: time.Second, Duration: 6 * time.Second}
	after, span := 1500*time.Millisecond, 5*time.Second
	if e.sizes.window.Duration < time.Second { // smoke
		window = load.Window{Warmup: 100 * time.Millisecond, Duration: 700 * time.Millisecond}
		after, span = 200*time.Millisecond, 400*time.Millisecond
	}
	newest := ""
	for _, stage := range stages[1:] {
		if _, err := os.Stat(filepath.Join(courseRoot, "solutions", stage, "cmd", "server")); err == nil {
			newest = stage
		}
	}
	type job struct {
		name, stage string
		run         func(bin []string, env []string) error
	}
	httpJob := func(stateless bool) func([]string, []string) error {
		return func(bin, env []string) error {
			argv := append(bin, "-addr", "127.0.0.1:0", "-max-sessions", "1000000")
			if stateless {
				argv = append(argv, "-stateless")
			}
			srv, err := load.Start("profiled", load.StartOptions{Argv: argv, CPU: e.serverCPU, Env: env})
			if err != nil {
				return err
			}
			defer srv.Stop()
			_, err = load.HTTPEcho(load.HTTPOptions{URL: srv.URL, PID: srv.PID(), Clients: 16, Stateless: stateless, Window: window})
			return err
		}
	}
	stdioJob := func(pipelined bool) func([]string, []string) error {
		return func(bin, env []string) error {
			srv, err := load.Start("profiled", load.StartOptions{Argv: bin, Stdio: true, CPU: e.serverCPU, Env: env})
			if err != nil {
				return err
			}
			defer srv.Stop()
			if pipelined {
				_, err = load.StdioPipelined(srv, 64, window)
			} else {
				_, err = load.StdioSequential(srv, window)
			}
			return err
		}
	}
	jobs := []job{
		{"http-16-stateful", newest, httpJob(false)},
		{"http-16-stateless", newest, httpJob(true)},
		{"stdio-sequential", "01-stdio", stdioJob(false)},
		{"stdio-pipelined", "01-stdio", stdioJob(true)},
	}
	for _, j := range jobs {
		out := filepath.Join(dir, j.name)
		if err := os.MkdirAll(out, 0o755); err != nil {
			return err
		}
		bin, err := buildWithHook(courseRoot, j.stage, out)
		if err != nil {
			return err
		}
		env := []string{"BENCH_PROFILE_DIR=" + out, "BENCH_PROFILE_AFTER=" + after.String(), "BENCH_PROFILE_FOR=" + span.String()}
		os.Remove(filepath.Join(out, "done"))
		if err := j.run([]string{bin}, env); err != nil {
			return fmt.Errorf("%s: %w", j.name, err)
		}
		if _, err := os.Stat(filepath.Join(out, "done")); err != nil {
			return fmt.Errorf("%s: the server wrote no profile (did the load run past %v?)", j.name, after+span)
		}
		for _, p := range []struct{ file, flags string }{{"cpu", "-top"}, {"allocs", "-sample_index=alloc_space -top"}} {
			args := append([]string{"tool", "pprof"}, strings.Fields(p.flags)...)
			args = append(args, "-nodecount=40", bin, filepath.Join(out, p.file+".pprof"))
			top, err := exec.Command("go", args...).CombinedOutput()
			if err != nil {
				return fmt.Errorf("go tool pprof: %v\n%s", err, top)
			}
			os.WriteFile(filepath.Join(out, p.file+".top.txt"), top, 0o644)
		}
		fmt.Fprintf(os.Stderr, "profiled %s (%s): %s/{cpu,allocs}.pprof, top in *.top.txt\n", j.name, j.stage, out)
	}
	return nil
}

// buildWithHook builds a stage's server with the profile hook added.
func buildWithHook(courseRoot, stage, dir string) (string, error) {
	pkgDir := filepath.Join(courseRoot, "solutions", stage, "cmd", "server")
	hook := filepath.Join(dir, "hook.go")
	if err := os.WriteFile(hook, profileHook, 0o644); err != nil {
		return "", err
	}
	overlay, _ := json.Marshal(map[string]map[string]string{"Replace": {filepath.Join(pkgDir, "zz_benchprofile.go"): hook}})
	overlayFile := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(overlayFile, overlay, 0o644); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "server")
	cmd := exec.Command("go", "build", "-overlay", overlayFile, "-o", bin, "./solutions/"+stage+"/cmd/server")
	cmd.Dir = courseRoot
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building %s with the profile hook: %v\n%s", stage, err, b)
	}
	return bin, nil
}
