package recio

import (
	"sync"

	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/klauspost/compress/zstd"
)

// pageZstd is the ZSTD codec of arrow-go's Parquet writer in this process
// (registered over arrow-go's own in init). arrow-go's encoders use
// klauspost/compress's default 8 MiB window, with literal entropy coding
// forced on: each pooled encoder keeps a 16 MiB history, and pages are
// compressed about 30% slower, for pages of at most 1 MiB that are each
// compressed on their own. This one uses a 1 MiB window, which loses
// nothing on 1 MiB pages, and the column's level (arrow-go's default
// level, -1, is 3: klauspost's SpeedDefault, DuckDB's and pyarrow's
// default; the fastest level makes the release's file 11% bigger).
// Decoding is arrow-go's.
type pageZstd struct {
	compress.Codec // arrow-go's codec, for decoding
	pools          [zstd.SpeedBestCompression + 1]sync.Pool
}

func init() {
	orig, err := compress.GetCodec(compress.Codecs.Zstd)
	if err != nil {
		return // keep arrow-go's, whatever it is
	}
	c := &pageZstd{Codec: orig}
	for l := zstd.SpeedFastest; l <= zstd.SpeedBestCompression; l++ {
		c.pools[l].New = func() any {
			enc, err := zstd.NewWriter(nil,
				zstd.WithEncoderConcurrency(1),
				zstd.WithEncoderLevel(l),
				zstd.WithWindowSize(pageZstdWindow),
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
	compress.RegisterCodec(compress.Codecs.Zstd, c)
}

// pageZstdWindow is the zstd window: arrow-go's data pages are 1 MiB, and
// each is compressed on its own.
const pageZstdWindow = 1 << 20

// Encode compresses at level 3.
func (c *pageZstd) Encode(dst, src []byte) []byte { return c.EncodeLevel(dst, src, 3) }

// EncodeLevel compresses at a zstd level (klauspost's nearest: 1, 3, 7 or
// 11; arrow-go's default level, -1, is 3).
func (c *pageZstd) EncodeLevel(dst, src []byte, level int) []byte {
	l := zstd.SpeedDefault
	if level > 0 {
		l = zstd.EncoderLevelFromZstd(level)
	}
	enc := c.pools[l].Get().(*zstd.Encoder)
	defer c.pools[l].Put(enc)
	return enc.EncodeAll(src, dst[:0])
}

// DecodeWithError keeps arrow-go's error-returning decoder reachable
// (compress.Decode looks for it).
func (c *pageZstd) DecodeWithError(dst, src []byte) ([]byte, error) {
	return compress.Decode(c.Codec, dst, src)
}
