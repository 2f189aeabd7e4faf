#!/usr/bin/env bash
# The Python readers ngkit's users load its files with, pinned
# (scripts/python/interop.txt), value by value against ngkit's JSONL of the
# same records (scripts/interop/py/values.py: compare.mjs's rule, nulls and
# empty lists included):
#
# - datasets.load_dataset(DIR) on every --hf folder ngcat writes (labelled
#   V2R dialogues from the demo model, the release sample with train/test
#   splits in several shards, PACT results, ngsim episodes, the synthetic
#   fixture with every field set, a folder merged from three --shard K/3
#   runs with its card by ngstats): configs, splits, features and sizes as
#   the card declares them; huggingface_hub's DatasetCard and
#   DatasetCardData parse the card without a warning, metadata unchanged;
# - Dataset.from_parquet on every -o x.parquet (records, --to messages,
#   --to prosocial), load_dataset("json") on every JSONL;
# - pyarrow and polars on Parquet (at every --zstd-level, 1 to 22), Arrow
#   IPC file and stream, JSONL and the --hf shards;
# - the other way: datasets, pyarrow and polars write ngkit's records
#   (to_parquet, to_json; Parquet, Arrow IPC, JSONL) and ngcat reads them
#   back.
#
# Skips with one line when python3 (>= 3.10, with venv) or PyPI is not to
# be had. Bounded to 10 minutes (about 1 when the venv exists).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${NGKIT_INTEROP_PY_BOUNDED:-}" ]; then
  export NGKIT_INTEROP_PY_BOUNDED=1
  exec timeout -k 10 600 bash "$0" "$@"
fi
export PATH="/usr/local/go/bin:$PATH"
skip() { echo "interop-py.sh: skipped: $*"; exit 0; }
command -v python3 >/dev/null || skip "no python3"
python3 -c 'import sys, venv; sys.exit(sys.version_info < (3, 10))' 2>/dev/null || skip "python3 is older than 3.10 or has no venv module"
log=$(mktemp)
venv=$(bash scripts/pyvenv.sh interop 2>"$log") || {
  why=$(grep -v '^\s*$' "$log" | tail -1); rm -f "$log"
  skip "could not install scripts/python/interop.txt (no PyPI?): $why"
}
rm -f "$log"
py="$venv/bin/python"
here=$PWD/scripts/interop/py

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ngkit-interop-py.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
# Offline: nothing is fetched from the Hub; the caches die with $tmp.
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 HF_HUB_DISABLE_TELEMETRY=1 \
  HF_DATASETS_DISABLE_PROGRESS_BARS=1 HF_HOME="$tmp/hf-home" PYTHONDONTWRITEBYTECODE=1
go build -o "$tmp/ngkit" ./cmd/ngkit
ng() { "$tmp/ngkit" "$@"; }
cd "$tmp"

# The records: each kind ngkit makes, offline on the demo model.
demo() { NG_MODEL=demo ng "$@"; }
demo ngseed --culture korean --limit 1 --types adherence,violation,v2r -q | demo ngrefine -q | demo ngv2r -q | demo nglabel -q > v2r.jsonl
ng ngcat --from normgenesis "$OLDPWD"/testdata/normgenesis/*.json -q -o release.jsonl
demo ngseed --culture korean --limit 2 --types pact -q | demo ngpact -q > pact.jsonl
demo ngseed --culture korean --limit 2 --types episode -q | demo ngsim -q > sim.jsonl
(cd "$OLDPWD" && go run ./scripts/interop/mkfixture -dir "$tmp/fx" -n 1200)
cp fx/records.jsonl fixture.jsonl
for f in v2r release pact sim fixture; do
  [ -s $f.jsonl ] || { echo "interop-py.sh: $f.jsonl is empty"; exit 1; }
done
ng ngcat v2r.jsonl --to messages -q -o messages.jsonl
ng ngcat v2r.jsonl --to prosocial -q -o prosocial.jsonl

# 1. Hugging Face folders, loaded by datasets and huggingface_hub.
for f in v2r pact sim; do ng ngcat $f.jsonl -q --hf $f-hf --license cc-by-sa-4.0; done
ng ngcat fixture.jsonl -q --shard-mb 1 --hf fixture-hf
ng ngcat release.jsonl -q --split train=0.8,test=0.2 -o release-split.jsonl
ng ngcat release.jsonl -q --split train=0.8,test=0.2 --shard-mb 0.1 --hf release-hf --pretty-name "NormGenesis sample" --license cc-by-sa-4.0
for k in 0 1 2; do
  ng ngcat release.jsonl -q --split train=0.8,test=0.2 --shard "$k/3" --hf part-$k --license cc-by-sa-4.0
done
mkdir -p merged/data && cp part-*/data/*.parquet merged/data/
ng ngstats merged/data/*.parquet --card --license cc-by-sa-4.0 > merged/README.md

# -o x.parquet of each kind (records, --to messages, --to prosocial), and
# the Arrow IPC stream and file.
for f in v2r release pact sim fixture messages prosocial; do
  case $f in
    messages | prosocial) ng ngcat v2r.jsonl --to $f -q -o $f.parquet ;;
    *) ng ngcat $f.jsonl -q -o $f.parquet ;;
  esac
done
for f in v2r release pact sim; do
  ng ngcat $f.jsonl -q -o $f.arrows
  ng ngcat $f.jsonl -q -o $f.arrow
done
# Every --zstd-level a user may pick (1 to 22), on 300 records with every field.
ng ngcat fixture.jsonl -q --head 300 -o levels.jsonl
levels=()
for l in $(seq 1 22); do
  ng ngcat levels.jsonl -q --zstd-level "$l" -o "zstd-$l.parquet"
  levels+=("levels.jsonl:zstd-$l.parquet")
done

# 1. datasets and huggingface_hub: the folders by load_dataset and the card
# code, -o x.parquet by Dataset.from_parquet, the JSONL by
# load_dataset("json"). One process: datasets takes seconds to import.
checks=(folder:v2r.jsonl:v2r-hf folder:pact.jsonl:pact-hf folder:sim.jsonl:sim-hf
  folder:fixture.jsonl:fixture-hf folder:release-split.jsonl:release-hf folder:release-split.jsonl:merged
  parquet:levels.jsonl:zstd-1.parquet parquet:levels.jsonl:zstd-22.parquet)
for f in v2r release pact sim fixture messages prosocial; do
  checks+=("parquet:$f.jsonl:$f.parquet" "json:$f.jsonl:$f.jsonl")
done
"$py" "$here/hf.py" run "${checks[@]}"

# 2. pyarrow and polars on every file kind: Parquet (-o at every zstd
# level, and the shards of --hf folders), Arrow IPC stream and file, JSONL.
# (mkfixture wrote fx/records.* with the writers ngcat -o uses.)
files=("${levels[@]}")
for f in v2r release pact sim; do
  files+=("$f.jsonl:$f.parquet" "$f.jsonl:$f.arrows" "$f.jsonl:$f.arrow" "$f.jsonl:$f.jsonl")
done
files+=(fixture.jsonl:fx/records.parquet fixture.jsonl:fx/records.arrows fixture.jsonl:fx/records.arrow
  fixture.jsonl:fixture.jsonl "fixture.jsonl:fixture-hf/data/*.parquet" "release.jsonl:merged/data/*.parquet"
  "release.jsonl:release-hf/data/*.parquet" messages.jsonl:messages.parquet prosocial.jsonl:prosocial.parquet)
"$py" "$here/readers.py" "${files[@]}"

# 3. The other way: datasets writes ngkit's records (to_parquet, to_json,
# from a dataset loaded from the Parquet and from the JSONL), ngcat reads
# them back.
back=()
for f in v2r fixture; do
  "$py" "$here/hf.py" write $f.parquet $f.jsonl by-datasets-$f
  for w in by-datasets-$f/*; do
    ng ngcat "$w" -q > "$w.back"
    back+=("back:$f.jsonl:$w.back")
  done
  # Parquet from a dataset loaded from ngkit's Parquet: the same bytes.
  cmp by-datasets-$f/from-parquet.parquet.back $f.jsonl \
    || { echo "interop-py.sh: ngcat read datasets' to_parquet of $f.parquet back differently"; exit 1; }
done
# The rest went through datasets' JSON code: the same values.
"$py" "$here/hf.py" run "${back[@]}"
# And pyarrow and polars write ngkit's records (Parquet, Arrow IPC file and
# stream, JSONL; from the Parquet, and from the JSONL with the schema they
# infer): ngcat reads each back as the same bytes of JSONL.
"$py" "$here/readers.py" --write fixture.parquet fixture.jsonl by-python
for w in by-python/*; do
  ng ngcat "$w" -q > "$w.back"
  cmp "$w.back" fixture.jsonl || { echo "interop-py.sh: ngcat read $w back differently"; exit 1; }
done
echo "interop-py.sh: OK ($("$py" -c 'import datasets, huggingface_hub, pyarrow, polars; print(f"datasets {datasets.__version__}, huggingface_hub {huggingface_hub.__version__}, pyarrow {pyarrow.__version__}, polars {polars.__version__}")'))"
