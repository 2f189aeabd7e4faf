package lang

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"unsafe"

	"github.com/cespare/xxhash/v2"
	"github.com/ngkit/ngkit/pkg/safeopen"
)

// The model indexes (models.go) are kept on disk once decoded: inflating
// and indexing lingua's zip files took 0.3 s of CPU per process for the
// default set, a quarter of ngstats' full report of the release, where
// reading the 44 MB of indexes back takes about 30 ms. A file is named by
// its model (language, n-gram length, the zip entry's CRC-32 and size), so
// a new lingua version makes new files; it holds a header, the protobuf,
// the table and the probabilities, and the xxhash of all three. A file
// that fails any check (size, checksum, a slot outside the file, a full
// table) is decoded again and replaced; a folder of another user's, or one
// others may write, is not used (whoever writes the indexes chooses the
// languages ngkit reports). The cache only saves time: without it (no
// cache folder, a read-only one) the models are decoded as before.

// modelCacheDir is the cache folder, "" for none: ngkit/lang under the user
// cache directory ($XDG_CACHE_HOME or ~/.cache). Tests set their own.
var modelCacheDir = func() string {
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "ngkit", "lang")
}

const (
	indexMagic  = "ngkit-langidx-2\n" // 16 bytes; a new layout or hash gets a new magic
	indexHeader = 48                  // magic, len(buf), len(slots), len(probs), xxhash of the rest
	maxIndex    = 1 << 30
)

// cacheDir returns the cache folder, created, when it may be used.
func cacheDir() (string, bool) {
	dir := modelCacheDir()
	if dir == "" || os.MkdirAll(dir, 0o700) != nil || safeopen.OwnDir(dir) != nil {
		return "", false
	}
	return dir, true
}

func indexFileName(iso string, n int, crc uint32, size uint64) string {
	return fmt.Sprintf("%s-%d-%08x-%d.idx", iso, n, crc, size)
}

// readIndex reads the index file name of dir; an error when there is none
// or it fails a check.
func readIndex(dir, name string) (*ngramIndex, error) {
	f, err := safeopen.NoFollow(filepath.Join(dir, name), os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() < indexHeader || st.Size() > maxIndex {
		return nil, errors.New("bad size")
	}
	data := make([]byte, st.Size()) // a large allocation: page-aligned
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, err
	}
	if uintptr(unsafe.Pointer(unsafe.SliceData(data)))%8 != 0 {
		return nil, errors.New("unaligned")
	}
	return parseIndex(data)
}

// parseIndex checks an index file's data and returns its index, whose
// slices are views of data.
func parseIndex(data []byte) (*ngramIndex, error) {
	if len(data) < indexHeader || string(data[:16]) != indexMagic {
		return nil, errors.New("not an index file")
	}
	le := binary.LittleEndian
	nbuf, nslots, nprobs := le.Uint64(data[16:]), le.Uint64(data[24:]), le.Uint64(data[32:])
	if nbuf > maxIndex || nslots > maxIndex/8 || nprobs > maxIndex/8 ||
		uint64(len(data)) != indexHeader+pad8(nbuf)+8*nslots+8*nprobs {
		return nil, errors.New("bad lengths")
	}
	if xxhash.Sum64(data[indexHeader:]) != le.Uint64(data[40:]) {
		return nil, errors.New("bad checksum")
	}
	x := &ngramIndex{buf: data[indexHeader : indexHeader+nbuf : indexHeader+nbuf]}
	off := indexHeader + pad8(nbuf)
	x.slots = unsafe.Slice((*uint64)(unsafe.Pointer(&data[off])), nslots)
	off += 8 * nslots
	if nprobs > 0 {
		x.probs = unsafe.Slice((*float64)(unsafe.Pointer(&data[off])), nprobs)
	}
	// Every slot within the file, and an empty one to end each probe.
	if nslots == 0 || nslots&(nslots-1) != 0 {
		return nil, errors.New("table size not a power of two")
	}
	empty := false
	for _, s := range x.slots {
		if s == 0 {
			empty = true
			continue
		}
		if off, n := s>>32, s>>24&0xff; n == 0 || off+n > nbuf || s&0xffffff >= nprobs {
			return nil, errors.New("slot outside the file")
		}
	}
	if !empty {
		return nil, errors.New("table full")
	}
	return x, nil
}

func pad8(n uint64) uint64 { return (n + 7) &^ 7 }

// writeIndex stores x as the index file name of dir, whole or not at all
// (a temporary file renamed), from x's own arrays (no copy of them).
func writeIndex(dir, name string, x *ngramIndex) error {
	nbuf := uint64(len(x.buf))
	parts := [][]byte{
		x.buf, make([]byte, pad8(nbuf)-nbuf),
		unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(x.slots))), 8*len(x.slots)),
		unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(x.probs))), 8*len(x.probs)),
	}
	sum := xxhash.New()
	for _, p := range parts {
		sum.Write(p)
	}
	head := make([]byte, indexHeader)
	copy(head, indexMagic)
	le := binary.LittleEndian
	le.PutUint64(head[16:], nbuf)
	le.PutUint64(head[24:], uint64(len(x.slots)))
	le.PutUint64(head[32:], uint64(len(x.probs)))
	le.PutUint64(head[40:], sum.Sum64())
	f, err := os.CreateTemp(dir, ".tmp-*.idx")
	if err != nil {
		return err
	}
	for _, p := range append([][]byte{head}, parts...) {
		if err == nil {
			_, err = f.Write(p)
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(dir, name))
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
