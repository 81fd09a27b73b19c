package origin

import (
	"errors"
	"flag"
	"strings"
)

// RegisterFlags defines the command-line flags that set o: stage 03's,
// -allow-origin and -allow-host, which take comma-separated patterns and
// may be given more than once, and -ws-ping.
func (o *Options) RegisterFlags(fs *flag.FlagSet) {
	o.Options.RegisterFlags(fs)
	fs.Var((*patternList)(&o.AllowOrigins), "allow-origin",
		"web origins that may use the server, comma-separated, such as 'https://*.example.com,http://localhost:*' (may repeat; default: "+
			strings.Join(LoopbackOrigins, ",")+")")
	fs.Var((*patternList)(&o.AllowHosts), "allow-host",
		"DNS names that requests may carry in Host, beyond localhost and IP addresses, comma-separated, such as 'mcp.example.com,*.internal.example.com' "+
			"(may repeat; a server that clients reach by a name of its own needs it)")
	fs.DurationVar(&o.WebSocketPing, "ws-ping", DefaultWebSocketPing,
		"ping each WebSocket client this often; one that answers no ping and sends nothing for three of them is let go")
}

// patternList is the value of -allow-origin and of -allow-host.
type patternList []string

func (l *patternList) String() string { return strings.Join(*l, ",") }

func (l *patternList) Set(value string) error {
	for _, s := range strings.Split(value, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			return errors.New("an empty pattern: separate patterns with single commas")
		}
		*l = append(*l, s)
	}
	return nil
}
