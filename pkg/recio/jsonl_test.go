package recio

import (
	"bytes"
	"compress/gzip"
	"io"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

func TestJSONLReaderPositionsAndBlankLines(t *testing.T) {
	in := "{\"id\":\"a\"}\r\n\n   \n{\"id\":\"b\",\"x\":[1]}\n{\"id\":\"c\"}" // CRLF, blanks, no final newline
	r := NewJSONLReader("in.jsonl", strings.NewReader(in))
	var got []string
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, rec.ID+"@"+r.Where())
	}
	if strings.Join(got, " ") != "a@in.jsonl:1 b@in.jsonl:4 c@in.jsonl:5" {
		t.Errorf("got %v", got)
	}
}

func TestOpenCompressedJSONL(t *testing.T) {
	var gz, zs bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write([]byte("{\"id\":\"g\"}\n"))
	w.Close()
	z, _ := zstd.NewWriter(&zs)
	z.Write([]byte("{\"id\":\"z\"}\n"))
	z.Close()
	for want, b := range map[string][]byte{"g": gz.Bytes(), "z": zs.Bytes()} {
		r, err := Open("-", OpenOptions{Stdin: bytes.NewReader(b)})
		if err != nil {
			t.Fatal(err)
		}
		rec, err := r.Next()
		if err != nil || rec.ID != want {
			t.Errorf("%s: %v %v", want, rec, err)
		}
	}
}

func FuzzDecodeJSONL(f *testing.F) {
	f.Add([]byte(`{"id":"a","turns":[{"index":0,"speaker":"A","text":"hi"}],"x":{"y":[1,2]}}`))
	f.Add([]byte(`{"id":"a","extra":"{\"k\":1}"}`))
	f.Add([]byte("{\"id\":\"\xff\"}"))
	f.Add([]byte(`{"id":"a","persona":[{"key":"age","value":"30-49"}],"turns":[{"labels":{"norm_dist":[{"key":"x","value":1e-3}]}}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		rec, err := DecodeJSONL("f", 1, b)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f:line 1: ") {
				t.Fatalf("error without position: %v", err)
			}
			return
		}
		// What decodes must encode and decode to the same record.
		var buf bytes.Buffer
		w := NewJSONLWriter[any](&buf)
		var v any = rec
		if err := w.Write(&v); err != nil {
			t.Fatal(err)
		}
		w.Close()
		again, err := DecodeJSONL("f", 1, bytes.TrimSpace(buf.Bytes()))
		if err != nil {
			t.Fatalf("re-decode %s: %v", buf.Bytes(), err)
		}
		if again.ID != rec.ID || len(again.Turns) != len(rec.Turns) || len(again.Extra) != len(rec.Extra) {
			t.Fatalf("round trip changed %s", b)
		}
	})
}
