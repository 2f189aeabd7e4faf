package llm

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ngkit/ngkit/pkg/safeopen"
)

// Cache is a content-addressed store of accepted replies on disk, keyed
// by the hash of everything that determines a reply (cacheKey). Entries
// live in 256 append-only bucket files (DIR/<first two hex digits of the
// key>.log); an entry is one line, "\n<key>\t<JSON>", added by a single
// write in O_APPEND mode. So several processes (the programs of one
// pipeline) can share a cache with no lock: appends do not interleave on
// a local file system, an entry being written or cut short by a crash
// fails to parse and is a miss, and each entry starts on its own line
// whatever came before. One file per entry would be simpler, but creating
// a file costs far more than appending to one (0.6 ms of CPU on the
// development VM). A lookup reads one bucket, 1/256 of the cache. The API
// key is neither stored nor part of the key. Not for network file systems.
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

// OpenCache opens (creating) a cache in dir. A folder of another user's,
// or one others may write, is refused: whoever may write the cache
// chooses the replies (a forged one, or a link that sends the replies
// appended into a file of the user's).
func OpenCache(dir string) (*Cache, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("--cache: %w", err)
	}
	switch err := safeopen.OwnDir(dir); {
	case errors.Is(err, safeopen.ErrNotOwned):
		return nil, fmt.Errorf("--cache %s: %v: its replies cannot be trusted (use a folder of your own)", dir, err)
	case errors.Is(err, safeopen.ErrOthersWrite):
		return nil, fmt.Errorf("--cache %s: %v: its replies cannot be trusted (chmod go-w it, or use another)", dir, err)
	case err != nil:
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
	// TopLogprobs are a logprobs probe's first-token alternatives.
	TopLogprobs []TokenLogprob `json:"top_logprobs,omitempty"`
}

func (c *Cache) bucket(key string) string { return filepath.Join(c.dir, key[:2]+".log") }

// get returns the first whole entry of key; none is a miss.
func (c *Cache) get(key string) (*cacheEntry, bool) {
	f, err := safeopen.NoFollow(c.bucket(key), os.O_RDONLY, 0)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), maxCacheEntry)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) <= len(key) || line[len(key)] != '\t' || string(line[:len(key)]) != key {
			continue
		}
		var e cacheEntry
		if json.Unmarshal(line[len(key)+1:], &e) == nil {
			return &e, true
		}
	}
	return nil, false
}

// maxCacheEntry bounds an entry line; longer replies are not cached.
const maxCacheEntry = 16 << 20

// put appends e under key, in one write.
func (c *Cache) put(key string, e *cacheEntry) error {
	b, err := json.Marshal(e) // one line: JSON escapes newlines
	if err != nil || len(b)+len(key)+2 > maxCacheEntry {
		return err
	}
	line := make([]byte, 0, len(b)+len(key)+2)
	line = append(append(append(append(line, '\n'), key...), '\t'), b...)
	// Not through a link: an entry goes into the bucket, nowhere else.
	f, err := safeopen.NoFollow(c.bucket(key), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(line)
	if cerr := f.Close(); err == nil {
		err = cerr
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
	if s.TopLogprobs > 0 { // only then: the keys of other calls stay as they were
		field("top_logprobs=" + strconv.Itoa(s.TopLogprobs))
	}
}
