// Package hf writes a Hugging Face dataset folder (ngcat --hf DIR):
// DIR/data/<split>-0000K-of-0000N.parquet shards and DIR/README.md, the
// dataset card whose YAML front matter (configs, data files, features,
// split sizes, licence, languages, size category) lets
// datasets.load_dataset(DIR) and the Hub viewer read the folder.
package hf

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/ngkit/ngkit/pkg/record"
)

// DefaultShardBytes is the default size of a shard, in approximate
// uncompressed bytes of its records (the estimate that sizes row groups):
// 500 MB, as datasets' push_to_hub (max_shard_size, also uncompressed).
// With zstd that makes files of about 100-200 MB.
const DefaultShardBytes = 500 << 20

// Summary is fed every record the writer writes, in order, and renders
// the statistics of the dataset card at the end (the ngstats report as
// Markdown), which follow the card's description and loading instructions
// (DefaultBody): its headings should be of level 2 or below. Add is called
// from one goroutine.
type Summary interface {
	Add(*record.Record)
	Markdown() string
}

// Options configure a Writer.
type Options struct {
	// Dir is the dataset folder.
	Dir string
	// Splits assigns records to splits by id (record.AssignSplit); nil writes one
	// split, "train".
	Splits []record.Split
	// ShardBytes is the size of a shard in approximate uncompressed bytes;
	// 0 means DefaultShardBytes.
	ShardBytes int64
	// Write tunes the Parquet writer (row group size, at most
	// recio.MaxRowGroupBytes).
	Write recio.WriteOptions
	// Force replaces an existing Dir/data and Dir/README.md; without it a
	// non-empty Dir/data or an existing README.md is an error.
	Force bool
	// Card holds the card's name, licence and tags; its splits, languages
	// and features are filled by the writer.
	Card CardInfo
	// Summary, when set, adds statistics to the card's body.
	Summary Summary
	// Shard, Of (Of > 1): this run writes part Shard of Of of the dataset
	// (ngcat --shard K/N, on one of N machines): one file per split,
	// named <split>-0000K-of-0000N.parquet, whatever its size, so that
	// the N folders' data/ copied together hold the whole dataset. Its
	// card describes this part; `ngstats DIR/data/*.parquet --card` writes
	// the whole one.
	Shard, Of int
}

// Writer is a pipeline.Sink that writes a dataset folder. Shards are
// written under temporary names in a folder beside Dir and moved into
// place by Close, once their number is known: Dir never holds a partial
// export, and Abort leaves nothing behind.
type Writer struct {
	opt    Options
	dir    string // absolute Dir
	tmp    string // beside dir: the new data/ and README.md
	splits []*split
	byName map[string]*split
	langs  Languages
	prov   Provenance
	card   []byte // README.md, once made
	done   bool
}

type split struct {
	name   string
	rows   int64
	bytes  int64    // estimated uncompressed size of its records
	shards []string // temporary file names, in order
	cur    *shard   // the open shard, nil between shards
}

type shard struct {
	f     *os.File
	w     recio.Writer[record.Record]
	bytes int64
}

// New checks Dir and prepares the temporary folder.
func New(opt Options) (*Writer, error) {
	if opt.Dir == "" {
		return nil, errors.New("--hf: no folder given")
	}
	if opt.ShardBytes <= 0 {
		opt.ShardBytes = DefaultShardBytes
	}
	dir, err := filepath.Abs(opt.Dir)
	if err != nil {
		return nil, err
	}
	w := &Writer{opt: opt, dir: dir, byName: map[string]*split{}}
	names := []string{"train"}
	if len(opt.Splits) > 0 {
		names = names[:0]
		for _, s := range opt.Splits {
			names = append(names, s.Name)
		}
	}
	for _, n := range names {
		if err := CheckSplitName(n); err != nil {
			return nil, err
		}
		s := &split{name: n}
		w.splits = append(w.splits, s)
		w.byName[n] = s
	}
	if err := w.checkDir(); err != nil {
		return nil, err
	}
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("%s: %w", opt.Dir, err)
	}
	// Beside Dir, on the same file system (so renames work), and not
	// inside it: a crash leaves nothing in the folder that gets uploaded.
	if w.tmp, err = os.MkdirTemp(parent, "."+filepath.Base(dir)+".ngkit-tmp-*"); err != nil {
		return nil, fmt.Errorf("%s: %w", opt.Dir, err)
	}
	// MkdirTemp makes 0700 folders; this one may become Dir.
	if err := os.Chmod(w.tmp, 0o755); err != nil {
		os.RemoveAll(w.tmp)
		return nil, err
	}
	if err := os.Mkdir(filepath.Join(w.tmp, DataDir), 0o755); err != nil {
		os.RemoveAll(w.tmp)
		return nil, err
	}
	return w, nil
}

// checkDir refuses a folder that holds an export (or anything in data/,
// or a card) unless Force.
func (w *Writer) checkDir() error {
	st, err := os.Stat(w.dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("%s: %w", w.opt.Dir, err)
	case !st.IsDir():
		return fmt.Errorf("%s: not a folder", w.opt.Dir)
	case w.opt.Force:
		return nil
	}
	if ents, err := os.ReadDir(filepath.Join(w.dir, DataDir)); err == nil && len(ents) > 0 {
		return fmt.Errorf("%s: not empty (--force replaces it)", filepath.Join(w.opt.Dir, DataDir))
	}
	if _, err := os.Lstat(filepath.Join(w.dir, "README.md")); err == nil {
		return fmt.Errorf("%s: exists (--force replaces it)", filepath.Join(w.opt.Dir, "README.md"))
	}
	return nil
}

// Write implements pipeline.Sink.
func (w *Writer) Write(r *record.Record) error {
	if w.done {
		return errors.New("--hf: write after close")
	}
	if err := r.EncodeExtra(); err != nil {
		return err
	}
	name := "train"
	if len(w.opt.Splits) > 0 {
		name = record.AssignSplit(w.opt.Splits, r.ID)
	}
	s := w.byName[name]
	if s.cur == nil {
		if err := w.openShard(s); err != nil {
			return err
		}
	}
	if err := s.cur.w.Write(r); err != nil {
		return fmt.Errorf("%s: %w", s.cur.f.Name(), err)
	}
	s.rows++
	w.langs.Add(r)
	w.prov.Add(r)
	if w.opt.Summary != nil {
		w.opt.Summary.Add(r)
	}
	// The size check comes after the write: a shard holds at least one
	// record, and the next one opens only when a record needs it.
	n := recio.ApproxSize(r)
	s.bytes += n
	if s.cur.bytes += n; s.cur.bytes >= w.opt.ShardBytes && w.opt.Of <= 1 {
		return w.closeShard(s)
	}
	return nil
}

func (w *Writer) openShard(s *split) error {
	name := filepath.Join(w.tmp, DataDir, fmt.Sprintf("%s.%d.tmp", s.name, len(s.shards)))
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return err
	}
	pw, err := recio.NewParquetWriter[record.Record](f, w.opt.Write)
	if err != nil {
		f.Close()
		return err
	}
	s.shards = append(s.shards, name)
	s.cur = &shard{f: f, w: pw}
	return nil
}

func (w *Writer) closeShard(s *split) error {
	c := s.cur
	s.cur = nil
	err := c.w.Close()
	if e := c.f.Sync(); err == nil {
		err = e
	}
	if e := c.f.Close(); err == nil {
		err = e
	}
	if err != nil {
		return fmt.Errorf("%s: %w", c.f.Name(), err)
	}
	return nil
}

// Close implements pipeline.Sink: it finishes the shards, names them
// <split>-0000K-of-0000N.parquet, writes the card and moves data/ and
// README.md into Dir. On error nothing is left under those names.
func (w *Writer) Close() error {
	if w.done {
		return nil
	}
	if err := w.finish(); err != nil {
		w.Abort()
		return err
	}
	w.done = true
	return nil
}

func (w *Writer) finish() error {
	info := w.opt.Card
	info.Splits = nil
	info.DownloadSize = 0
	for _, s := range w.splits {
		if s.cur == nil && len(s.shards) == 0 {
			// An empty split still gets its (empty) file, so that its
			// data_files pattern matches and every asked split is there.
			if err := w.openShard(s); err != nil {
				return err
			}
		}
		if s.cur != nil {
			if err := w.closeShard(s); err != nil {
				return err
			}
		}
		for k, tmp := range s.shards {
			final := filepath.Join(w.tmp, DataDir, ShardName(s.name, k, len(s.shards)))
			if w.opt.Of > 1 {
				final = filepath.Join(w.tmp, DataDir, ShardName(s.name, w.opt.Shard, w.opt.Of))
			}
			if err := os.Rename(tmp, final); err != nil {
				return err
			}
			st, err := os.Stat(final)
			if err != nil {
				return err
			}
			info.DownloadSize += st.Size()
		}
		info.Splits = append(info.Splits, SplitInfo{Name: s.name, NumExamples: s.rows, Files: len(s.shards), NumBytes: s.bytes})
	}
	var err error
	if info.Languages, err = w.langs.Codes(); err != nil {
		return err
	}
	if info.PrettyName == "" {
		info.PrettyName = filepath.Base(w.dir)
	}
	info.Demo, info.Unlabelled = w.prov.demo, !w.prov.labelled
	body := DefaultBody(info) + "\n" + w.prov.Markdown()
	if w.opt.Summary != nil {
		body += "\n" + strings.TrimSpace(w.opt.Summary.Markdown()) + "\n"
	}
	card, err := Card(info, body)
	if err != nil {
		return err
	}
	if err := writeFileSync(filepath.Join(w.tmp, "README.md"), card); err != nil {
		return err
	}
	w.card = card
	return w.commit()
}

// commit moves the new data/ and README.md into Dir. When Dir does not
// exist, the temporary folder becomes Dir in one rename. Otherwise the old
// data/ is moved aside first, and put back if the new one cannot go in.
func (w *Writer) commit() error {
	if err := w.checkDir(); err != nil { // something may have appeared meanwhile
		return err
	}
	if _, err := os.Stat(w.dir); errors.Is(err, fs.ErrNotExist) {
		if err := os.Rename(w.tmp, w.dir); err != nil {
			return err
		}
		w.tmp = ""
		return nil
	}
	data := filepath.Join(w.dir, DataDir)
	old := filepath.Join(w.tmp, "old-"+DataDir)
	moved := false
	if _, err := os.Lstat(data); err == nil {
		if err := os.Rename(data, old); err != nil {
			return err
		}
		moved = true
	}
	if err := os.Rename(filepath.Join(w.tmp, DataDir), data); err != nil {
		if moved {
			os.Rename(old, data)
		}
		return err
	}
	// As every output (recio): a link to a card elsewhere is followed, the
	// card it names replaced.
	if err := recio.WriteFile(filepath.Join(w.dir, "README.md"), w.card); err != nil {
		// Put the old data back: a new data/ under an old card would lie.
		os.RemoveAll(data)
		if moved {
			os.Rename(old, data)
		}
		return err
	}
	os.RemoveAll(w.tmp)
	w.tmp = ""
	return nil
}

// Abort implements pipeline.Sink: the temporary folder goes, Dir is as it
// was.
func (w *Writer) Abort() {
	for _, s := range w.splits {
		if s.cur != nil {
			s.cur.f.Close()
			s.cur = nil
		}
	}
	if w.tmp != "" {
		os.RemoveAll(w.tmp)
		w.tmp = ""
	}
	w.done = true
}

func writeFileSync(name string, b []byte) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if e := f.Sync(); err == nil {
		err = e
	}
	if e := f.Close(); err == nil {
		err = e
	}
	return err
}
