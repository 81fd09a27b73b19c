package resume

import "flag"

// RegisterFlags defines the command-line flags that set o, with the
// defaults as their initial values: stage 02's (-stateless,
// -session-timeout, -max-sessions, -max-body) and this stage's (-keepalive,
// -replay-buffer, -tick). A later stage's options embed these, and add
// their own flags beside them.
func (o *Options) RegisterFlags(fs *flag.FlagSet) {
	o.Options.RegisterFlags(fs)
	fs.DurationVar(&o.KeepAlive, "keepalive", DefaultKeepAlive, "send a comment on an idle GET stream this often")
	fs.IntVar(&o.ReplayBuffer, "replay-buffer", DefaultReplayBuffer, "events each session keeps for clients that resume")
	fs.DurationVar(&o.Tick, "tick", 0, "send each standalone stream a log message this often (0: never)")
}
