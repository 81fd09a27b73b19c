//go:build !unix

package stoptest

// Process.Signal sends nothing but Kill on Windows.
const canTerminate = false
