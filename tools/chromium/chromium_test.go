package chromium

import (
	"context"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// browser returns the Chromium to test with. Without one the test is
// skipped, except in CI (COURSE_CI=1), where .ci/run installs it.
func browser(t *testing.T) string {
	t.Helper()
	bin, err := Find()
	if errors.Is(err, ErrNotFound) && os.Getenv("COURSE_CI") != "1" {
		t.Skip(err)
	}
	require.NoError(t, err)
	return bin
}

func TestDumpDOMRunsThePagesScripts(t *testing.T) {
	bin := browser(t)
	page := filepath.Join(t.TempDir(), "page.html")
	require.NoError(t, os.WriteFile(page, []byte(`<!doctype html><title>t</title><p id="p">static</p>`+
		`<script>document.getElementById("p").textContent = "changed by a script"</script>`), 0o644))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dom, err := DumpDOM(ctx, bin, (&url.URL{Scheme: "file", Path: page}).String())
	require.NoError(t, err)
	assert.Contains(t, dom, `<p id="p">changed by a script</p>`)
}

func TestDumpDOMGivesUpWhenTheContextEnds(t *testing.T) {
	bin := browser(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := DumpDOM(ctx, bin, "about:blank")
	require.Error(t, err)
	assert.Less(t, time.Since(start), 10*time.Second)
}

func TestCappedNotesAnExcess(t *testing.T) {
	c := capped{max: 4}
	n, err := c.Write([]byte("abcdef"))
	require.NoError(t, err)
	assert.Equal(t, 6, n)
	assert.True(t, c.over)
	assert.Equal(t, "abcd", c.String())
}

func TestArgsPutMoreFlagsBeforeThePage(t *testing.T) {
	args := Args("/tmp/p", "http://x/", "--a", "--b=1")
	assert.Equal(t, []string{"--a", "--b=1", "--dump-dom", "http://x/"}, args[len(args)-4:])
	assert.Contains(t, args, "--user-data-dir=/tmp/p")
}
