package recio

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/internal/ptytest"
)

func TestCreateRefusesBinaryOnTerminal(t *testing.T) {
	_, tty := ptytest.Open(t)
	if !IsTerminal(tty) {
		t.Fatal("pty is not a terminal")
	}
	for _, f := range []Format{Parquet, Arrow, ArrowFile} {
		if _, err := Create("", f, tty); err == nil || !strings.Contains(err.Error(), "refusing to write") {
			t.Errorf("%s to a terminal: %v", f, err)
		}
	}
	if _, err := Create("-", JSONL, tty); err != nil {
		t.Errorf("JSONL to a terminal: %v", err)
	}
}

func TestCreateIsAtomic(t *testing.T) {
	dir := t.TempDir()
	final := filepath.Join(dir, "sub", "out.jsonl")
	o, err := Create(final, JSONL, nil)
	if err != nil {
		t.Fatal(err)
	}
	o.Writer().Write([]byte("{}\n"))
	if _, err := os.Stat(final); !os.IsNotExist(err) {
		t.Fatal("final name exists before Commit")
	}
	if err := o.Commit(); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(final)
	if err != nil || st.Mode().Perm()&0o044 == 0 {
		t.Fatalf("after Commit: %v %v", st, err)
	}
	o, _ = Create(final, JSONL, nil)
	o.Writer().Write([]byte("partial"))
	o.Abort()
	b, _ := os.ReadFile(final)
	if string(b) != "{}\n" {
		t.Errorf("Abort touched the existing file: %q", b)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "sub", ".*")); len(m) != 0 {
		t.Errorf("temporary files left: %v", m)
	}
}

func TestResolveFormat(t *testing.T) {
	for _, c := range []struct{ flag, path string }{{"", "x.parquet"}, {"parquet", "x.jsonl"}, {"", "x.PQ"}} {
		if f, _ := ResolveFormat(c.flag, c.path); f != Parquet {
			t.Errorf("%v: %s", c, f)
		}
	}
	if f, _ := ResolveFormat("", "x.arrows"); f != Arrow {
		t.Error("arrows")
	}
	if f, _ := ResolveFormat("", "x.arrow"); f != ArrowFile {
		t.Error("arrow")
	}
	if f, _ := ResolveFormat("", ""); f != JSONL {
		t.Error("default")
	}
	if _, err := ResolveFormat("xml", ""); err == nil {
		t.Error("xml accepted")
	}
}

func TestSniff(t *testing.T) {
	for in, want := range map[string]Format{"PAR1....": Parquet, "ARROW1\x00\x00": ArrowFile, "\xff\xff\xff\xff\x10": Arrow,
		`{"id":1}`: JSONL, "\n\n  {": JSONL, "\xef\xbb\xbf{": JSONL} {
		if got, err := Sniff([]byte(in)); got != want || err != nil {
			t.Errorf("Sniff(%q) = %s, %v", in, got, err)
		}
	}
	for in, want := range map[string]string{"": "empty", "\n\n": "empty", "[{}]": "JSON array", "hello": "unknown input format"} {
		if _, err := Sniff([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Sniff(%q): %v, want %q", in, err, want)
		}
	}
}
