package pipeline

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/ngkit/ngkit/pkg/recio"
)

// ResumeFrom implements --resume: it copies the records of the existing
// output file path into sink (which writes a new temporary file, renamed
// over path at the end, so an interrupted resume never truncates it) and
// returns the ids found, as id or parent_id. An input record with one of
// those ids was finished by an earlier run: a stage that keeps ids
// (nglabel) writes it under its own id, a stage that derives records
// (ngseed, ngv2r) sets parent_id to it. A missing or empty file is a
// fresh start.
func ResumeFrom(path string, sink Sink) (map[string]struct{}, error) {
	done := map[string]struct{}{}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return done, nil
	}
	r, err := recio.Open(path, recio.OpenOptions{})
	if errors.Is(err, recio.ErrEmpty) {
		return done, nil
	}
	if err != nil {
		return nil, fmt.Errorf("--resume: %w", err)
	}
	defer r.Close()
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return done, nil
		}
		if err != nil {
			return nil, fmt.Errorf("--resume: %w", err)
		}
		done[rec.ID] = struct{}{}
		if rec.ParentID != "" {
			done[rec.ParentID] = struct{}{}
		}
		if err := sink.Write(rec); err != nil {
			return nil, fmt.Errorf("--resume: copying %s: %w", path, err)
		}
	}
}
