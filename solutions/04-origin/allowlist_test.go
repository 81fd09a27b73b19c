package origin

import (
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAllowlistMatches(t *testing.T) {
	cases := map[string]struct{ yes, no []string }{
		"https://*.example.com": {
			yes: []string{"https://app.example.com", "https://a.b.example.com", "HTTPS://APP.EXAMPLE.COM",
				"https://app.example.com:443", "https://xn--bcher-kva.example.com", "https://_dev.example.com"},
			no: []string{"https://example.com", "https://xexample.com", "https://evil.example.com.attacker.net",
				"https://example.com.evil", "https://app-example.com", "https://app.example.com.", "http://app.example.com",
				"https://app.example.com:8443", "wss://app.example.com", "https://app.example.com/", "https://app.example.com:",
				"https://app.example.com:0443", "https://user@app.example.com", "https://app.example.com@evil.net",
				"https://bücher.example.com", "https://app..example.com", "https://.example.com", "null", "",
				"https://app.example.com?x", "https://app.example.com#x", "https://app.example.com:99999", "app.example.com",
				"//app.example.com", "https:/app.example.com", " https://app.example.com", "https://app.example.com ",
				"https://app.example.com, https://app.example.com"},
		},
		"http://localhost:*": {
			yes: []string{"http://localhost", "http://localhost:80", "http://localhost:5173", "http://LOCALHOST:65535"},
			no: []string{"https://localhost:5173", "http://localhost.evil.example", "http://localhost.evil.example:5173",
				"http://127.0.0.1:5173", "http://localhost:0", "http://localhost:+80", "http://localhost:5173.evil.example",
				"http://evil-localhost:5173", "http://localhost:80@evil.example"},
		},
		"http://[::1]:*": {
			yes: []string{"http://[::1]:3000", "http://[0:0:0:0:0:0:0:1]:3000", "http://[::1]"},
			no:  []string{"http://[::2]:3000", "http://[::1%25eth0]:3000", "http://[::1", "http://::1:3000", "http://[::ffff:127.0.0.1]:3000"},
		},
		"https://mcp.test:8443": {
			yes: []string{"https://mcp.test:8443", "https://MCP.test:8443"},
			no:  []string{"https://mcp.test", "https://mcp.test:443", "http://mcp.test:8443", "https://mcp.test.evil.example:8443"},
		},
		"http://127.0.0.1:*": {
			yes: []string{"http://127.0.0.1:8080"},
			no:  []string{"http://127.0.0.1.nip.io:8080", "http://127.0.0.2:8080", "http://127.1:8080", "http://0x7f.0.0.1:8080"},
		},
		"vscode-webview://*": {
			yes: []string{"vscode-webview://1a2b3c4d5e", "VSCODE-WEBVIEW://abc"},
			no:  []string{"vscode-webviewx://abc", "https://abc", "vscode-webview://abc:1234", "vscode-webview://"},
		},
	}
	for pattern, c := range cases {
		a, err := NewAllowlist(pattern)
		require.NoError(t, err, pattern)
		for _, o := range c.yes {
			assert.True(t, a.Allows(o), "%s should allow %q", pattern, o)
		}
		for _, o := range c.no {
			assert.False(t, a.Allows(o), "%s should refuse %q", pattern, o)
		}
	}
}

func TestDefaultAllowlistIsLoopback(t *testing.T) {
	a, err := NewAllowlist()
	require.NoError(t, err)
	assert.Equal(t, strings.Join(LoopbackOrigins, ","), a.String())
	for _, o := range []string{"http://localhost:5173", "http://127.0.0.1:8080", "http://[::1]:3000", "http://localhost"} {
		assert.True(t, a.Allows(o), o)
	}
	for _, o := range []string{"https://localhost:5173", "https://app.example.com", "http://localhost.evil.example", "null"} {
		assert.False(t, a.Allows(o), o)
	}
}

func TestMalformedPatternsAreRefused(t *testing.T) {
	for _, p := range []string{
		"", "example.com", "*.example.com", "https://", "https://*", "http://*:*", "https://*.com", "https://app*.example.com",
		"https://*example.com", "https://a.*.example.com", "https://example.com/", "https://example.com/path",
		"https://user@example.com", "https://example.com.", "https://bücher.example", "https://example.com:0",
		"https://example.com:99999", "https://example.com:80:*", "https://example.com:", "1http://example.com",
	} {
		_, err := NewAllowlist(p)
		assert.Error(t, err, "%q should be refused", p)
	}
}

func TestPatternErrorsSayWhy(t *testing.T) {
	_, err := NewAllowlist("https://*")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "every web site")
	_, err = NewAllowlist("https://bücher.example")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "punycode")
}

// FuzzWildcardStaysBelowItsDomain holds the matcher to the promise of a
// wildcard: https://*.example.com allows an origin only if, read by an
// independent parser (net/url), it is https, on port 443, with a host that
// ends in ".example.com" on a label boundary and has nothing but letters,
// digits, "-", "_" and dots. Its seeds run with every go test; to search
// further:
//
//	go test -run '^$' -fuzz FuzzWildcardStaysBelowItsDomain -fuzztime 30s ./solutions/04-origin
func FuzzWildcardStaysBelowItsDomain(f *testing.F) {
	for _, seed := range []string{
		"https://app.example.com", "https://evil.example.com.attacker.net", "https://xexample.com", "https://example.com",
		"https://app.example.com:443", "https://app.example.com.", "https://a@app.example.com", "https://app.example.com@x",
		"HTTPS://APP.EXAMPLE.COM", "https://app.example.com:8443", "http://app.example.com", "https://[::1].example.com",
		"https://app.example.com/x", "https://app%2eexample.com", "https://app.example.com\x00", "null",
	} {
		f.Add(seed)
	}
	a, err := NewAllowlist("https://*.example.com")
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, origin string) {
		if !a.Allows(origin) {
			return
		}
		u, err := url.Parse(origin)
		require.NoError(t, err, "allowed %q, which net/url cannot parse", origin)
		host := strings.ToLower(u.Hostname())
		assert.Equal(t, "https", strings.ToLower(u.Scheme), "allowed %q", origin)
		assert.Contains(t, []string{"", "443"}, u.Port(), "allowed %q", origin)
		assert.True(t, u.User == nil && u.Path == "" && u.RawQuery == "" && u.Fragment == "" && u.Opaque == "", "allowed %q", origin)
		assert.True(t, strings.HasSuffix(host, ".example.com") && len(host) > len(".example.com"), "allowed %q, whose host %q is not below example.com", origin, host)
		label := strings.TrimSuffix(host, ".example.com")
		assert.False(t, strings.HasPrefix(label, ".") || strings.HasSuffix(label, ".") || strings.Contains(label, ".."), "allowed %q: an empty label", origin)
		for _, c := range label {
			assert.True(t, c == '.' || c == '-' || c == '_' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9', "allowed %q: %q in its host", origin, c)
		}
	})
}
