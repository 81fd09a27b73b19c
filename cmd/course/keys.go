package main

import (
	"io"
	"os"
	"os/exec"
	"strings"
)

// keyInput is where watch reads its keys from.
type keyInput struct {
	r    io.Reader
	help string // how to press a key, for the legend
}

// openKeys makes single key presses readable without Enter when stdin is a
// terminal, by turning off its line editing and echo with stty (no terminal
// library needed). The returned function restores the terminal. Where stty
// is missing or stdin is no terminal, keys are read as lines: type the key,
// then Enter.
func openKeys(stdin io.Reader) (keyInput, func()) {
	lines := keyInput{r: stdin, help: "type the key, then Enter"}
	f, ok := stdin.(*os.File)
	if !ok {
		return lines, func() {}
	}
	if fi, err := f.Stat(); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return lines, func() {}
	}
	saved, err := stty(f, "-g")
	if err != nil {
		return lines, func() {}
	}
	if _, err := stty(f, "-icanon", "-echo", "min", "1", "time", "0"); err != nil {
		return lines, func() {}
	}
	return keyInput{r: f, help: "press"}, func() { stty(f, strings.TrimSpace(saved)) }
}

// stty runs stty on the terminal f.
func stty(f *os.File, args ...string) (string, error) {
	cmd := exec.Command("stty", args...)
	cmd.Stdin = f
	out, err := cmd.Output()
	return string(out), err
}
