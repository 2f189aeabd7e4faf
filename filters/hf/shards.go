package hf

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"

	"github.com/apache/arrow-go/v18/parquet/file"
)

var shardPattern = regexp.MustCompile(`^(\w+(?:\.\w+)*)-(\d{5})-of-(\d{5})\.parquet$`)

// ShardSplits describes the splits of a dataset from its data files, named
// as ngcat --hf names them (<split>-0000K-of-0000N.parquet, from one run or
// from N runs with --shard K/N): each split's examples (from the files'
// footers), files and the total size of the files. ok is false when no
// path is named so; a mix of names, a shard missing from its split, or a
// file whose footer cannot be read (a truncated copy, say) is an error
// naming the file.
func ShardSplits(paths []string) (splits []SplitInfo, downloadSize int64, ok bool, err error) {
	type part struct {
		n    int
		seen map[int]string
	}
	parts := map[string]*part{}
	index := map[string]int{}
	for _, p := range paths {
		m := shardPattern.FindStringSubmatch(filepath.Base(p))
		if m == nil {
			if len(index) > 0 {
				return nil, 0, false, fmt.Errorf("%s: not named <split>-0000K-of-0000N.parquet as the other data files are", p)
			}
			continue
		}
		if !ok && len(index) == 0 && p != paths[0] {
			return nil, 0, false, fmt.Errorf("%s: not named <split>-0000K-of-0000N.parquet as %s is", paths[0], p)
		}
		ok = true
		name := m[1]
		k, _ := strconv.Atoi(m[2])
		n, _ := strconv.Atoi(m[3])
		if k >= n {
			return nil, 0, false, fmt.Errorf("%s: shard %d of %d", p, k, n)
		}
		pt := parts[name]
		if pt == nil {
			pt = &part{n: n, seen: map[int]string{}}
			parts[name] = pt
			index[name] = len(splits)
			splits = append(splits, SplitInfo{Name: name})
		}
		if n != pt.n {
			return nil, 0, false, fmt.Errorf("%s: split %s has %d files here, %d in %s", p, name, n, pt.n, pt.seen[firstKey(pt.seen)])
		}
		if other, dup := pt.seen[k]; dup {
			return nil, 0, false, fmt.Errorf("%s: the same shard as %s", p, other)
		}
		pt.seen[k] = p
		rows, bytes, size, err := footerRows(p)
		if err != nil {
			return nil, 0, false, err
		}
		s := &splits[index[name]]
		s.NumExamples += rows
		s.NumBytes += bytes
		s.Files++
		downloadSize += size
	}
	for _, s := range splits {
		pt := parts[s.Name]
		for k := 0; k < pt.n; k++ {
			if _, has := pt.seen[k]; !has {
				return nil, 0, false, fmt.Errorf("split %s: %s is missing (%d of %d files given)", s.Name, ShardName(s.Name, k, pt.n), len(pt.seen), pt.n)
			}
		}
	}
	return splits, downloadSize, ok, nil
}

func firstKey(m map[int]string) int {
	for k := range m {
		return k
	}
	return 0
}

// footerRows reads the row count and the uncompressed size of the row
// groups in a Parquet file's footer, and the file's size.
func footerRows(path string) (rows, bytes, size int64, err error) {
	st, err := os.Stat(path)
	if err != nil {
		return 0, 0, 0, err
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%s: not a readable Parquet file: %v", path, p)
		}
	}()
	r, err := file.OpenParquetFile(path, false)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("%s: not a readable Parquet file (truncated?): %v", path, err)
	}
	defer r.Close()
	for i := range r.NumRowGroups() {
		bytes += r.MetaData().RowGroup(i).TotalByteSize()
	}
	return r.NumRows(), bytes, st.Size(), nil
}
