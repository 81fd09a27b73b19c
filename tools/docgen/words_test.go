package docgen

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCoreWords(t *testing.T) {
	text := "# Title\n\nOne two, three.\n\n```\nnot counted\n```\n\n| a | b |\n|---|---|\n\n## Optional: more\n\nskipped words\n\n### deeper\n\nskipped too\n\n## Back\n\n<!-- a comment -->\nfour → five <!-- gen:count lesson=01 -->26<!-- /gen -->\n"
	assert.Equal(t, 10, CoreWords(text)) // Title One two three a b Back four five 26
}
