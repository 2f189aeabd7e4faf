//go:build !cgo

package recio

import (
	"sync"

	"github.com/klauspost/compress/zstd"
)

// ZstdEncoder names the zstd encoder of Parquet output in this build;
// zstdInGoHeap says whether its state is Go heap (for the memory test).
const (
	ZstdEncoder  = "klauspost/compress (no cgo)"
	zstdInGoHeap = true
)

// zstdEncoders pools klauspost encoders per level (its four: 1-2, 3-5,
// 6-9, 10+). arrow-go's own use klauspost's default 8 MiB window with
// literal entropy coding forced on, about 30% slower; pages of about 2 MiB
// lose nothing with a 2 MiB window.
var zstdEncoders [zstd.SpeedBestCompression + 1]sync.Pool

func init() {
	for l := zstd.SpeedFastest; l <= zstd.SpeedBestCompression; l++ {
		zstdEncoders[l].New = func() any {
			enc, err := zstd.NewWriter(nil,
				zstd.WithEncoderConcurrency(1),
				zstd.WithEncoderLevel(l),
				zstd.WithWindowSize(2<<20),
				zstd.WithLowerEncoderMem(true),
				zstd.WithZeroFrames(true),
				zstd.WithEncoderCRC(false),
			)
			if err != nil {
				panic(err) // constant options: cannot happen
			}
			return enc
		}
	}
}

// encodeZstd is one zstd frame of src at klauspost's nearest level,
// appended to dst.
func encodeZstd(dst, src []byte, level int) []byte {
	l := zstd.EncoderLevelFromZstd(level)
	enc := zstdEncoders[l].Get().(*zstd.Encoder)
	defer zstdEncoders[l].Put(enc)
	return enc.EncodeAll(src, dst)
}
