package hf

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// CardInfo is what a dataset card says about the data. Card fills the
// fields left empty with defaults.
type CardInfo struct {
	PrettyName string
	// License is a Hub licence id (cc-by-sa-4.0, apache-2.0, ...; see
	// CheckLicense); "" is "unknown". LicenseName and LicenseLink go with
	// "other".
	License, LicenseName, LicenseLink string
	// Languages are ISO 639 codes (en, zh, ko; see LanguageCode).
	Languages []string
	// TaskCategories and Tags are Hub tags; nil means DefaultTaskCategories
	// and DefaultTags.
	TaskCategories []string
	Tags           []string
	// Splits in order; each split's files are data/<name>-*.
	Splits []SplitInfo
	// Features of the rows; nil means Features(), the export's own rows.
	Features []Feature
	// DownloadSize is the total size of the data files in bytes (0: not
	// given).
	DownloadSize int64
	// Demo is the number of records the built-in demo model made
	// (record.IsDemo): the card says first that the data is a demo.
	Demo int64
	// Unlabelled: no record carries turn labels, so the card does not
	// promise them.
	Unlabelled bool
}

// SplitInfo is one split of a card.
type SplitInfo struct {
	Name        string
	NumExamples int64
	// Files is the number of data files (shards); 0 when not known.
	Files int
	// NumBytes is the split's uncompressed size (estimated); 0 when not
	// known.
	NumBytes int64
}

// Defaults of CardInfo.
var (
	DefaultTaskCategories = []string{"text-generation", "text-classification"}
	DefaultTags           = []string{"dialogue", "social-norms", "culture", "ngkit"}
)

// DataDir is the folder of the data files, relative to the card.
const DataDir = "data"

// splitName is the datasets library's rule for split names; it also keeps
// the data_files globs (data/<split>-*) from matching another split's files.
var splitName = regexp.MustCompile(`^\w+(\.\w+)*$`)

// CheckSplitName tells whether name can name a split on the Hub.
func CheckSplitName(name string) error {
	if !splitName.MatchString(name) {
		return fmt.Errorf("split name %q: the Hub wants letters, digits and underscores (dots between them)", name)
	}
	return nil
}

// SizeCategory is the Hub's size_categories bucket of n examples.
func SizeCategory(n int64) string {
	switch {
	case n < 1_000:
		return "n<1K"
	case n < 10_000:
		return "1K<n<10K"
	case n < 100_000:
		return "10K<n<100K"
	case n < 1_000_000:
		return "100K<n<1M"
	case n < 10_000_000:
		return "1M<n<10M"
	case n < 100_000_000:
		return "10M<n<100M"
	case n < 1_000_000_000:
		return "100M<n<1B"
	case n < 10_000_000_000:
		return "1B<n<10B"
	case n < 100_000_000_000:
		return "10B<n<100B"
	case n < 1_000_000_000_000:
		return "100B<n<1T"
	}
	return "n>1T"
}

// The card's YAML front matter, in the order the Hub shows it.
type cardMeta struct {
	PrettyName      string       `yaml:"pretty_name,omitempty"`
	License         string       `yaml:"license"`
	LicenseName     string       `yaml:"license_name,omitempty"`
	LicenseLink     string       `yaml:"license_link,omitempty"`
	Language        []string     `yaml:"language,omitempty"`
	Multilinguality string       `yaml:"multilinguality,omitempty"`
	TaskCategories  []string     `yaml:"task_categories,omitempty"`
	Tags            []string     `yaml:"tags,omitempty"`
	SizeCategories  []string     `yaml:"size_categories"`
	Configs         []cardConfig `yaml:"configs"`
	DatasetInfo     cardDataset  `yaml:"dataset_info"`
}

type cardConfig struct {
	ConfigName string          `yaml:"config_name"`
	DataFiles  []cardDataFiles `yaml:"data_files"`
}

type cardDataFiles struct {
	Split string `yaml:"split"`
	Path  string `yaml:"path"`
}

type cardDataset struct {
	Features     []Feature   `yaml:"features"`
	Splits       []cardSplit `yaml:"splits"`
	DownloadSize int64       `yaml:"download_size,omitempty"`
	DatasetSize  int64       `yaml:"dataset_size,omitempty"`
}

// cardSplit is a split as push_to_hub writes it: num_bytes is the split's
// size in memory (here ngkit's estimate of the uncompressed columns, see
// recio.ApproxSize, or the files' uncompressed size from their footers),
// dataset_size their sum. num_bytes is always written, 0 when not known:
// the datasets library (5.2) ignores every split's figures, with a
// warning, when one split lacks it.
type cardSplit struct {
	Name        string `yaml:"name"`
	NumBytes    int64  `yaml:"num_bytes"`
	NumExamples int64  `yaml:"num_examples"`
}

// Card renders a dataset card (README.md): the YAML front matter the Hub
// and the datasets library read (licence, languages, size category,
// configs with the data files of each split, features, split sizes), then
// body, Markdown; an empty body is DefaultBody(info).
func Card(info CardInfo, body string) ([]byte, error) {
	info = withDefaults(info)
	if len(info.Splits) == 0 {
		return nil, fmt.Errorf("dataset card: no splits")
	}
	if err := CheckLicense(info.License, info.LicenseName, info.LicenseLink); err != nil {
		return nil, fmt.Errorf("dataset card: %w", err)
	}
	for _, l := range info.Languages {
		if code, err := LanguageCode(l); err != nil || code != l {
			return nil, fmt.Errorf("dataset card: language %q is not an ISO 639-1/2/3 code as the card wants it", l)
		}
	}
	if info.Features == nil {
		f, err := Features()
		if err != nil {
			return nil, err
		}
		info.Features = f
	}
	meta := cardMeta{
		PrettyName:     info.PrettyName,
		License:        info.License,
		LicenseName:    info.LicenseName,
		LicenseLink:    info.LicenseLink,
		Language:       info.Languages,
		TaskCategories: info.TaskCategories,
		Tags:           info.Tags,
		Configs:        []cardConfig{{ConfigName: "default"}},
		DatasetInfo:    cardDataset{Features: info.Features, DownloadSize: info.DownloadSize},
	}
	switch {
	case len(info.Languages) == 1:
		meta.Multilinguality = "monolingual"
	case len(info.Languages) > 1:
		meta.Multilinguality = "multilingual"
	}
	var total int64
	seen := map[string]bool{}
	for _, s := range info.Splits {
		if err := CheckSplitName(s.Name); err != nil {
			return nil, err
		}
		if seen[s.Name] {
			return nil, fmt.Errorf("dataset card: split %q named twice", s.Name)
		}
		seen[s.Name] = true
		total += s.NumExamples
		meta.Configs[0].DataFiles = append(meta.Configs[0].DataFiles, cardDataFiles{s.Name, SplitGlob(s.Name)})
		meta.DatasetInfo.Splits = append(meta.DatasetInfo.Splits, cardSplit{s.Name, s.NumBytes, s.NumExamples})
		meta.DatasetInfo.DatasetSize += s.NumBytes
	}
	meta.SizeCategories = []string{SizeCategory(total)}

	var b bytes.Buffer
	b.WriteString("---\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(meta); err != nil {
		return nil, fmt.Errorf("dataset card: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("dataset card: %w", err)
	}
	b.WriteString("---\n\n")
	if body == "" {
		body = DefaultBody(info)
	}
	b.WriteString(strings.TrimSpace(body))
	b.WriteString("\n")
	return b.Bytes(), nil
}

// SplitGlob is the data_files pattern of a split, relative to the card.
func SplitGlob(split string) string { return DataDir + "/" + split + "-*" }

// ShardName is the Hub's name of shard k (from 0) of n of a split:
// train-00000-of-00003.parquet.
func ShardName(split string, k, n int) string {
	return fmt.Sprintf("%s-%05d-of-%05d.parquet", split, k, n)
}

func withDefaults(info CardInfo) CardInfo {
	if info.License == "" {
		info.License = "unknown"
	}
	if info.TaskCategories == nil {
		info.TaskCategories = DefaultTaskCategories
	}
	if info.Tags == nil {
		info.Tags = DefaultTags
	}
	return info
}

// DefaultBody is the card's body when no statistics report is given: what
// the data is, its splits, how to load it and how its columns are laid out.
func DefaultBody(info CardInfo) string {
	info = withDefaults(info)
	var b strings.Builder
	name := info.PrettyName
	if name == "" {
		name = "Dataset"
	}
	fmt.Fprintf(&b, "# %s\n\n", name)
	if info.Demo > 0 {
		fmt.Fprintf(&b, "**Demo data, not a dataset:** %d of the records were made by ngkit's built-in demo model (`--model demo`), "+
			"which answers every call with canned text of the NormGenesis release.\n\n", info.Demo)
	}
	labels := ", turn-level labels"
	if info.Unlabelled {
		labels = ""
	}
	b.WriteString("Norm-aware dialogues in the [ngkit](https://github.com/ngkit/ngkit) record format " +
		"(NormGenesis style: norms, scenarios, adherence, violation and violation-to-resolution dialogues" +
		labels + "), exported with `ngcat --hf`.\n\n")
	b.WriteString("| split | examples | files |\n|---|---:|---:|\n")
	var total int64
	for _, s := range info.Splits {
		files := "?"
		if s.Files > 0 {
			files = fmt.Sprint(s.Files)
		}
		fmt.Fprintf(&b, "| %s | %d | %s |\n", cell(s.Name), s.NumExamples, files)
		total += s.NumExamples
	}
	fmt.Fprintf(&b, "| **total** | %d | |\n\n", total)
	if len(info.Languages) > 0 {
		fmt.Fprintf(&b, "Languages: %s. Licence: %s.\n\n", strings.Join(info.Languages, ", "), info.License)
	}
	first := "train"
	if len(info.Splits) > 0 {
		first = info.Splits[0].Name
	}
	fmt.Fprintf(&b, "## Loading\n\n```python\nfrom datasets import load_dataset\n\n"+
		"ds = load_dataset(\"path/to/this/folder\")  # or the Hub id, e.g. \"user/%s\"\n"+
		"print(ds[%q][0][\"turns\"][0])\n```\n\n", slug(name), first)
	b.WriteString("## Layout\n\n" +
		"One row per record. `turns` is a list of structs (`index`, `speaker`, `action`, `text`, `lang`, " +
		"`stage`, `labels`); `narration` holds the lines that belong to no speaker and `narration_at` " +
		"where each stands (the number of turns before it; without it, after the last turn). Label distributions " +
		"(`labels.norm_dist`, `labels.intent_dist`, ...) and `quality.explanations` are lists of " +
		"`{key, value}` sorted by key, because the datasets library cannot load Parquet maps. " +
		"Fields that no ngkit stage owns are kept in `extra`, a JSON object string.\n")
	return b.String()
}

// slug makes a Hub-style repository name out of a pretty name.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	out := strings.TrimSuffix(b.String(), "-")
	if out == "" {
		return "dataset"
	}
	return out
}
