package llm

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Cache is a content-addressed store of accepted replies on disk: one
// small JSON file per request, named by the hash of everything that
// determines the reply. Writes go to a temporary file renamed into place,
// so several processes (the programs of one pipeline) can share a cache:
// a reader sees a whole entry or none, and two writers of one key write
// the same thing. The API key is neither stored nor part of the key.
type Cache struct{ dir string }

// DefaultCacheDir is ngkit/llm under the user cache directory
// ($XDG_CACHE_HOME or ~/.cache on Linux).
func DefaultCacheDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "ngkit", "llm"), nil
}

// OpenCache opens (creating) a cache in dir.
func OpenCache(dir string) (*Cache, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("--cache: %w", err)
	}
	return &Cache{dir: dir}, nil
}

// cacheEntry is one stored reply: the raw content as the model sent it
// (it is validated again when read, in case the checks changed).
type cacheEntry struct {
	Model        string  `json:"model,omitempty"`
	Content      string  `json:"content"`
	FinishReason string  `json:"finish_reason,omitempty"`
	TokensIn     int     `json:"tokens_in,omitempty"`
	TokensOut    int     `json:"tokens_out,omitempty"`
	Seconds      float64 `json:"seconds,omitempty"`
}

func (c *Cache) path(key string) string { return filepath.Join(c.dir, key[:2], key+".json") }

// get returns the entry of key; a missing or unreadable entry is a miss.
func (c *Cache) get(key string) (*cacheEntry, bool) {
	b, err := os.ReadFile(c.path(key))
	if err != nil {
		return nil, false
	}
	var e cacheEntry
	if json.Unmarshal(b, &e) != nil {
		return nil, false
	}
	return &e, true
}

// put stores e under key atomically.
func (c *Cache) put(key string, e *cacheEntry) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	p := c.path(key)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(b)
	if e := tmp.Close(); err == nil {
		err = e
	}
	if err == nil {
		err = os.Rename(tmp.Name(), p)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// cacheKey hashes what determines a reply: endpoint, model, messages,
// reply schema and sampling parameters. A change of any one is a miss.
func cacheKey(baseURL, model string, msgs []Message, sch *schema, s Sampling) string {
	h := sha256.New()
	field := func(s string) {
		var n [binary.MaxVarintLen64]byte
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(s)))])
		h.Write([]byte(s))
	}
	field("ngkit-llm-cache-v1")
	field(strings.TrimRight(baseURL, "/"))
	field(model)
	field(strconv.Itoa(len(msgs)))
	for _, m := range msgs {
		field(m.Role)
		field(m.Content)
	}
	if sch != nil {
		field(sch.name + "@" + sch.hash)
	} else {
		field("")
	}
	writeSampling(field, s)
	return hex.EncodeToString(h.Sum(nil))
}

func writeSampling(field func(string), s Sampling) {
	opt := func(p *float64) string {
		if p == nil {
			return "-"
		}
		return strconv.FormatFloat(*p, 'g', -1, 64)
	}
	field(opt(s.Temperature))
	field(opt(s.TopP))
	field(strconv.Itoa(s.MaxTokens))
	if s.Seed == nil {
		field("-")
	} else {
		field(strconv.FormatInt(*s.Seed, 10))
	}
}
