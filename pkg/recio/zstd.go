package recio

import (
	"github.com/apache/arrow-go/v18/parquet/compress"
)

// pageZstd is the ZSTD codec of arrow-go's Parquet writer in this process
// (registered over arrow-go's own in init). Pages are about 2 MiB at most and
// each is compressed on its own, at the column's level (arrow-go's default
// level, -1, is 3: DuckDB's and pyarrow's default).
//
// With cgo (the default wherever a C compiler is installed) the encoder is
// libzstd itself, bundled by github.com/DataDog/zstd (zstd_cgo.go): on the
// release's text it compresses 1.8x faster than klauspost/compress at level
// 3 (232 against 127 MB/s, 1 MiB pages, AMD EPYC) and 1% smaller, and the
// encoder is the import's critical path. Without cgo it is klauspost's
// (zstd_nocgo.go). Both write standard zstd frames; files differ in bytes,
// not in content. Decoding is arrow-go's (klauspost).
type pageZstd struct {
	compress.Codec // arrow-go's codec, for decoding
}

func init() {
	orig, err := compress.GetCodec(compress.Codecs.Zstd)
	if err != nil {
		return // keep arrow-go's, whatever it is
	}
	compress.RegisterCodec(compress.Codecs.Zstd, &pageZstd{Codec: orig})
}

// Encode compresses at the default level.
func (c *pageZstd) Encode(dst, src []byte) []byte { return c.EncodeLevel(dst, src, DefaultZstdLevel) }

// EncodeLevel compresses src at a zstd level (arrow-go's default, -1 or 0,
// is DefaultZstdLevel), appending to dst[:0] (arrow-go sizes dst's
// capacity to CompressBound).
func (c *pageZstd) EncodeLevel(dst, src []byte, level int) []byte {
	if level <= 0 {
		level = DefaultZstdLevel
	}
	return encodeZstd(dst[:0], src, level)
}

// DecodeWithError keeps arrow-go's error-returning decoder reachable
// (compress.Decode looks for it).
func (c *pageZstd) DecodeWithError(dst, src []byte) ([]byte, error) {
	return compress.Decode(c.Codec, dst, src)
}
