package main

import (
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// fakeMachine is a machine with everything the course uses, which a test
// then takes things away from.
func fakeMachine(root string) doctorEnv {
	return doctorEnv{
		root:     root,
		lookPath: func(file string) (string, error) { return "/usr/bin/" + file, nil },
		output: func(name string, args ...string) (string, error) {
			switch strings.Join(append([]string{name}, args...), " ") {
			case "go env GOVERSION":
				return "go1.25.1", nil
			case "go env CGO_ENABLED":
				return "1", nil
			case "go env CC":
				return "gcc", nil
			case "go env GOTOOLCHAIN":
				return "auto", nil
			case "node --version":
				return "v22.4.0", nil
			}
			return "", errors.New("unexpected command")
		},
		listen: func(network, address string) (net.Listener, error) { return net.Listen(network, "127.0.0.1:0") },
		exists: func(string) bool { return true },
	}
}

func TestDoctorPassesOnAMachineWithEverything(t *testing.T) {
	findings := diagnose(fakeMachine(courseRoot(t)))
	for _, f := range findings {
		assert.True(t, f.ok, "%s (fix: %s)", f.what, f.fix)
	}
	var out strings.Builder
	assert.False(t, printFindings(&out, style{}, findings))
	assert.Contains(t, out.String(), "Everything the course uses is here")
}

func TestDoctorFindsAMissingTool(t *testing.T) {
	env := fakeMachine(courseRoot(t))
	env.lookPath = func(file string) (string, error) {
		if file == "curl" || file == "npm" {
			return "", errors.New("not found")
		}
		return "/usr/bin/" + file, nil
	}
	findings := diagnose(env)
	var out strings.Builder
	assert.False(t, printFindings(&out, style{}, findings), "curl and npm serve optional steps: warnings, not blockers")
	assert.Contains(t, out.String(), "warn curl is not on the PATH")
	assert.Contains(t, out.String(), "fix: install curl")
	assert.Contains(t, out.String(), "warn npm is not on the PATH")
	assert.Contains(t, out.String(), "2 warning(s)")
}

func TestDoctorBlocksOnAnOldGoAndNoLoopback(t *testing.T) {
	env := fakeMachine(courseRoot(t))
	inner := env.output
	env.output = func(name string, args ...string) (string, error) {
		if name == "go" && len(args) == 2 && args[1] == "GOVERSION" {
			return "go1.21.5", nil
		}
		return inner(name, args...)
	}
	env.listen = func(string, string) (net.Listener, error) { return nil, errors.New("permission denied") }
	var out strings.Builder
	assert.True(t, printFindings(&out, style{}, diagnose(env)))
	assert.Contains(t, out.String(), "FAIL Go 1.21.5 is older than the go 1.22")
	assert.Contains(t, out.String(), "FAIL cannot listen on a loopback port")
	assert.Contains(t, out.String(), "2 problem(s) block the course")
}

func TestDoctorNodeTooOld(t *testing.T) {
	env := fakeMachine(courseRoot(t))
	inner := env.output
	env.output = func(name string, args ...string) (string, error) {
		if name == "node" {
			return "v20.11.0", nil
		}
		return inner(name, args...)
	}
	env.exists = func(string) bool { return false }
	var out strings.Builder
	printFindings(&out, style{}, diagnose(env))
	assert.Contains(t, out.String(), "need Node 22 or newer (node v20.11.0)")
	assert.Contains(t, out.String(), "npm ci --prefix interop/conformance")
}

func TestVersionLess(t *testing.T) {
	assert.True(t, versionLess("go1.21.5", "1.22"))
	assert.False(t, versionLess("go1.22.0", "1.22"))
	assert.True(t, versionLess("go1.24.2", "1.25.0"))
	assert.False(t, versionLess("go1.26rc1", "1.25.0"))
	assert.False(t, versionLess("go1.25.0 X:boringcrypto", "1.25.0"))
}
