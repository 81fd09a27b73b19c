//go:build linux

package netns

const sysSetns = 308 // setns(2) on linux/amd64
