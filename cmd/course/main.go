// Command course is the course's one entry point. Run it from the course
// folder:
//
//	go run ./cmd/course
//
// With no arguments it shows where you stand: every lesson, its checks
// passed, failed or not run, the failures in full (one report per cause,
// with the checks each blocks), and the exact next step. Every result comes from a real run of the grader. The other
// subcommands re-grade on save (watch), give levelled hints (hint), restart
// a stage or a step (catch-up, checkpoint, reset), check a machine before a workshop (doctor), run
// real MCP clients against your server (clients), and grade a whole room
// (grade, classroom). `go run ./cmd/course help` lists them.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// self is how a learner runs this program, for the commands it prints.
const self = "go run ./cmd/course"

func main() {
	a := &app{stdout: os.Stdout, stderr: os.Stderr, stdin: os.Stdin, exe: []string{os.Args[0]}}
	os.Exit(a.run(os.Args[1:]))
}

// app is one run of the command: where the course is, and where its input
// and output go. Tests build one with buffers and a temporary course.
type app struct {
	root           string // the course root, where go.mod is; found when empty
	stdout, stderr io.Writer
	stdin          io.Reader

	// exe and exeEnv run this program again as a child process, which
	// classroom mode does for each checkout it grades.
	exe    []string
	exeEnv []string
}

// command is one subcommand.
type command struct {
	name    string
	args    string // its arguments, for help
	summary string
	run     func(a *app, args []string) error
}

// commands lists the subcommands in the order help shows them. A new mode
// (grading an external server, say) is one more entry and one more file.
var commands []*command

func init() {
	commands = []*command{
		{"board", "[--fresh] [--all]", "where you stand: every lesson, the first failure, the next step (the default)", (*app).board},
		{"watch", "[NN] [--manual]", "re-grade the current lesson whenever you save a file of its stage", (*app).watch},
		{"hint", "ID [--level N]", "the next level of a check's hint: a question, a pointer, a near-solution", (*app).hint},
		{"catch-up", "NN [--yes]", "start lesson NN on working code: each earlier stage whose lesson does not pass gets the reference (your files are backed up)", (*app).catchUp},
		{"checkpoint", "NN S [--yes]", "start step S of lesson NN from the reference's state after step S-1 (your files are backed up)", (*app).checkpoint},
		{"reset", "NN [--yes]", "reset lesson NN's stage to its starter (your files are backed up)", (*app).reset},
		{"doctor", "", "check this machine for the course: Go, a loopback port, bash, curl, cgo, npm and Node", (*app).doctor},
		{"clients", "NN [--install]", "run real MCP clients (the official Go and TypeScript SDKs, the Inspectors, the conformance suite, a browser) against your stage; say which ran, passed and were skipped", (*app).clients},
		{"grade", "[--root DIR | --url URL | --command CMD]", "grade a checkout, or any MCP server, with this course's grader; exit status 0 when every lesson passes", (*app).grade},
		{"classroom", "DIR|PATH... [--out DIR]", "grade many learners' checkouts at once; write CSV, JSON and an HTML report", (*app).classroom},
		{"help", "", "this list", (*app).help},
	}
}

// exitError carries an exit status, for results that are not failures of
// the command itself (a lesson that fails grading exits 1).
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// usageError is a mistake in the command line: exit status 2.
func usageError(format string, args ...any) error {
	return &exitError{code: 2, msg: fmt.Sprintf(format, args...)}
}

func (a *app) run(args []string) int {
	name := "board"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	switch name {
	case "-h", "--help", "help":
		name = "help"
	}
	var cmd *command
	for _, c := range commands {
		if c.name == name {
			cmd = c
		}
	}
	if cmd == nil {
		fmt.Fprintf(a.stderr, "course: no command %q\n\n", name)
		a.help(nil)
		return 2
	}
	if a.root == "" && cmd.name != "help" {
		root, err := findRoot()
		if err != nil {
			fmt.Fprintln(a.stderr, "course:", err)
			return 2
		}
		a.root = root
	}
	err := cmd.run(a, args)
	var exit *exitError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &exit):
		if exit.msg != "" {
			fmt.Fprintln(a.stderr, "course:", exit.msg)
		}
		return exit.code
	default:
		fmt.Fprintln(a.stderr, "course:", err)
		return 1
	}
}

func (a *app) help([]string) error {
	fmt.Fprintf(a.stdout, "The MCP transports course. Run it from the course folder: %s [command]\n\n", self)
	for _, c := range commands {
		fmt.Fprintf(a.stdout, "  %-10s %-40s %s\n", c.name, c.args, c.summary)
	}
	fmt.Fprintf(a.stdout, "\nNN is a lesson number, such as 02. `%s COMMAND -h` shows a command's options.\n", self)
	fmt.Fprintln(a.stdout, "GRADER_TARGET, GRADER_VARIANT and GRADER_RACE work here as they do for go test ./grader.")
	return nil
}

// flags returns a flag set for a subcommand, writing its help to stderr.
func (a *app) flags(name, usage string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(a.stderr)
	fs.Usage = func() {
		fmt.Fprintf(a.stderr, "usage: %s %s %s\n", self, name, usage)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses args, flags and positional arguments in any order (the
// standard flag package stops at the first positional one).
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, &exitError{code: 2}
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}
