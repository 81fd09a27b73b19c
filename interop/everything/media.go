package everything

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"image"
	"image/color"
	"image/png"
)

// The binary fixtures, base64-encoded as MCP carries them. They are made
// here rather than pasted in, so that anyone can see what they hold.
var (
	pngBase64 = base64.StdEncoding.EncodeToString(redPixelPNG())
	wavBase64 = base64.StdEncoding.EncodeToString(silentWAV(8000, 80))
)

// redPixelPNG encodes a 1×1 red image as PNG.
func redPixelPNG() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 1, 1))
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic(err) // encoding an in-memory image cannot fail
	}
	return b.Bytes()
}

// silentWAV returns a RIFF/WAVE file of mono 8-bit PCM silence: samples
// samples at rate per second.
func silentWAV(rate, samples int) []byte {
	var b bytes.Buffer
	le := func(v any) { binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString("RIFF")
	le(uint32(36 + samples)) // the size of everything after this field
	b.WriteString("WAVE")
	b.WriteString("fmt ")
	le(uint32(16))   // size of the fmt chunk
	le(uint16(1))    // PCM
	le(uint16(1))    // mono
	le(uint32(rate)) // samples per second
	le(uint32(rate)) // bytes per second: one byte per sample
	le(uint16(1))    // bytes per frame
	le(uint16(8))    // bits per sample
	b.WriteString("data")
	le(uint32(samples))
	b.Write(bytes.Repeat([]byte{128}, samples)) // 128 is silence in 8-bit PCM
	return b.Bytes()
}
