package streamable

import "flag"

// RegisterFlags defines the command-line flags that set o, with the
// defaults as their initial values: -stateless, -session-timeout,
// -max-sessions and -max-body. A later stage's options embed these, and its
// RegisterFlags calls this one before it adds its own flags.
func (o *Options) RegisterFlags(fs *flag.FlagSet) {
	fs.BoolVar(&o.Stateless, "stateless", false, "serve without sessions: every request stands alone")
	fs.DurationVar(&o.SessionTimeout, "session-timeout", DefaultSessionTimeout, "end sessions idle for this long")
	fs.IntVar(&o.MaxSessions, "max-sessions", DefaultMaxSessions, "most sessions alive at once")
	fs.Int64Var(&o.MaxBodyBytes, "max-body", DefaultMaxBodyBytes, "largest POST body, in bytes")
}
