package origin

import (
	"errors"
	"flag"
	"strings"
)

// RegisterFlags defines the command-line flags that set o: stage 03's, and
// -allow-origin, which takes comma-separated patterns and may be given more
// than once.
func (o *Options) RegisterFlags(fs *flag.FlagSet) {
	o.Options.RegisterFlags(fs)
	fs.Var((*originList)(&o.AllowOrigins), "allow-origin",
		"web origins that may use the server, comma-separated, such as 'https://*.example.com,http://localhost:*' (may repeat; default: "+
			strings.Join(LoopbackOrigins, ",")+")")
}

// originList is the value of -allow-origin.
type originList []string

func (l *originList) String() string { return strings.Join(*l, ",") }

func (l *originList) Set(value string) error {
	for _, s := range strings.Split(value, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			return errors.New("an empty origin: separate origins with single commas")
		}
		*l = append(*l, s)
	}
	return nil
}
