package resume

import (
	"flag"

	streamable "mcpcourse/solutions/02-streamable-http"
)

// RegisterFlags defines the command-line flags that set o, with the
// defaults as their initial values: stage 02's (-stateless,
// -session-timeout, -max-sessions, -max-body) and this stage's (-keepalive,
// -replay-buffer, -tick). A later stage's options embed these, and add
// their own flags beside them.
func (o *Options) RegisterFlags(fs *flag.FlagSet) {
	fs.BoolVar(&o.Stateless, "stateless", false, "serve without sessions, streams or resumption")
	fs.DurationVar(&o.SessionTimeout, "session-timeout", streamable.DefaultSessionTimeout, "end sessions idle for this long")
	fs.IntVar(&o.MaxSessions, "max-sessions", streamable.DefaultMaxSessions, "most sessions alive at once")
	fs.Int64Var(&o.MaxBodyBytes, "max-body", streamable.DefaultMaxBodyBytes, "largest POST body, in bytes")
	fs.DurationVar(&o.KeepAlive, "keepalive", DefaultKeepAlive, "send a comment on an idle GET stream this often")
	fs.IntVar(&o.ReplayBuffer, "replay-buffer", DefaultReplayBuffer, "events each session keeps for clients that resume")
	fs.DurationVar(&o.Tick, "tick", 0, "send each standalone stream a log message this often (0: never)")
}
