// Package testflag adjusts go test's own flags from a TestMain.
package testflag

import (
	"flag"
	"strconv"
)

// DefaultParallel sets -test.parallel to n, unless the command line set it.
// Call it in TestMain after flag.Parse and before m.Run. The grader's checks
// spend their time waiting on a server, not computing, so they can run more
// at once than go test's default of one per CPU.
func DefaultParallel(n int) {
	f := flag.Lookup("test.parallel")
	if f == nil {
		return
	}
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		f.Value.Set(strconv.Itoa(n))
	}
}
