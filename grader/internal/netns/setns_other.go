//go:build !linux

package netns

import "errors"

func setns(uintptr) error { return errors.New("network namespaces are Linux's") }
