package recio

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/klauspost/compress/zstd"
)

// TestPageZstdLevels: the codec registered for the Parquet writer honours
// the level a column asks for (it ignored it before), every level decodes
// back to the page with a stock zstd decoder, and arrow-go's default level
// is 3, which is what ngkit's writer asks for.
func TestPageZstdLevels(t *testing.T) {
	c, err := compress.GetCodec(compress.Codecs.Zstd)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.(*pageZstd); !ok {
		t.Fatalf("zstd codec is %T, not ngkit's", c)
	}
	// A page of the release sample's text (under 1 MiB: each of its files
	// once), as the writer's pages of free text are.
	var page bytes.Buffer
	files, _ := filepath.Glob("../../testdata/normgenesis/*.json")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		page.Write(b)
	}
	if page.Len() < 256<<10 {
		t.Fatalf("%d bytes of the release sample", page.Len())
	}
	src := page.Bytes()
	dec, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	sizes := map[int]int{}
	for _, level := range []int{-1, 1, 3, 7, 11} {
		out := c.EncodeLevel(nil, src, level)
		back, err := dec.DecodeAll(out, nil)
		if err != nil || !bytes.Equal(back, src) {
			t.Fatalf("level %d: does not decode back (%v)", level, err)
		}
		sizes[level] = len(out)
	}
	if sizes[-1] != sizes[3] {
		t.Errorf("default level: %d bytes, level 3: %d", sizes[-1], sizes[3])
	}
	if !(sizes[7] < sizes[3] && sizes[3] < sizes[1]) {
		t.Errorf("levels not honoured: sizes %v", sizes)
	}
	t.Logf("%s: sizes by level %v of %d bytes", ZstdEncoder, sizes, len(src))
	// ngkit's writer asks for its level for every column.
	for _, level := range []int{DefaultZstdLevel, 11} {
		props := parquetWriterProperties(memory.DefaultAllocator, level)
		for _, path := range append([]string{"culture", "turns.list.element.speaker"}, plainColumns...) {
			if got := props.CompressionLevelFor(path); got != level {
				t.Errorf("%s: level %d, want %d", path, got, level)
			}
		}
	}
}
