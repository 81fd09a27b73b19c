// Package netns gives a check a network of its own: a Linux network
// namespace, made by the check and removed after it, with one interface
// that is not loopback. A server started in it can listen on an address
// that is not a loopback address, and a client in it can reach that
// address, without a packet ever reaching one of the machine's real
// interfaces: what a test of "a server bound beyond loopback" needs, on a
// shared machine where binding a real interface would expose the server.
//
// Making a namespace needs root and the ip command (iproute2). Where either
// is missing, New returns an error wrapping ErrUnavailable that says why,
// and the probe that needed it is skipped, saying so; it never falls back
// to a real interface.
package netns

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// ErrUnavailable is wrapped by New's error when this machine cannot make a
// network namespace for a check.
var ErrUnavailable = errors.New("no network namespace can be made here")

// The addresses of the namespace's interface. They exist only inside the
// namespace, so every namespace can use the same ones: 10.213.0.1 is a
// private (RFC 1918) address, like a machine's address on a LAN, and
// fd13::1 a unique local IPv6 address (RFC 4193).
var (
	IPv4 = netip.MustParseAddr("10.213.0.1")
	IPv6 = netip.MustParseAddr("fd13::1")
)

// NS is one network namespace made for a check.
type NS struct {
	Name string
	path string
	kind string // "dummy" or "veth": the interface the kernel allowed
}

// setupTimeout bounds each ip command.
const setupTimeout = 5 * time.Second

// New makes a namespace with loopback up and one more interface holding
// IPv4 and IPv6. Its interface is a dummy one, or, where the kernel has no
// dummy driver, one end of a veth pair whose both ends stay inside the
// namespace. Close removes it.
func New(ctx context.Context) (*NS, error) {
	if runtime.GOOS != "linux" {
		return nil, fmt.Errorf("%w: network namespaces are Linux's, and this is %s", ErrUnavailable, runtime.GOOS)
	}
	if os.Geteuid() != 0 {
		return nil, fmt.Errorf("%w: making a network namespace needs root (run the tests as root, as CI does)", ErrUnavailable)
	}
	if _, err := exec.LookPath("ip"); err != nil {
		return nil, fmt.Errorf("%w: the ip command (iproute2) is missing: apt-get install iproute2", ErrUnavailable)
	}
	var b [6]byte
	rand.Read(b[:])
	n := &NS{Name: "mcpcourse-" + hex.EncodeToString(b[:])}
	n.path = "/var/run/netns/" + n.Name
	if err := ip(ctx, "netns", "add", n.Name); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	ok := false
	defer func() {
		if !ok {
			n.Close()
		}
	}()
	if err := ip(ctx, "-n", n.Name, "link", "set", "lo", "up"); err != nil {
		return nil, err
	}
	const dev = "mcp0"
	n.kind = "dummy"
	if err := ip(ctx, "-n", n.Name, "link", "add", dev, "type", "dummy"); err != nil {
		n.kind = "veth"
		if err := ip(ctx, "-n", n.Name, "link", "add", dev, "type", "veth", "peer", "name", dev+"p"); err != nil {
			return nil, fmt.Errorf("%w: neither a dummy nor a veth interface can be made: %v", ErrUnavailable, err)
		}
		if err := ip(ctx, "-n", n.Name, "link", "set", dev+"p", "up"); err != nil {
			return nil, err
		}
	}
	for _, args := range addressSteps(dev) {
		if err := ip(ctx, append([]string{"-n", n.Name}, args...)...); err != nil {
			return nil, err
		}
	}
	ok = true
	return n, nil
}

// addressSteps are the ip commands, run in the namespace, that give its
// interface dev the addresses and bring it up.
func addressSteps(dev string) [][]string {
	return [][]string{
		{"addr", "add", IPv4.String() + "/24", "dev", dev},
		{"-6", "addr", "add", IPv6.String() + "/64", "dev", dev, "nodad"},
		{"link", "set", dev, "up"},
	}
}

// Script is the shell commands that make, with sudo, a namespace named
// name like the ones New makes (with a dummy interface), and how to remove
// it: for the command a failure report gives to reproduce a check, whose
// own namespace is gone by then.
func Script(name string) string {
	const dev = "mcp0"
	lines := []string{
		"# a network namespace with an address that is not loopback, as the grader makes one (needs root and iproute2):",
		"sudo ip netns add " + name,
		"sudo ip -n " + name + " link set lo up",
		"sudo ip -n " + name + " link add " + dev + " type dummy",
	}
	for _, args := range addressSteps(dev) {
		lines = append(lines, "sudo ip -n "+name+" "+strings.Join(args, " "))
	}
	return strings.Join(append(lines, "# remove it afterwards: sudo ip netns delete "+name), "\n")
}

// ip runs one ip command.
func ip(ctx context.Context, args ...string) error {
	ctx, cancel := context.WithTimeout(ctx, setupTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, "ip", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// Close removes the namespace, and with it its interfaces. Processes still
// running in it keep it alive until they end.
func (n *NS) Close() error {
	return ip(context.Background(), "netns", "delete", n.Name)
}

// Interface says which kind of interface holds the addresses: "dummy", or
// "veth" where the kernel has no dummy driver.
func (n *NS) Interface() string { return n.kind }

// Command returns the command line that runs bin with args inside the
// namespace: ip netns exec execs the program itself, so the process the
// grader starts is the program, with its own process group and signals.
func (n *NS) Command(bin string, args ...string) (string, []string) {
	return "ip", append([]string{"netns", "exec", n.Name, bin}, args...)
}

// Do runs f on an OS thread that has entered the namespace: every socket f
// opens belongs to the namespace, even after f returns. The thread goes
// back to the grader's namespace after f, or, if it cannot, is retired
// with its goroutine, so no other goroutine ever runs in the namespace.
func (n *NS) Do(f func()) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		home, err := os.Open("/proc/thread-self/ns/net")
		if err != nil {
			errc <- err
			return
		}
		defer home.Close()
		target, err := os.Open(n.path)
		if err != nil {
			errc <- err
			return
		}
		defer target.Close()
		if err := setns(target.Fd()); err != nil {
			errc <- fmt.Errorf("entering the namespace %s: %w", n.Name, err)
			return
		}
		f()
		if setns(home.Fd()) == nil {
			runtime.UnlockOSThread()
		}
		errc <- nil
	}()
	return <-errc
}

// DialContext connects to addr from inside the namespace.
func (n *NS) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	var conn net.Conn
	var dialErr error
	if err := n.Do(func() {
		var d net.Dialer
		conn, dialErr = d.DialContext(ctx, network, addr)
	}); err != nil {
		return nil, err
	}
	return conn, dialErr
}

// Client returns an HTTP client whose connections start inside the
// namespace, each request bounded by timeout.
func (n *NS) Client(timeout time.Duration) *http.Client {
	return &http.Client{Timeout: timeout, Transport: &http.Transport{DialContext: n.DialContext, DisableKeepAlives: true}}
}
