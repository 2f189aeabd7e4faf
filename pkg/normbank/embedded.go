package normbank

import (
	"github.com/klauspost/compress/zstd"
)

// unzstd decompresses an embedded data file. The built-in norms and
// exemplars are embedded zstd-compressed (data/*.jsonl.zst, written by
// internal/normbankgen beside the .jsonl they hold): 900 KB of JSONL that
// every program of the one ngkit binary would carry is 250 KB so. They are
// decompressed once, on first use (about a millisecond). A test keeps the
// data valid, so an error here is a broken build.
func unzstd(name string, b []byte) []byte {
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	if err != nil {
		panic("normbank: embedded " + name + ": " + err.Error())
	}
	defer dec.Close()
	out, err := dec.DecodeAll(b, nil)
	if err != nil {
		panic("normbank: embedded " + name + ": " + err.Error())
	}
	return out
}
