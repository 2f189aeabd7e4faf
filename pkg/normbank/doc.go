// Package normbank holds what the generation stages know before any LLM
// call: the norms of the NormGenesis release, culture profiles, and
// exemplars for refinement, all embedded, each replaceable by a user file.
//
// # Norms
//
// BuiltinNorms are the norms of the release (data/norms.jsonl): american,
// chinese and korean, 12 categories, 10 norms each, with two quirks of the
// release kept visible in data/README.md. The Korean files repeat one
// apology norm for two blocks of records (kept once: 9 Korean apology
// norms), and the Korean violation file has one persuasion norm that the
// adherence file does not and vice versa (both kept: 11 Korean persuasion
// norms). A norm's ID is record.NormID(culture, category, text). Norms
// selects by culture and categories; LoadNorms reads a user's list
// (ngseed --norms FILE: JSONL, Parquet or Arrow records with culture,
// category and norm).
//
// # Cultures
//
// A Culture profile (cultures/NAME.yaml) gives the dialogue language
// (lang), other languages its dialogues may be in (other_langs: Singapore's
// zh, ms and ta beside en; the language checks accept any, see Langs), the
// language of scenarios and situations (scenario_lang), common given and
// family names and their order, titles and address forms, and short
// guidance on honorifics and relational distance for the prompts. Fifteen
// are built in: the release's american, chinese and korean, with norms, and
// japanese, vietnamese, thai, indonesian, malaysian, filipino, singaporean,
// taiwanese and the other four countries of the PACT human study
// (brazilian, british, indian, south-african), without (their norms come
// from the user, --norms).
// The code knows no culture by name: a new culture is a new profile file.
// Profile(name) looks in UserCultureDir ($NG_CULTURES_DIR, else
// ~/.config/ngkit/cultures) before the built-in profiles; LoadProfile reads
// one file (--culture-file FILE). Profiles are validated on load: required
// keys, unknown keys, and language tags that pkg/lang can detect.
//
// # Exemplars
//
// BuiltinExemplars (data/exemplars.jsonl) are, for each culture, category
// and dialogue type of the release, the 3 release records chosen by this
// rule (applied by the generator, internal/normbankgen):
//
//  1. ngcat's NormGenesis import found no defect (no failed generation,
//     end marker, separator, header, literal \n, markdown, JSON residue,
//     merged or single-line turns, several dialogues, unplaced lines);
//  2. ngstats' turn audit found none: 5-15 turns, two speakers or more, no
//     empty turn, no marker in a turn, every turn that pkg/lang can tell
//     in the culture's language;
//  3. the scenario is not repeated in its file;
//  4. AuditExemplar passes: a scenario of 1-2 sentences and a situation of
//     3-5 (Sentences), on one line, without markers, in the profile's
//     scenario_lang, and turns that render and parse back unchanged.
//
// The records that pass are ranked by: no narration lines first, then the
// situation's distance from 4 sentences, the dialogue's distance from 8
// turns, and a fixed hash of the id (record.Unit); the best three with
// distinct norms are taken. An exemplar's ID is the id ngcat --from
// normgenesis gives the same release record; Source names the release
// file and index. The release has no Korean V2R file, so Korean has
// adherence and violation exemplars only; Exemplars falls back to the
// other types of the culture and category when a type has none.
// LoadExemplars reads a user's exemplars (ngrefine --exemplars FILE: any
// records with culture, category, scenario and situation).
//
// # Retrieval
//
// Nearest, or an Index built once per pool, returns the k exemplars most
// similar to a seed's SeedText(scenario, situation) by TF-IDF cosine over
// character 2- and 3-grams, which needs no tokenizer and works alike for
// English, Chinese and Korean; equal scores are ordered by id.
//
// The data of the release is CC BY-SA 4.0 (Hong, Choi, Kim, EMNLP 2025);
// see data/README.md.
package normbank
