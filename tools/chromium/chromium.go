// Package chromium drives a headless Chromium, for tests that must see a
// page the way a real browser does: the classroom report must render, and
// lesson 04's Origin checks must hold against a real browser's requests.
//
// It needs a Chromium or Chrome binary: Debian's package "chromium"
// (apt-get install chromium), or the path in $CHROMIUM.
package chromium

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"mcpcourse/tools/procgroup"
)

// ErrNotFound is returned by Find when no browser is installed.
var ErrNotFound = errors.New("no Chromium found: install it (Debian: apt-get install chromium) or set $CHROMIUM to its path")

// Names are the binaries Find looks for on the PATH, in order.
var Names = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"}

// Find returns the path of a Chromium binary: $CHROMIUM if set, else the
// first of the usual names on the PATH.
func Find() (string, error) {
	if path := os.Getenv("CHROMIUM"); path != "" {
		return exec.LookPath(path)
	}
	for _, name := range Names {
		if path, err := exec.LookPath(name); err == nil {
			return path, nil
		}
	}
	return "", ErrNotFound
}

// DefaultTimeout bounds a browser run whose context has no deadline.
const DefaultTimeout = 30 * time.Second

// maxDOM caps how much of a page DumpDOM keeps; a bigger page is an error.
const maxDOM = 32 << 20

// DumpDOM loads url in a fresh headless browser and returns the page's DOM
// as HTML once it has loaded and its scripts have run (--dump-dom). Flags
// are more command-line switches for the browser, such as
// --ip-address-space-overrides=127.0.0.1:8081=public.
//
// The browser gets a profile of its own in a temporary folder, which is
// removed afterwards, and runs in a process group of its own, which is
// killed when ctx ends: a browser that hangs cannot outlive the call.
func DumpDOM(ctx context.Context, bin, url string, flags ...string) (string, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultTimeout)
		defer cancel()
	}
	profile, err := os.MkdirTemp("", "mcp-course-chromium-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(profile)

	cmd := exec.CommandContext(ctx, bin, Args(profile, url, flags...)...)
	procgroup.Isolate(cmd)
	cmd.WaitDelay = 2 * time.Second
	var stdout, stderr capped
	stdout.max, stderr.max = maxDOM, 16<<10
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	switch {
	case ctx.Err() != nil:
		return "", fmt.Errorf("%s did not finish loading %s: %w\n%s", bin, url, ctx.Err(), stderr.String())
	case err != nil:
		return "", fmt.Errorf("%s --dump-dom %s: %v\n%s", bin, url, err, stderr.String())
	case stdout.over:
		return "", fmt.Errorf("%s: the page's DOM is larger than %d bytes", url, maxDOM)
	}
	return stdout.String(), nil
}

// Args are the flags of a headless run that dumps url's DOM, with its
// profile in dir, and the given flags besides. They keep the browser from
// reaching the network on its own (updates, sync, first-run pages) and let
// it run as root in a container (--no-sandbox).
func Args(dir, url string, flags ...string) []string {
	args := []string{
		"--headless", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--disable-component-update",
		"--disable-sync", "--no-first-run",
		"--user-data-dir=" + dir,
	}
	return append(append(args, flags...), "--dump-dom", url)
}

// capped keeps what is written to it up to max bytes, and notes an excess.
type capped struct {
	bytes.Buffer
	max  int
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.Len(); len(p) > room {
		c.over = true
		c.Buffer.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return c.Buffer.Write(p)
}

func (c *capped) String() string { return strings.TrimSpace(c.Buffer.String()) }
