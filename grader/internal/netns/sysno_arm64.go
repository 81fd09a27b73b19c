//go:build linux

package netns

const sysSetns = 268 // setns(2) on linux/arm64
