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
// compressed on their own. This one uses zstd level 3 (klauspost's
// SpeedDefault, DuckDB's and pyarrow's default level; the fastest level
// makes the release's file 11% bigger) with a 1 MiB window, which loses
// nothing on 1 MiB pages. Decoding is arrow-go's.
type pageZstd struct {
	compress.Codec // arrow-go's codec, for decoding
	pool           sync.Pool
}

func init() {
	orig, err := compress.GetCodec(compress.Codecs.Zstd)
	if err != nil {
		return // keep arrow-go's, whatever it is
	}
	c := &pageZstd{Codec: orig}
	c.pool.New = func() any {
		enc, err := zstd.NewWriter(nil,
			zstd.WithEncoderConcurrency(1),
			zstd.WithEncoderLevel(zstd.SpeedDefault),
			zstd.WithWindowSize(1<<20),
			zstd.WithLowerEncoderMem(true),
			zstd.WithZeroFrames(true),
			zstd.WithEncoderCRC(false),
		)
		if err != nil {
			panic(err) // constant options: cannot happen
		}
		return enc
	}
	compress.RegisterCodec(compress.Codecs.Zstd, c)
}

func (c *pageZstd) Encode(dst, src []byte) []byte {
	enc := c.pool.Get().(*zstd.Encoder)
	defer c.pool.Put(enc)
	return enc.EncodeAll(src, dst[:0])
}

// EncodeLevel ignores the level: ngkit's writer asks for none.
func (c *pageZstd) EncodeLevel(dst, src []byte, _ int) []byte { return c.Encode(dst, src) }

// DecodeWithError keeps arrow-go's error-returning decoder reachable
// (compress.Decode looks for it).
func (c *pageZstd) DecodeWithError(dst, src []byte) ([]byte, error) {
	return compress.Decode(c.Codec, dst, src)
}
