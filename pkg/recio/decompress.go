package recio

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
)

// Decompress unpacks gzip or zstd input, recognised by its magic number,
// and passes anything else through. compressed tells which happened.
func Decompress(r io.Reader) (out *bufio.Reader, compressed bool, err error) {
	br, ok := r.(*bufio.Reader)
	if !ok || br.Size() < 1<<16 {
		br = bufio.NewReaderSize(r, 1<<20)
	}
	// Peek no more than the input has given: on a pipe that a slow
	// upstream stage fills, waiting for 4 bytes could stall the pipeline.
	head, _ := br.Peek(1)
	if len(head) == 1 && (head[0] == magicGzip[0] || head[0] == magicZstd[0]) {
		head, _ = br.Peek(4)
	}
	switch {
	case bytes.HasPrefix(head, magicGzip):
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, true, fmt.Errorf("gzip: %w", err)
		}
		return bufio.NewReaderSize(gz, 1<<20), true, nil
	case bytes.HasPrefix(head, magicZstd):
		zr, err := zstd.NewReader(br)
		if err != nil {
			return nil, true, fmt.Errorf("zstd: %w", err)
		}
		return bufio.NewReaderSize(zr.IOReadCloser(), 1<<20), true, nil
	}
	return br, false, nil
}
