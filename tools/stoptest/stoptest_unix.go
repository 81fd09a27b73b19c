//go:build unix

package stoptest

const canTerminate = true
